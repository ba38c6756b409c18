"""The Responses API as operations, independent of any transport.

Three ways to run a response, one generator underneath:
- blocking: the run's events are drained in the request's task (nothing to keep if the client goes);
- streaming: a stored stream runs in its own task and the client only listens, so a disconnect does
  not lose the response; an unstored one runs in the request's task;
- background: a detached task, pollable with `retrieve` and stoppable with `cancel`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from gateway.engine.context import EngineDeps, Prepared, prepare
from gateway.engine.events import Event
from gateway.engine.owner import is_alive
from gateway.engine.runner import ResponseRun
from gateway.errors import APIError, InvalidRequest, NotFound
from gateway.schema.requests import CreateResponseRequest
from gateway.schema.validation import parse
from storage.base import Page

log = logging.getLogger(__name__)

TERMINAL = ("completed", "failed", "incomplete", "cancelled")


class _Listener:
    """Events of a detached run, for whoever is listening (nobody, once the client has gone)."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[Event | None] = asyncio.Queue()
        self.attached = True

    def push(self, event: Event | None) -> None:
        if self.attached:
            self.queue.put_nowait(event)


class ResponsesService:
    def __init__(self, deps: EngineDeps) -> None:
        self.deps = deps
        self.store = deps.store
        self.running: dict[str, tuple[ResponseRun, asyncio.Task[None]]] = {}

    async def recover(self) -> list[str]:
        """Fail responses whose producing process died (run at start-up)."""
        recovered = await self.store.recover_interrupted(is_alive)
        if recovered:
            log.warning("marked %d interrupted response(s) as failed", len(recovered))
        return recovered

    async def prepare(self, body: Any) -> Prepared:
        return await prepare(self.deps, parse(CreateResponseRequest, body))

    async def create(self, prepared: Prepared) -> tuple[dict[str, Any], APIError | None]:
        """Run to the end; return the final response and the error that failed it, if any."""
        run = ResponseRun(self.deps, prepared)
        async for _event in run.run(persist_start=False):
            pass
        return run.response, run.error

    def stream(self, prepared: Prepared) -> AsyncIterator[Event]:
        run = ResponseRun(self.deps, prepared)
        if not prepared.stored:
            return run.run(persist_start=False)
        listener = _Listener()
        self._detach(run, listener)
        return self._listen(listener)

    async def background(self, prepared: Prepared, *, stream: bool) -> dict[str, Any] | AsyncIterator[Event]:
        run = ResponseRun(self.deps, prepared)
        listener = _Listener()
        listener.attached = stream
        first = self._detach(run, listener)
        if stream:
            return self._listen(listener)
        await first  # the queued response is stored before its id is handed out
        return {**run.response, "status": "queued", "output": []}

    def _detach(self, run: ResponseRun, listener: _Listener) -> asyncio.Future[None]:
        started: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def produce() -> None:
            try:
                async for event in run.run(persist_start=True):
                    if not started.done():
                        started.set_result(None)
                    listener.push(event)
            finally:
                if not started.done():
                    started.set_result(None)
                listener.push(None)
                self.running.pop(run.id, None)

        task = asyncio.get_running_loop().create_task(produce(), name=f"response-{run.id}")
        self.running[run.id] = (run, task)
        return started

    @staticmethod
    async def _listen(listener: _Listener) -> AsyncIterator[Event]:
        try:
            while (event := await listener.queue.get()) is not None:
                yield event
        finally:
            listener.attached = False

    async def retrieve(self, response_id: str) -> dict[str, Any]:
        found = await self.store.get_response(response_id)
        if found is None:
            raise NotFound(f"Response with id '{response_id}' not found.", param="response_id")
        return found

    async def delete(self, response_id: str) -> dict[str, Any]:
        if response_id in self.running:
            await self.cancel(response_id)
        if not await self.store.delete_response(response_id):
            raise NotFound(f"Response with id '{response_id}' not found.", param="response_id")
        return {"id": response_id, "object": "response.deleted", "deleted": True}

    async def cancel(self, response_id: str) -> dict[str, Any]:
        entry = self.running.get(response_id)
        if entry is not None:
            run, task = entry
            if not run.p.req.background:
                raise InvalidRequest(
                    "Only responses created with background=true can be cancelled.", param="response_id"
                )
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            return await self.retrieve(response_id)
        found = await self.retrieve(response_id)
        if not found.get("background"):
            raise InvalidRequest("Only responses created with background=true can be cancelled.", param="response_id")
        if found.get("status") in TERMINAL and found.get("status") != "cancelled":
            raise InvalidRequest(
                f"Cannot cancel a response with status '{found.get('status')}'.",
                param="response_id",
                code="invalid_state",
            )
        return found

    async def input_items(
        self, response_id: str, *, limit: int, order: str, after: str | None, before: str | None
    ) -> Page:
        if await self.store.get_response(response_id) is None:
            raise NotFound(f"Response with id '{response_id}' not found.", param="response_id")
        return await self.store.list_input_items(
            response_id,
            limit=limit,
            order=order,  # type: ignore[arg-type]
            after=after,
            before=before,
        )

    async def shutdown(self) -> None:
        """Stop detached runs; they are stored as failed rather than left in progress."""
        for run, task in list(self.running.values()):
            run.cancel_status = "failed"
            task.cancel()
        for _run, task in list(self.running.values()):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
