"""One model turn: the backends' deltas in, Responses output items and events out.

Backend adapters (chat completions, native responses, and the ExtProc's body translator) yield
`gateway.inference.deltas` values; `apply` feeds them to these few methods, so the grammar of the
emitted events lives in one place whatever the wire format.
"""

from __future__ import annotations

from typing import Any

from gateway.common.ids import call_id as new_call_id
from gateway.engine.citations import CitationFilter, CitationSources
from gateway.engine.events import EventBuilder, FunctionCallItem, ReasoningItem, TextItem
from gateway.inference.deltas import Delta, Finished, ReasoningDelta, TextDelta, ToolCallDelta, Usage
from gateway.tools.client_tools import ClientTools, CustomToolCallItem, LocalShellCallItem
from gateway.tools.shell_tools import ApplyPatchCallItem, ShellCallItem
from gateway.tools.tool_search import ToolSearchCallItem

CallItem = (
    FunctionCallItem | CustomToolCallItem | LocalShellCallItem | ShellCallItem | ApplyPatchCallItem | ToolSearchCallItem
)


class TurnAssembler:
    def __init__(
        self,
        events: EventBuilder,
        server_names: frozenset[str] = frozenset(),
        citations: CitationSources | None = None,
        client: ClientTools | None = None,
        summarize: bool = False,
    ) -> None:
        self.events = events
        self.summarize = summarize  # reasoning is also given as the reasoning item's summary
        self.client = client  # custom / local_shell / namespaced tools: their calls' item types
        # With sources in play, `[n]` markers become annotations and never reach the text deltas.
        self._filter = CitationFilter(citations) if citations else None
        # Calls to server-side tools are collected silently: the tool's executor emits its own items.
        self.server_names = server_names
        self.server_calls: dict[int, dict[str, Any]] = {}
        self._text: TextItem | None = None
        self._reasoning: ReasoningItem | None = None
        self.calls: dict[int, CallItem] = {}
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self.response_model: str | None = None  # the model the backend says answered (tracing)
        self.items: list[dict[str, Any]] = []  # every item this turn produced, in output order
        self.closed = False

    # -- deltas ------------------------------------------------------------------------------------
    def apply(self, deltas: list[Delta]) -> None:
        """What a backend yielded for one read of its reply, in order."""
        for d in deltas:
            if isinstance(d, TextDelta):
                self.text(d.text, d.logprobs)
            elif isinstance(d, ReasoningDelta):
                self.reasoning(d.text)
            elif isinstance(d, ToolCallDelta):
                self.tool_call(d.index, d.call_id, d.name, d.arguments)
            elif isinstance(d, Finished):
                self.finish(d.reason)
                if d.model is not None:
                    self.response_model = d.model
            elif isinstance(d, Usage):
                self.set_usage(d.usage)

    def reasoning(self, delta: str) -> None:
        if not delta:
            return
        if self._reasoning is None:
            self._close_text()
            self._reasoning = ReasoningItem(self.events, self.summarize)
            self.items.append(self._reasoning.item)
        self._reasoning.delta(delta)

    def text(self, delta: str, logprobs: list[dict[str, Any]] | None = None) -> None:
        if not delta:
            return
        if self._text is None:
            self._close_reasoning()
            self._text = TextItem(self.events)
            self.items.append(self._text.item)
        if logprobs:
            self._text.add_logprobs(logprobs)
        if self._filter is None:
            self._text.delta(delta)
            return
        clean, annotations = self._filter.feed(delta)
        self._emit_text(self._text, clean, annotations)

    @staticmethod
    def _emit_text(item: TextItem, clean: str, annotations: list[dict[str, Any]]) -> None:
        if clean:
            item.delta(clean)
        for annotation in annotations:
            item.annotate(annotation)

    def tool_call(self, index: int, call_id: str | None, name: str | None, arguments: str | None) -> None:
        hidden = self.server_calls.get(index)
        if hidden is not None or (index not in self.calls and name in self.server_names):
            if hidden is None:
                hidden = {"type": "function_call", "call_id": call_id or new_call_id(), "name": name, "arguments": ""}
                self.server_calls[index] = hidden
            hidden["arguments"] += arguments or ""
            return
        call = self.calls.get(index)
        if call is None:
            self._close_reasoning()
            self._close_text()
            call = self._new_call(call_id or new_call_id(), name)
            self.calls[index] = call
            self.items.append(call.item)
        elif name and isinstance(call, FunctionCallItem) and not call.item["name"]:
            call.item["name"] = name
        if arguments:
            call.delta(arguments)

    def _new_call(self, call_id: str, name: str | None) -> CallItem:
        offered = self.client.lookup(name) if self.client is not None else None
        if offered is None:
            return FunctionCallItem(self.events, call_id, name or "")
        if offered.kind == "custom":
            return CustomToolCallItem(self.events, call_id, offered)
        if offered.kind == "local_shell":
            return LocalShellCallItem(self.events, call_id)
        if offered.kind == "shell":
            return ShellCallItem(self.events, call_id)
        if offered.kind == "apply_patch":
            return ApplyPatchCallItem(self.events, call_id)
        if offered.kind == "tool_search":
            return ToolSearchCallItem(self.events, call_id)
        call = FunctionCallItem(self.events, call_id, offered.name, namespace=offered.namespace)
        return call

    def finish(self, reason: str | None) -> None:
        if reason:
            self.finish_reason = reason

    def set_usage(self, usage: dict[str, Any] | None) -> None:
        if usage:
            self.usage = usage

    # -- end of turn -------------------------------------------------------------------------------
    def close(self) -> None:
        """Close every open item; text cut by the token limit is `incomplete`, as OpenAI marks it."""
        if self.closed:
            return
        self.closed = True
        status = "incomplete" if self.finish_reason == "length" else "completed"
        if self._reasoning is not None:
            self._reasoning.close(
                "incomplete" if self._text is None and not self.calls and status != "completed" else "completed"
            )
            self._reasoning = None
        self._close_text(status)
        for index in sorted(self.calls):
            self.calls[index].close(status)

    def _close_text(self, status: str = "completed") -> None:
        if self._text is not None:
            if self._filter is not None:
                self._emit_text(self._text, *self._filter.flush())
                self._filter.text = ""  # annotation indexes are per message
            self._text.close(status)
            self._text = None

    def _close_reasoning(self) -> None:
        if self._reasoning is not None:
            self._reasoning.close()
            self._reasoning = None

    def abort(self) -> None:
        """The turn broke off (backend failure, cancellation): close what is open as incomplete."""
        self.finish_reason = "length"
        self.close()

    @property
    def function_calls(self) -> list[dict[str, Any]]:
        return [self.calls[i].item for i in sorted(self.calls)]
