"""The engine's spans, named and attributed by the OpenTelemetry GenAI semantic conventions.

    invoke_agent            one Responses run (the tool loop): gen_ai.response.id, gen_ai.conversation.id
      chat {model}          one backend call: request/response model, usage, finish reasons, the
                            replica (server.address/port), time to first chunk
      execute_tool {name}   one server-side tool call: gen_ai.tool.name/.call.id/.type, with the
                            tool's own child spans (MCP call, web search, file_search, page reads)

Both doors use these helpers (the HTTP door through `ResponseRun.run`, the ExtProc step by step),
so the two traces read alike. Every function here is called only when `tracing.ON`.
Message content is recorded only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
"""

from __future__ import annotations

import functools
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from gateway.common.jsonutil import dumps
from gateway.telemetry import tracing
from gateway.telemetry.presets import PresetCache

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from gateway.engine.turn import TurnAssembler
    from gateway.telemetry.tracing import Started

_time_ns = time.time_ns

# gen_ai.tool.type by Responses tool type: `extension` runs elsewhere (an MCP server, a search
# service), `datastore` reads the gateway's own stores.
TOOL_TYPES = {"mcp": "extension", "web_search": "extension", "web_search_preview": "extension"}
DATASTORE = frozenset({"file_search", "knowledge_graph", "memory"})


def provider_name(backend_api: str) -> str:
    """gen_ai.provider.name: vLLM (or any server of its API) behind the chat-completions adapter;
    the OpenAI Responses API behind the passthrough."""
    return "openai" if backend_api == "responses" else "vllm"


@functools.lru_cache(maxsize=64)  # one pool's few replica URLs, parsed once rather than per backend call
def server_of(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)


_backends: dict[int, tuple[Any, str, tuple[str, int]]] = {}  # id(settings) -> (settings, provider, server)


def backend_of(settings: Any) -> tuple[str, tuple[str, int]]:
    """gen_ai.provider.name and the replica (server.address/port) of a process's `Settings`, worked
    out once per settings object rather than per backend call (a property, a URL split and two
    calls each time, on the event loop of either door, #31). The settings object is kept with its
    entry, so its id is never another's."""
    hit = _backends.get(id(settings))
    if hit is not None and hit[0] is settings:
        return hit[1], hit[2]
    if len(_backends) >= 16:  # (tests make many processes' worth of settings)
        _backends.clear()
    provider, server = provider_name(settings.backend_api), server_of(settings.backend_base)
    _backends[id(settings)] = (settings, provider, server)
    return provider, server


_presets = PresetCache()  # (kind of span, what its preset depends on) -> its `Preset`
_REASONS: dict[str, tuple[str]] = {}  # finish reason -> the one tuple `chat` spans carry


def _reasons(reason: str) -> tuple[str]:
    """``(reason,)``, one tuple per reason for every span. Why (#31): a fresh tuple is tracked by the
    garbage collector until a collection meets it, and a dict holding a tracked value is tracked for
    good, so the span's attributes would be queued encoded on the loop (`LeanSpan._queue`) rather
    than as a record; a kept tuple of a string is untracked by the first collection it survives."""
    if len(_REASONS) >= 64:
        _REASONS.clear()
    made = _REASONS[reason] = (reason,)
    return made


def agent_span(*, response: dict[str, Any], provider: str, background: bool, conversation_id: str | None) -> Started:
    """`invoke_agent` for one run. A background run is a trace of its own, linked to the request
    that queued it (that request ends long before the run does)."""
    model = str(response.get("model") or "")
    preset = _presets.get(("agent", provider, model)) or _presets.make(
        ("agent", provider, model),
        "invoke_agent",
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": provider, "gen_ai.request.model": model},
    )
    attributes: dict[str, Any] = {"gen_ai.response.id": str(response["id"])}
    if conversation_id:
        attributes["gen_ai.conversation.id"] = conversation_id
    if background:
        link = tracing.current_link()
        return tracing.start_span(
            "invoke_agent",
            attributes=attributes,
            links=[link] if link else None,
            root=True,
            own=True,
            preset=preset,
        )
    return tracing.start_span("invoke_agent", attributes=attributes, own=True, preset=preset)


def end_agent(span: Started, response: dict[str, Any], error: Any = None) -> None:
    if not span.records:  # an unsampled span: no attributes to build (#31)
        return
    usage = response.get("usage") or {}
    attributes: dict[str, Any] = {  # set with the end in one `end_with` call
        "gen_ai.usage.input_tokens": int(usage.get("input_tokens") or 0),
        "gen_ai.usage.output_tokens": int(usage.get("output_tokens") or 0),
        "gateway.response.status": str(response.get("status")),
    }
    if error is None and response.get("status") == "cancelled":
        attributes["gateway.cancelled"] = True
    if error is not None:
        tracing.fail(span, error)
    span.end_with(attributes)  # type: ignore[attr-defined]  # (`tracing.start_span`'s spans have it)


class ChatSpan:
    """The `chat {model}` span of one backend call, with its time to first chunk."""

    __slots__ = ("first", "span", "token")

    def __init__(
        self,
        model: str,
        *,
        provider: str,
        server: tuple[str, int],
        items: list[dict[str, Any]] | None = None,
        parent: Span | None = None,
    ) -> None:
        self.first = 0  # time_ns of the first chunk (0: none yet)
        self.token: object | None = None
        key = ("chat", model, provider, server)
        preset = _presets.get(key) or _presets.make(
            key,
            f"chat {model}",
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": provider,
                "gen_ai.request.model": model,
                "server.address": server[0],
                "server.port": server[1],
            },
        )
        attributes: dict[str, Any] | None = None
        if tracing.CAPTURE_CONTENT and items is not None:
            attributes = {"gen_ai.input.messages": dumps(items).decode()}
        self.span = (
            tracing.start_span(preset.name, "client", attributes, parent=parent, own=True, preset=preset)
            if parent is not None
            else tracing.start_span(preset.name, "client", attributes, own=True, preset=preset)
        )

    def chunk(self) -> None:
        """A piece of output arrived; the first one's delay is the time to first chunk. Only its
        time is taken here: the attribute and the event are made in `end`, with the span's other
        end-of-call work (one touch of the span per call rather than two, #31)."""
        if not self.first:
            self.first = _time_ns()

    def end(self, turn: TurnAssembler | None, error: BaseException | None = None, served: str | None = None) -> None:
        """End the call's span. ``served`` (a fleet's `Affinity.served`, `pool/host:port`) names the
        replica that answered: with a fleet the span starts with the configured first replica, and
        only the call itself knows which one it reached (a pick, a retry, Envoy's fallback)."""
        s = self.span
        if not s.records:  # an unsampled span: no attributes to build (#31)
            return
        attributes: dict[str, Any] = {}  # set at once with the event and the end (one call), as in `end_agent`
        if served:
            host, _, port = served.rpartition("/")[2].rpartition(":")
            if host and port.isdigit():
                attributes["server.address"] = host.strip("[]")  # (an IPv6 host's brackets are the URL's)
                attributes["server.port"] = int(port)
        event: tuple[str, int] | None = None
        if (first := self.first) and (started := getattr(s, "start", 0)):  # (a recorded span's start, ns)
            attributes["gen_ai.response.time_to_first_chunk"] = max(first - started, 1) / 1e9
            event = ("gen_ai.first_chunk", first)
        if turn is not None:
            if usage := turn.usage:
                attributes["gen_ai.usage.input_tokens"] = int(usage.get("prompt_tokens") or 0)
                attributes["gen_ai.usage.output_tokens"] = int(usage.get("completion_tokens") or 0)
            if turn.finish_reason:
                reason = turn.finish_reason
                attributes["gen_ai.response.finish_reasons"] = _REASONS.get(reason) or _reasons(reason)
            if turn.response_model:
                attributes["gen_ai.response.model"] = turn.response_model
            if turn.calls or turn.server_calls:
                calls = [c.item.get("call_id") for c in turn.calls.values()]
                calls += [c.get("call_id") for c in turn.server_calls.values()]
                attributes["gateway.tool_call_ids"] = [str(c) for c in calls]
            if tracing.CAPTURE_CONTENT:
                attributes["gen_ai.output.messages"] = dumps(turn.items).decode()
        if error is not None:
            tracing.fail(s, error)
        s.end_with(attributes, event)  # type: ignore[attr-defined]


def tool_span(name: str, call_id: str, tool_type: str) -> Started:
    key = ("tool", name, tool_type)
    preset = _presets.get(key) or _presets.make(
        key,
        f"execute_tool {name}",
        {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.type": tool_type},
    )
    return tracing.start_span(preset.name, attributes={"gen_ai.tool.call.id": call_id}, own=True, preset=preset)


def tool_type_of(responses_type: str) -> str:
    if responses_type in DATASTORE:
        return "datastore"
    return TOOL_TYPES.get(responses_type, "extension")
