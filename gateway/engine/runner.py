"""The tool loop: model turns, and the server-side tool calls between them, as events.

A `ResponseRun` is a `RunLifecycle` (`run_lifecycle.py`: begin, the terminal status and storage,
the hand-back) whose output is the tool loop: the context it sends, the backend call of each turn
(`truncation: "auto"` retries), the turn's events, the server-side tools it builds and runs
concurrently between turns (their progress streams as it happens) and the budgets
(`max_output_tokens`, `max_tool_calls`). The HTTP adapter forwards its events as SSE or drains
them for a non-streaming reply; the ExtProc drives the same steps (`turn_request`, `new_turn`,
`end_turn`) but feeds backend bytes itself.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

from gateway import usage
from gateway.common.errors import InvalidRequest
from gateway.engine import compaction_run, spans
from gateway.engine.citations import CitationSources
from gateway.engine.context import EngineDeps, Prepared
from gateway.engine.events import Event
from gateway.engine.run_lifecycle import RunLifecycle
from gateway.engine.truncation import MAX_RETRIES, drop_oldest, overflow_share
from gateway.engine.turn import TurnAssembler
from gateway.inference.base import TurnRequest
from gateway.telemetry import tracing
from gateway.tools.client_tools import ClientTools, as_offered
from gateway.tools.registry import ServerTool, ServerToolPrelude
from gateway.tools.shell_tools import function_choice
from gateway.tools.tool_search import ServerToolSearch, ToolSearch

log = logging.getLogger(__name__)

MAX_TURNS = 32
LOGPROBS = "message.output_text.logprobs"


class ResponseRun(RunLifecycle):
    """A response whose output is the tool loop (`_produce`)."""

    def __init__(self, deps: EngineDeps, prepared: Prepared) -> None:
        super().__init__(deps, prepared)
        context = prepared.context_items()
        self.context: list[dict[str, Any]] = as_offered(deps.tools.expand(context))
        self.server_tools: list[ServerTool] = []
        self.tool_search = ToolSearch.from_request(prepared.req.tools or [], context)
        self._load_tools()
        self.server_calls_made = 0
        self.citations = CitationSources()  # sources server-side tools showed the model
        self._tool_kinds: dict[int, str] = {}  # id(server tool) -> its Responses tool type (span attributes)

    def _load_tools(self) -> None:
        """The client tools the model may call now: with `tool_search`, the deferred ones only once
        loaded (at the start from the context, then by each server-side search)."""
        tools = self.p.req.tools or []
        search = self.tool_search
        self.tools = tools if search is None else search.visible(tools)
        self.client_tools = ClientTools.from_request(self.tools)
        if search is not None and search.execution == "client":
            self.client_tools.offer_search(search.definition())

    def chat_span(self, model: str, *, under_run: bool = False) -> spans.ChatSpan:
        """A `chat {model}` span for the next backend call (tracing on): a child of the current
        span, or of the run's `invoke_agent` with ``under_run`` (the ExtProc, where that span is
        not current: named as the parent rather than made current around this call, #31)."""
        provider, server = spans.backend_of(self.deps.settings)
        return spans.ChatSpan(
            model,
            provider=provider,
            server=server,
            items=self.context,
            parent=self.trace_start() if under_run else None,
        )

    def turn_request(self, *, tools_allowed: bool = True) -> TurnRequest:
        req = self.p.req
        tools = [t for t in self.tools if t.get("type") == "function"] + self.client_tools.definitions
        for server_tool in self.server_tools:
            tools.extend(server_tool.definitions())
        remaining = None
        if req.max_output_tokens is not None:
            remaining = max(1, req.max_output_tokens - self._usage["out"])
        return TurnRequest(
            model=self.response["model"],
            instructions=req.instructions,
            items=self.context,
            tools=tools if tools_allowed else [],
            tool_choice=function_choice(req.tool_choice) if tools_allowed else None,
            parallel_tool_calls=req.parallel_tool_calls,
            temperature=req.temperature,
            top_p=req.top_p,
            presence_penalty=req.presence_penalty,
            frequency_penalty=req.frequency_penalty,
            max_output_tokens=remaining,
            text=self.response["text"] if req.text else None,
            reasoning=req.reasoning.model_dump(exclude_none=True) if req.reasoning else None,
            user=req.user or req.safety_identifier,
            top_logprobs=req.top_logprobs,
            logprobs=LOGPROBS in (req.include or ()),
            extras=req.backend_extras(),
            # A background response may be watched later (GET ?stream=true), so it streams too.
            stream=req.stream or req.background,
            affinity=self.affinity,
        )

    def new_turn(self) -> TurnAssembler:
        names = frozenset(d["name"] for t in self.server_tools for d in t.definitions())
        summary = self.p.req.reasoning.summary if self.p.req.reasoning else None
        return TurnAssembler(
            self.events, names, self.citations, self.client_tools, summarize=summary not in (None, "none")
        )

    def end_turn(self, turn: TurnAssembler) -> None:
        turn.close()
        usage.record(self.response.get("model"), turn.usage, source="responses", estimate=(self.context, turn.items))
        self.add_usage(turn.usage)
        self.context.extend(turn.items)

    # -- the tool loop (what `run` produces) ------------------------------------------------------
    async def _produce(self) -> AsyncIterator[Event]:
        """The tool loop: model turns, server-side calls between them (after compaction, if asked)."""
        async for event in compaction_run.before_turn(self):
            yield event
        if self.p.compact_now:  # a compaction_trigger: the compaction item is the whole answer
            return
        await self._build_server_tools()
        stop = False
        for server_tool in self.server_tools:
            if isinstance(server_tool, ServerToolPrelude):
                stop = bool(await server_tool.prelude(self)) or stop
            for event in self.events.drain():
                yield event
        tools_allowed = True
        for _ in range(0 if stop else MAX_TURNS):
            turn = self._turn = self.new_turn()
            async for event in self._model_turn(turn, tools_allowed):
                yield event
            self.end_turn(turn)
            for event in self.events.drain():
                yield event
            if turn.finish_reason == "length":
                for event in await self.finish("incomplete", incomplete_reason="max_output_tokens"):
                    yield event
                return
            if not turn.server_calls:
                break
            calls = asyncio.get_running_loop().create_task(self._run_server_calls(turn))
            async for event in self._drain_until(calls):
                yield event
            tools_allowed, stop = calls.result()
            if turn.calls or stop:  # client-side calls, or a call awaiting approval, end the loop
                break

    async def _model_turn(self, turn: TurnAssembler, tools_allowed: bool) -> AsyncIterator[Event]:
        """One backend call streamed into `turn`; with `truncation: "auto"`, a context that does not
        fit is retried without its oldest turns (see `engine/truncation.py`)."""
        for attempt in range(MAX_RETRIES + 1):
            # tracing on: this call's `chat` span is current, so the backend request carries it
            chat = self.chat_span(self.response["model"]) if tracing.ON else None
            token = tracing.attach(chat.span) if chat is not None else None
            error: BaseException | None = None
            try:
                async for deltas in self.deps.backend.turn_stream(self.turn_request(tools_allowed=tools_allowed)):
                    turn.apply(deltas)
                    if chat is not None:
                        chat.chunk()
                    for event in self.events.drain():
                        yield event
                return
            except InvalidRequest as exc:
                error = exc
                if exc.code != "context_length_exceeded" or self.p.req.truncation != "auto" or turn.items:
                    raise
                shorter = drop_oldest(self.context, overflow_share(exc.message))
                if shorter is None or attempt == MAX_RETRIES:
                    raise
                log.info(
                    "response %s: context too long, dropped %d oldest item(s)",
                    self.id,
                    len(self.context) - len(shorter),
                )
                self.context = shorter
            except Exception as exc:
                error = exc  # (the span's; the exception goes on)
                raise
            finally:
                if chat is not None:
                    tracing.detach(token)
                    chat.end(turn, error, self.affinity.served if self.deps.settings.backends else None)

    async def _build_server_tools(self) -> None:
        registry = self.deps.tools
        for tool in self.p.req.tools or []:
            if registry.is_server_side(tool):
                built = await registry.build(tool, self)
                self.server_tools.append(built)
                self._tool_kinds[id(built)] = str(tool.get("type"))
        if self.tool_search is not None and self.tool_search.execution == "server":
            self.server_tools.append(ServerToolSearch(self.tool_search, self._load_tools))
            self._tool_kinds[id(self.server_tools[-1])] = "tool_search"

    async def _drain_until(self, task: asyncio.Task[Any]) -> AsyncIterator[Event]:
        """Yield events while `task` runs, so tool progress streams as it happens."""
        while True:
            self.events.wakeup.clear()
            for event in self.events.drain():
                yield event
            if task.done():
                break
            waiter = asyncio.ensure_future(self.events.wakeup.wait())
            try:
                await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
            except asyncio.CancelledError:
                task.cancel()
                raise
            finally:
                waiter.cancel()
        for event in self.events.drain():
            yield event

    async def _run_server_calls(self, turn: TurnAssembler) -> tuple[bool, bool]:
        """Run this turn's server-side calls concurrently.

        Returns whether tools stay allowed (the `max_tool_calls` budget) and whether to stop.
        """
        budget = self.p.req.max_tool_calls
        calls = [turn.server_calls[i] for i in sorted(turn.server_calls)]
        stop = False

        async def one(call: dict[str, Any]) -> str:
            nonlocal stop
            if budget is not None and self.server_calls_made >= budget:
                return "Error: the maximum number of tool calls for this response has been reached."
            self.server_calls_made += 1
            tool = next(t for t in self.server_tools if t.handles(call["name"]))
            span = token = None
            if tracing.ON:  # this call's `execute_tool` span: the tool's own spans are its children
                kind = spans.tool_type_of(self._tool_kinds.get(id(tool), ""))
                span = spans.tool_span(call["name"], str(call["call_id"]), kind)
                token = tracing.attach(span)
            try:
                result = await tool.run(call, self.events)
            except Exception as exc:  # an executor's bug must not fail the response
                log.exception("server-side tool %s failed", call["name"])
                if span is not None:
                    tracing.fail(span, exc)
                return f"Error: the tool failed ({type(exc).__name__})."
            finally:
                if span is not None:
                    tracing.detach(token)
                    span.end()
            stop = stop or result.stop
            return result.model_output

        outputs = await asyncio.gather(*(one(c) for c in calls))
        # one assistant turn with every call, then every result: how chat templates expect parallel calls
        self.context.extend(calls)
        self.context.extend(
            {"type": "function_call_output", "call_id": call["call_id"], "output": output}
            for call, output in zip(calls, outputs, strict=True)
        )
        return budget is None or self.server_calls_made < budget, stop
