"""The default backend: `/v1/chat/completions`, streamed, as vLLM serves it for every model."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from gateway.common.errors import BackendError
from gateway.common.jsonutil import dumps, loads
from gateway.inference.base import TurnRequest, map_backend_error
from gateway.inference.chat_translate import (
    STREAM_CUT,
    STREAM_UNFINISHED,
    build_chat_body,
    chunk_deltas,
    completion_deltas,
)
from gateway.inference.deltas import Delta, Progress
from gateway.inference.http_client import HTTPBackend, SSEReads


class ChatCompletionsBackend(HTTPBackend):
    async def count_tokens(self, turn: TurnRequest) -> int:
        """vLLM's `/tokenize` (beside `/v1`) applies the model's chat template to the very messages
        and tools a chat call would send, so the count is the backend's, not an estimate."""
        chat = build_chat_body(turn)
        body: dict[str, Any] = {k: chat[k] for k in ("model", "messages", "tools") if k in chat}
        found = await self.http.post_json(
            "/tokenize", {**body, "add_generation_prompt": True}, model=turn.model, key=turn.affinity, root=True
        )
        if not isinstance(found, dict) or not isinstance(found.get("count"), int):
            raise BackendError("the inference backend's /tokenize answered without a count")
        return int(found["count"])

    async def turn_stream(self, turn: TurnRequest) -> AsyncIterator[list[Delta]]:
        """Stream one model call: the deltas of each read of the body, yielded at once so its events
        flow out together."""
        progress = Progress()
        async with self.http.post(
            "/chat/completions", build_chat_body(turn), model=turn.model, key=turn.affinity
        ) as resp:
            if "text/event-stream" not in resp.headers.get("Content-Type", ""):
                try:
                    body = loads(await resp.read())
                except ValueError:  # the same mapping as the Envoy door's (#19)
                    raise BackendError("the inference backend sent an invalid reply") from None
                yield progress.see(completion_deltas(body))
                return
            reads = SSEReads(resp)
            async for payloads in reads:
                deltas: list[Delta] = []
                for data in payloads:
                    try:
                        chunk = loads(data)
                    except ValueError:  # the same mapping as the Envoy door's (#19)
                        raise BackendError("the inference backend sent an invalid stream chunk") from None
                    if isinstance(chunk, dict) and "error" in chunk and not chunk.get("choices"):
                        err = chunk["error"]
                        code = int(err.get("code") or 500) if isinstance(err, dict) else 500
                        raise map_backend_error(code if 400 <= code < 600 else 500, dumps(chunk))
                    deltas += chunk_deltas(chunk)
                yield progress.see(deltas)  # once per read: what it carried leaves together
        if progress.finish_reason is None:  # no [DONE], or a [DONE] after no choice ever finished
            raise BackendError(STREAM_UNFINISHED if reads.done else STREAM_CUT)
