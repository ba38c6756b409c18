"""The knowledge-base MCP server (gateway/mcp_server) over every transport."""
