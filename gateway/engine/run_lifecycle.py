"""A response run's life from its first stored state to its terminal status, whatever produces it.

Why apart from the tool loop (`runner.py`): every run ends the same way however its output is
produced (the tool loop, research), and both doors drive these steps (the HTTP door through `run`,
the ExtProc step by step: `begin`, then `finish` when the backend's body ends). Whatever happens
(backend failure, cancellation, a bug), `finish` gives the response a terminal status and stores it
before the terminal event leaves, so a client that sees `response.completed` can retrieve the
response at once through either door; a stopping process hands a background run back (`_requeue`).
The usage the run accumulates and the replica that served its chain (#27) are stored with it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from gateway.common.errors import STREAM_INTERRUPTED, APIError, BackendError, InvalidRequest, ServerError
from gateway.engine import spans
from gateway.engine.context import EngineDeps, Prepared
from gateway.engine.events import Event, EventBuilder
from gateway.engine.owner import OWNER
from gateway.engine.requeue import request_body
from gateway.engine.turn import TurnAssembler
from gateway.inference.picker import Affinity
from gateway.telemetry import metrics, tracing
from storage.base import LeaseLost, ResponseGone

log = logging.getLogger(__name__)

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


class RunLifecycle:
    """Begin, produce (`_produce`, a subclass's), end once with a terminal status, stored."""

    def __init__(self, deps: EngineDeps, prepared: Prepared) -> None:
        self.deps = deps
        self.p = prepared
        self.response = prepared.response
        self.events = EventBuilder(self.response, keep_log=prepared.req.background)
        self.affinity = Affinity(affinity_key(prepared), prepared.replica)
        self.error: APIError | None = None
        self.cancel_status = "cancelled"  # what a cancellation means; shutdown makes it "failed"
        self.cancel_error: APIError | None = None  # the error a "failed" cancellation stores
        self._usage = {"in": 0, "cached": 0, "out": 0, "reasoning": 0}
        self._persisted_start = False
        self.resumed = False  # a handed-back background run run again: its start is stored already
        self._turn: TurnAssembler | None = None  # the model turn in progress (aborted if the run fails)
        self.finished = False
        self.span: Any = None  # the run's `invoke_agent` span while it runs (tracing on)

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

    # -- the whole run (HTTP path) -----------------------------------------------------------------
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

    def _produce(self) -> AsyncIterator[Event]:
        """The response's output between `begin` and `finish`: the tool loop (`ResponseRun`), research."""
        raise NotImplementedError

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
