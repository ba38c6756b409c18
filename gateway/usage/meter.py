"""Usage of the byte-for-byte passthroughs (chat/completions, completions, embeddings).

The passthrough relays the backend's bytes untouched; `metered` watches them go by and records one
call when the reply ends: the `usage` of a JSON reply, or of a stream's last chunk (vLLM sends it
with `stream_options.include_usage`). A stream without it is estimated from the request's messages
and the streamed text, and marked so. Only successful replies are recorded.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from gateway import usage
from gateway.common.jsonutil import loads
from gateway.inference.sse_reader import SSEParser
from storage.scope import current_project, owning_project

MAX_KEPT = 8 * 1024 * 1024  # a JSON reply larger than this is not parsed for its usage (estimated)
SOURCES = {"/chat/completions": "chat", "/completions": "completions", "/embeddings": "embeddings"}


def _piece(data: bytes) -> dict[str, Any] | None:
    """A JSON object, or None ([DONE], a truncated or foreign body)."""
    try:
        parsed = loads(data)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _text(piece: dict[str, Any]) -> str:
    out = []
    for choice in piece.get("choices") or []:
        if not isinstance(choice, dict):
            continue
        delta = choice.get("delta") or choice.get("message") or {}
        if isinstance(delta, dict) and isinstance(delta.get("content"), str):
            out.append(delta["content"])
        if isinstance(choice.get("text"), str):  # completions
            out.append(choice["text"])
    return "".join(out)


async def metered(chunks: AsyncIterable[bytes], path: str, body: bytes, status: int) -> AsyncIterator[bytes]:
    """Yield `chunks` unchanged; record the call's usage once they end."""
    if status != 200:
        async for chunk in chunks:
            yield chunk
        return
    # who asked, read now: a generator closed late (its client gone) may run outside the request
    project, key = current_project() or owning_project(), usage.caller_key.get()
    sse: SSEParser | None = None
    kept: list[bytes] = []
    size = 0
    reported: dict[str, Any] | None = None
    model: str | None = None
    said: list[str] = []
    try:
        async for chunk in chunks:
            if size == 0 and sse is None and chunk.lstrip()[:5] == b"data:":
                sse = SSEParser()
            if sse is not None:
                for _event, data in sse.feed(chunk):
                    piece = _piece(data)
                    if piece is not None:
                        model = piece.get("model") or model
                        reported = piece.get("usage") or reported
                        said.append(_text(piece))
            elif size <= MAX_KEPT:
                kept.append(chunk)
            size += len(chunk)
            yield chunk
    finally:  # a client gone mid-stream still cost the backend what it generated
        if sse is None and size <= MAX_KEPT:
            reply = _piece(b"".join(kept))
            if reply is not None:
                model, reported = reply.get("model"), reply.get("usage")
                said.append(_text(reply))
        request = _piece(body) or {}
        asked = request.get("messages") or request.get("prompt") or request.get("input")
        usage.record(
            model or request.get("model"),
            reported,
            source=SOURCES.get(path, path),
            kind="embeddings" if path == "/embeddings" else "completions",
            estimate=(asked, "".join(said)),
            project=project,
            api_key_id=key,
        )
