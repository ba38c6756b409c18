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

from gateway import loop
from gateway.config import Settings, load_settings

log = logging.getLogger("gateway.mcp_server")


async def serve_stdio(settings: Settings, project: str) -> None:
    from storage.scope import project_scope

    with project_scope(project):  # every store call below (and the tasks it starts) acts for `project`
        await _serve(settings)


async def _serve(settings: Settings) -> None:
    from mcp.server.stdio import stdio_server

    from gateway.bootstrap import build_deps
    from gateway.mcp_server.crawl import crawl_tools
    from gateway.mcp_server.kb import KnowledgeBase
    from gateway.mcp_server.memory import Memory, RetentionSweeper
    from gateway.mcp_server.server import KnowledgeServer
    from gateway.mcp_server.tools import ToolBox
    from gateway.retrieval.core import retrieval_of
    from gateway.retrieval.files import FilesService
    from gateway.retrieval.ingest import IngestionWorker

    deps, http = build_deps(settings)
    await deps.stores.open()
    retrieval = retrieval_of(deps)
    kb = KnowledgeBase(retrieval, settings)
    memory = Memory(kb)
    server = KnowledgeServer(ToolBox(kb, memory, crawl_tools(kb, memory)), settings)
    sweeper = RetentionSweeper(memory, settings.mcp_server_retention_sweep_seconds)
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
        await retrieval.start(IngestionWorker(retrieval, FilesService(retrieval).remove))
        sweeper.start()
        loop.add_signal_handler(signal.SIGHUP, reload)
        async with stdio_server() as (read, write):
            await server.server.run(read, write, server.init_options())
    finally:
        with contextlib.suppress(Exception):
            loop.remove_signal_handler(signal.SIGHUP)
        await sweeper.stop()
        await retrieval.stop()
        await http.close()
        await deps.stores.close()


def run_stdio(settings: Settings, project: str = "default") -> int:
    with contextlib.suppress(KeyboardInterrupt):
        loop.run(serve_stdio(settings, project), settings)
    return 0
