"""A response run: the tool loop, the event stream it produces, and its persistence.

The run is an async generator of events. The HTTP adapter forwards them as SSE or drains them for
a non-streaming reply; the ExtProc drives the same steps but feeds backend bytes itself. Whatever
happens (backend failure, cancellation, a bug), `_finish` gives the response a terminal status and
stores it before the terminal event leaves, so a client that sees `response.completed` can retrieve
the response at once through either door.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from gateway import usage
from gateway.common.errors import STREAM_INTERRUPTED, APIError, BackendError, InvalidRequest, ServerError
from gateway.engine import compaction_run, spans
from gateway.engine.citations import CitationSources
from gateway.engine.context import EngineDeps, Prepared
from gateway.engine.events import Event, EventBuilder
from gateway.engine.owner import OWNER
from gateway.engine.requeue import request_body
from gateway.engine.truncation import MAX_RETRIES, drop_oldest, overflow_share
from gateway.engine.turn import TurnAssembler
from gateway.inference.base import TurnRequest
from gateway.inference.picker import Affinity
from gateway.telemetry import metrics, tracing
from gateway.tools.client_tools import ClientTools, as_offered
from gateway.tools.registry import ServerTool, ServerToolPrelude
from gateway.tools.shell_tools import function_choice
from gateway.tools.tool_search import ServerToolSearch, ToolSearch
from storage.base import LeaseLost, ResponseGone

log = logging.getLogger(__name__)

MAX_TURNS = 32
LOGPROBS = "message.output_text.logprobs"
LEASE_LOST_MESSAGE = "This gateway process lost its lease on the response (it was stalled); it was ended as failed."
TERMINAL_EVENT = {"completed": "response.completed", "incomplete": "response.incomplete", "failed": "response.failed"}


def interrupted() -> APIError:
    """How a foreground stream whose client went away ends, through either door: its generation is
    stopped (no GPU time for nobody) and it is stored `failed` with this reason."""
    return APIError(
        STREAM_INTERRUPTED,
        code="stream_interrupted",
        status=499,
    )


def affinity_key(prepared: Prepared) -> str | None:
    """The chain a response continues, the same on every turn of it and in every process (#27): its
    `prompt_cache_key`, else its conversation, else the chain's first item (a chain of
    `previous_response_id`s keeps its first input's id as the first item of every later history).
    It places a chain on the consistent-hash ring when its stored replica is down or over the load
    bound, or none is stored (a chain from before #27's stored affinity). A chain that starts here
    (no history, no `prompt_cache_key`) has none: it goes to the least-loaded replica."""
    req = prepared.req
    if req.prompt_cache_key:
        return "key:" + req.prompt_cache_key
    if not prepared.history:  # a new chain: no key, so it goes to the least-loaded replica
        return None
    if prepared.conversation_id:
        return "conversation:" + prepared.conversation_id
    first = prepared.history[0].get("id") if isinstance(prepared.history[0], dict) else None
    return f"chain:{first}" if isinstance(first, str) else None


class ResponseRun:
    def __init__(self, deps: EngineDeps, prepared: Prepared) -> None:
        self.deps = deps
        self.p = prepared
        self.response = prepared.response
        self.events = EventBuilder(self.response, keep_log=prepared.req.background)
        context = prepared.context_items()
        self.context: list[dict[str, Any]] = as_offered(deps.tools.expand(context))
        self.affinity = Affinity(affinity_key(prepared), prepared.replica)
        self.error: APIError | None = None
        self.server_tools: list[ServerTool] = []
        self.tool_search = ToolSearch.from_request(prepared.req.tools or [], context)
        self._load_tools()
        self.server_calls_made = 0
        self.citations = CitationSources()  # sources server-side tools showed the model
        self.cancel_status = "cancelled"  # what a cancellation means; shutdown makes it "failed"
        self.cancel_error: APIError | None = None  # the error a "failed" cancellation stores
        self._usage = {"in": 0, "cached": 0, "out": 0, "reasoning": 0}
        self._persisted_start = False
        self.resumed = False  # a handed-back background run run again: its start is stored already
        self._turn: TurnAssembler | None = None  # the model turn in progress (aborted if the run fails)
        self.finished = False
        self.span: Any = None  # the run's `invoke_agent` span while it runs (tracing on)
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

    @property
    def id(self) -> str:
        return str(self.response["id"])

    # -- steps (shared with the ExtProc) -----------------------------------------------------------
    def trace_start(self) -> Any:
        """The run's `invoke_agent` span (started once; call only when tracing is on)."""
        if self.span is None:
            self.span = spans.agent_span(
                response=self.response,
                provider=spans.backend_of(self.deps.settings)[0],
                background=bool(self.p.req.background),
                conversation_id=self.p.conversation_id,
            )
        return self.span

    def trace_end(self) -> None:
        if self.span is not None:
            span, self.span = self.span, None
            spans.end_agent(span, self.response, self.error)

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

    async def begin(self, persist: bool) -> list[Event]:
        """Store the response as queued/in progress (when it must survive a disconnect) and announce it."""
        if tracing.ON:
            self.trace_start()
        if persist and self.p.stored and not self.resumed:
            await self.deps.store.write_response(self.response, inputs=self.p.inputs, owner=OWNER)
        self._persisted_start = (persist and self.p.stored) or self.resumed
        self.events.lifecycle("response.created")
        if self.response["status"] == "queued":
            self.events.lifecycle("response.queued")
            self.response["status"] = "in_progress"
            if self._persisted_start:
                await self.deps.store.write_response(self.response, owner=OWNER)
        self.events.lifecycle("response.in_progress")
        return self.events.drain()

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

    def add_usage(self, usage: dict[str, Any] | None) -> None:
        if not usage:
            return
        u = self._usage
        u["in"] += int(usage.get("prompt_tokens") or 0)
        u["out"] += int(usage.get("completion_tokens") or 0)
        u["cached"] += int((usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)
        u["reasoning"] += int((usage.get("completion_tokens_details") or {}).get("reasoning_tokens") or 0)

    def usage_object(self) -> dict[str, Any]:
        u = self._usage
        return {
            "input_tokens": u["in"],
            "input_tokens_details": {"cached_tokens": u["cached"]},
            "output_tokens": u["out"],
            "output_tokens_details": {"reasoning_tokens": u["reasoning"]},
            "total_tokens": u["in"] + u["out"],
        }

    async def finish(
        self, status: str, *, error: APIError | None = None, incomplete_reason: str | None = None
    ) -> list[Event]:
        """Give the response its terminal status, store it, then let the terminal event out.

        The terminal events are built before the write, so a background response's stored stream
        ends with them, but they leave only after the write: a client that sees `response.completed`
        can retrieve the response at once.
        """
        if self.finished:
            return []
        self.finished = True
        if self.p.req.stream:
            metrics.streamed_tokens(self._usage["out"])
        mark = self.events.mark()
        self._conclude(status, error, incomplete_reason)
        failure = await asyncio.shield(self._persist())
        if failure is not None and status != "failed":
            # Nothing may claim a state that was not stored: withdraw the unsent terminal events and
            # end as failed. (A failed run that cannot be stored still ends failed for its client;
            # the lease sweep fails its row.)
            self.events.retract(mark)
            self.response.pop("completed_at", None)
            self.response["incomplete_details"] = None
            self._conclude("failed", failure, None)
            await asyncio.shield(self._persist())
        await asyncio.shield(self._record_replica())
        self.trace_end()
        return self.events.drain()

    async def _record_replica(self) -> None:
        """Store the replica that served the chain's turn when it is not the one stored (#27: the
        chain's first turn, or a move), before the terminal event leaves: the next turn, wherever
        it arrives, reads it. Affinity is an optimisation: a failed write costs a cache miss only."""
        served = self.affinity.served
        if served is None or served == self.affinity.stored:
            return
        try:
            await self.deps.store.record_replica(
                served,
                response_id=self.id if self.p.stored else None,
                conversation_id=self.p.conversation_id,
                cache_key=self.p.req.prompt_cache_key,
            )
            self.affinity.stored = served
        except Exception:
            log.warning("could not store the replica of response %s", self.id, exc_info=True)

    def _conclude(self, status: str, error: APIError | None, incomplete_reason: str | None) -> None:
        resp = self.response
        resp["status"] = status
        resp["usage"] = self.usage_object()
        if status == "completed":
            resp["completed_at"] = int(time.time())
        if error is not None:
            self.error = error
            resp["error"] = error.as_error_object()
            if isinstance(error, BackendError):
                metrics.backend_error(error.code)
        if incomplete_reason:
            resp["incomplete_details"] = {"reason": incomplete_reason}
        if error is not None:
            self.events.error(error.message, error.code or error.type, error.param)
        if status in TERMINAL_EVENT:
            self.events.lifecycle(TERMINAL_EVENT[status])

    async def _persist(self) -> APIError | None:
        """Store the final state; the error to end with instead when it could not be stored."""
        outputs = self.events.output
        ok = self.response["status"] in ("completed", "incomplete")
        conv_items = (self.p.inputs + outputs) if (ok and self.p.conversation_id) else None
        try:
            if self.p.stored:
                await self.deps.store.write_response(
                    self.response,
                    inputs=None if self._persisted_start else self.p.inputs,
                    outputs=outputs,
                    conversation_append=conv_items,
                    owner=OWNER if self._persisted_start else None,
                    events=self.events.log,
                )
            elif conv_items:
                await self.deps.store.add_conversation_items(self.p.conversation_id or "", conv_items)
        except ResponseGone:
            log.info("response %s was deleted while it was being produced", self.id)
            return InvalidRequest("The response was deleted while it was being produced.", code="response_deleted")
        except LeaseLost:
            log.error("response %s was ended by another process (this one's lease expired)", self.id)
            return ServerError(LEASE_LOST_MESSAGE, code="lease_expired")
        except Exception as exc:
            log.exception("could not store response %s", self.id)
            return ServerError(f"The response could not be stored ({type(exc).__name__}).", code="storage_failed")
        return None

    # -- the whole loop (HTTP path) ----------------------------------------------------------------
    async def run(self, *, persist_start: bool) -> AsyncGenerator[Event, None]:
        """The whole response: begin, produce (`_produce`, the tool loop), end with a terminal status.
        However production ends, the response ends once: completed, failed with the reason, or the
        cancellation's status; subclasses (research) replace `_produce` only.

        With tracing on, the run's `invoke_agent` span is current while it runs, so the backend
        calls and tool calls it makes (and the tasks it starts) are its children."""
        token = tracing.attach(self.trace_start()) if tracing.ON else None
        try:
            for event in await self.begin(persist_start):
                yield event
            async for event in self._produce():
                yield event
            for event in await self.finish("completed"):  # nothing when production already ended it
                yield event
        except APIError as exc:
            self._abort_turn()
            for event in await self.finish("failed", error=exc):
                yield event
        except asyncio.CancelledError:
            self._abort_turn()
            if self.cancel_status == "requeue":
                if await self._requeue():
                    raise
                self.cancel_status = "failed"  # it could not be handed back: it ends as at any shutdown
            error = None
            if self.cancel_status == "failed":
                error = self.cancel_error or ServerError("The gateway shut down while producing this response.")
            await self.finish(self.cancel_status, error=error)
            raise
        except Exception as exc:
            log.exception("response %s failed", self.id)
            self._abort_turn()
            for event in await self.finish("failed", error=ServerError(f"internal error: {type(exc).__name__}")):
                yield event
        finally:
            if token is not None:
                tracing.detach(token)
                self.trace_end()  # a run handed back (requeue) never reached `finish`

    async def _requeue(self) -> bool:
        """Hand the run back for a live process to run again (this one is stopping); False if it
        cannot be (never stored, or no longer this process's), and it ends failed instead."""
        if not self._persisted_start:
            return False
        try:
            return await asyncio.shield(
                self.deps.store.requeue_response(self.response, OWNER, request_body(self.p.req))
            )
        except Exception:
            log.exception("could not hand response %s back", self.id)
            return False

    def _abort_turn(self) -> None:
        if self._turn is not None:
            self._turn.abort()

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
