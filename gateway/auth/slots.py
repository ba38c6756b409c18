"""Open requests per tenant, counted in one process (both doors use it: `gateway.http.auth`, `extproc`)."""

from __future__ import annotations

from collections import Counter


class TenantSlots:
    """Open requests per tenant in this process, so one tenant cannot hold every slot (#26).

    Why per tenant and per request: the connection cap above is keyed on the peer's address, and
    behind Envoy every client's address is Envoy's (its pooled connections carry many tenants'
    requests): one key's 512 idle WebSockets through :8081 made every other tenant's requests fail.
    A request's tenant is its project once authenticated (keys, trusted), else the client address.
    Both doors hold one: the HTTP server per request (`http/auth.py`), the ExtProc per
    `POST /v1/responses` it serves itself (a stream Envoy sends straight to the backend never reaches
    the HTTP server, so only the ExtProc can count it).
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._open: Counter[str] = Counter()

    def count(self, tenant: str) -> int:
        return self._open[tenant]

    def acquire(self, tenant: str) -> bool:
        if self.cap > 0 and self._open[tenant] >= self.cap:
            return False
        self._open[tenant] += 1
        return True

    def release(self, tenant: str) -> None:
        self._open[tenant] -= 1
        if self._open[tenant] <= 0:
            del self._open[tenant]
