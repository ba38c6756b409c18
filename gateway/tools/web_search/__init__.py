"""Server-side web search: the `web_search` tool types (`tool`) over pluggable search providers
(`providers`). This package module imports nothing, so research can use the providers without
loading the tool (which names the engine's deps)."""
