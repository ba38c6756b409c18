"""A backend that serves `/v1/responses` natively (vLLM, Ollama, OpenAI).

The gateway still owns the state: it sends the assembled context with `store: false`, so the
backend never needs to know about earlier turns, and re-emits the backend's events under its own
ids and sequence numbers.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from gateway.common.errors import BackendError
from gateway.common.jsonutil import loads
from gateway.inference.base import TurnRequest
from gateway.inference.deltas import Delta, Finished, Progress, ReasoningDelta, TextDelta, ToolCallDelta, Usage
from gateway.inference.http_client import HTTPBackend, SSEReads


def build_responses_body(turn: TurnRequest) -> dict[str, Any]:
    body: dict[str, Any] = dict(turn.extras)
    body.update({"model": turn.model, "input": turn.items, "stream": turn.stream, "store": False})
    optional = {
        "instructions": turn.instructions,
        "temperature": turn.temperature,
        "top_p": turn.top_p,
        "presence_penalty": turn.presence_penalty,
        "frequency_penalty": turn.frequency_penalty,
        "max_output_tokens": turn.max_output_tokens,
        "text": turn.text,
        "reasoning": turn.reasoning,
        "user": turn.user,
        "tool_choice": turn.tool_choice,
        "parallel_tool_calls": turn.parallel_tool_calls,
    }
    body.update({k: v for k, v in optional.items() if v is not None})
    if turn.logprobs:
        body["include"] = ["message.output_text.logprobs"]
        body["top_logprobs"] = turn.top_logprobs or 0
    if turn.tools:
        body["tools"] = turn.tools
    else:
        body.pop("tool_choice", None)
    return body


def chat_usage(usage: dict[str, Any]) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.get("input_tokens", 0),
        "completion_tokens": usage.get("output_tokens", 0),
        "prompt_tokens_details": usage.get("input_tokens_details"),
        "completion_tokens_details": usage.get("output_tokens_details"),
    }


def event_deltas(event: dict[str, Any], progress: Progress) -> list[Delta]:
    """The deltas of one Responses stream event (`progress`: whether the call has called a tool)."""
    etype = event.get("type", "")
    out: list[Delta] = []
    if etype == "response.output_text.delta":
        if event.get("delta"):
            out.append(TextDelta(event["delta"], event.get("logprobs") or None))
    elif etype in ("response.reasoning_text.delta", "response.reasoning_summary_text.delta"):
        if event.get("delta"):
            out.append(ReasoningDelta(event["delta"]))
    elif etype == "response.output_item.added" and (event.get("item") or {}).get("type") == "function_call":
        item = event["item"]
        out.append(
            ToolCallDelta(event.get("output_index", 0), item.get("call_id"), item.get("name"), item.get("arguments"))
        )
    elif etype == "response.function_call_arguments.delta":
        out.append(ToolCallDelta(event.get("output_index", 0), arguments=event.get("delta")))
    elif etype in ("response.completed", "response.incomplete"):
        resp = event.get("response") or {}
        if resp.get("usage"):
            out.append(Usage(chat_usage(resp["usage"])))
        reason = (resp.get("incomplete_details") or {}).get("reason")
        out.append(
            Finished("length" if reason == "max_output_tokens" else ("tool_calls" if progress.called else "stop"))
        )
    elif etype in ("response.failed", "error"):
        err = (event.get("response") or {}).get("error") or event
        raise BackendError(f"the inference backend failed the response: {err.get('message', err)}")
    return progress.see(out)


class ResponsesBackend(HTTPBackend):
    async def count_tokens(self, turn: TurnRequest) -> int:
        """A Responses backend counts itself (`/v1/responses/input_tokens`)."""
        body = {k: v for k, v in build_responses_body(turn).items() if k not in ("stream", "store")}
        found = await self.http.post_json("/responses/input_tokens", body, model=turn.model, key=turn.affinity)
        if not isinstance(found, dict) or not isinstance(found.get("input_tokens"), int):
            raise BackendError("the inference backend's input_tokens answered without a count")
        return int(found["input_tokens"])

    async def turn_stream(self, turn: TurnRequest) -> AsyncIterator[list[Delta]]:
        """Stream one model call: the deltas of each read of the body."""
        progress = Progress()
        async with self.http.post(
            "/responses", build_responses_body(turn), model=turn.model, key=turn.affinity
        ) as resp:
            if "text/event-stream" not in resp.headers.get("Content-Type", ""):
                body = loads(await resp.read())
                deltas: list[Delta] = []
                for index, item in enumerate(body.get("output", [])):
                    if item.get("type") == "message":
                        for part in item.get("content", []):
                            if part.get("text"):
                                deltas.append(TextDelta(part["text"], part.get("logprobs") or None))
                    elif item.get("type") == "function_call":
                        deltas.append(
                            ToolCallDelta(index, item.get("call_id"), item.get("name"), item.get("arguments"))
                        )
                progress.see(deltas)
                end = {"type": f"response.{body.get('status', 'completed')}", "response": body}
                yield deltas + event_deltas(end, progress)
                return
            async for payloads in SSEReads(resp):
                yield [delta for data in payloads for delta in event_deltas(loads(data), progress)]
        if progress.finish_reason is None:
            raise BackendError("the inference backend's stream ended before the response was complete")
