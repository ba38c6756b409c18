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
- one place that routes a call to its model's pool and picks the replica (`gateway.inference.picker`),
  retries it on another replica when the first failed before its reply, marks and probes replicas;
- one place where a tracer can wrap every backend call.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno as errnos
import logging
import os
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import aiohttp

from gateway.common.errors import STREAM_INTERRUPTED, BackendError, BackendTimeout, NotFound
from gateway.common.jsonutil import dumps, loads
from gateway.config import Settings
from gateway.inference.base import map_backend_error
from gateway.inference.picker import Affinity
from gateway.inference.replicas import Pool, Replica, parse_vllm_metrics
from gateway.telemetry import metrics, tracing
from gateway.telemetry.logs import request_context

log = logging.getLogger(__name__)

UNREACHABLE = "could not connect to the inference backend"
DROPPED = "the inference backend dropped the connection"


class ClientGone(Exception):
    """The gateway's own client went away while a backend reply was relayed to it: not the
    backend's failure, so it is neither mapped nor counted against the replica."""


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


TRANSPORT = (aiohttp.ClientError, ConnectionRefusedError, TimeoutError)
PROBE_SECONDS = 1.0
DNS_REFRESH_SECONDS = 30.0
STALE_AFTER = 5.0  # scrape periods a report counts for at most: then the replica's load is unknown


class BackendClient:
    """Pooled HTTP to the inference servers; see the module docstring for why there is one."""

    def __init__(
        self,
        pools: Sequence[Pool],
        *,
        connect_timeout: float,
        read_timeout: float,
        down_seconds: float = 5.0,
        metrics_seconds: float = 1.0,
    ) -> None:
        self.pools = list(pools)
        self.metrics_seconds = metrics_seconds  # 0: the replicas' /metrics are not read
        self._scraper: asyncio.Task[None] | None = None
        self.timeout = aiohttp.ClientTimeout(total=None, connect=connect_timeout, sock_read=read_timeout)
        self.down_seconds = down_seconds
        self._session: aiohttp.ClientSession | None = None
        self._probe: asyncio.Task[None] | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> BackendClient:
        pools = [
            Pool(spec, spec.api_key if settings.backends else settings.backend_api_key, settings.backend_load_bound)
            for spec in settings.pools
        ]
        return cls(
            pools,
            connect_timeout=settings.backend_connect_timeout,
            read_timeout=settings.backend_read_timeout,
            down_seconds=settings.backend_down_seconds,
            metrics_seconds=settings.backend_metrics_seconds,
        )

    @property
    def replicas(self) -> list[Replica]:
        return [r for pool in self.pools for r in pool.replicas]

    @property
    def fleet(self) -> bool:
        """More than one replica or pool (or one found by DNS): calls need picking."""
        return len(self.pools) > 1 or any(p.dns is not None or len(p.replicas) > 1 for p in self.pools)

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
        for task in (self._probe, self._scraper):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self._session is not None:
            await self._session.close()

    def pool_for(self, model: str | None) -> Pool:
        """The pool serving `model`: with one pool, that one (its server answers for an unknown model,
        as before fleets); else the pool that lists or reported it, or 404 `model_not_found`."""
        if len(self.pools) == 1:
            return self.pools[0]
        if model:
            for pool in self.pools:
                if pool.serves(model):
                    return pool
        raise NotFound(f"The model '{model}' does not exist.", param="model", code="model_not_found")

    @asynccontextmanager
    async def call(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | bytes | None = None,
        *,
        model: str | None = None,
        key: str | Affinity | None = None,
        pool: Pool | None = None,
        root: bool = False,
    ) -> AsyncIterator[aiohttp.ClientResponse]:
        """Send one request to a replica of `model`'s pool (`key`: the chain it continues, its
        stored replica with it; the one that replied is set as its `served`) and hand out its reply
        (status < 400) to read.

        THE place a backend call happens. A 4xx/5xx reply is raised as the gateway's error for it;
        a transport failure, here or while the caller reads the reply, as a `BackendError` that
        names no address (logged with the replica's URL). A failure before the reply marks the
        replica down and the call goes to another replica, while one is left untried."""
        pool = pool or self.pool_for(model)
        if pool.dns is not None and (not pool.replicas or time.monotonic() - pool.resolved_at > DNS_REFRESH_SECONDS):
            await pool.resolve()
        if not pool.replicas:
            raise BackendError(f"{UNREACHABLE}: no replica of pool {pool.name!r} is known")
        if self._scraper is None and self.metrics_seconds > 0 and self.fleet:
            self._scraper = asyncio.get_running_loop().create_task(self._scrape_loop())
        data = dumps(body) if isinstance(body, dict) else body
        chain = key if isinstance(key, Affinity) else None
        hash_key = chain.key if chain is not None else key if isinstance(key, str) else None
        preferred = chain.preferred(pool.name) if chain is not None else None
        tried: list[Replica] = []
        while True:
            replica = pool.picker.pick(pool.replicas, hash_key, tried, preferred)
            assert isinstance(replica, Replica)
            ctx = request_context.get()
            if ctx is not None:  # the request's log lines (the access line too) name the replica, never a body
                ctx["replica"] = replica.name
            started = time.perf_counter()
            outcome = "ok"
            replied = False
            replica.in_flight += 1
            try:
                async with self.session.request(
                    method, replica.url(path, root=root), data=data, headers=tracing.inject(replica.headers)
                ) as resp:
                    replied = True
                    if chain is not None:
                        chain.served = f"{pool.name}/{replica.name}"
                    if resp.status >= 400:
                        outcome = f"http_{resp.status}"
                        raise map_backend_error(resp.status, await resp.read())
                    yield resp
                    return
            except TRANSPORT as exc:
                err = transport_error(exc)
                outcome = err.code or "backend_error"
                log.warning("%s (%s %s at %s): %r", err.message, method, path, replica.base_url, exc)
                if replied:  # mid-reply: stored as the Envoy door stores it (#25, 5)
                    raise (
                        BackendError(STREAM_INTERRUPTED, code="stream_interrupted") if err.message == DROPPED else err
                    ) from None
                self.mark_down(replica)
                tried.append(replica)
                if len(tried) >= len(pool.replicas):
                    raise err from None
                metrics.backend_failover(replica.name)
                log.warning("backend pool %s: retrying on another replica", pool.name)
            except ClientGone:
                outcome = "client_gone"
                raise
            finally:  # until the caller has read the reply (a stream's last chunk)
                replica.in_flight -= 1
                metrics.add_backend_time(time.perf_counter() - started)
                metrics.backend_call(replica.name, outcome)

    def mark_down(self, replica: Replica) -> None:
        """Passive health: no traffic for `down_seconds`; the probe may bring it back sooner."""
        replica.down_until = time.monotonic() + self.down_seconds
        if self._probe is None or self._probe.done():
            self._probe = asyncio.get_running_loop().create_task(self._probe_down())

    async def _probe_down(self) -> None:
        """Active health: each down replica's `/health`, every second, until none is down."""
        while True:
            await asyncio.sleep(PROBE_SECONDS)
            down = [r for r in self.replicas if r.down_until > time.monotonic()]
            if not down:
                return
            for replica in down:
                try:
                    async with self.session.get(
                        replica.url("/health", root=True), timeout=aiohttp.ClientTimeout(total=PROBE_SECONDS)
                    ) as resp:
                        if resp.status < 500:
                            replica.down_until = 0.0
                            log.info("backend replica %s is back", replica.base_url)
                except (*TRANSPORT, OSError):
                    continue

    async def _scrape_loop(self) -> None:
        """Every replica's vLLM load gauges, every `metrics_seconds` (what picks new chains and
        bounds a chain's stay), aged out when a replica stops answering."""
        while True:
            await asyncio.gather(*(self._scrape(r) for r in self.replicas))
            await asyncio.sleep(self.metrics_seconds)

    async def _scrape(self, replica: Replica) -> None:
        now = time.monotonic()
        try:
            async with self.session.get(
                replica.url("/metrics", root=True), timeout=aiohttp.ClientTimeout(total=self.metrics_seconds * 2)
            ) as resp:
                found = parse_vllm_metrics(await resp.read()) if resp.status == 200 else {}
        except (*TRANSPORT, OSError):
            found = {}
        if "waiting" in found:
            replica.waiting = int(found["waiting"])
            replica.running = int(found.get("running", 0))
            replica.kv_cache = min(1.0, found.get("kv_cache", 0.0))
            replica.scraped_at = now
        elif now - replica.scraped_at > STALE_AFTER * self.metrics_seconds:
            replica.waiting, replica.running, replica.kv_cache = None, 0, 0.0
        metrics.backend_queue(replica.name, replica.waiting)

    def post(
        self,
        path: str,
        body: dict[str, Any] | bytes,
        *,
        model: str | None = None,
        key: str | Affinity | None = None,
    ) -> AbstractAsyncContextManager[aiohttp.ClientResponse]:
        return self.call("POST", path, body, model=model, key=key)

    async def post_json(
        self,
        path: str,
        body: dict[str, Any],
        *,
        model: str | None = None,
        key: str | Affinity | None = None,
        root: bool = False,
    ) -> Any:
        """POST and parse the JSON reply (`root`: a path beside the API prefix, e.g. vLLM's `/tokenize`)."""
        async with self.call("POST", path, body, model=model, key=key, root=root) as resp:
            raw = await resp.read()
        return _json(raw)

    async def get_json(self, path: str, *, model: str | None = None, pool: Pool | None = None) -> Any:
        async with self.call("GET", path, model=model, pool=pool) as resp:
            raw = await resp.read()
        return _json(raw)


def _json(raw: bytes) -> Any:
    try:
        return loads(raw)
    except ValueError:
        raise BackendError("the inference backend sent an invalid reply") from None
