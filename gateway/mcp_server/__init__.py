"""The MCP server over the knowledge base (issue #14): the gateway's vector stores, files and their
search offered to MCP clients (Claude Desktop, ChatGPT connectors and deep research, Codex, the
gateway's own `mcp` tool) over streamable HTTP at `/mcp` and over stdio (`responses-gateway mcp`).

Kept apart from `gateway/tools/mcp/`, which is the gateway's MCP *client*: the two share nothing but the SDK.

- `kb.py`       reading the knowledge base: search (only through `search_stores`), fetch, documents
- `memory.py`   writing it: add / update / delete documents, tags, retention and its sweep, export
- `crawl.py`    crawl_url / crawl_site through `gateway.net.webpages.PageReader`
- `tools.py`    the tool table: argument and result models (JSON Schemas), annotations, dispatch
- `server.py`   the SDK's low-level `Server`: tools, resources, list-changed announcements
- `http.py`     `/mcp` on the aiohttp server: the SDK's ASGI session manager bridged into aiohttp
- `stdio.py`    `responses-gateway mcp`
"""
