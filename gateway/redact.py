"""Secret redaction for everything the gateway returns or logs.

Why one module: secrets reach text from many directions (a backend error that quotes the request
with its API key, an MCP `server_url` with `user:pass@` or `?token=`, an exception message), and
both doors render errors and logs. Every `APIError` message, every echoed MCP URL and every log
line passes through here.

Two nets: the exact values of the secrets the gateway was configured with (`register`, from the
settings at start-up: they need not look like secrets), and patterns for what looks like one
(bearer/basic credentials, `sk-` keys, URL userinfo, `key=value` pairs with a secret-like name).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "[redacted]"
MIN_SECRET = 6  # shorter configured values would redact ordinary words

_SECRET_NAMES = (
    r"api[_-]?key|apikey|x-api-key|access[_-]?token|refresh[_-]?token|id[_-]?token|token|secret|client[_-]?secret"
    r"|password|passwd|pwd|authorization|auth|signature|sig|key|session|credential|credentials"
)
_PATTERNS = (
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{4,}"), r"\1 " + REDACTED),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{6,}"), REDACTED),
    (re.compile(r"(?i)([a-z][a-z0-9+.-]*://)[^/\s:@]+(?::[^/\s@]*)?@"), r"\1" + REDACTED + "@"),
    (
        re.compile(rf"(?i)(?<![A-Za-z0-9])((?:{_SECRET_NAMES})[\"']?\s*[:=]\s*[\"']?)[^\s\"',&}}]+"),
        r"\1" + REDACTED,
    ),
)
_SECRET_PARAM = re.compile(rf"(?i)^(?:{_SECRET_NAMES})$|token|secret|passw|api[_-]?key")

_known: set[str] = set()
_known_re: re.Pattern[str] | None = None


def register(values: Iterable[str | None]) -> None:
    """Remember configured secret values (API keys, tokens) so they are redacted wherever they appear."""
    global _known_re
    _known.update(v for v in values if v and len(v) >= MIN_SECRET)
    if _known:  # longest first, so a key that contains another is replaced whole
        _known_re = re.compile("|".join(re.escape(v) for v in sorted(_known, key=len, reverse=True)))


def redact(text: str) -> str:
    """`text` with every recognised secret replaced by `[redacted]`."""
    if _known_re is not None:
        text = _known_re.sub(REDACTED, text)
    for pattern, repl in _PATTERNS:
        text = pattern.sub(repl, text)
    return text


def redact_url(url: str) -> str:
    """A URL fit to echo or log: no userinfo, and secret-looking query values replaced."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return redact(url)
    netloc = parts.netloc
    if "@" in netloc:
        shown = f"[{host}]" if ":" in host else host
        netloc = f"{REDACTED}@{shown}" + (f":{port}" if port is not None else "")
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, REDACTED if _SECRET_PARAM.search(k) else v) for k, v in pairs], safe="[]")
    return redact(urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)))
