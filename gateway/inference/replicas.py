"""The inference servers as the gateway sees them: each replica's address, health and load, and the
pools that group replicas serving the same models (#27).

Apart from `client.py` (which calls them) because this is state, not calls: the picker reads a
replica's load and down time, the ExtProc's fleet names replicas to Envoy, and the client's probe
and `/metrics` scrape write them; `parse_vllm_metrics` reads the load gauges a replica reports.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from dataclasses import dataclass, field

from yarl import URL

from gateway.config import BackendPool
from gateway.inference.picker import Picker

log = logging.getLogger("gateway.inference.client")  # (the client's: a pool's log lines read as they did)


@dataclass(eq=False)
class Replica:
    """One inference server: its base URL (…/v1) and what this process knows about it."""

    base_url: str
    headers: dict[str, str] = field(default_factory=dict)
    name: str = ""  # how logs and metrics name it (the URL's host:port)
    in_flight: int = 0  # calls open now from this process
    down_until: float = 0.0  # monotonic time until which it gets no traffic (0: up)
    # what its vLLM /metrics said at `scraped_at` (waiting None: unknown or stale)
    waiting: int | None = None
    running: int = 0
    kv_cache: float = 0.0
    scraped_at: float = 0.0
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


class Pool:
    """The replicas serving one set of models, with one API, key and picker."""

    def __init__(self, spec: BackendPool, api_key: str | None, bound: float) -> None:
        self.name, self.api, self.dns = spec.name, spec.api, spec.dns
        self.headers = {"Content-Type": "application/json"}
        if api_key:
            self.headers["Authorization"] = f"Bearer {api_key}"
        self.static_models = set(spec.models) if spec.models else None
        self.discovered: set[str] = set()  # the ids its replicas' /v1/models named last
        self.replicas = [Replica(url, self.headers) for url in spec.urls]
        self.picker = Picker(bound)
        self.resolved_at = 0.0

    def serves(self, model: str) -> bool:
        return model in self.static_models if self.static_models is not None else model in self.discovered

    async def resolve(self) -> None:
        """A DNS pool's replicas: one per address its name resolves to now (state kept for those
        that stay; an address gone is a replica gone)."""
        if self.dns is None:
            return
        host, _, port = self.dns.rpartition(":")
        self.resolved_at = time.monotonic()
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
        except OSError as exc:
            log.warning("backend pool %s: %s did not resolve: %s", self.name, self.dns, exc)
            return
        known = {r.base_url: r for r in self.replicas}
        replicas = []
        for address in sorted({str(info[4][0]) for info in infos}):
            shown = f"[{address}]" if ":" in address else address
            url = f"http://{shown}:{port}/v1"
            replicas.append(known.get(url) or Replica(url, self.headers))
        if replicas:
            self.replicas = replicas


VLLM_GAUGES = {
    b"vllm:num_requests_waiting": "waiting",
    b"vllm:num_requests_running": "running",
    b"vllm:kv_cache_usage_perc": "kv_cache",
    b"vllm:gpu_cache_usage_perc": "kv_cache",  # its name before vLLM 0.10
}


def parse_vllm_metrics(text: bytes) -> dict[str, float]:
    """The load gauges of a vLLM `/metrics` page, summed over their label sets (one per engine)."""
    found: dict[str, float] = {}
    for line in text.splitlines():
        if not line.startswith(b"vllm:"):
            continue
        ends = [i for i in (line.find(b"{"), line.find(b" ")) if i >= 0]
        field_name = VLLM_GAUGES.get(line[: min(ends)] if ends else line)
        if field_name is None:
            continue
        try:
            value = float(line.rsplit(b" ", 1)[1])
        except (IndexError, ValueError):
            continue
        found[field_name] = found.get(field_name, 0.0) + value
    return found
