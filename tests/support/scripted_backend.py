"""A scripted stand-in for vLLM's OpenAI-compatible server, for tests and benchmarks.

Why: the gateway's adapters must meet the bytes vLLM really sends, tests must dictate what the
"model" answers (text, reasoning, tool calls, errors, slow or dropped streams), and benchmarks
need a backend cheap enough to be the "backend alone" baseline.  Hence, as in vLLM's code:
stream chunks mirror ``model_dump_json(exclude_unset=True)`` (no per-chunk ``usage`` key; with
``stream_options.include_usage`` a ``"choices": []`` usage chunk precedes ``data: [DONE]``);
reasoning is sent as ``reasoning`` (current vLLM) and ``reasoning_content`` (older vLLM); errors
are ``{"error": {"message", "type", "param", "code"}}`` (vLLM >= 0.10.1); ``/v1/responses``
streams ``event: <type>\\ndata: <json>\\n\\n`` without ``[DONE]``.

Control endpoints (not in vLLM): ``POST/DELETE /_script``, ``GET/DELETE /_requests``.
Standalone: ``python -m tests.support.scripted_backend --host 127.0.0.1 --port 0 [--model NAME]``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import functools
import hashlib
import math
import operator
import re
import struct
import time
import uuid
from collections import deque
from http import HTTPStatus
from typing import Any

import orjson
from aiohttp import web

Json = dict[str, Any]
EMBED_DIM = 384
SSE_CONTENT_TYPE = "text/event-stream; charset=utf-8"  # what Starlette sends for vLLM
DONE = b"data: [DONE]\n\n"
_PIECES = re.compile(r"\s*\S+|\s+")  # one word with its leading whitespace per piece
_WORD = re.compile(r"\w+")
_REQUIRED = {"chat": "messages", "completions": "prompt", "responses": "input", "embeddings": "input"}
# Request fields a Response object reports back, with vLLM's ResponsesRequest defaults.
_RESPONSE_ECHO: Json = {
    "instructions": None,
    "metadata": None,
    "parallel_tool_calls": True,
    "temperature": None,
    "top_p": None,
    "tool_choice": "auto",
    "tools": [],
    "max_output_tokens": None,
    "previous_response_id": None,
    "reasoning": None,
    "text": None,
    "truncation": "disabled",
    "store": True,
    "background": False,
    "user": None,
}


def _hex() -> str:
    return uuid.uuid4().hex


def _json(obj: Any, status: int = 200) -> web.Response:
    return web.Response(body=orjson.dumps(obj), status=status, content_type="application/json")


def _error(status: int, message: str, err_type: str | None = None, param: str | None = None) -> web.Response:
    """vLLM's error envelope; ``code`` repeats the HTTP status, as vLLM does."""
    if err_type is None:
        err_type = "NotFoundError" if status == 404 else "BadRequestError" if status < 500 else ("InternalServerError")
    return _json({"error": {"message": message, "type": err_type, "param": param, "code": status}}, status)


def _split(text: str | None, size: int | None) -> list[str]:
    """Cut text into stream deltas: fixed-size pieces, or one word (with leading space) each."""
    if size and size > 0:
        return [text[i : i + size] for i in range(0, len(text), size)] if text else []
    return _PIECES.findall(text or "")


def _logprob(token: str, rank: int) -> Json:
    """vLLM's shape of one token's log probability (a deterministic stand-in value)."""
    return {"token": token, "logprob": round(-0.25 * (rank + 1), 4), "bytes": list(token.encode())}


def _logprobs(piece: str, top: int) -> Json:
    """`choice.logprobs` for one piece of content: one entry per piece (each piece is one "token")."""
    entry = _logprob(piece, 0)
    entry["top_logprobs"] = [_logprob(piece if r == 0 else f"{piece.strip()}~{r}", r) for r in range(top)]
    return {"content": [entry]}


def _text_of(content: Any) -> str:
    """Text of a message content: a string, or the text parts of a multimodal list joined."""
    if isinstance(content, list):
        return " ".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return content if isinstance(content, str) else ""


def _source(body: Json) -> Any:
    """The prompt-bearing field of any generation request (chat, responses, completions)."""
    return body.get("messages", body.get("input", body.get("prompt")))


def _texts(body: Json) -> list[tuple[Any, str]]:
    """(role, text) of every prompt item; a bare string (prompt or input) counts as the user's."""
    src = _source(body)
    items = [src] if isinstance(src, str) else src if isinstance(src, list) else []
    return [
        ("user", m)
        if isinstance(m, str)
        else (m.get("role"), _text_of(m.get("content")))
        if isinstance(m, dict)
        else (None, str(m))
        for m in items
    ]


def _prompt_words(body: Json) -> int:
    """A rough prompt token count (words): enough for usage numbers and the context check."""
    return sum(len(t.split()) for _, t in _texts(body)) + len(str(body.get("instructions") or "").split())


class _Plan:
    """Everything one generation emits, resolved once from the scripted reply and the request."""

    def __init__(self, reply: Json, body: Json, limit: int | None) -> None:
        size = reply.get("chunk_size")
        raw_tools = reply.get("tool_calls") or []
        content = reply.get("content")
        if reply.get("echo_request"):
            content = orjson.dumps(_source(body)).decode()
        elif content is None and not raw_tools:
            content = "Echo: " + next((t for role, t in reversed(_texts(body)) if role == "user"), "")
        self.pieces = _split(content, size)
        truncated = limit is not None and len(self.pieces) > limit
        if truncated:
            self.pieces = self.pieces[: max(limit or 0, 0)]
            content = "".join(self.pieces)
        self.content: str | None = content
        self.reasoning: str | None = reply.get("reasoning")
        self.rpieces = _split(self.reasoning, size)
        self.tools: list[Json] = []
        for t in raw_tools:
            args = t.get("arguments", "{}")
            args = args if isinstance(args, str) else orjson.dumps(args).decode()
            step = max(1, -(-len(args) // 3))  # arguments stream in about three pieces
            pieces = [args[i : i + step] for i in range(0, len(args), step)]
            self.tools.append({"id": t.get("id"), "name": t["name"], "arguments": args, "pieces": pieces})
        self.finish: str = reply.get("finish_reason") or (
            "length" if truncated else "tool_calls" if self.tools else "stop"
        )
        usage = reply.get("usage") or {}
        self.prompt_tokens = int(usage.get("prompt_tokens", _prompt_words(body)))
        emitted = len(self.pieces) + len(self.rpieces) + sum(len(t["pieces"]) for t in self.tools)
        self.completion_tokens = int(usage.get("completion_tokens", emitted))
        self.cached_tokens = usage.get("cached_tokens")  # scripted: vLLM's prefix-cache hits (#30)

    def usage(self, details: bool = False) -> Json:
        p, c = self.prompt_tokens, self.completion_tokens
        out: Json = {"prompt_tokens": p, "total_tokens": p + c, "completion_tokens": c}
        if self.cached_tokens is not None:
            return {**out, "prompt_tokens_details": {"cached_tokens": int(self.cached_tokens)}}
        return {**out, "prompt_tokens_details": None} if details else out


@functools.lru_cache(maxsize=8192)
def _word_vector(word: str) -> tuple[float, ...]:
    raw = hashlib.shake_256(word.encode()).digest(EMBED_DIM * 2)
    return tuple(v / 32767.5 - 1.0 for v in struct.unpack(f"<{EMBED_DIM}H", raw))


def embed(text: str) -> list[float]:
    """Deterministic L2-normalised bag-of-words vector: texts sharing words score closer, which
    keeps retrieval tests meaningful without a model."""
    acc = [0.0] * EMBED_DIM
    for w in _WORD.findall(text.lower()) or [text]:
        acc = list(map(operator.add, acc, _word_vector(w)))
    norm = math.sqrt(sum(x * x for x in acc)) or 1.0
    return [x / norm for x in acc]


class ScriptedBackend:
    """The server.  In-process: ``await b.start()``, use ``b.url``, ``await b.stop()``; script it
    with ``b.script(match, replies)`` or ``POST /_script``; inspect ``b.requests``."""

    def __init__(
        self, model: str = "scripted-model", *, max_model_len: int = 4096, require_model: bool = False
    ) -> None:
        self.model = model
        self.max_model_len = max_model_len
        self.require_model = require_model  # vLLM accepts a missing model; opt in to reject it
        self.scripts: list[tuple[str, deque[Json]]] = []
        self.requests: deque[Json] = deque(maxlen=1000)
        self.created = int(time.time())
        self.host, self.port = "127.0.0.1", 0
        self._runner: web.AppRunner | None = None
        self.app = web.Application(client_max_size=256 * 1024 * 1024)
        for path, kind in (
            ("chat/completions", "chat"),
            ("completions", "completions"),
            ("responses", "responses"),
            ("embeddings", "embeddings"),
        ):
            self.app.router.add_post(f"/v1/{path}", functools.partial(self._serve, kind=kind))
        self.app.router.add_post("/tokenize", self._tokenize)
        # what /metrics reports (vLLM's load gauges), set by a test through POST /_metrics
        self.gauges: dict[str, float] = {"waiting": 0, "running": 0, "kv_cache": 0.0}
        for path in ("/health", "/v1/models", "/_script", "/_requests", "/metrics", "/_metrics"):
            self.app.router.add_route("*", path, self._control)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        """Listen; returns the bound port.  ``handler_cancellation`` mirrors vLLM aborting a
        request whose client went away; ``access_log=None`` keeps the hot path quiet."""
        self._runner = web.AppRunner(self.app, access_log=None, handler_cancellation=True, shutdown_timeout=0.5)
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        self.host, self.port = host, int(self._runner.addresses[0][1])
        return self.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def script(self, match: str, replies: list[Json]) -> None:
        """Queue replies for requests whose prompt JSON contains ``match`` ("" matches all)."""
        self.scripts.append((match, deque(replies)))

    async def _tokenize(self, request: web.Request) -> web.Response:
        """vLLM's `/tokenize` (chat form): the same word count its usage numbers use, plus one token
        per function tool (a tokenizer would count the tools' JSON)."""
        body = await request.json()
        self.requests.append({"path": request.path, "body": body})
        count = _prompt_words(body) + len(body.get("tools") or [])
        return web.json_response({"count": count, "max_model_len": self.max_model_len, "tokens": list(range(count))})

    async def _control(self, request: web.Request) -> web.Response:
        """Health, the model list, and the test-only script and request-log endpoints."""
        route = (request.method, request.path)
        if route == ("GET", "/health"):
            return web.Response()
        if route == ("GET", "/v1/models"):
            return self._models()
        if route == ("GET", "/_requests"):
            return _json(list(self.requests))
        if route == ("GET", "/metrics"):  # vLLM's Prometheus page, its load gauges only
            g, label = self.gauges, f'{{engine="0",model_name="{self.model}"}}'
            return web.Response(
                text=f"vllm:num_requests_running{label} {g['running']}\n"
                f"vllm:num_requests_waiting{label} {g['waiting']}\n"
                f"vllm:kv_cache_usage_perc{label} {g['kv_cache']}\n"
            )
        if route == ("POST", "/_metrics"):
            self.gauges.update(orjson.loads(await request.read()))
            return _json(self.gauges)
        if route == ("POST", "/_script"):
            body = orjson.loads(await request.read())
            self.script(str(body.get("match", "")), list(body.get("replies", [])))
        elif route in (("DELETE", "/_script"), ("DELETE", "/_requests")):
            (self.scripts if request.path == "/_script" else self.requests).clear()
        else:
            return _error(405, "Method Not Allowed")
        return _json({"status": "ok"})

    def _models(self) -> web.Response:
        perm = {
            "id": f"modelperm-{_hex()}",
            "object": "model_permission",
            "created": self.created,
            "allow_create_engine": False,
            "allow_sampling": True,
            "allow_logprobs": True,
            "allow_search_indices": False,
            "allow_view": True,
            "allow_fine_tuning": False,
            "organization": "*",
            "group": None,
            "is_blocking": False,
        }
        card = {
            "id": self.model,
            "object": "model",
            "created": self.created,
            "owned_by": "vllm",
            "root": self.model,
            "parent": None,
            "max_model_len": self.max_model_len,
            "permission": [perm],
        }
        return _json({"object": "list", "data": [card]})

    def _pop_reply(self, body: Json) -> Json:
        """First registered script whose match is in the prompt JSON and has replies left."""
        if not self.scripts:
            return {}
        haystack = orjson.dumps(_source(body)).decode()
        return next((q.popleft() for match, q in self.scripts if q and match in haystack), {})

    def _context_error(self, prompt_tokens: int, max_tokens: int | None) -> web.Response:
        """vLLM >= 0.18's 400 for a prompt that does not fit (renderers/params.py wording)."""
        m, n = max_tokens or 0, self.max_model_len
        t = max(prompt_tokens, n - m + 1)
        return _error(
            400,
            f"This model's maximum context length is {n} tokens. However, you requested {m} "
            f"output tokens and your prompt contains at least {t} input tokens, for a total of at "
            f"least {t + m} tokens. Please reduce the length of the input prompt or the number of "
            f"requested output tokens. (parameter=input_tokens, value={t})",
            param="input_tokens",
        )

    async def _serve(self, request: web.Request, *, kind: str) -> web.StreamResponse:
        try:
            body = orjson.loads(await request.read())
        except orjson.JSONDecodeError as exc:
            return _error(400, f"JSON decode error: {exc}")
        headers = {str(k): v for k, v in request.headers.items()}
        self.requests.append({"path": request.path, "headers": headers, "body": body})
        model = body.get("model") if isinstance(body, dict) else None
        for field in (_REQUIRED[kind], "model" if self.require_model else ""):
            if field and (not isinstance(body, dict) or field not in body):
                return _error(
                    400,
                    f"1 validation error: {{'type': 'missing', 'loc': ('body', '{field}'), 'msg': 'Field required'}}",
                )
        if model is not None and model != self.model:
            return _error(404, f"The model `{model}` does not exist.", param="model")
        if kind == "embeddings":
            return self._embeddings(body)
        reply = self._pop_reply(body)
        if reply.get("raw_body") is not None:  # a malformed answer: these bytes as they are
            ctype = str(reply.get("content_type") or "application/json")
            return web.Response(status=int(reply.get("status", 200)), body=str(reply["raw_body"]).encode(),
                                content_type=ctype)  # fmt: skip
        if reply.get("delay"):
            await asyncio.sleep(float(reply["delay"]))
        stream = bool(body.get("stream"))
        if not stream and reply.get("drop_after_chunks") is not None:
            return await self._drop(request)
        limit = next(
            (body[k] for k in ("max_completion_tokens", "max_tokens", "max_output_tokens") if body.get(k) is not None),
            None,
        )
        words = _prompt_words(body)
        if reply.get("error_kind") == "context_length" or words + (limit or 0) > self.max_model_len:
            return self._context_error(words, limit)
        if "error" in reply or "status" in reply:
            status = int(reply.get("status", 500))
            message = str(reply.get("error") or HTTPStatus(status).phrase)
            return _error(status, message, reply.get("error_type"), reply.get("param"))
        plan = _Plan(reply, body, limit)
        handler = {"chat": self._chat, "completions": self._completions, "responses": self._responses}[kind]
        return await handler(request, body, reply, plan, stream)

    @staticmethod
    async def _drop(request: web.Request) -> web.StreamResponse:
        """Close the socket with nothing (more) sent; aiohttp then cancels this handler."""
        if request.transport is not None:
            request.transport.close()
        await asyncio.sleep(5)  # normally cancelled as soon as the connection is lost
        raise asyncio.CancelledError

    async def _send_stream(
        self, request: web.Request, frames: list[bytes], reply: Json, tail: bytes | None
    ) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": SSE_CONTENT_TYPE})
        await resp.prepare(request)
        drop, gap = reply.get("drop_after_chunks"), float(reply.get("chunk_delay") or 0)
        for i, frame in enumerate(frames if drop is None else frames[: int(drop)]):
            if gap and i:
                await asyncio.sleep(gap)
            await resp.write(frame)
        if drop is not None:
            return await self._drop(request)
        if tail:
            await resp.write(tail)
        await resp.write_eof()
        return resp

    def _prefix(self, cid: str, obj: str) -> bytes:
        """Shared head of every chunk, in vLLM's key order, so a chunk costs one small dumps."""
        return (
            f'data: {{"id":"{cid}","object":"{obj}","created":{int(time.time())},"model":'.encode()
            + orjson.dumps(self.model)
            + b',"choices":['
        )

    @staticmethod
    def _usage_frame(prefix: bytes, body: Json, plan: _Plan) -> list[bytes]:
        """vLLM's trailing ``"choices": []`` usage chunk, sent only when include_usage is set."""
        if not (body.get("stream_options") or {}).get("include_usage"):
            return []
        return [prefix + b'],"usage":' + orjson.dumps(plan.usage()) + b"}\n\n"]

    def _final(self, cid: str, obj: str, choice: Json, plan: _Plan, **extra: Any) -> web.Response:
        return _json(
            {
                "id": cid,
                "object": obj,
                "created": int(time.time()),
                "model": self.model,
                "choices": [choice],
                "service_tier": None,
                "system_fingerprint": None,
                "usage": plan.usage(details=True),
                **extra,
                "kv_transfer_params": None,
            }
        )

    async def _chat(
        self, request: web.Request, body: Json, reply: Json, plan: _Plan, stream: bool
    ) -> web.StreamResponse:
        cid = f"chatcmpl-{_hex()}"
        for t in plan.tools:
            t["id"] = t["id"] or f"chatcmpl-tool-{_hex()}"
        if not stream:
            msg: Json = {
                "role": "assistant",
                "content": plan.content or (None if plan.tools else ""),
                "refusal": None,
                "annotations": None,
                "audio": None,
                "function_call": None,
            }
            if plan.tools:
                msg["tool_calls"] = [
                    {"id": t["id"], "type": "function", "function": {"name": t["name"], "arguments": t["arguments"]}}
                    for t in plan.tools
                ]
            msg["reasoning"] = msg["reasoning_content"] = plan.reasoning
            logprobs = None
            if body.get("logprobs"):
                top = int(body.get("top_logprobs") or 0)
                logprobs = {"content": [e for p in plan.pieces for e in _logprobs(p, top)["content"]]}
            choice = {
                "index": 0,
                "message": msg,
                "logprobs": logprobs,
                "finish_reason": plan.finish,
                "stop_reason": None,
                "token_ids": None,
            }
            return self._final(cid, "chat.completion", choice, plan, prompt_logprobs=None, prompt_token_ids=None)
        prefix = self._prefix(cid, "chat.completion.chunk")

        top = int(body.get("top_logprobs") or 0) if body.get("logprobs") else -1

        def chunk(delta: Json, finish: str | None = None) -> bytes:
            content = delta.get("content")
            logprobs = _logprobs(content, top) if content and top >= 0 else None
            choice: Json = {"index": 0, "delta": delta, "logprobs": logprobs, "finish_reason": finish}
            if finish is not None:
                choice["stop_reason"] = None
            return prefix + orjson.dumps(choice) + b"]}\n\n"

        frames = [chunk({"role": "assistant", "content": ""})]
        frames += [chunk({"reasoning": p, "reasoning_content": p}) for p in plan.rpieces]
        frames += [chunk({"content": p}) for p in plan.pieces]
        for i, t in enumerate(plan.tools):
            frames.append(
                chunk(
                    {
                        "tool_calls": [
                            {
                                "id": t["id"],
                                "type": "function",
                                "index": i,
                                "function": {"name": t["name"], "arguments": ""},
                            }
                        ]
                    }
                )
            )
            frames += [chunk({"tool_calls": [{"index": i, "function": {"arguments": a}}]}) for a in t["pieces"]]
        frames.append(chunk({} if plan.tools else {"content": ""}, plan.finish))
        return await self._send_stream(request, frames + self._usage_frame(prefix, body, plan), reply, DONE)

    async def _completions(
        self, request: web.Request, body: Json, reply: Json, plan: _Plan, stream: bool
    ) -> web.StreamResponse:
        cid = f"cmpl-{_hex()}"
        if not stream:
            choice = {
                "index": 0,
                "text": plan.content or "",
                "logprobs": None,
                "finish_reason": plan.finish,
                "stop_reason": None,
                "prompt_logprobs": None,
            }
            return self._final(cid, "text_completion", choice, plan)
        prefix = self._prefix(cid, "text_completion")
        choices = [{"index": 0, "text": p, "logprobs": None, "finish_reason": None} for p in plan.pieces]
        choices.append({"index": 0, "text": "", "logprobs": None, "finish_reason": plan.finish, "stop_reason": None})
        frames = [prefix + orjson.dumps(c) + b"]}\n\n" for c in choices]
        return await self._send_stream(request, frames + self._usage_frame(prefix, body, plan), reply, DONE)

    async def _responses(
        self, request: web.Request, body: Json, reply: Json, plan: _Plan, stream: bool
    ) -> web.StreamResponse:
        """A minimal native Responses API: reasoning, message and function_call output items."""
        rid, created = f"resp_{_hex()}", int(time.time())
        items: list[tuple[Json, list[str]]] = []
        if plan.reasoning is not None:
            thought = {"type": "reasoning_text", "text": plan.reasoning}
            items.append(
                (
                    {
                        "id": f"rs_{_hex()}",
                        "type": "reasoning",
                        "summary": [],
                        "content": [thought],
                        "encrypted_content": None,
                        "status": None,
                    },
                    plan.rpieces,
                )
            )
        top = int(body.get("top_logprobs") or 0)
        with_logprobs = "message.output_text.logprobs" in (body.get("include") or [])

        def token_logprobs(piece: str) -> list[Json]:
            return list(_logprobs(piece, top)["content"]) if with_logprobs else []

        if plan.content or not plan.tools:
            all_lps = [lp for p in plan.pieces for lp in token_logprobs(p)]
            text = {"type": "output_text", "text": plan.content or "", "annotations": [], "logprobs": all_lps}
            items.append(
                (
                    {
                        "id": f"msg_{_hex()}",
                        "type": "message",
                        "role": "assistant",
                        "status": "completed",
                        "content": [text],
                    },
                    plan.pieces,
                )
            )
        items += [
            (
                {
                    "id": f"fc_{_hex()}",
                    "type": "function_call",
                    "status": "completed",
                    "call_id": t["id"] or f"call_{_hex()}",
                    "name": t["name"],
                    "arguments": t["arguments"],
                },
                t["pieces"],
            )
            for t in plan.tools
        ]
        p, c = plan.prompt_tokens, plan.completion_tokens
        usage = {
            "input_tokens": p,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": c,
            "output_tokens_details": {"reasoning_tokens": len(plan.rpieces)},
            "total_tokens": p + c,
        }
        echoed = {k: body.get(k, default) for k, default in _RESPONSE_ECHO.items()}

        def resp(status: str, output: list[Json], use: Json | None) -> Json:
            incomplete = {"reason": "max_output_tokens"} if status == "incomplete" else None
            return {
                "id": rid,
                "object": "response",
                "created_at": created,
                "model": self.model,
                "status": status,
                "output": output,
                "usage": use,
                "error": None,
                "incomplete_details": incomplete,
                **echoed,
            }

        done_status = "incomplete" if plan.finish == "length" else "completed"
        final = resp(done_status, [item for item, _ in items], usage)
        if not stream:
            return _json(final)
        events: list[Json] = []

        def ev(kind: str, **fields: Any) -> None:
            events.append({"type": f"response.{kind}", **fields})

        ev("created", response=resp("in_progress", [], None))
        ev("in_progress", response=resp("in_progress", [], None))
        for idx, (item, pieces) in enumerate(items):
            at: Json = {"item_id": item["id"], "output_index": idx}
            kind, part = item["type"], (item.get("content") or [{}])[0]
            empty: Json = {"arguments": ""} if kind == "function_call" else {"content": []}
            ev("output_item.added", output_index=idx, item={**item, "status": "in_progress", **empty})
            if kind == "message":
                ev("content_part.added", **at, content_index=0, part={**part, "text": ""})
                for d in pieces:
                    ev("output_text.delta", **at, content_index=0, delta=d, logprobs=token_logprobs(d))
                ev("output_text.done", **at, content_index=0, text=part["text"], logprobs=part["logprobs"])
                ev("content_part.done", **at, content_index=0, part=part)
            elif kind == "reasoning":
                for d in pieces:
                    ev("reasoning_text.delta", **at, content_index=0, delta=d)
                ev("reasoning_text.done", **at, content_index=0, text=part["text"])
            else:
                for d in pieces:
                    ev("function_call_arguments.delta", **at, delta=d)
                ev("function_call_arguments.done", **at, name=item["name"], arguments=item["arguments"])
            ev("output_item.done", output_index=idx, item=item)
        ev(done_status, response=final)
        frames = [
            b"event: " + e["type"].encode() + b"\ndata: " + orjson.dumps({**e, "sequence_number": n}) + b"\n\n"
            for n, e in enumerate(events)
        ]
        return await self._send_stream(request, frames, reply, None)

    def _embeddings(self, body: Json) -> web.Response:
        raw = body["input"]
        texts = [raw] if isinstance(raw, str) else [t if isinstance(t, str) else str(t) for t in raw]
        b64 = body.get("encoding_format") == "base64"  # the openai SDK asks for base64 by default
        vecs = [embed(t) for t in texts]
        data = [
            {
                "index": i,
                "object": "embedding",
                "embedding": base64.b64encode(struct.pack(f"<{EMBED_DIM}f", *v)).decode() if b64 else v,
            }
            for i, v in enumerate(vecs)
        ]
        n = sum(max(1, len(t.split())) for t in texts)
        usage = {"prompt_tokens": n, "total_tokens": n, "completion_tokens": 0, "prompt_tokens_details": None}
        return _json(
            {
                "id": f"embd-{_hex()}",
                "object": "list",
                "created": int(time.time()),
                "model": self.model,
                "data": data,
                "usage": usage,
            }
        )


def main(argv: list[str] | None = None) -> None:
    """Subprocess entry point: prints ``READY <port>`` (flushed) once listening."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--model", default="scripted-model")
    ap.add_argument("--max-model-len", type=int, default=4096)
    ap.add_argument("--require-model", action="store_true")
    args = ap.parse_args(argv)

    async def run() -> None:
        backend = ScriptedBackend(args.model, max_model_len=args.max_model_len, require_model=args.require_model)
        print(f"READY {await backend.start(args.host, args.port)}", flush=True)
        await asyncio.Event().wait()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())


if __name__ == "__main__":
    main()
