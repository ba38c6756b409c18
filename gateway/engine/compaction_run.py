"""Compaction inside `POST /v1/responses`: the `compaction_trigger` item and `context_management`.

Why here and not in `/compact`: Codex's remote compaction (v2) appends `{"type":
"compaction_trigger"}` to an ordinary create and requires exactly one `compaction` output item, then
`response.completed`; OpenAI's `context_management` compacts before a turn whose rendered input
reached `compact_threshold` tokens, and the answer follows the compaction item. Both run the same
step before the tool loop (`compact`): the backend model summarises the context under the
gateway's compaction instructions (a call of its own, no tools, nothing of it streamed as text),
and the summary leaves as one compaction item, streamed as its own output item
(`output_item.added` → `response.compaction.compacting` → `output_item.done`). The turn that follows
(threshold) sees the summary and the request's latest user message (and what follows it) in place of
the history.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from gateway.common.errors import BackendError
from gateway.common.ids import item_id
from gateway.engine import compaction
from gateway.engine.compaction_seal import seal
from gateway.engine.events import Event, EventBuilder
from gateway.engine.turn import TurnAssembler
from gateway.tools.client_tools import as_offered

if TYPE_CHECKING:
    from gateway.engine.runner import ResponseRun

log = logging.getLogger(__name__)


async def over_threshold(run: ResponseRun, threshold: int) -> bool:
    """Whether the turn's rendered input (history, instructions, tools) reaches `threshold` tokens,
    counted by the backend's own tokenizer; a rough count (4 characters a token) if it cannot."""
    request = run.turn_request()
    try:
        count = await run.deps.backend.count_tokens(request)
    except Exception as exc:  # a backend without a tokenizer route: estimate rather than fail the turn
        log.info("response %s: token count unavailable (%s), estimating", run.id, type(exc).__name__)
        count = len(repr(request.items)) // 4
    return count >= threshold


async def summarise(run: ResponseRun) -> str:
    """The backend model's summary of the run's context (one non-streamed call, no tools)."""
    base = run.turn_request(tools_allowed=False)
    request = dataclasses.replace(
        base,
        instructions=compaction.summary_instructions(run.p.req.instructions),
        items=[
            *run.context,
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": compaction.REQUEST}]},
        ],
        max_output_tokens=None,
        text=None,
        top_logprobs=None,
        logprobs=False,
        stream=False,
    )
    scratch = TurnAssembler(EventBuilder({"output": []}))  # its items are the summary, not output
    async for deltas in run.deps.backend.turn_stream(request):
        scratch.apply(deltas)
    scratch.close()
    run.add_usage(scratch.usage)
    summary = "".join(
        part.get("text", "")
        for item in scratch.items
        if item.get("type") == "message"
        for part in item.get("content", [])
    ).strip()
    if not summary:
        raise BackendError("The model wrote no summary of the conversation to compact.", code="compaction_failed")
    return summary


async def compact(run: ResponseRun) -> AsyncIterator[Event]:
    """One compaction item for the run's context; afterwards the model sees its summary, then the
    request's input (what came after the latest compaction item it held)."""
    item: dict[str, Any] = {"id": item_id("compaction"), "type": "compaction", "encrypted_content": ""}
    index = run.events.open_item(item)
    run.events.emit("response.compaction.compacting", {"item_id": item["id"], "output_index": index})
    for event in run.events.drain():
        yield event
    try:
        item["encrypted_content"] = seal(await summarise(run))
    except BaseException:
        # a failed summary leaves no item: an empty `encrypted_content` would be an unusable
        # compaction item in the stored (failed) response that a client might send back
        if index < len(run.events.output) and run.events.output[index] is item:
            del run.events.output[index]
        raise
    run.events.close_item(index)
    for event in run.events.drain():
        yield event
    run.context = as_offered(run.deps.tools.expand([*run.p.prompt_items, item, *latest_turn(run.p.inputs)]))


def latest_turn(inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The request's input from its last user message on (a client sending its whole history back
    must not undo the compaction), and its system and developer messages; the summary holds the rest."""
    kept = [it for it in compaction.prune([], inputs) if it.get("type") != "compaction"]
    users = [i for i, it in enumerate(kept) if it.get("type") == "message" and it.get("role") == "user"]
    last = users[-1] if users else len(kept)
    rules = [it for it in kept[:last] if it.get("type") == "message" and it.get("role") in ("system", "developer")]
    return rules + kept[last:]  # instructions sent as messages (Codex's) stay too


async def before_turn(run: ResponseRun) -> AsyncIterator[Event]:
    """Compact when the request asks for it: always with a trigger, past the threshold otherwise."""
    threshold = run.p.req.compact_threshold
    if run.p.compact_now or (threshold is not None and await over_threshold(run, threshold)):
        async for event in compact(run):
            yield event
