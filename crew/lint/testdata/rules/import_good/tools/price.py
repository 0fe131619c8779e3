from crewai.tools import BaseTool
from crewai_tools import MCPServerAdapter, SerperDevTool
from crewai.mcp import MCPServerStdio
