from crewai.mcp.config import MCPServerStdio
from crewai.mcp.filters import StaticToolFilter, create_static_tool_filter

__all__ = ["MCPServerStdio", "StaticToolFilter", "create_static_tool_filter"]
