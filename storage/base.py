"""The state store interface.

The engine only talks to this protocol, so a second implementation (Postgres, say) needs no engine
change and passes the same conformance suite (`tests/storage/test_store_conformance.py`).

Items are stored once and referenced by id: a response links its input and output items by position,
a conversation links its items by position, and the history of a `previous_response_id` chain is a
walk over those links. Nothing ever copies the history into a new row, so a chain of N turns costs
O(N) storage, not O(N²).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from storage.pages import PageRequest
    from storage.response_list import ResponseFilter

Order = Literal["asc", "desc"]
JSON = dict[str, Any]
# a chain's inputs and outputs, and the replica stored nearest up it (#27 stored affinity)
History = tuple[list[JSON], str | None]


def cache_key_id(cache_key: str) -> str:
    """How a `prompt_cache_key` is stored (#27 affinity): as given when short and plain, else its
    SHA-256 (a client's key may be long or hold a NUL, which PostgreSQL's text and a primary key
    refuse; the lookup only needs equality)."""
    if len(cache_key) <= 128 and "\x00" not in cache_key:
        return cache_key
    return "sha256:" + hashlib.sha256(cache_key.encode("utf-8", "surrogatepass")).hexdigest()


class LeaseLost(Exception):
    """A write by a run whose lease another process already ended (the run must stop, not store)."""


class ResponseGone(LeaseLost):
    """A write by a run whose response was deleted meanwhile: nothing may bring it back."""


@dataclass(slots=True)
class Page:
    """One page of a cursor-paginated list."""

    data: list[JSON] = field(default_factory=list)
    has_more: bool = False


@dataclass(frozen=True, slots=True)
class Requeued:
    """A background run a stopping process handed back, now leased to the process that claimed it."""

    response: JSON  # as stored while it waited (`queued`, no output)
    request: JSON  # the create request's body, to run again
    project: str


class StateStore(Protocol):
    async def open(self) -> None: ...

    async def close(self) -> None: ...

    async def ping(self) -> bool: ...

    # -- responses ---------------------------------------------------------------------------------
    async def write_response(
        self,
        response: JSON,
        *,
        inputs: list[JSON] | None = None,
        outputs: list[JSON] | None = None,
        conversation_append: list[JSON] | None = None,
        owner: str | None = None,
        events: list[JSON] | None = None,
    ) -> None:
        """Upsert a response snapshot and, in the same transaction, link new items.

        `response` is the Response object; its `output` is not stored in the row but rebuilt from the
        linked output items. `inputs` and `outputs` are each given once in a response's life (its
        first write, or the final one); items whose id already exists are linked, not duplicated.
        `conversation_append` items are appended to the response's conversation
        (`response["conversation"]["id"]`) in the same transaction.
        `owner` is the producing process's lease token: a non-terminal write stores it with a lease
        of the store's `lease_seconds`; a terminal write clears it. Every write that names an owner
        is fenced: when the row is held by another owner (or by none, because its lease expired and
        the response was failed), nothing is written and `LeaseLost` is raised; when an owner's
        write without `inputs` (an update: the first write carries them) finds no row, the response
        was deleted meanwhile and `ResponseGone` is raised. `events` (a
        background response's whole event stream, given with its terminal snapshot) replaces the
        stream kept for resuming it.
        """
        ...

    async def get_response(self, response_id: str) -> JSON | None: ...

    async def request_cancel(self, response_id: str) -> None:
        """Ask whichever process produces `response_id` to cancel it."""
        ...

    async def take_cancel_requests(self, response_ids: list[str]) -> list[str]:
        """Those of `response_ids` whose cancellation was asked; each request is returned once."""
        ...

    async def wait_for_change(self, topic: Literal["cancel", "response"], key: str | None, poll: float) -> None:
        """Return when `topic` may have changed for `key` (None: any): a cancel was requested, or a
        background response reached a terminal status. Callers re-read the table afterwards.

        SQLite sleeps `poll` seconds (polling); PostgreSQL returns on a LISTEN/NOTIFY notification
        from any replica (with a fallback timeout), so no replica polls in a tight loop.
        """
        ...

    async def get_response_events(self, response_id: str) -> list[JSON] | None:
        """The event stream kept by `write_response(events=...)`, or None."""
        ...

    async def append_response_events(self, response_id: str, events: list[JSON]) -> None:
        """Add a batch of a running background response's events (in order, after earlier batches),
        for followers in other processes; PostgreSQL notifies them. The terminal `write_response(
        events=...)` replaces the batches with the whole stream."""
        ...

    async def response_events_after(self, response_id: str, after: int) -> list[JSON]:
        """The appended events with `sequence_number` > `after`, in order (none once the response ended)."""
        ...

    async def delete_response(self, response_id: str) -> bool: ...

    async def list_responses(self, flt: ResponseFilter, req: PageRequest) -> Page:
        """The caller's stored responses, newest first, with their output (`storage.response_list`)."""
        ...

    async def list_input_items(
        self, response_id: str, *, limit: int, order: Order, after: str | None, before: str | None
    ) -> Page: ...

    async def response_history(self, response_id: str) -> list[JSON] | None:
        """Inputs and outputs of the whole `previous_response_id` chain ending here.

        None when there is no such response.
        """
        ...

    async def get_items(self, item_ids: list[str]) -> dict[str, JSON]: ...

    # -- stored affinity (#27, storage/{sqlite,postgres}/replicas.py): the replica a chain last went to
    async def routed_history(self, response_id: str) -> History | None:
        """`response_history`, and the replica stored nearest up the chain (None: none), read alongside."""
        ...

    async def conversation_replica(self, conversation_id: str) -> tuple[bool, str | None]:
        """Whether the conversation exists for the caller, and the replica of its last turn."""
        ...

    async def cache_key_replica(self, cache_key: str, refresh_before: float | None = None) -> str | None:
        """The replica of the caller's last turn with this `prompt_cache_key`. A routing read passes
        `refresh_before` (now minus half the affinity horizon): a row last written before it is
        written again now, so a key in steady use is never pruned (`prune_cache_keys`)."""
        ...

    async def record_replica(
        self,
        replica: str,
        *,
        response_id: str | None = None,
        conversation_id: str | None = None,
        cache_key: str | None = None,
    ) -> None:
        """Store `replica` as the chain's last on the response, the conversation and/or the cache key."""
        ...

    async def prune_cache_keys(self, before: float) -> int:
        """Delete every project's cache-key affinity last written (or refreshed) before `before` (unix seconds), in
        short batches; how many rows went. Upkeep (the lease sweep's beat), never on a request."""
        ...

    # -- leases of in-progress responses ----------------------------------------------------------
    async def renew_leases(self, owner: str) -> int:
        """Extend the lease of every response `owner` holds by `lease_seconds` from now (heartbeat)."""
        ...

    async def requeue_response(self, response: JSON, owner: str, request: JSON) -> bool:
        """Hand back a background run `owner` cannot finish (it is stopping): the response waits as
        `queued` with no owner, lease or output, its `request` kept until a process claims it.
        False when `owner` no longer holds it (it ended, or another process took it over)."""
        ...

    async def claim_requeued(self, owner: str, limit: int) -> list[Requeued]:
        """Take up to `limit` handed-back runs, oldest first, each leased to `owner` from now on."""
        ...

    async def expire_leases(self) -> list[str]:
        """End every response whose lease ran out as `failed` with the reason stored; return their ids.

        Any live process may call it (each does, periodically): the responses of a process that died,
        hung or was replaced end within the lease time, wherever the survivor runs.
        """
        ...

    # -- conversations -----------------------------------------------------------------------------
    async def create_conversation(self, conversation: JSON, items: list[JSON]) -> None: ...

    async def get_conversation(self, conversation_id: str) -> JSON | None: ...

    async def update_conversation(self, conversation_id: str, metadata: dict[str, str]) -> JSON | None: ...

    async def delete_conversation(self, conversation_id: str) -> bool: ...

    async def add_conversation_items(self, conversation_id: str, items: list[JSON]) -> bool: ...

    async def list_conversation_items(
        self, conversation_id: str, *, limit: int, order: Order, after: str | None, before: str | None
    ) -> Page: ...

    async def conversation_items(self, conversation_id: str) -> list[JSON]: ...

    async def get_conversation_item(self, conversation_id: str, item_id: str) -> JSON | None: ...

    async def delete_conversation_item(self, conversation_id: str, item_id: str) -> bool: ...
