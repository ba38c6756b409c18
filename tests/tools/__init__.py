"""Server-side and client tools (gateway/tools): file_search, web_search, mcp, shell, connectors."""
