"""Outbound network: the address policy (SSRF guard) for aiohttp and httpx, the page reader."""
