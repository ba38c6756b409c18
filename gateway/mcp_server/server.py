"""The SDK's low-level `Server` over the knowledge base: tools, `kb://` resources, list changes.

Why the low-level server rather than `MCPServer`: the tool list depends on configuration that can
change while the process runs (crawl tools only when crawling is allowed; no write tools in a
read-only server), results are shaped exactly as deep research expects, and the schemas come from
our own pydantic models; the low-level handlers give all of that without fighting a decorator API.

List changes: `reconfigure()` recomputes the offered tools; when the names change it announces
`notifications/tools/list_changed` to every handshake-era session that has talked to this server
(stdio, stateful HTTP) and publishes `ToolsListChanged` on the subscription bus that
2026-07-28 clients' `subscriptions/listen` streams read.
"""

from __future__ import annotations

import base64
import logging
import weakref
from typing import Any

import mcp_types as types
import orjson
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged

from gateway.common.errors import APIError
from gateway.config import Settings
from gateway.mcp_server.knowledge_base import KnowledgeBase, ToolFailure
from gateway.mcp_server.tools import Tool, ToolBox

log = logging.getLogger("gateway.mcp_server")

RESOURCE_PAGE = 50
INSTRUCTIONS = (
    "The Responses Gateway knowledge base: documents stored in vector stores. Use `search` then `fetch` "
    "(or `search_knowledge` for passages with scores); documents are also resources kb://{vector_store_id}/{file_id}."
)


def _tool_result(structured: dict[str, Any]) -> types.CallToolResult:
    text = orjson.dumps(structured).decode()
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=structured)


def _tool_error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


def _definition(tool: Tool) -> types.Tool:
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=tool.args.model_json_schema(),
        output_schema=tool.output.model_json_schema() if tool.output is not None else None,
        annotations=types.ToolAnnotations(
            read_only_hint=tool.read_only,
            destructive_hint=tool.destructive,
            idempotent_hint=tool.idempotent,
            open_world_hint=tool.open_world,
        ),
    )


def _encode_cursor(store_index: int, after: str | None) -> str:
    return base64.urlsafe_b64encode(orjson.dumps([store_index, after])).decode()


def _decode_cursor(cursor: str) -> tuple[int, str | None]:
    try:
        index, after = orjson.loads(base64.urlsafe_b64decode(cursor.encode()))
        if isinstance(index, int) and index >= 0 and (after is None or isinstance(after, str)):
            return index, after
    except (ValueError, TypeError):
        pass
    from mcp.shared.exceptions import MCPError

    # a JSON-RPC error of its own code: a plain exception left the SDK's code 0, not a JSON-RPC code (#26)
    raise MCPError(types.INVALID_PARAMS, "Invalid cursor.")


class KnowledgeServer:
    """One per process: the tool box, the current tool set, and the SDK server that serves it."""

    def __init__(self, toolbox: ToolBox, settings: Settings) -> None:
        self.toolbox = toolbox
        self.kb: KnowledgeBase = toolbox.kb
        self.bus = InMemorySubscriptionBus()
        self.listen = ListenHandler(self.bus)
        self.sessions: weakref.WeakSet[Any] = weakref.WeakSet()
        self.tools: dict[str, Tool] = {}
        self.definitions: dict[str, types.Tool] = {}  # built once per tool set: schemas cost ~2 ms each
        self._configure(settings)
        self.server: Server[Any] = Server(
            "responses-gateway-knowledge",
            version="1",
            title="Responses Gateway knowledge base",
            instructions=INSTRUCTIONS,
            get_tool_input_schema=self._input_schema,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_list_resources=self._list_resources,
            on_list_resource_templates=self._list_templates,
            on_read_resource=self._read_resource,
            on_subscriptions_listen=self.listen,
        )
        # The SDK's default middleware is an OpenTelemetry span per message (a no-op without an
        # exporter, still work on every call); the gateway has its own metrics and access log.
        self.server.middleware = []

    def init_options(self) -> Any:
        return self.server.create_initialization_options(NotificationOptions(tools_changed=True))

    def _configure(self, settings: Settings) -> None:
        offered = self.toolbox.offered(write=not settings.mcp_server_read_only, crawl=settings.mcp_server_crawl)
        self.tools = {t.name: t for t in offered}
        self.definitions = {t.name: _definition(t) for t in offered}

    def _input_schema(self, name: str) -> dict[str, Any] | None:
        """For the SDK's `Mcp-Param-*` header check (2026-07-28), instead of running `tools/list`."""
        found = self.definitions.get(name)
        return found.input_schema if found is not None else None

    async def reconfigure(self, settings: Settings) -> bool:
        """Apply new settings; announce the change when the tool list changed. True if it did."""
        before = set(self.tools)
        self._configure(settings)
        if set(self.tools) == before:
            return False
        log.info("MCP server tools changed: %s", ", ".join(sorted(self.tools)))
        await self.bus.publish(ToolsListChanged())
        for session in list(self.sessions):
            try:
                await session.send_tool_list_changed()
            except Exception as exc:  # a connection that went away meanwhile
                log.info("could not announce the tool change: %s", type(exc).__name__)
                self.sessions.discard(session)
        return True

    def _remember(self, ctx: Any) -> None:
        """Keep the client's connection (not the per-request session) for change announcements."""
        connection = getattr(getattr(ctx, "session", None), "_connection", None)
        if connection is not None and hasattr(connection, "send_tool_list_changed"):
            try:
                self.sessions.add(connection)
            except TypeError:
                pass

    # -- handlers ----------------------------------------------------------------------------------
    async def _list_tools(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        self._remember(ctx)
        return types.ListToolsResult(tools=list(self.definitions.values()))

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        self._remember(ctx)
        tool = self.tools.get(params.name)
        if tool is None:
            return _tool_error(f"Unknown tool '{params.name[:100]}'. Available: {', '.join(self.tools)}.")
        structured, error = await self.toolbox.call(tool, params.arguments)
        if error is not None or structured is None:
            return _tool_error(error or "The tool returned nothing.")
        return _tool_result(structured)

    async def _list_templates(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        template = types.ResourceTemplate(
            name="document",
            uri_template="kb://{vector_store_id}/{file_id}",
            description="A document of the knowledge base: its extracted text.",
            mime_type="text/plain",
        )
        return types.ListResourceTemplatesResult(resource_templates=[template])

    async def _list_resources(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        """Every document of every served store, RESOURCE_PAGE per page (cursor: store index + last id)."""
        index, after = _decode_cursor(params.cursor) if params is not None and params.cursor else (0, None)
        stores = await self.kb.readable_stores()
        resources: list[types.Resource] = []
        while index < len(stores) and len(resources) < RESOURCE_PAGE:
            docs, more = await self.kb.list_documents(
                stores[index], limit=RESOURCE_PAGE - len(resources), after=after, tag=None
            )
            resources.extend(
                types.Resource(
                    name=d.title,
                    uri=d.uri,
                    description=f"{d.filename} in {d.store_id}",
                    mime_type="text/plain",
                    size=d.bytes,
                )
                for d in docs
            )
            if more and docs:
                after = docs[-1].file_id
            else:
                index, after = index + 1, None
        next_cursor = _encode_cursor(index, after) if index < len(stores) else None
        return types.ListResourcesResult(resources=resources, next_cursor=next_cursor)

    async def _read_resource(self, ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        from mcp.shared.exceptions import MCPError

        uri = str(params.uri)
        parts = uri[len("kb://") :].split("/") if uri.startswith("kb://") else []
        if len(parts) != 2 or not all(parts):
            raise MCPError(types.INVALID_PARAMS, f"Unknown resource '{uri[:200]}': expected kb://{{store}}/{{file}}.")
        try:
            doc = await self.kb.document(parts[0], parts[1])
            text, _truncated = await self.kb.text(doc)
        except (ToolFailure, APIError) as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from None
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type="text/plain", text=text)]
        )
