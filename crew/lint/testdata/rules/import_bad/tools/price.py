from crewai_tools import BaseTool, SerperDevTool
from crewai.mcp import (
    MCPServerStdio,
    MCPServerAdapter,
)
