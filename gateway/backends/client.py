"""The one client of the inference servers: every backend call of the gateway goes through `call`.

Responses turns, input-token counts, compaction (a turn), the model list, the Chat Completions /
Completions / Embeddings passthroughs and research's LLM calls all reach an inference server here,
so they share one behaviour instead of a copy each (#25, defect 3: the copies named the backend's
address to clients and skipped the metrics):

- one error mapping: a backend's 4xx/5xx through `map_backend_error`, transport failures by kind
  (refused, name not resolved, timed out, dropped) into `BackendError` / `BackendTimeout`;
- one redaction: a client learns what failed, never where; the text of a connection error is not
  echoed at all (asyncio's "Connect call failed ('10.0.0.5', 8000)" carries the host and the port
  past any pattern), only a fixed phrase per kind, while the log keeps the whole story;
- one place that measures (time waiting for the backend, calls and failures per replica);
- one place that chooses the replica (`Replica`), and where a tracer can wrap every backend call.
"""

from __future__ import annotations

import errno as errnos
import logging
import os
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from yarl import URL

from gateway import metrics
from gateway.backends.base import map_backend_error
from gateway.errors import BackendError, BackendTimeout
from gateway.jsonutil import dumps, loads

log = logging.getLogger(__name__)

UNREACHABLE = "could not connect to the inference backend"
DROPPED = "the inference backend dropped the connection"


class ClientGone(Exception):
    """The gateway's own client went away while a backend reply was relayed to it: not the
    backend's failure, so it is neither mapped nor counted against the replica."""


@dataclass(eq=False)
class Replica:
    """One inference server: its base URL (…/v1) and what the client knows about it."""

    base_url: str
    name: str = ""  # how logs and metrics name it (the URL's host:port)
    in_flight: int = 0  # calls open now from this process
    _urls: dict[str, URL] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.base_url = self.base_url.rstrip("/")
        if not self.name:
            url = URL(self.base_url)
            self.name = f"{url.host}:{url.port}"

    @property
    def root_url(self) -> str:
        """The server's URL without its API prefix (`http://vllm:8000/v1` -> `http://vllm:8000`)."""
        return self.base_url.removesuffix("/v1")

    def url(self, path: str, *, root: bool = False) -> URL:
        """The URL of `path` under the API prefix (or the server's root), parsed once (yarl parsing
        is a visible share of a request's CPU)."""
        key = ("/" if root else "") + path
        url = self._urls.get(key)
        if url is None:
            url = self._urls[key] = URL((self.root_url if root else self.base_url) + path)
        return url


def transport_error(exc: BaseException) -> BackendError:
    """A transport failure as a client may see it: the kind of failure, never the address."""
    if isinstance(exc, TimeoutError):
        return BackendTimeout("the inference backend timed out")
    if isinstance(exc, aiohttp.ClientConnectorDNSError):
        return BackendError(f"{UNREACHABLE}: its host name did not resolve")
    if isinstance(exc, aiohttp.ClientConnectorError):
        code = exc.os_error.errno
        reason = os.strerror(code).lower() if code else "connection failed"
        return BackendError(f"{UNREACHABLE}: {reason}")
    if isinstance(exc, ConnectionRefusedError):
        return BackendError(f"{UNREACHABLE}: {os.strerror(errnos.ECONNREFUSED).lower()}")
    if isinstance(exc, aiohttp.ClientPayloadError | aiohttp.ServerDisconnectedError | aiohttp.ClientOSError):
        return BackendError(DROPPED)
    return BackendError("could not reach the inference backend")


class BackendClient:
    """Pooled HTTP to the inference server(s); see the module docstring for why there is one."""

    def __init__(self, base_url: str, api_key: str | None, connect_timeout: float, read_timeout: float) -> None:
        self.replicas = [Replica(base_url)]
        self.headers = {"Content-Type": "application/json"}
        if api_key:
            self.headers["Authorization"] = f"Bearer {api_key}"
        self.timeout = aiohttp.ClientTimeout(total=None, connect=connect_timeout, sock_read=read_timeout)
        self._session: aiohttp.ClientSession | None = None

    @property
    def base_url(self) -> str:
        return self.replicas[0].base_url

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

    def pick(self, model: str | None) -> Replica:
        """The replica that serves this call."""
        return self.replicas[0]

    @asynccontextmanager
    async def call(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | bytes | None = None,
        *,
        model: str | None = None,
        root: bool = False,
    ) -> AsyncIterator[aiohttp.ClientResponse]:
        """Send one request to a replica and hand out its reply (status < 400) to read.

        THE place a backend call happens. A 4xx/5xx reply is raised as the gateway's error for it;
        a transport failure, here or while the caller reads the reply, as a `BackendError`
        that names no address (logged with the replica's URL)."""
        replica = self.pick(model)
        data = dumps(body) if isinstance(body, dict) else body
        started = time.perf_counter()
        outcome = "ok"
        replica.in_flight += 1
        try:
            async with self.session.request(
                method, replica.url(path, root=root), data=data, headers=self.headers
            ) as resp:
                if resp.status >= 400:
                    outcome = f"http_{resp.status}"
                    raise map_backend_error(resp.status, await resp.read())
                yield resp
        except (aiohttp.ClientError, ConnectionRefusedError, TimeoutError) as exc:
            err = transport_error(exc)
            outcome = err.code or "backend_error"
            log.warning("%s (%s %s at %s): %r", err.message, method, path, replica.base_url, exc)
            raise err from None
        except ClientGone:
            outcome = "client_gone"
            raise
        finally:  # until the caller has read the reply (a stream's last chunk)
            replica.in_flight -= 1
            metrics.add_backend_time(time.perf_counter() - started)
            metrics.backend_call(replica.name, outcome)

    def post(
        self, path: str, body: dict[str, Any] | bytes, *, model: str | None = None
    ) -> AbstractAsyncContextManager[aiohttp.ClientResponse]:
        return self.call("POST", path, body, model=model)

    async def post_json(self, path: str, body: dict[str, Any], *, model: str | None = None, root: bool = False) -> Any:
        """POST and parse the JSON reply (`root`: a path beside the API prefix, e.g. vLLM's `/tokenize`)."""
        async with self.call("POST", path, body, model=model, root=root) as resp:
            raw = await resp.read()
        return _json(raw)

    async def get_json(self, path: str, *, model: str | None = None) -> Any:
        async with self.call("GET", path, model=model) as resp:
            raw = await resp.read()
        return _json(raw)


def _json(raw: bytes) -> Any:
    try:
        return loads(raw)
    except ValueError:
        raise BackendError("the inference backend sent an invalid reply") from None
