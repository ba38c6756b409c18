"""Background runs that outlive their process: handed back when it stops, run again by a live one.

A background response was asked to outlive its client, so it should outlive a rolling restart too.
When a process stops and its drain time is over, each background run still going is handed back
(`StateStore.requeue_response`): stored as `queued`, with no owner, lease or output, and its create
request kept. A live process claims it (at start, and on each lease sweep while it accepts work) and
runs it again under the same id, from the request and the input items already stored: the client
polling `retrieve` sees `queued`, then `in_progress`, then the end. The run starts over rather than
continuing mid-turn: a model call cannot be resumed half-way, and its partial output was never
promised to anyone (it was not stored). A stream following it across the restart ends with the old
process; `GET ?stream=true` after the claim follows the new run from its first event.

Foreground streams are not requeued: their client is gone with the connection, so they end `failed`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from gateway.api_models.requests import CreateResponseRequest
from gateway.common.errors import APIError
from gateway.engine.context import Prepared
from storage.base import JSON, Requeued

if TYPE_CHECKING:  # the service calls these at start-up (gateway.engine.service imports this module)
    from gateway.engine.service import ResponsesService

log = logging.getLogger(__name__)

BATCH = 16  # runs claimed per sweep: a starting process does not take a whole backlog at once
ALL_INPUTS = 1_000_000


def request_body(req: CreateResponseRequest) -> JSON:
    """The create request as the client sent it (what was set), to validate and run again."""
    return req.model_dump(mode="json", by_alias=True, exclude_unset=True)


async def prepare_again(service: ResponsesService, claimed: Requeued) -> Prepared | APIError:
    """The claimed run's `Prepared`, under its own id and with its stored inputs; or why it cannot run
    any more (its previous response or conversation was deleted meanwhile, say)."""
    old = claimed.response
    try:
        prepared: Prepared = await service.prepare(claimed.request)
    except APIError as exc:
        return exc
    stored = await service.store.list_input_items(old["id"], limit=ALL_INPUTS, order="asc", after=None, before=None)
    prepared.inputs = stored.data  # linked once already: the same items, not copies with new ids
    prepared.response.update(id=old["id"], created_at=old["created_at"], status="queued")
    return prepared


async def fail_unrunnable(service: ResponsesService, claimed: Requeued, error: APIError) -> None:
    ended = {**claimed.response, "status": "failed", "error": error.as_error_object()}
    await service.store.write_response(ended, owner=service.owner)
    log.warning("requeued response %s could not run again: %s", ended["id"], error.message)
