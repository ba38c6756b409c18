"""The server-side tool types this gateway ships, registered on the engine's tool registry.

Each tool module exposes `register(deps)`; adding a tool type is one line here.
"""

from __future__ import annotations

from gateway.engine import compaction
from gateway.engine.deps import EngineDeps
from gateway.tools import client_tools, shell_tools, tool_search
from gateway.tools.file_search import register as register_file_search
from gateway.tools.mcp.tool import register as register_mcp
from gateway.tools.web_search.tool import register as register_web_search


def register_builtin_tools(deps: EngineDeps) -> None:
    """Register every shipped server-side tool type on `deps.tools` (called once per process)."""
    register_web_search(deps)
    register_file_search(deps)
    register_mcp(deps)
    deps.tools.converters["compaction"] = compaction.replay  # what the model sees of a compacted history
    deps.tools.converters.update(client_tools.CONVERTERS)  # custom / local_shell history as function calls
    deps.tools.converters.update(shell_tools.CONVERTERS)  # shell / apply_patch history, the same
    deps.tools.converters.update(tool_search.CONVERTERS)  # searches too (their loaded tools stay offered)
    return None
