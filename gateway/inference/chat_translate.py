"""Pure translation between the Responses model and Chat Completions (what vLLM serves for every model).

No I/O here: the HTTP backend client and the ExtProc (which sees the same bytes inside Envoy) share
these functions, so a request takes the same shape whichever door it came through.
"""

from __future__ import annotations

from typing import Any

from gateway.common.errors import BackendError
from gateway.inference.base import TurnRequest
from gateway.inference.deltas import Delta, Finished, ReasoningDelta, TextDelta, ToolCallDelta, Usage


def _chat_part(part: dict[str, Any]) -> dict[str, Any]:
    ptype = part.get("type")
    if ptype in ("input_text", "output_text"):
        return {"type": "text", "text": part.get("text", "")}
    if ptype == "input_image":
        url = part.get("image_url") or part.get("file_id")
        image: dict[str, Any] = {"url": url}
        if part.get("detail") and part["detail"] != "auto":
            image["detail"] = part["detail"]
        return {"type": "image_url", "image_url": image}
    if ptype == "input_file":
        file = {k: part[k] for k in ("file_data", "file_id", "filename") if part.get(k)}
        return {"type": "file", "file": file}
    if ptype == "input_audio":
        return {"type": "input_audio", "input_audio": part.get("input_audio", {})}
    return {"type": "text", "text": str(part.get("text") or part.get("refusal") or "")}


def chat_content(parts: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """A plain string when every part is text: chat templates handle strings best."""
    if all(p.get("type") in ("input_text", "output_text") for p in parts):
        return "\n".join(p.get("text", "") for p in parts) if len(parts) != 1 else parts[0].get("text", "")
    return [_chat_part(p) for p in parts]


def _tool_output_text(output: Any) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "\n".join(str(p.get("text", "")) for p in output if isinstance(p, dict))
    return str(output)


def items_to_messages(instructions: str | None, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Flatten Responses items into chat messages.

    Consecutive assistant text and function calls merge into one assistant message with
    `tool_calls`, which is how chat templates expect a tool-calling turn. Reasoning items are not
    replayed (vLLM's templates drop prior reasoning anyway).
    """
    messages: list[dict[str, Any]] = []
    if instructions:
        messages.append({"role": "system", "content": instructions})
    assistant: dict[str, Any] | None = None
    for item in items:
        itype = item.get("type")
        if itype == "message":
            role = item.get("role")
            if role == "assistant":
                text = "".join(p.get("text") or p.get("refusal") or "" for p in item.get("content", []))
                if assistant is not None and "tool_calls" not in assistant:
                    assistant["content"] = (assistant.get("content") or "") + text
                else:
                    assistant = {"role": "assistant", "content": text}
                    messages.append(assistant)
            else:
                assistant = None
                messages.append(
                    {
                        "role": "system" if role == "developer" else role,
                        "content": chat_content(item.get("content", [])),
                    }
                )
        elif itype == "function_call":
            if assistant is None:
                assistant = {"role": "assistant", "content": None}
                messages.append(assistant)
            assistant.setdefault("tool_calls", []).append(
                {
                    "id": item["call_id"],
                    "type": "function",
                    "function": {"name": item["name"], "arguments": item.get("arguments") or "{}"},
                }
            )
        elif itype == "function_call_output":
            assistant = None
            messages.append(
                {"role": "tool", "tool_call_id": item["call_id"], "content": _tool_output_text(item.get("output"))}
            )
    return messages


def chat_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for tool in tools:
        fn: dict[str, Any] = {"name": tool["name"]}
        if tool.get("description"):
            fn["description"] = tool["description"]
        fn["parameters"] = tool.get("parameters") or {"type": "object", "properties": {}}
        if tool.get("strict") is not None:
            fn["strict"] = tool["strict"]
        out.append({"type": "function", "function": fn})
    return out


def chat_tool_choice(choice: Any, tools: list[dict[str, Any]]) -> tuple[Any, list[dict[str, Any]]]:
    """Map `tool_choice`; `allowed_tools` narrows the offered tools instead of naming one."""
    if choice is None or isinstance(choice, str):
        return choice, tools
    ctype = choice.get("type")
    if ctype == "function":
        return {"type": "function", "function": {"name": choice.get("name")}}, tools
    if ctype == "allowed_tools":
        names = {t.get("name") for t in choice.get("tools", [])}
        return choice.get("mode", "auto"), [t for t in tools if t.get("name") in names]
    return "required", tools


def response_format(text: dict[str, Any] | None) -> dict[str, Any] | None:
    fmt = (text or {}).get("format") or {}
    if fmt.get("type") == "json_schema":
        schema: dict[str, Any] = {"name": fmt.get("name") or "response", "schema": fmt.get("schema") or {}}
        if fmt.get("strict") is not None:
            schema["strict"] = fmt["strict"]
        if fmt.get("description"):
            schema["description"] = fmt["description"]
        return {"type": "json_schema", "json_schema": schema}
    if fmt.get("type") == "json_object":
        return {"type": "json_object"}
    return None


def build_chat_body(turn: TurnRequest) -> dict[str, Any]:
    body: dict[str, Any] = dict(turn.extras)
    body["model"] = turn.model
    body["messages"] = items_to_messages(turn.instructions, turn.items)
    body["stream"] = turn.stream
    if turn.stream:
        body["stream_options"] = {"include_usage": True}
    choice, tools = chat_tool_choice(turn.tool_choice, turn.tools)
    if tools:
        body["tools"] = chat_tools(tools)
        if choice is not None:
            body["tool_choice"] = choice
        if turn.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = turn.parallel_tool_calls
    for key, value in (
        ("temperature", turn.temperature),
        ("top_p", turn.top_p),
        ("presence_penalty", turn.presence_penalty),
        ("frequency_penalty", turn.frequency_penalty),
        ("max_tokens", turn.max_output_tokens),
        ("user", turn.user),
    ):
        if value is not None:
            body[key] = value
    fmt = response_format(turn.text)
    if fmt is not None:
        body["response_format"] = fmt
    effort = (turn.reasoning or {}).get("effort")
    if effort:
        body["reasoning_effort"] = effort
    if turn.logprobs:
        body["logprobs"] = True
        body["top_logprobs"] = turn.top_logprobs or 0
    return body


def _logprobs(choice: dict[str, Any]) -> list[dict[str, Any]] | None:
    """A chat choice's per-token log probabilities: the Responses shape is the same
    (`token`, `logprob`, `bytes`, `top_logprobs`)."""
    content = (choice.get("logprobs") or {}).get("content")
    return content if isinstance(content, list) else None


# How both doors end a stream the backend did not finish (same words, same `backend_error`).
STREAM_CUT = "the inference backend's stream ended before the response was complete"
STREAM_UNFINISHED = "the inference backend's stream ended without finishing any choice (no finish_reason)"


def chunk_deltas(chunk: dict[str, Any]) -> list[Delta]:
    """The deltas of one `chat.completion.chunk` (tool-call deltas are keyed by their `index`)."""
    out: list[Delta] = []
    choices = chunk.get("choices")
    if choices:
        choice = choices[0]
        delta = choice.get("delta") or {}
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if reasoning:
            out.append(ReasoningDelta(reasoning))
        content = delta.get("content")
        if content:
            out.append(TextDelta(content, _logprobs(choice)))
        for tc in delta.get("tool_calls") or ():
            fn = tc.get("function") or {}
            out.append(ToolCallDelta(tc.get("index", 0), tc.get("id"), fn.get("name"), fn.get("arguments")))
        if choice.get("finish_reason"):  # once per call, with the model that answered (tracing)
            out.append(Finished(choice["finish_reason"], chunk.get("model")))
    if chunk.get("usage"):
        out.append(Usage(chunk["usage"]))
    return out


def completion_deltas(body: dict[str, Any]) -> list[Delta]:
    """The deltas of a non-streamed `chat.completion`: the same as its chunks' would be."""
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        # A 200 without choices is a broken backend, not a completed empty response (#19).
        raise BackendError("the inference backend sent an invalid reply")
    out: list[Delta] = []
    message = choices[0].get("message") or {}
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if reasoning:
        out.append(ReasoningDelta(reasoning))
    if message.get("content"):
        out.append(TextDelta(message["content"], _logprobs(choices[0])))
    for i, tc in enumerate(message.get("tool_calls") or ()):
        fn = tc.get("function") or {}
        out.append(ToolCallDelta(i, tc.get("id"), fn.get("name"), fn.get("arguments")))
    out.append(Finished(choices[0].get("finish_reason"), body.get("model")))
    if body.get("usage"):
        out.append(Usage(body["usage"]))
    return out
