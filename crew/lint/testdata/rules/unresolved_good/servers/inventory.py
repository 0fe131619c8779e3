print('an MCP server')
