"""The Prompts API (`/v1/prompts`): versioned templates that `responses.create(prompt=…)` renders.

OpenAI manages prompts in its dashboard and publishes no REST shape for them (the SDK has no
`prompts` resource), so the shapes here follow OpenAI's conventions (ids `pmpt_…`, string versions
as in `ResponsePrompt.version`, `{"object": "list", …}` pages, `…deleted` replies) and keep the
fields a Responses request can take from a prompt (instructions, input messages, model, tools,
text, reasoning, sampling). docs/ARCHITECTURE.md ("Prompts") lists every route and object.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from gateway.api_models.items import normalize_input
from gateway.api_models.pages import list_body
from gateway.api_models.requests import Metadata, ReasoningConfig, TextConfig, check_metadata
from gateway.api_models.validation import parse
from gateway.common.errors import InvalidRequest, NotFound
from gateway.common.ids import new_id
from storage.base import JSON
from storage.prompts import PromptRecord

if TYPE_CHECKING:
    from storage.bundle import PromptStores

VARIABLE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
# Template fields a version holds; everything else in a body is rejected.
TEMPLATE_FIELDS = (
    "name",
    "description",
    "instructions",
    "input",
    "model",
    "tools",
    "tool_choice",
    "text",
    "reasoning",
    "temperature",
    "top_p",
    "max_output_tokens",
    "metadata",
)


class PromptBody(BaseModel):
    """Create/update body. On update, a field that is absent keeps the latest version's value."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, max_length=256)
    description: str | None = Field(default=None, max_length=4096)
    instructions: str | None = None
    input: str | list[dict[str, Any]] | None = None
    model: str | None = None
    tools: list[dict[str, Any]] | None = None
    tool_choice: Literal["none", "auto", "required"] | dict[str, Any] | None = None
    text: TextConfig | None = None
    reasoning: ReasoningConfig | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, ge=0, le=1)
    max_output_tokens: int | None = Field(default=None, ge=1)
    metadata: Metadata | None = None
    # update only: whether the new version becomes the default (as when a dashboard "publishes")
    set_as_default: bool = True

    _check_metadata = field_validator("metadata")(check_metadata)

    def template(self, base: JSON | None = None) -> JSON:
        """The version's stored fields: `base` (the latest version) overridden by what was sent."""
        out = dict(base or {})
        for key in TEMPLATE_FIELDS:
            if key in self.model_fields_set:
                value = getattr(self, key)
                out[key] = value.model_dump(by_alias=True, exclude_none=True) if isinstance(value, BaseModel) else value
        out["input"] = _template_messages(out.get("input"))
        if not out.get("instructions") and not out.get("input"):
            raise InvalidRequest(
                "A prompt needs 'instructions' or 'input' messages.",
                param="instructions",
                code="missing_required_parameter",
            )
        for i, tool in enumerate(out.get("tools") or []):
            if not isinstance(tool.get("type"), str):
                raise InvalidRequest(
                    f"Missing required parameter: 'tools[{i}].type'.",
                    param=f"tools[{i}].type",
                    code="missing_required_parameter",
                )
        return out


def _template_messages(value: Any) -> list[JSON]:
    """Input messages in stored form without ids: a template's messages are copied into each
    response's context, so an id here would be shared by every rendering."""
    if not value:
        return []
    items = normalize_input(value)
    for i, item in enumerate(items):
        if item["type"] != "message":
            raise InvalidRequest(
                f"Invalid value: '{item['type']}'. A prompt's input holds messages only.",
                param=f"input[{i}].type",
            )
        item.pop("id", None)
        item.pop("status", None)
    return items


def template_variables(data: JSON) -> list[str]:
    """Variable names a template uses, in order of first appearance."""
    texts = [data.get("instructions") or ""]
    for message in data.get("input") or []:
        texts.extend(p.get("text") or "" for p in message.get("content", []))
    names: dict[str, None] = {}
    for text in texts:
        for match in VARIABLE.finditer(text):
            names.setdefault(match.group(1), None)
    return list(names)


def prompt_object(record: PromptRecord) -> JSON:
    data = record.data
    return {
        "id": record.id,
        "object": "prompt",
        "version": str(record.version),
        "default_version": str(record.default_version),
        "latest_version": str(record.latest_version),
        "is_default": record.version == record.default_version,
        "created_at": int(record.created_at),
        "version_created_at": int(record.version_created_at),
        "name": data.get("name"),
        "description": data.get("description"),
        "instructions": data.get("instructions"),
        "input": data.get("input") or [],
        "variables": template_variables(data),
        "model": data.get("model"),
        "tools": data.get("tools"),
        "tool_choice": data.get("tool_choice"),
        "text": data.get("text"),
        "reasoning": data.get("reasoning"),
        "temperature": data.get("temperature"),
        "top_p": data.get("top_p"),
        "max_output_tokens": data.get("max_output_tokens"),
        "metadata": data.get("metadata") or {},
    }


MAX_VERSION = 999_999_999


def parse_version(value: Any, param: str) -> int:
    """Versions are strings on the wire ("1", "2", …) and integers in storage."""
    if isinstance(value, int) and not isinstance(value, bool):  # no str() of it: 5,000 digits raise
        text = str(value) if 0 < value <= MAX_VERSION else ""
    else:
        text = value.strip() if isinstance(value, str) else ""
    # ASCII digits, bounded: isdigit() took '²' (int() raised) and 20 digits overflowed the store (#26)
    if not (0 < len(text) <= 9 and text.isascii() and text.isdigit()) or int(text) < 1:
        raise InvalidRequest(f"Invalid '{param}': expected a version number such as \"1\".", param=param)
    return int(text)


class PromptsService:
    def __init__(self, store: PromptStores) -> None:
        self.store = store  # the bundle's prompt store (SQLite's or PostgreSQL's)

    async def create(self, body: Any) -> JSON:
        data = parse(PromptBody, body).template()
        return prompt_object(await self.store.create(new_id("pmpt"), data))

    async def update(self, prompt_id: str, body: Any) -> JSON:
        req = parse(PromptBody, body)
        record = await self.store.add_version(prompt_id, req.template, make_default=req.set_as_default)
        if record is None:
            raise _not_found(prompt_id)
        return prompt_object(record)

    async def retrieve(self, prompt_id: str, version: str | None) -> JSON:
        number = None if version is None else parse_version(version, "version")
        record = await self.store.get(prompt_id, number)
        if record is None:
            if number is not None and await self.store.exists(prompt_id):
                raise NotFound(f"Prompt '{prompt_id}' has no version '{version}'.", param="version")
            raise _not_found(prompt_id)
        return prompt_object(record)

    async def list(self, *, limit: int, order: Literal["asc", "desc"], after: str | None, **_: Any) -> JSON:
        records, has_more = await self.store.list_prompts(limit=limit, order=order, after=after)
        return list_body([prompt_object(r) for r in records], has_more)

    async def versions(
        self, prompt_id: str, *, limit: int, order: Literal["asc", "desc"], after: str | None, **_: Any
    ) -> JSON:
        cursor = None if after is None else parse_version(after, "after")
        found = await self.store.versions(prompt_id, limit=limit, order=order, after=cursor)
        if found is None:
            raise _not_found(prompt_id)
        records, has_more = found
        return list_body([prompt_object(r) for r in records], has_more, cursor="version")

    async def set_default(self, prompt_id: str, body: Any) -> JSON:
        if not isinstance(body, dict) or "version" not in body:
            raise InvalidRequest(
                "Missing required parameter: 'version'.", param="version", code="missing_required_parameter"
            )
        unknown = sorted(set(body) - {"version"})
        if unknown:
            raise InvalidRequest(f"Unrecognized request argument supplied: {unknown[0]}", param=unknown[0])
        result = await self.store.set_default(prompt_id, parse_version(body["version"], "version"))
        if result == "no_prompt":
            raise _not_found(prompt_id)
        if result == "no_version":
            raise InvalidRequest(f"Prompt '{prompt_id}' has no version '{body['version']}'.", param="version")
        assert not isinstance(result, str)
        return prompt_object(result)

    async def delete(self, prompt_id: str) -> JSON:
        if not await self.store.delete(prompt_id):
            raise _not_found(prompt_id)
        return {"id": prompt_id, "object": "prompt.deleted", "deleted": True}


def _not_found(prompt_id: str) -> NotFound:
    return NotFound(f"Prompt with id '{prompt_id}' not found.", param="prompt_id")
