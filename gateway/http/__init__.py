"""The aiohttp adapter: routes, JSON/SSE encoding and error rendering over the engine."""
