"""The address policy for `httpx2`, the HTTP client the MCP SDK uses (see `gateway.net.netguard`).

httpcore resolves and connects in its network backend, so a backend that resolves through the
policy and connects only to the vetted addresses closes the rebinding window. TLS still verifies
the URL's host name: httpcore takes the server name from the request's origin, not from the
address it connected to.

It imports `gateway.net.netguard`, never the reverse (the policy's httpx transport is built here,
`vetted_transport(policy)`), so the two modules form no import cycle.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import httpcore2
import httpx2

from gateway.net.netguard import AddressPolicy, AddressRefused, HostUnresolvable


class _VettingBackend(httpcore2.AsyncNetworkBackend):
    def __init__(self, policy: AddressPolicy, inner: httpcore2.AsyncNetworkBackend) -> None:
        self._policy = policy
        self._inner = inner

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's signature
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        try:
            addresses = await self._policy.resolve(host, port)
        except (AddressRefused, HostUnresolvable) as exc:
            raise httpcore2.ConnectError(str(exc)) from exc
        failure: Exception | None = None
        for address in addresses:
            try:
                return await self._inner.connect_tcp(
                    address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except httpcore2.ConnectError as exc:
                failure = exc
        raise failure or httpcore2.ConnectError(f"no address for {host}")

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's signature
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        raise httpcore2.ConnectError("unix sockets are not outbound destinations")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def vetted_transport(policy: AddressPolicy, **kwargs: Any) -> httpx2.AsyncHTTPTransport:
    """An AsyncHTTPTransport whose connection pool connects through the policy.

    httpx2 offers no public hook for the network backend, so the pool's backend is wrapped after
    construction; the SSRF tests through the MCP tool fail if a new httpx2 moves it.
    """
    transport = httpx2.AsyncHTTPTransport(trust_env=False, **kwargs)
    pool = transport._pool
    inner = getattr(pool, "_network_backend", None)
    if not isinstance(inner, httpcore2.AsyncNetworkBackend):
        raise RuntimeError("httpx2's connection pool changed: cannot install the address policy")
    pool._network_backend = _VettingBackend(policy, inner)  # type: ignore[union-attr]
    return transport
