"""From a request's credentials to the caller's project, the same way in both doors.

`keys` mode looks the key's hash up in the key store and keeps the answer for
`auth_cache_seconds` (1 s by default): a hot key costs a dict lookup and a SHA-256, and a revoked
or expired key stops working on every process within that time, since nothing caches longer.
`trusted` mode takes the project from a header that Envoy's ext_authz/JWT filters or the mesh set,
and only from the configured proxies. `none` puts every caller in the default project.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import time
from collections.abc import Iterable

from gateway.auth.keys import KEY_PREFIX, PROJECT_RE, KeyStore, digest
from gateway.auth.limits import KEY_POLICIES, RATE_FIELDS, check_policy
from gateway.common.errors import Unauthorized
from gateway.config import Settings
from gateway.usage.recorder import caller_key
from storage.api_keys import KeyRecord
from storage.scope import DEFAULT_PROJECT

log = logging.getLogger(__name__)

MAX_CACHED = 10_000  # unknown keys are cached too (a flood of guesses must not reach the store each time)
USED_EVERY = 60.0  # last_used_at is written at most this often per key and process

NO_KEY = (
    "You didn't provide an API key. You need to provide your API key in an Authorization header using "
    "Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
)


REVOKED_MID_STREAM = "The API key of this request was revoked or expired while the response was being produced."


def revoked_mid_stream() -> Unauthorized:
    """The reason a long stream ends (and its stored response fails) once its key stops working (#26)."""
    return Unauthorized(REVOKED_MID_STREAM)


def _shown(token: str) -> str:
    return (token[: len(KEY_PREFIX) + 3] + "*" * 4 + token[-4:]) if len(token) > 16 else "*" * 8


def _networks(spec: str) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(part.strip(), strict=False) for part in spec.split(",") if part.strip()]


class Authenticator:
    def __init__(self, settings: Settings, keys: KeyStore | None) -> None:
        self.mode = settings.auth
        self.keys = keys
        self.ttl = settings.auth_cache_seconds
        self.header = settings.auth_project_header.lower()
        self.proxies = _networks(settings.auth_trusted_proxies)
        self._cache: dict[str, tuple[float, KeyRecord | None]] = {}
        self._used: dict[str, float] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def enabled(self) -> bool:
        return self.mode != "none"

    def trusted_peer(self, peer: str | None) -> bool:
        if peer is None:
            return False
        try:
            address = ipaddress.ip_address(peer.split("%", 1)[0])
        except ValueError:
            return False
        return any(address in net for net in self.proxies)

    async def project(self, authorization: str | None, project_header: str | None, *, peer_trusted: bool) -> str:
        """The caller's project, or `Unauthorized` (401, `invalid_api_key`)."""
        if self.mode == "none":
            return DEFAULT_PROJECT
        if self.mode == "trusted":
            if not peer_trusted or not project_header or not PROJECT_RE.match(project_header):
                raise Unauthorized(
                    f"This gateway takes the caller's project from a trusted proxy's {self.header} header."
                )
            return project_header
        token = _bearer(authorization)
        if not token:
            raise Unauthorized(NO_KEY, verbatim=True)
        record = await self._record(digest(token))
        now = time.time()
        if (
            record is None
            or record.revoked_at is not None
            or (record.expires_at is not None and record.expires_at <= now)
        ):
            raise Unauthorized(f"Incorrect API key provided: {_shown(token)}.")
        caller_key.set(record.id)  # the ledger and the key's own limits read it
        self._note_use(record.id)
        return record.project

    async def _record(self, key_hash: str) -> KeyRecord | None:
        now = time.monotonic()
        hit = self._cache.get(key_hash)
        if hit is not None and hit[0] > now:
            return hit[1]
        assert self.keys is not None
        record = await self.keys.lookup(key_hash)
        if record is not None and record.limits:
            try:
                KEY_POLICIES[record.id] = check_policy(json.loads(record.limits), "limits", RATE_FIELDS)
            except ValueError:
                log.error("key %s has unreadable limits; its project's apply", record.id)
        if len(self._cache) >= MAX_CACHED:
            self._cache.clear()
        self._cache[key_hash] = (now + self.ttl, record)
        return record

    def _note_use(self, key_id: str) -> None:
        now = time.monotonic()
        if self._used.get(key_id, 0.0) > now:
            return
        self._used[key_id] = now + USED_EVERY
        task = asyncio.get_running_loop().create_task(self._mark(key_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _mark(self, key_id: str) -> None:
        try:
            assert self.keys is not None
            await self.keys.mark_used(key_id, int(time.time()))
        except Exception:  # bookkeeping must never fail a request
            log.exception("could not record the use of key %s", key_id)


def _bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def open_to_network(settings: Settings, hosts: Iterable[str]) -> str | None:
    """A loud warning when authentication is off and a door listens beyond loopback, else None."""
    if settings.auth != "none":
        return None
    exposed = []
    for host in hosts:
        try:
            if not ipaddress.ip_address(host).is_loopback:
                exposed.append(host)
        except ValueError:
            if host != "localhost":
                exposed.append(host)
    if not exposed:
        return None
    return (
        f"!!! AUTHENTICATION IS OFF (GATEWAY_AUTH=none) and the gateway listens on {', '.join(exposed)}: anyone "
        "who reaches it can read, change and spend everything it holds. Set GATEWAY_AUTH=keys (or trusted). !!!"
    )
