"""The Responses API as operations, independent of any transport.

Three ways to run a response, one generator underneath:
- blocking: the run's events are drained in the request's task (nothing to keep if the client goes);
- streaming: a stored stream runs in its own task and the client only listens, so a disconnect does
  not lose the response; an unstored one runs in the request's task;
- background: a detached task, pollable with `retrieve`, stoppable with `cancel`, and watchable from
  any event on (`resume`): live from the run's feed while it runs here, from the stored stream after.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from typing import Any

from gateway.api_models.requests import CreateResponseRequest
from gateway.api_models.validation import parse
from gateway.common.errors import APIError, InvalidRequest, NotFound, RateLimited, ServerError
from gateway.engine import compaction, requeue
from gateway.engine.affinity_upkeep import AffinityPruner
from gateway.engine.context import EngineDeps, Prepared, prepare
from gateway.engine.events import Event, EventStream
from gateway.engine.feed import Feed
from gateway.engine.leases import LeaseKeeper
from gateway.engine.owner import OWNER
from gateway.engine.relay import EventRelay, follow
from gateway.engine.run_lifecycle import TERMINAL_EVENT, interrupted
from gateway.engine.runner import ResponseRun
from gateway.research.models import is_research
from gateway.research.responses import ResearchRun
from gateway.telemetry import metrics
from storage.base import Page
from storage.scope import current_project, project_scope

log = logging.getLogger(__name__)

TERMINAL = ("completed", "failed", "incomplete", "cancelled")
POLL_INTERVAL = 0.25  # a response another process produces: how often to look at its row


class ResponsesService:
    def __init__(self, deps: EngineDeps) -> None:
        self.deps = deps
        self.store = deps.store
        self.running: dict[str, tuple[ResponseRun, asyncio.Task[None], Feed]] = {}
        self._cancel_watch: asyncio.Task[None] | None = None
        self._background: Counter[str] = Counter()  # running background responses per project (#26)
        lease = deps.settings.run_lease_seconds
        self.affinity = AffinityPruner(self.store, deps.settings.cache_key_affinity_seconds)
        self.leases = LeaseKeeper(self.store, OWNER, lease, on_sweep=self._upkeep)
        # how long `cancel` waits for another process to stop a response: if that process died, the
        # lease sweep ends the response within about this long
        self.cancel_wait = lease + self.leases.sweep_every + 1.0
        self.owner = OWNER
        self.claiming = True  # takes handed-back background runs; false once this process drains

    async def start(self) -> list[str]:
        """At start-up: end the runs whose leases expired (a previous life of this process, say),
        run again the background runs a stopped process handed back, and from now on keep leases
        (renew ours, end expired ones, claim handed-back runs) until `shutdown`."""
        expired = await self.leases.sweep()
        await self.claim_requeued()
        self.leases.start()
        return expired

    async def _upkeep(self) -> None:
        """More upkeep on the lease sweep's beat: old cache-key affinity goes (in its own task, so
        lease renewal never waits on it), handed-back runs are claimed."""
        await self.affinity.maybe_prune()
        await self.claim_requeued()

    async def claim_requeued(self) -> list[str]:
        """Run again the background runs stopped processes handed back (`gateway.engine.requeue`)."""
        if not self.claiming:
            return []
        started: list[str] = []
        for claimed in await self.store.claim_requeued(self.owner, requeue.BATCH):
            with project_scope(claimed.project):
                try:
                    prepared = await requeue.prepare_again(self, claimed)
                except Exception as exc:  # claimed, so ours to end: never left queued under our lease
                    log.exception("could not prepare requeued response %s", claimed.response["id"])
                    prepared = ServerError(f"The response could not be run again ({type(exc).__name__}).")
                if isinstance(prepared, APIError):
                    await requeue.fail_unrunnable(self, claimed, prepared)
                    continue
                run = self._new_run(prepared)
                run.resumed = True
                self._detach(run, Feed(keep=True))
            started.append(run.id)
        if started:
            log.info("running again %d background response(s) a stopped process handed back", len(started))
        return started

    def _new_run(self, prepared: Prepared) -> ResponseRun:
        if is_research(prepared.req.model):  # research models run the orchestrator, not a turn loop
            return ResearchRun(self.deps, prepared)
        return ResponseRun(self.deps, prepared)

    async def prepare(self, body: Any) -> Prepared:
        return await prepare(self.deps, parse(CreateResponseRequest, body))

    async def compact(self, body: Any) -> dict[str, Any]:
        """`POST /v1/responses/compact`: the backend model summarises the history (nothing stored)."""
        if not isinstance(body, dict):
            raise InvalidRequest("The request body must be a JSON object.", code="invalid_type")
        prepared = await self.prepare(compaction.summary_request(body))
        response, error = await self.create(prepared)
        if error is not None and response["status"] == "failed":
            raise error
        summary = "".join(
            part.get("text", "")
            for item in response["output"]
            if item.get("type") == "message"
            for part in item.get("content", [])
        )
        return compaction.compacted(prepared.history + prepared.inputs, summary, response.get("usage"))

    async def input_tokens(self, body: Any) -> dict[str, Any]:
        """`POST /v1/responses/input_tokens`: what the request's model call would cost in input
        tokens (history, instructions and tools included), counted by the backend, nothing run."""
        prepared = await self.prepare(body)
        count = await self.deps.backend.count_tokens(ResponseRun(self.deps, prepared).turn_request())
        return {"object": "response.input_tokens", "input_tokens": count}

    async def create(self, prepared: Prepared) -> tuple[dict[str, Any], APIError | None]:
        """Run to the end; return the final response and the error that failed it, if any."""
        run = self._new_run(prepared)
        async for _event in run.run(persist_start=False):
            pass
        return run.response, run.error

    def stream(self, prepared: Prepared) -> EventStream:
        run = self._new_run(prepared)
        if not prepared.stored:
            return run.run(persist_start=False)
        feed = Feed(keep=False)
        events = feed.listen()  # subscribed before the run starts
        self._detach(run, feed)
        return events

    async def background(self, prepared: Prepared, *, stream: bool) -> dict[str, Any] | EventStream:
        project = self._check_background_cap()
        run = self._new_run(prepared)
        feed = Feed(keep=True)
        first = self._detach(run, feed)
        if project is not None:
            self._background[project] += 1
            self.running[run.id][1].add_done_callback(lambda _task: self._background_done(project))
        if stream:
            return feed.listen()
        await first  # the queued response is stored before its id is handed out
        return {**run.response, "status": "queued", "output": []}

    def _background_done(self, project: str) -> None:
        self._background[project] -= 1
        if self._background[project] <= 0:
            del self._background[project]

    def _check_background_cap(self) -> str | None:
        """One project may not fill the process with detached runs (#26): its next background
        response is a 429 while `max_background_per_tenant` of its own are running here."""
        cap = self.deps.settings.max_background_per_tenant
        project = current_project()
        if cap <= 0 or project is None:
            return None
        if self._background[project] >= cap:
            raise RateLimited(
                f"Too many background responses running for this project ({cap} per process): wait for some "
                "to finish, or cancel them.",
                retry_after=1,
                code="too_many_background_responses",
            )
        return project

    def _detach(self, run: ResponseRun, feed: Feed) -> asyncio.Future[None]:
        started: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queued = 1 if run.p.req.background else 0

        relay = EventRelay(self.store, run.id) if feed.log is not None else None  # background: followed anywhere

        async def produce() -> None:
            metrics.background_queue(queued)
            try:
                async for event in run.run(persist_start=True):
                    if not started.done():
                        started.set_result(None)
                    feed.push(event)
                    if relay is not None:
                        relay.push(event)
            finally:
                if not started.done():
                    started.set_result(None)
                if relay is not None:
                    await relay.close()
                feed.push(None)
                self.running.pop(run.id, None)
                metrics.background_queue(-queued)

        task = asyncio.get_running_loop().create_task(produce(), name=f"response-{run.id}")
        self.running[run.id] = (run, task, feed)
        if self._cancel_watch is None or self._cancel_watch.done():
            with project_scope(None):  # the watch serves every project, not the request that started it
                self._cancel_watch = asyncio.get_running_loop().create_task(self._watch_cancels(), name="cancel-watch")
        return started

    def _detached_ids(self) -> list[str]:
        return list(self.running)

    async def _watch_cancels(self) -> None:
        """Cancel this process's detached runs that another process was asked to stop (a background
        run's cancel, or a delete of any stored run)."""
        while ids := self._detached_ids():
            await self.store.wait_for_change("cancel", None, POLL_INTERVAL)  # PostgreSQL: on NOTIFY
            try:
                asked = await self.store.take_cancel_requests(ids)
            except Exception:  # a busy database must not end the watch
                log.exception("could not read cancel requests")
                continue
            for rid in asked:
                if (entry := self.running.get(rid)) is not None:
                    entry[1].cancel()

    async def resume(self, response_id: str, starting_after: int = -1) -> EventStream:
        """A background response's events after `starting_after`, live while it runs.

        Checks happen here, before the first event, so an unknown id or a response that is not a
        background one gets a 4xx rather than a broken stream.
        """
        found = await self.retrieve(response_id)  # first: the caller's project must see it
        entry = self.running.get(response_id)
        if entry is not None and entry[2].log is not None:
            return entry[2].listen(starting_after)
        if not found.get("background"):
            raise InvalidRequest(
                "Only responses created with background=true can be streamed with GET.", param="stream"
            )
        return self._replay(found, starting_after)

    def _replay(self, found: dict[str, Any], after: int) -> EventStream:
        """The stream of a background response produced elsewhere (another process or replica, or
        before a restart): live from the producer's relayed batches, then what was kept at the end."""

        def terminal(ended: dict[str, Any], after: int) -> list[Event]:
            kind = TERMINAL_EVENT.get(ended["status"])  # ended without a stream (failed by crash recovery)
            return [{"type": kind, "response": ended, "sequence_number": after + 1}] if kind else []

        return follow(self.store, found["id"], after, self.retrieve, POLL_INTERVAL, terminal)

    async def retrieve(self, response_id: str) -> dict[str, Any]:
        found = await self.store.get_response(response_id)
        if found is None:
            raise NotFound(f"Response with id '{response_id}' not found.", param="response_id")
        return found

    async def delete(self, response_id: str) -> dict[str, Any]:
        """Delete at once, also while the response is being produced: its run is stopped (here, or
        asked to stop wherever it runs) and its later writes are refused, so nothing brings it back;
        a stream attached to it ends without a terminal status."""
        found = await self.store.get_response(response_id)
        if found is None or not await self.store.delete_response(response_id):
            raise NotFound(f"Response with id '{response_id}' not found.", param="response_id")
        entry = self.running.get(response_id)
        if entry is not None:
            entry[1].cancel()
        elif found.get("status") not in TERMINAL:
            await self.store.request_cancel(response_id)  # the producer's watch stops its run
        return {"id": response_id, "object": "response.deleted", "deleted": True}

    async def cancel(self, response_id: str) -> dict[str, Any]:
        found = await self.retrieve(response_id)  # first: the caller's project must see it
        entry = self.running.get(response_id)
        if entry is not None and found.get("status") not in TERMINAL:  # (a finished run may linger a moment)
            run, task, _feed = entry
            if not run.p.req.background:
                raise InvalidRequest(
                    "Only responses created with background=true can be cancelled.", param="response_id"
                )
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            return await self.retrieve(response_id)
        if not found.get("background"):
            raise InvalidRequest("Only responses created with background=true can be cancelled.", param="response_id")
        if found.get("status") in TERMINAL and found.get("status") != "cancelled":
            raise InvalidRequest(
                f"Cannot cancel a response with status '{found.get('status')}'.",
                param="response_id",
                code="invalid_state",
            )
        if found.get("status") not in TERMINAL:  # produced by another process: ask it, then wait
            found = await self._cancel_elsewhere(response_id)
        return found

    async def _cancel_elsewhere(self, response_id: str) -> dict[str, Any]:
        await self.store.request_cancel(response_id)
        deadline = asyncio.get_running_loop().time() + self.cancel_wait
        found = await self.retrieve(response_id)
        while found.get("status") not in TERMINAL and asyncio.get_running_loop().time() < deadline:
            await self.store.wait_for_change("response", response_id, POLL_INTERVAL / 5)
            found = await self.retrieve(response_id)
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

    def abandon(self, response_id: str) -> None:
        """The client of a foreground stream went away: stop its run (both doors do the same).
        A background run keeps going: it was asked to outlive its client."""
        entry = self.running.get(response_id)
        if entry is None or entry[0].p.req.background:
            return
        entry[0].cancel_status = "failed"
        entry[0].cancel_error = interrupted()
        entry[1].cancel()

    def revoke(self, response_id: str, error: APIError) -> None:
        """The key that created a running response stopped working (#26): stop the run, stored as
        failed with `error` as the reason (a background run too: no request outlives its key)."""
        entry = self.running.get(response_id)
        if entry is None:
            return
        entry[0].cancel_status = "failed"
        entry[0].cancel_error = error
        entry[1].cancel()

    async def shutdown(self) -> None:
        """Stop detached runs: background ones are handed back for a live process to run again
        (`gateway.engine.requeue`), the others are stored as failed; none is left in progress."""
        self.claiming = False
        if self._cancel_watch is not None:
            self._cancel_watch.cancel()
        await self.leases.stop()
        await self.affinity.stop()
        for run, task, _feed in list(self.running.values()):
            run.cancel_status = "requeue" if run.p.req.background else "failed"
            task.cancel()
        for _run, task, _feed in list(self.running.values()):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
