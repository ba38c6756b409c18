"""Request bodies of the Responses and Conversations APIs.

Unknown top-level fields of `POST /v1/responses` are kept (`extra="allow"`) and forwarded to the
backend: that is how vLLM's sampling extras (`top_k`, `repetition_penalty`, …) reach it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from gateway.common.ids import ID_PATTERN, MAX_ID_CHARS

Metadata = dict[str, str]
# an id of another object: short and plain, checked before any lookup (#26)
ObjectId = Annotated[str, Field(max_length=MAX_ID_CHARS, pattern=ID_PATTERN)]

INCLUDABLE = frozenset(
    {
        "file_search_call.results",
        "web_search_call.results",
        "web_search_call.action.sources",
        "message.input_image.image_url",
        "computer_call_output.output.image_url",
        "code_interpreter_call.outputs",
        "reasoning.encrypted_content",
        "message.output_text.logprobs",
    }
)


def check_metadata(value: Metadata | None) -> Metadata | None:
    if value is None:
        return None
    if len(value) > 16:
        raise ValueError("metadata can have at most 16 keys")
    for key, val in value.items():
        if len(key) > 64:
            raise ValueError("metadata keys can be at most 64 characters")
        if len(val) > 512:
            raise ValueError("metadata values can be at most 512 characters")
    return value


class ConversationRef(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: ObjectId


class TextFormat(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: Literal["text", "json_schema", "json_object"]
    name: str | None = None
    schema_: dict[str, Any] | None = Field(default=None, alias="schema")
    description: str | None = None
    strict: bool | None = None


class TextConfig(BaseModel):
    model_config = ConfigDict(extra="allow")
    format: TextFormat | None = None
    verbosity: Literal["low", "medium", "high"] | None = None


class ReasoningConfig(BaseModel):
    model_config = ConfigDict(extra="allow")
    effort: Literal["none", "minimal", "low", "medium", "high", "xhigh"] | None = None
    summary: Literal["auto", "concise", "detailed"] | None = None
    generate_summary: Literal["auto", "concise", "detailed"] | None = None


class PromptRef(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: ObjectId
    version: str | None = Field(default=None, max_length=20)
    variables: dict[str, Any] | None = None


class ContextManagement(BaseModel):
    """An entry of `context_management`: compact before the turn once the input reaches the threshold."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["compaction"]
    compact_threshold: int | None = Field(default=None, ge=1)


class CreateResponseRequest(BaseModel):
    model_config = ConfigDict(extra="allow")

    model: str | None = Field(default=None, max_length=256)
    input: str | list[dict[str, Any]] | None = None
    instructions: str | None = None
    previous_response_id: ObjectId | None = None
    conversation: ObjectId | ConversationRef | None = None
    store: bool = True
    stream: bool = False
    stream_options: dict[str, Any] | None = None
    background: bool = False
    metadata: Metadata | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, ge=0, le=1)
    presence_penalty: float | None = Field(default=None, ge=-2, le=2)
    frequency_penalty: float | None = Field(default=None, ge=-2, le=2)
    max_output_tokens: int | None = Field(default=None, ge=1)
    max_tool_calls: int | None = Field(default=None, ge=1)
    tools: list[dict[str, Any]] | None = None
    tool_choice: Literal["none", "auto", "required"] | dict[str, Any] | None = None
    parallel_tool_calls: bool | None = None
    text: TextConfig | None = None
    reasoning: ReasoningConfig | None = None
    include: list[str] | None = None
    truncation: Literal["auto", "disabled"] | None = None
    user: str | None = None
    safety_identifier: str | None = None
    prompt_cache_key: str | None = None
    prompt_cache_retention: str | None = None
    service_tier: str | None = None
    top_logprobs: int | None = Field(default=None, ge=0, le=20)
    prompt: PromptRef | None = None
    context_management: list[ContextManagement] | None = None

    _check_metadata = field_validator("metadata")(check_metadata)

    @field_validator("include")
    @classmethod
    def _known_includes(cls, value: list[str] | None) -> list[str] | None:
        for entry in value or []:
            if entry not in INCLUDABLE:
                raise ValueError(f"unsupported include value {entry!r}")
        return value

    @property
    def compact_threshold(self) -> int | None:
        """The lowest `compact_threshold` of `context_management` (None: no compaction by size)."""
        found = [e.compact_threshold for e in self.context_management or [] if e.compact_threshold is not None]
        return min(found) if found else None

    @property
    def conversation_id(self) -> str | None:
        if self.conversation is None:
            return None
        return self.conversation if isinstance(self.conversation, str) else self.conversation.id

    def backend_extras(self) -> dict[str, Any]:
        """Fields the Responses API does not define; forwarded to the backend untouched."""
        return dict(self.model_extra or {})


class CreateConversationRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    items: list[dict[str, Any]] | None = None
    metadata: Metadata | None = None

    _check_metadata = field_validator("metadata")(check_metadata)


class UpdateConversationRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    metadata: Metadata

    _check_metadata = field_validator("metadata")(check_metadata)


class CreateConversationItemsRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    items: list[dict[str, Any]] = Field(max_length=20)
