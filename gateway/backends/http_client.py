"""Shared HTTP plumbing for backends: one pooled aiohttp session and failure mapping.

Transport failures become `BackendError`/`BackendTimeout`, so the engine records a `failed`
response with a reason instead of leaking a traceback or leaving the response `in_progress`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
from yarl import URL

from gateway import metrics, tracing
from gateway.backends.base import map_backend_error
from gateway.backends.sse import SSEParser
from gateway.errors import BackendError, BackendTimeout
from gateway.jsonutil import dumps
from gateway.redact import hide_internal

log = logging.getLogger(__name__)


class BackendHTTP:
    def __init__(self, base_url: str, api_key: str | None, connect_timeout: float, read_timeout: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.headers = {"Content-Type": "application/json"}
        if api_key:
            self.headers["Authorization"] = f"Bearer {api_key}"
        self.timeout = aiohttp.ClientTimeout(total=None, connect=connect_timeout, sock_read=read_timeout)
        self._session: aiohttp.ClientSession | None = None
        self._urls: dict[str, URL] = {}

    def url(self, path: str) -> URL:
        """The backend URL of `path`, parsed once (yarl parsing is a visible share of a request's CPU)."""
        url = self._urls.get(path)
        if url is None:
            url = self._urls[path] = URL(self.base_url + path)
        return url

    @property
    def session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=512, keepalive_timeout=30, ttl_dns_cache=300)
            # No cookie jar: a cookie the backend set while serving one client must never ride along
            # on another client's request through the shared session.
            self._session = aiohttp.ClientSession(
                connector=connector,
                timeout=self.timeout,
                auto_decompress=False,
                skip_auto_headers=("User-Agent",),
                cookie_jar=aiohttp.DummyCookieJar(),
            )
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    @asynccontextmanager
    async def post(self, path: str, body: dict[str, Any]) -> AsyncIterator[aiohttp.ClientResponse]:
        started = time.perf_counter()
        try:
            headers = tracing.inject(self.headers)  # tracing on: the `chat` span's traceparent (vLLM joins)
            async with self.session.post(self.url(path), data=dumps(body), headers=headers) as resp:
                if resp.status >= 400:
                    raise map_backend_error(resp.status, await resp.read())
                yield resp
        except (aiohttp.ClientConnectorError, ConnectionRefusedError) as exc:
            raise self._unreachable("could not connect to the inference backend", exc) from None
        except TimeoutError:
            raise self._timed_out() from None
        except (aiohttp.ClientPayloadError, aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as exc:
            raise self._unreachable("the inference backend dropped the connection", exc) from None
        finally:  # until the caller has read the reply (a stream's last chunk)
            metrics.add_backend_time(time.perf_counter() - started)

    async def post_json(self, url: str, body: dict[str, Any]) -> Any:
        """POST to an absolute URL on the backend's host (e.g. vLLM's `/tokenize`, beside `/v1`)."""
        try:
            async with self.session.post(url, data=dumps(body), headers=self.headers) as resp:
                if resp.status >= 400:
                    raise map_backend_error(resp.status, await resp.read())
                return await resp.json(content_type=None)
        except aiohttp.ClientError as exc:
            raise self._unreachable("could not reach the inference backend", exc) from None
        except TimeoutError:
            raise self._timed_out() from None

    @property
    def root_url(self) -> str:
        """The backend's base URL without its API prefix (`http://vllm:8000/v1` -> `http://vllm:8000`)."""
        return self.base_url.removesuffix("/v1")

    async def get_json(self, path: str) -> Any:
        try:
            async with self.session.get(self.url(path), headers=self.headers) as resp:
                if resp.status >= 400:
                    raise map_backend_error(resp.status, await resp.read())
                return await resp.json(content_type=None)
        except aiohttp.ClientError as exc:
            raise self._unreachable("could not reach the inference backend", exc) from None
        except TimeoutError:
            raise self._timed_out() from None

    def _unreachable(self, what: str, exc: BaseException) -> BackendError:
        """The client learns what failed, not where the backend lives; the log says where (#19)."""
        log.warning("%s at %s: %s", what, self.base_url, exc)
        return BackendError(f"{what}: {hide_internal(str(exc))}")

    def _timed_out(self) -> BackendTimeout:
        log.warning("the inference backend at %s timed out", self.base_url)
        return BackendTimeout("the inference backend timed out")


class SSEReads:
    """The data of the events each read of a streamed body completes, a list per read, up to the
    stream's `[DONE]` (then `done` is true).

    Per read, not per event: under load one read carries many tokens, and every layer an event
    passed through one by one (this iterator, the backend's, the runner's) cost CPU per token; all
    of a read's events were there at once, so none waits for the others."""

    def __init__(self, resp: aiohttp.ClientResponse) -> None:
        self.resp = resp
        self.done = False

    async def __aiter__(self) -> AsyncIterator[list[bytes]]:
        parser = SSEParser()
        async for chunk in self.resp.content.iter_any():
            if batch := self._data(parser.feed(chunk)):
                yield batch
            if self.done:
                return
        if batch := self._data(parser.close()):
            yield batch

    def _data(self, events: list[tuple[str | None, bytes]]) -> list[bytes]:
        out = []
        for _event, data in events:
            if data == b"[DONE]":
                self.done = True
                break
            out.append(data)
        return out


class HTTPBackend:
    """What every HTTP backend adapter shares: the model list, reachability, the session."""

    def __init__(self, http: BackendHTTP) -> None:
        self.http = http

    async def list_models(self) -> list[dict[str, Any]]:
        body = await self.http.get_json("/models")
        return list(body.get("data", [])) if isinstance(body, dict) else []

    async def ping(self) -> bool:
        try:
            await self.list_models()
        except BackendError:
            return False
        return True

    async def close(self) -> None:
        await self.http.close()
