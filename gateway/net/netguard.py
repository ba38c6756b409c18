"""The outbound address policy: every URL a client can name goes through here (SSRF defence).

Why: the gateway runs inside the operator's network, next to Envoy's admin port, the inference
server and cloud metadata endpoints. A client that names `http://127.0.0.1:9901/quitquitquit` as an
MCP server must not make the gateway stop its own Envoy. So an outbound connection is allowed to a
public address only, unless the host matches an operator's allowlist pattern.

How, and why at connect time: checking a URL's host once and connecting later lets DNS answer
differently the second time (rebinding). Both HTTP stacks the gateway uses are therefore given a
resolver that vets every address *when it connects*: aiohttp through `resolver()`/`session()`, httpx
(the MCP SDK's client) through `gateway.net.netguard_httpx.vetted_transport(policy)`. Redirects open new
connections, so every hop is vetted too. `check_url` is the early, friendly check that turns a bad
URL into a 400 before any work.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import ThreadedResolver
from yarl import URL

from gateway.common.errors import InvalidRequest

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Cloud metadata services (AWS/GCP/Azure/OpenStack, AWS ECS, AWS IPv6, Alibaba): refused even when a
# broad allowlist pattern matches; only a pattern naming the address itself opens one.
METADATA = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200")
)
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")


class URLNotAllowed(InvalidRequest):
    """A client named a URL the gateway will not connect to (400 `url_not_allowed`)."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message, param=param, code="url_not_allowed")


class AddressRefused(OSError):
    """Raised at connect time (a connection error to the HTTP stacks): the host resolved to a refused address."""


class HostUnresolvable(OSError):
    """The host has no address; callers that only pre-check may let the connection fail later."""


def embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 form carries (mapped, compatible, 6to4, Teredo, NAT64), if any."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64 or ip in _NAT64_LOCAL:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if int(ip) >> 32 == 0 and int(ip) > 1:  # deprecated IPv4-compatible ::a.b.c.d (:: and ::1 excluded)
        return ipaddress.IPv4Address(int(ip))
    return None


def refusal(ip: IPAddress) -> str | None:
    """Why `ip` is not a public address, or None when it is."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.scope_id:
            return "a scoped (link-local) address"
        inner = embedded_ipv4(ip)
        if inner is not None:
            reason = refusal(inner)
            return None if reason is None else f"{reason} (embedded in an IPv6 address)"
    checks = (
        (ip in METADATA, "a cloud metadata address"),
        (ip.is_unspecified, "an unspecified address"),
        (ip.is_loopback, "a loopback address"),
        (ip.is_link_local, "a link-local address"),
        (ip.is_multicast, "a multicast address"),
        (isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT, "a shared (CGNAT) address"),
        (ip.is_reserved, "a reserved address"),
        (ip.is_private, "a private address"),
        (not ip.is_global, "a non-public address"),
    )
    return next((why for hit, why in checks if hit), None)


def _host_key(host: str, port: int) -> tuple[str, str]:
    host = host.lower().rstrip(".")
    bracketed = f"[{host}]" if ":" in host else host
    return host, f"{bracketed}:{port}"


def _literal_brackets(text: str) -> str:
    return text.replace("[", "\x00").replace("]", "\x01")


class AddressPolicy:
    """Public addresses always; non-public ones only for hosts matching an allowlist pattern.

    A pattern is a host (`*.svc.cluster.local`, `10.0.0.*`; shell-style `*` and `?`) or host:port
    (`127.0.0.2:8080`, `[::1]:9000`), matched against the host as the URL names it and against each
    resolved address.
    """

    def __init__(self, allowed_hosts: Sequence[str] = ()) -> None:
        self.allowed_hosts = tuple(p.strip().lower() for p in allowed_hosts if p.strip())

    @classmethod
    def from_setting(cls, value: str | None) -> AddressPolicy:
        """From a comma-separated setting; unset or empty means public addresses only."""
        return cls(tuple((value or "").split(",")))

    def _matches(self, host: str, port: int, *, exact_only: bool = False) -> bool:
        name, with_port = _host_key(host, port)
        for pattern in self.allowed_hosts:
            has_port = "]:" in pattern if pattern.startswith("[") else pattern.count(":") == 1
            if exact_only and any(ch in pattern for ch in "*?"):
                continue
            target, wanted = (with_port, pattern) if has_port else (name, pattern.strip("[]"))
            # brackets delimit IPv6 literals here, never fnmatch character classes
            if fnmatchcase(_literal_brackets(target), _literal_brackets(wanted)):
                return True
        return False

    def host_allowed(self, host: str, port: int) -> bool:
        """Whether the URL's host itself is on the allowlist (then any address it resolves to is fine)."""
        return self._matches(host, port)

    def address_refusal(self, host: str, port: int, ip: IPAddress) -> str | None:
        """Why connecting to `ip` (resolved from `host`) is refused, or None."""
        reason = refusal(ip)
        if reason is None:
            return None
        if ip in METADATA:  # a wildcard never opens metadata; naming the address does
            return None if self._matches(str(ip), port, exact_only=True) else reason
        if self.host_allowed(host, port) or self._matches(str(ip), port):
            return None
        return reason

    async def resolve(self, host: str, port: int) -> list[str]:
        """The host's addresses, each vetted; raises AddressRefused if any is refused.

        All must pass, not just one: a name that answers with a public and a private address is a
        classic rebinding setup, and the HTTP stacks may try either.
        """
        try:
            literal: IPAddress | None = ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            literal = None
        if literal is not None:
            addresses = [literal]
        else:
            try:
                infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except (socket.gaierror, UnicodeError) as exc:
                raise HostUnresolvable(f"cannot resolve {host!r}: {exc}") from exc
            addresses = list(dict.fromkeys(ipaddress.ip_address(str(i[4][0]).split("%")[0]) for i in infos))
        for ip in addresses:
            reason = self.address_refusal(host, port, ip)
            if reason is not None:
                raise AddressRefused(f"{host} resolves to {reason}")
        return [str(ip) for ip in addresses]

    async def check_url(self, url: str) -> list[str]:
        """Vet a URL a client named: http(s) only, a host, every address allowed. Returns the addresses.

        Raises URLNotAllowed (400) for a refused URL and HostUnresolvable when the name has no address.
        """
        try:
            parts = urlsplit(url)
            host, port = parts.hostname, parts.port
        except ValueError as exc:
            raise URLNotAllowed(f"Invalid URL: {exc}.") from None
        if parts.scheme not in ("http", "https"):
            raise URLNotAllowed("Only http and https URLs are allowed.")
        if not host:
            raise URLNotAllowed("The URL has no host.")
        port = port or (443 if parts.scheme == "https" else 80)
        try:
            return await self.resolve(host, port)
        except AddressRefused as exc:
            raise URLNotAllowed(f"This gateway does not connect to that host: {exc}.") from None

    async def vet(self, url: str, param: str) -> None:
        """The request-time check: a refused URL is a 400 naming `param`; an unresolvable one fails later."""
        try:
            await self.check_url(url)
        except URLNotAllowed as exc:
            raise URLNotAllowed(exc.message, param=param) from None
        except HostUnresolvable:
            pass

    def resolver(self) -> AbstractResolver:
        """An aiohttp resolver that only ever returns vetted addresses."""
        return _VettingResolver(self)

    def session(self, **kwargs: Any) -> aiohttp.ClientSession:
        """An aiohttp session whose every request and connection (redirects included) is vetted.

        Two checks because aiohttp never asks the resolver about an IP literal: each request (and
        redirect hop) is checked when it starts, and each name again when it is resolved to connect.
        """

        async def on_request_start(_s: Any, _ctx: Any, params: aiohttp.TraceRequestStartParams) -> None:
            await self.check_url(str(params.url))

        async def on_request_redirect(_s: Any, _ctx: Any, params: aiohttp.TraceRequestRedirectParams) -> None:
            location = params.response.headers.get("location")
            if location:
                try:
                    await self.check_url(str(params.url.join(URL(location))))
                except URLNotAllowed:
                    params.response.close()
                    raise

        trace = aiohttp.TraceConfig()
        trace.on_request_start.append(on_request_start)
        trace.on_request_redirect.append(on_request_redirect)
        connector = aiohttp.TCPConnector(resolver=self.resolver())
        return aiohttp.ClientSession(connector=connector, trust_env=False, trace_configs=[trace], **kwargs)


class _VettingResolver(AbstractResolver):
    def __init__(self, policy: AddressPolicy) -> None:
        self._policy = policy
        self._inner = ThreadedResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        results = await self._inner.resolve(host, port, family)
        for result in results:
            reason = self._policy.address_refusal(host, port, ipaddress.ip_address(result["host"]))
            if reason is not None:
                raise AddressRefused(f"{host} resolves to {reason}")
        return results

    async def close(self) -> None:
        await self._inner.close()


_REDIRECTS = frozenset({301, 302, 303, 307, 308})


class TooManyRedirects(Exception):
    """A fetch followed more redirects than allowed."""


@dataclass(frozen=True)
class Fetched:
    url: str
    final_url: str
    status: int
    headers: Mapping[str, str]
    body: bytes
    truncated: bool


async def fetch(
    url: str,
    *,
    policy: AddressPolicy,
    max_bytes: int,
    timeout: float,  # noqa: ASYNC109 - one budget for the whole fetch, redirects included
    max_redirects: int = 5,
    headers: Mapping[str, str] | None = None,
    session: aiohttp.ClientSession | None = None,
) -> Fetched:
    """GET a client-named URL under `policy`: at most `max_bytes` of body, `max_redirects` hops.

    `session` must come from `policy.session()` (reuse one across fetches for keep-alive); without one
    a session is made and closed here. Raises URLNotAllowed for a refused URL or redirect target,
    TooManyRedirects, TimeoutError, or aiohttp's errors for a failed connection.
    """
    own = session is None
    http = policy.session() if session is None else session
    current = url
    try:
        async with asyncio.timeout(timeout):
            for _ in range(max_redirects + 1):
                # each hop is checked here (aiohttp never asks a resolver about an IP literal) and
                # again at connect time by the session's resolver (a name that re-resolves elsewhere)
                await policy.check_url(current)
                async with http.get(current, headers=dict(headers or {}), allow_redirects=False) as resp:
                    location = resp.headers.get("location")
                    if resp.status in _REDIRECTS and location:
                        current = str(resp.url.join(URL(location)))
                        continue
                    body = await resp.content.read(max_bytes + 1)
                    return Fetched(
                        url=url,
                        final_url=str(resp.url),
                        status=resp.status,
                        headers={k.lower(): v for k, v in resp.headers.items()},
                        body=body[:max_bytes],
                        truncated=len(body) > max_bytes,
                    )
            raise TooManyRedirects(f"More than {max_redirects} redirects from {url}.")
    except aiohttp.ClientConnectorError as exc:
        if isinstance(exc.os_error, AddressRefused):
            raise URLNotAllowed(f"This gateway does not connect to that host: {exc.os_error}.") from None
        raise
    finally:
        if own:
            await http.close()
