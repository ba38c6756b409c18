"""`responses-gateway mcp`: the knowledge-base MCP server on stdin/stdout, for desktop clients.

It opens the same database as a running gateway (SQLite in WAL mode: readers and one writer at a
time across processes, `busy_timeout` for the rest) or works on its own, and runs its own
ingestion worker so documents it adds are indexed without a gateway running. Logs go to stderr:
stdout is the protocol.

It acts for one project (`--project`, default `default`): what an API key of that project would see
over HTTP. SIGHUP re-reads the settings (environment and the `GATEWAY_CONFIG` YAML file) and applies what the
tool list depends on (read-only, crawl); a changed list is announced to the client
(`notifications/tools/list_changed`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

from gateway.config import Settings, load_settings
from gateway.mcp_server.crawl import crawl_tools
from gateway.mcp_server.knowledge_base import KnowledgeBase
from gateway.mcp_server.memory import Memory, RetentionSweeper
from gateway.mcp_server.server import KnowledgeServer
from gateway.mcp_server.tools import ToolBox
from gateway.process import loop
from gateway.runtime import Door, Runtime
from storage.scope import project_scope

log = logging.getLogger("gateway.mcp_server")


async def serve_stdio(settings: Settings, project: str) -> None:
    with project_scope(project):  # every store call below (and the tasks it starts) acts for `project`
        async with Runtime.start(settings, Door.MCP) as runtime:  # ingestion runs inside it
            await _serve(runtime)


async def _serve(runtime: Runtime) -> None:
    from mcp.server.stdio import stdio_server  # the SDK takes ~2 s to import: only this command needs it

    kb = KnowledgeBase(runtime.retrieval, runtime.settings)
    memory = Memory(kb)
    server = KnowledgeServer(ToolBox(kb, memory, crawl_tools(kb, memory)), runtime.settings)
    sweeper = RetentionSweeper(memory, runtime.settings.mcp_server_retention_sweep_seconds)
    loop = asyncio.get_running_loop()
    reloads: set[asyncio.Task[bool]] = set()

    def reload() -> None:
        try:
            fresh = load_settings()
        except ValueError as exc:
            log.warning("settings not reloaded: %s", exc)
            return
        task = loop.create_task(server.reconfigure(fresh))
        reloads.add(task)
        task.add_done_callback(reloads.discard)

    try:
        sweeper.start()
        loop.add_signal_handler(signal.SIGHUP, reload)
        async with stdio_server() as (read, write):
            await server.server.run(read, write, server.init_options())
    finally:
        with contextlib.suppress(Exception):
            loop.remove_signal_handler(signal.SIGHUP)
        await sweeper.stop()


def run_stdio(settings: Settings, project: str = "default") -> int:
    with contextlib.suppress(KeyboardInterrupt):
        loop.run(serve_stdio(settings, project), settings)
    return 0
