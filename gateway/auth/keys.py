"""API keys: minting, hashing and administration (shared by the CLI and the admin routes).

A key is `sk-gw-` followed by 32 random bytes (URL-safe base64). Only its SHA-256 is stored: with
256 random bits a fast hash cannot be brute-forced, and checking one costs a microsecond, so a
request's authentication stays within its CPU budget. The plaintext is shown once, at creation.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from typing import Any, Protocol

from gateway.auth.limits import RATE_FIELDS, check_policy
from gateway.common.errors import InvalidRequest, NotFound
from gateway.common.ids import new_id
from storage.api_keys import KeyRecord
from storage.base import JSON, Page

KEY_PREFIX = "sk-gw-"
SHOWN_CHARS = 12  # what listings show of a key: enough to tell keys apart, useless to an attacker
PROJECT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")
_DURATION = re.compile(r"^(\d{1,12})([smhd])\Z")  # bounded: int() of 5,000 digits raises
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}


class KeyStore(Protocol):
    async def create(self, row: JSON) -> JSON: ...

    async def get(self, key_id: str) -> JSON | None: ...

    async def list(self, project: str | None, *, limit: int, after: str | None) -> Page: ...

    async def revoke(self, key_id: str, now: int) -> JSON | None: ...

    async def lookup(self, digest: str) -> KeyRecord | None: ...

    async def mark_used(self, key_id: str, now: int) -> None: ...


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def check_project(project: Any, param: str = "project_id") -> str:
    if not isinstance(project, str) or not PROJECT_RE.match(project):
        raise InvalidRequest(
            "A project id is 1-64 characters: letters, digits, '_', '.', '-' (not first).", param=param
        )
    return project


def parse_duration(text: str) -> int:
    """`30d`, `12h`, `90m`, `3600s` → seconds."""
    m = _DURATION.match(text.strip())
    if not m or int(m.group(1)) <= 0:
        raise InvalidRequest(f"Invalid duration {text[:40]!r}: use e.g. 30d, 12h, 90m or 3600s.", param="expires_in")
    return int(m.group(1)) * _UNIT[m.group(2)]


def key_limits(rates: JSON) -> str | None:
    """A key's own `requests_per_minute` / `tokens_per_minute` (checked) as stored, or None."""
    rates = {k: v for k, v in rates.items() if v is not None}
    if not rates:
        return None
    try:
        check_policy(rates, "limits", RATE_FIELDS)
    except ValueError:
        raise InvalidRequest(
            "requests_per_minute and tokens_per_minute are positive integers.", param=sorted(rates)[0]
        ) from None
    return json.dumps(rates, sort_keys=True)


async def create_key(
    store: KeyStore, project: str, *, name: str = "", expires_in: int | None = None, limits: str | None = None
) -> JSON:
    """Mint a key for `project`; the returned object carries the plaintext `value`, once."""
    check_project(project)
    if not isinstance(name, str) or len(name) > 256:
        raise InvalidRequest("name must be a string of at most 256 characters.", param="name")
    secret = KEY_PREFIX + secrets.token_urlsafe(32)
    now = int(time.time())
    row = {
        "id": new_id("key"),
        "project": project,
        "name": name,
        "prefix": secret[:SHOWN_CHARS],
        "hash": digest(secret),
        "created_at": now,
        "expires_at": now + expires_in if expires_in else None,
        "limits": limits,
    }
    created = await store.create(row)
    return {**created, "value": secret}


async def revoke_key(store: KeyStore, key_id: str, project: str | None = None) -> JSON:
    found = await store.get(key_id)
    if found is None or (project is not None and found["project_id"] != project):
        raise NotFound(f"API key '{key_id}' not found.", param="key_id")
    revoked = await store.revoke(key_id, int(time.time()))
    assert revoked is not None
    return revoked
