"""The usage recorder: every model call becomes a ledger record, written off the request path.

`record()` is the one call each site makes where a backend call ends (a tool-loop turn, a research
call, a passthrough). It builds the record and appends it to this process's queue (a list append
and a few attribute reads: the request never waits for the database); a task writes the queue in
batches every `usage_flush_seconds`, or sooner once `BATCH` records wait, and `stop()` writes what
is left, so a clean stop loses nothing. A write that fails is retried with the next batch (the
queue is capped at `MAX_QUEUED`; past that the oldest records are dropped and logged).

Listeners (`on_record`) see each record at once, in the request: the shared limits charge the
tokens a backend reported, budgets add the spend, metrics count it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import math
import socket
import time
from collections.abc import Callable
from typing import Any, Protocol

from storage.usage import UsageRecord

log = logging.getLogger(__name__)

BATCH = 500  # records that wake the writer before its period ends
MAX_QUEUED = 200_000
PRUNE_EVERY = 3600.0

# The API key of the caller (its id), set by authentication next to the project scope; "" without keys.
caller_key: contextvars.ContextVar[str] = contextvars.ContextVar("gateway_api_key", default="")
# The door the request came in by when it is not this process's own: "envoy" for a request Envoy's
# routes hand to the HTTP server (passthroughs, re-routed Responses), set by its authentication.
entry_door: contextvars.ContextVar[str] = contextvars.ContextVar("gateway_entry_door", default="")
DOOR_HEADER = "x-gateway-door"  # set by Envoy on its routes to the HTTP server (envoy/envoy.yaml.tmpl)


class LedgerStore(Protocol):
    async def write(self, records: list[UsageRecord]) -> None: ...

    async def prune(self, raw_before: float, minutes_before: int, windows_before: int) -> None: ...


def estimate_tokens(text_or_chars: str | int) -> int:
    """A backend that reports no usage: about four characters a token (the same rule OpenAI
    documents for English); such records are marked `estimated`."""
    n = text_or_chars if isinstance(text_or_chars, int) else len(text_or_chars)
    return math.ceil(n / 4) if n > 0 else 0


def parse_usage(usage: dict[str, Any]) -> tuple[int, int, int, int]:
    """(input, cached input, output, reasoning) from a chat-completions or Responses-style usage."""
    if "input_tokens" in usage or "output_tokens" in usage:  # Responses API
        cached = (usage.get("input_tokens_details") or {}).get("cached_tokens")
        reasoning = (usage.get("output_tokens_details") or {}).get("reasoning_tokens")
        return (
            int(usage.get("input_tokens") or 0),
            int(cached or 0),
            int(usage.get("output_tokens") or 0),
            int(reasoning or 0),
        )
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
    reasoning = (usage.get("completion_tokens_details") or {}).get("reasoning_tokens")
    return (
        int(usage.get("prompt_tokens") or 0),
        int(cached or 0),
        int(usage.get("completion_tokens") or 0),
        int(reasoning or 0),
    )


class Recorder:
    def __init__(
        self,
        store: LedgerStore | None,
        *,
        door: str = "http",
        replica: str | None = None,
        flush_seconds: float = 1.0,
        retention_days: float = 30.0,
    ) -> None:
        self.store = store
        self.door = door
        self.replica = replica or socket.gethostname()
        self.flush_seconds = flush_seconds
        self.retention_days = retention_days
        self.queue: list[UsageRecord] = []
        self.listeners: list[Callable[[UsageRecord], None]] = []
        self.on_flush: list[Callable[[], None]] = []  # e.g. the metrics' sums, added per batch
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._pruned_at = 0.0
        self._stopped = False

    def add(self, rec: UsageRecord) -> None:
        for listener in self.listeners:
            try:
                listener(rec)
            except Exception:  # bookkeeping never fails a request
                log.exception("usage listener failed")
        if self.store is None and not self.on_flush:
            return
        if self.store is not None:
            self.queue.append(rec)
        if len(self.queue) > MAX_QUEUED:
            del self.queue[: len(self.queue) - MAX_QUEUED]
            log.error("usage queue full: the oldest records were dropped (is the database reachable?)")
        if self._task is None and not self._stopped:
            self._start()
        elif len(self.queue) >= BATCH and self._wake is not None:
            self._wake.set()

    def _start(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a CLI, a unit test): stop() or flush() writes the queue
        self._wake = asyncio.Event()
        self._task = loop.create_task(self._run(), name="usage-recorder")

    async def _run(self) -> None:
        assert self._wake is not None
        while not self._stopped:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.flush_seconds):
                    await self._wake.wait()
            self._wake.clear()
            await self.flush()
            await self._maybe_prune()

    async def flush(self) -> None:
        """Write the queued records (one transaction); on failure they stay queued for the next try."""
        for hook in self.on_flush:
            try:
                hook()
            except Exception:
                log.exception("usage flush hook failed")
        if not self.queue or self.store is None:
            return
        batch, self.queue = self.queue, []
        try:
            await self.store.write(batch)
        except Exception:
            log.exception("could not write %d usage records; retrying with the next batch", len(batch))
            self.queue[:0] = batch

    async def _maybe_prune(self) -> None:
        now = time.time()
        if self.store is None or now - self._pruned_at < PRUNE_EVERY:
            return
        self._pruned_at = now
        keep = now - self.retention_days * 86400
        try:
            await self.store.prune(keep, int(keep), int(now) - 3600)
        except Exception:
            log.exception("could not prune the usage ledger")

    async def stop(self) -> None:
        """A clean stop: let the writer task end its round (no cancellation: a write in flight
        completes), then write everything still queued."""
        self._stopped = True
        if self._task is not None and self._wake is not None:
            self._wake.set()
            await self._task
            self._task = None
        await self.flush()


RECORDER = Recorder(None)  # replaced by `configure` at start-up; without a store it only notifies listeners


def configure(recorder: Recorder) -> Recorder:
    global RECORDER
    RECORDER = recorder
    return recorder
