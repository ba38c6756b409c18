"""Context assembly: turn a validated request into everything a run needs, before any output.

All client mistakes (unknown previous response, conversation and previous_response_id together,
dangling item references, unsupported tools) are found here, so they become clean 4xx replies
before a stream has started.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from gateway.api_models.items import normalize_input
from gateway.api_models.requests import CreateResponseRequest
from gateway.api_models.tool_choice import check_tool_choice
from gateway.common.errors import InvalidRequest, NotFound
from gateway.common.ids import response_id
from gateway.engine import compaction, compaction_seal
from gateway.engine.dealias import dealias
from gateway.engine.deps import EngineDeps
from gateway.engine.prompt_render import apply_prompt
from gateway.engine.references import item_not_found, resolve_references
from gateway.research.models import data_source_problem, is_research


def _shown_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """A tool as the Response object shows it: function tools always carry `strict` (the API's
    default is true), as the Open Responses specification requires."""
    if isinstance(tool, dict) and tool.get("type") == "function" and "strict" not in tool:
        return {**tool, "strict": True}
    return tool


@dataclass
class Prepared:
    req: CreateResponseRequest
    response: dict[str, Any]
    inputs: list[dict[str, Any]]  # stored form, item references resolved
    history: list[dict[str, Any]]
    conversation_id: str | None
    # A prompt template's rendered messages: context only (never stored as inputs), before history.
    prompt_items: list[dict[str, Any]] = field(default_factory=list)
    # the input ended with a `compaction_trigger`: the answer is one compaction item (compaction_run.py)
    compact_now: bool = False
    # the replica stored for the chain this continues (#27: `pool/host:port`; internal, never shown)
    replica: str | None = None

    @property
    def stored(self) -> bool:
        return self.req.store

    def context_items(self) -> list[dict[str, Any]]:
        return self.prompt_items + compaction.prune(self.history, self.inputs)


def new_response_object(req: CreateResponseRequest, *, model: str, conversation_id: str | None) -> dict[str, Any]:
    text = req.text.model_dump(by_alias=True, exclude_none=True) if req.text else {}
    text.setdefault("format", {"type": "text"})
    text.setdefault("verbosity", "medium")
    reasoning = req.reasoning.model_dump(exclude_none=True) if req.reasoning else {}
    return {
        "id": response_id(),
        "object": "response",
        "created_at": int(time.time()),
        "status": "queued" if req.background else "in_progress",
        "background": req.background,
        "completed_at": None,
        "error": None,
        "incomplete_details": None,
        "instructions": req.instructions,
        "max_output_tokens": req.max_output_tokens,
        "max_tool_calls": req.max_tool_calls,
        "model": model,
        "output": [],
        "parallel_tool_calls": True if req.parallel_tool_calls is None else req.parallel_tool_calls,
        "previous_response_id": req.previous_response_id,
        "conversation": {"id": conversation_id} if conversation_id else None,
        "prompt": req.prompt.model_dump(exclude_none=True) if req.prompt else None,
        "prompt_cache_key": req.prompt_cache_key,
        "reasoning": {"effort": reasoning.get("effort"), "summary": reasoning.get("summary")},
        "safety_identifier": req.safety_identifier,
        "service_tier": req.service_tier or "default",
        "store": req.store,
        "temperature": 1.0 if req.temperature is None else req.temperature,
        "text": text,
        "tool_choice": req.tool_choice or "auto",
        "tools": req.tools or [],
        "top_logprobs": req.top_logprobs or 0,
        "top_p": 1.0 if req.top_p is None else req.top_p,
        "presence_penalty": req.presence_penalty or 0.0,
        "frequency_penalty": req.frequency_penalty or 0.0,
        "truncation": req.truncation or "disabled",
        "usage": None,
        "user": req.user,
        "metadata": req.metadata or {},
    }


async def prepare(deps: EngineDeps, req: CreateResponseRequest) -> Prepared:
    if req.background and not req.store:
        raise InvalidRequest("background responses require 'store' to be true.", param="background")
    if req.previous_response_id and req.conversation is not None:
        raise InvalidRequest(
            "Parameters 'previous_response_id' and 'conversation' cannot be used together.",
            param="conversation",
            code="invalid_request",
        )
    if req.input is None and req.prompt is None:
        raise InvalidRequest("Missing required parameter: 'input'.", param="input", code="missing_required_parameter")
    prompt_items: list[dict[str, Any]] = []
    if req.prompt is not None:
        req, prompt_items = await apply_prompt(deps, req)
    if is_research(req.model) and (problem := data_source_problem(req.tools or [])) is not None:
        raise InvalidRequest(problem, param="tools", code="missing_required_parameter")  # before any backend call
    deps.tools.validate(req.tools or [])
    check_tool_choice(req.tool_choice, req.tools or [])
    public_tools = await deps.tools.check(req.tools or [])  # e.g. MCP connectors exist; credentials redacted
    inputs = await dealias(deps.store, req.input, normalize_input(req.input))
    compact_now = any(it["type"] == compaction.TRIGGER for it in inputs)
    inputs = [it for it in inputs if it["type"] != compaction.TRIGGER]  # a signal: never stored nor echoed
    if compact_now and is_research(req.model):  # research runs an orchestrator, never a summary call
        raise InvalidRequest(
            f"Model '{req.model}' does not support compaction: send the 'compaction_trigger' to a chat model.",
            param="input",
            code="unsupported_parameter",
        )
    await compaction_seal.load(deps.settings)
    compaction.check_items(inputs)

    history: list[dict[str, Any]] = []
    conversation_id = req.conversation_id
    fleet = bool(deps.settings.backends)  # replicas to pick among: read the chain's stored one (#27)
    replica: str | None = None
    if req.previous_response_id:
        if fleet:
            routed = await deps.store.routed_history(req.previous_response_id)
            found, replica = routed if routed is not None else (None, None)
        else:
            found = await deps.store.response_history(req.previous_response_id)
        if found is None:
            raise InvalidRequest(
                f"Previous response with id '{req.previous_response_id}' not found.",
                param="previous_response_id",
                code="previous_response_not_found",
            )
        history = found
    elif conversation_id:
        if fleet:
            exists, replica = await deps.store.conversation_replica(conversation_id)
        else:
            exists = await deps.store.get_conversation(conversation_id) is not None
        if not exists:
            raise NotFound(f"Conversation with id '{conversation_id}' not found.", param="conversation")
        history = await deps.store.conversation_items(conversation_id)
    if fleet and replica is None and req.prompt_cache_key:
        # a key in steady use keeps its row: its age restarts once it is past half the horizon
        refresh = time.time() - deps.settings.cache_key_affinity_seconds / 2
        replica = await deps.store.cache_key_replica(req.prompt_cache_key, refresh)

    if compact_now and not (history or inputs):
        raise InvalidRequest("There is nothing to compact: the request has no history.", param="input")
    compaction.check_items(compaction.prune(history)[:1], "history")  # the one compaction item replayed

    inputs = await resolve_references(deps.store, inputs, "input", item_not_found)

    model = await deps.models.resolve(req.model)
    return Prepared(
        req=req,
        response={
            **new_response_object(req, model=model, conversation_id=conversation_id),
            "tools": [_shown_tool(t) for t in public_tools],
        },
        inputs=inputs,
        history=history,
        conversation_id=conversation_id,
        prompt_items=prompt_items,
        compact_now=compact_now,
        replica=replica,
    )
