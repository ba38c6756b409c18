"""Render `responses.create(prompt={"id", "version", "variables"})` into a request's context.

Called from context assembly (`prepare()`), which both front doors run, so a prompted request is
rendered identically by the HTTP server and the ExtProc, and every mistake (unknown prompt or
version, a missing or unknown variable, an image where only text fits) is a 400 before any output.

What a prompt contributes:
- its `instructions` (variables substituted) come before the request's own `instructions`, as one
  system message, because many chat templates reject a second system message;
- its input messages come first in the context, before any history, and are not stored as the
  response's input items: like instructions they belong to this request, and a follow-up that
  names the prompt again must not see them twice;
- its model, tools, text, reasoning and sampling fields apply where the request leaves them unset.

Variables: a string (or number) value, or an `input_text` part, replaces `{{name}}` as text; an
`input_image` / `input_file` part replaces it as a content part of its own inside an input message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gateway.api_models.requests import CreateResponseRequest, ReasoningConfig, TextConfig
from gateway.common.errors import InvalidRequest
from gateway.engine.prompts import VARIABLE, parse_version, template_variables
from storage.base import JSON

if TYPE_CHECKING:
    from gateway.engine.deps import EngineDeps


class _Budget:
    """What rendering may still add, counted as each variable is substituted (not after): a 40 KB
    request with many `{{x}}` and a long `x` rendered into 200 MB, stored each time (#26)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.left = cap

    def spend(self, text: str) -> str:
        self.left -= len(text)
        if self.left < 0:
            raise InvalidRequest(
                f"The prompt renders into more than {self.cap} characters with these variables.",
                param="prompt.variables",
                code="prompt_too_large",
            )
        return text


# Request fields a prompt supplies when the request does not set them.
_DEFAULTS = ("model", "tools", "tool_choice", "temperature", "top_p", "max_output_tokens")


async def apply_prompt(deps: EngineDeps, req: CreateResponseRequest) -> tuple[CreateResponseRequest, list[JSON]]:
    """The request with the prompt's fields applied, and the rendered prompt messages."""
    ref = req.prompt
    assert ref is not None
    store = deps.stores.prompts
    version = None if ref.version is None else parse_version(ref.version, "prompt.version")
    record = await store.get(ref.id, version)
    if record is None:
        if version is not None and await store.exists(ref.id):
            raise InvalidRequest(
                f"Prompt '{ref.id}' has no version '{ref.version}'.", param="prompt.version", code="prompt_not_found"
            )
        raise InvalidRequest(f"Prompt with id '{ref.id}' not found.", param="prompt.id", code="prompt_not_found")
    data = record.data
    values = _values(ref.variables or {}, template_variables(data))
    budget = _Budget(deps.settings.rendered_bytes_cap)
    instructions = _render_text(data.get("instructions"), values, "instructions", budget)
    items = [_render_message(m, values, budget) for m in data.get("input") or []]

    updates: dict[str, Any] = {"prompt": ref.model_copy(update={"version": str(record.version)})}
    if instructions:
        updates["instructions"] = f"{instructions}\n\n{req.instructions}" if req.instructions else instructions
    for key in _DEFAULTS:
        if getattr(req, key) is None and data.get(key) is not None:
            updates[key] = data[key]
    if req.text is None and data.get("text"):
        updates["text"] = TextConfig.model_validate(data["text"])
    if req.reasoning is None and data.get("reasoning"):
        updates["reasoning"] = ReasoningConfig.model_validate(data["reasoning"])
    return req.model_copy(update=updates), items


def _values(given: dict[str, Any], used: list[str]) -> dict[str, str | JSON]:
    """Check the variables against the template: each used one given, each given one used."""
    for name in given:
        if name not in used:
            raise InvalidRequest(
                f"Unknown prompt variable '{name}': the prompt uses "
                + (", ".join(f"'{u}'" for u in used) if used else "no variables")
                + ".",
                param=f"prompt.variables.{name}",
                code="unknown_variable",
            )
    values: dict[str, str | JSON] = {}
    for name in used:
        if name not in given:
            raise InvalidRequest(
                f"Missing prompt variable '{name}'.", param=f"prompt.variables.{name}", code="missing_variable"
            )
        values[name] = _value(given[name], f"prompt.variables.{name}")
    return values


def _value(value: Any, param: str) -> str | JSON:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    if isinstance(value, dict):
        vtype = value.get("type")
        if vtype == "input_text" and isinstance(value.get("text"), str):
            return str(value["text"])
        if vtype == "input_image" and (value.get("image_url") or value.get("file_id")):
            return value
        if vtype == "input_file" and (value.get("file_id") or value.get("file_data") or value.get("file_url")):
            return value
    raise InvalidRequest(
        f"Invalid value for '{param}': expected a string or an input_text, input_image or input_file object.",
        param=param,
        code="invalid_type",
    )


def _render_text(text: str | None, values: dict[str, str | JSON], where: str, budget: _Budget) -> str | None:
    if not text:
        return text

    def substitute(match: Any) -> str:
        value = values[match.group(1)]
        if not isinstance(value, str):
            raise InvalidRequest(
                f"Prompt variable '{match.group(1)}' is an {value['type']}, but the prompt uses it in its {where}, "
                "where only text fits.",
                param=f"prompt.variables.{match.group(1)}",
                code="invalid_type",
            )
        return budget.spend(value)

    budget.spend(text)
    return VARIABLE.sub(substitute, text)


def _render_message(message: JSON, values: dict[str, str | JSON], budget: _Budget) -> JSON:
    role = message["role"]
    parts: list[JSON] = []
    for part in message.get("content", []):
        text = part.get("text")
        if not isinstance(text, str) or not VARIABLE.search(text):
            parts.append(dict(part))
        elif part["type"] == "input_text":
            parts.extend(_split_parts(text, values, budget))
        else:  # an assistant's output_text: text only
            parts.append({**part, "text": _render_text(text, values, f"{role} message", budget)})
    return {"type": "message", "role": role, "content": parts}


def _split_parts(text: str, values: dict[str, str | JSON], budget: _Budget) -> list[JSON]:
    """An input_text part with its variables substituted; image/file variables become parts of
    their own at their place in the text."""
    parts: list[JSON] = []
    buf: list[str] = []
    pos = 0
    budget.spend(text)
    for match in VARIABLE.finditer(text):
        buf.append(text[pos : match.start()])
        pos = match.end()
        value = values[match.group(1)]
        if isinstance(value, str):
            buf.append(budget.spend(value))
            continue
        if "".join(buf):
            parts.append({"type": "input_text", "text": "".join(buf)})
        buf = []
        parts.append({k: v for k, v in value.items() if v is not None})
    buf.append(text[pos:])
    if "".join(buf) or not parts:
        parts.append({"type": "input_text", "text": "".join(buf)})
    return parts
