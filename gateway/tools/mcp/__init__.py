"""The `mcp` server-side tool: remote MCP servers (by URL or by registered connector) with approvals.

Modules: `tool` (`register(deps)` plugs the tool type into the engine's registry, from
`gateway/tools/builtin.py`; the address policy), `client` (sessions and their cache, the
`SessionPool` the process's `Runtime` owns and closes), `mapping` (configuration, names, filters,
item shapes), `executor` (what a run does with its servers). This package module imports nothing,
so the engine's deps can name `client.SessionPool` without a cycle.
"""
