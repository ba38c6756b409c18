"""Server-side web search: the `web_search` tool types over pluggable search providers."""

from gateway.websearch.tool import WEB_SEARCH_TYPES, check_tool, register

__all__ = ["WEB_SEARCH_TYPES", "check_tool", "register"]
