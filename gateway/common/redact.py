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

import ipaddress
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
    # URL userinfo. The scheme is bounded and must start a word: unbounded, a long run of letters
    # (a 100,000-character id) was tried from every position, 43 s of one event loop (#26)
    (
        re.compile(r"(?i)(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,15}://)[^/\s:@]{1,512}(?::[^/\s@]{0,512})?@"),
        r"\1" + REDACTED + "@",
    ),
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


# --- internal addresses in what a backend said (#19) --------------------------------------------
# A backend's error text (a 5xx body, a connection error) may name the hosts behind the gateway:
# the inference server's URL, a pod's address, a proxy's upstream. Clients get that text with those
# hidden; the gateway's own logs keep them (operators need them), so this is not part of `redact`.
INTERNAL = "[internal address]"
# a URL's scheme and authority (a scheme is short: unbounded, "a.a.a…" would be tried from every dot)
_URL_AUTHORITY = re.compile(r"(?i)\b[a-z][a-z0-9+.-]{0,15}://[^\s/\"'<>]*[^\s/\"'<>.,;)]")
_CLUSTER_SUFFIX = r"(?:svc|cluster\.local|internal|local|lan|localdomain)"
_CLUSTER_NAME = re.compile(  # cluster-internal DNS names, two labels at least before the suffix
    # ("vllm.default.svc", "ip-10-0-0-1.ec2.internal"; not "threading.local"), a full stop after is text
    rf"(?i)(?<![\w.-])[a-z0-9-]+(?:\.[a-z0-9-]+)+\.{_CLUSTER_SUFFIX}(?::\d+)?(?![\w-]|\.\w)"
)
_registered: set[str] = set()
_IP_LITERAL = re.compile(  # IPv4, or IPv6 (bracketed or not, IPv4-mapped too), a port if any
    r"(?<![\w.:])(?:(?P<v4>\d{1,3}(?:\.\d{1,3}){3})"
    r"|\[?(?P<v6>[0-9a-fA-F]{0,4}(?::[0-9a-fA-F]{0,4}){2,7}(?:\.\d{1,3}){0,3})\]?)"
    r"(?::\d+)?(?!\w|\.\d)"
)


def _internal_url(match: re.Match[str]) -> str:
    """A URL's authority, hidden when its host is internal: a bare service name ("http://vllm:8000"),
    a cluster name, a non-global address, or a configured upstream; public URLs (docs) stay."""
    try:
        host = (urlsplit(match[0]).hostname or "").lower().rstrip(".")
    except ValueError:
        return INTERNAL
    internal = "." not in host or host in _registered or bool(re.fullmatch(rf".*\.{_CLUSTER_SUFFIX}", host))
    if not internal:
        try:
            internal = not ipaddress.ip_address(host).is_global
        except ValueError:
            pass
    return INTERNAL if internal else match[0]


def _non_global_ip(match: re.Match[str]) -> str:
    if match["v6"] is not None and not re.search(r"[0-9a-fA-F]", match["v6"]):
        return match[0]  # "::" alone is punctuation, not an address
    try:
        address = ipaddress.ip_address(match["v4"] or match["v6"])
    except ValueError:
        return match[0]  # a version number, a time of day: not an address
    return match[0] if address.is_global else INTERNAL


_hosts_re: re.Pattern[str] | None = None


def register_hosts(urls: Iterable[str | None]) -> None:
    """Remember the hosts of configured upstream URLs (the backend's, the embedder's, ...), so
    `hide_internal` hides them by name even where they look public or are a bare service name."""
    global _hosts_re
    for url in urls:
        try:
            host = urlsplit(url).hostname if url else None
        except ValueError:
            host = None
        if host:
            _registered.add(host.lower())
    if _registered:
        # a dotted name is hidden wherever it stands; a bare service name ("vllm") only with its
        # port, as the word alone is often the software's name too
        ordered = sorted(_registered, key=len, reverse=True)
        dotted = [re.escape(h) for h in ordered if "." in h or ":" in h]
        bare = [re.escape(h) for h in ordered if "." not in h and ":" not in h]
        alternatives = [f"(?:{'|'.join(dotted)})(?::\\d+)?"] if dotted else []
        alternatives += [f"(?:{'|'.join(bare)}):\\d+"] if bare else []
        _hosts_re = re.compile(rf"(?i)(?<![\w.-])(?:{'|'.join(alternatives)})(?![\w-]|\.\w)")


def hide_internal(text: str) -> str:
    """`text` (a backend's words on their way to a client) with internal addresses hidden."""
    text = _URL_AUTHORITY.sub(_internal_url, text)
    text = _CLUSTER_NAME.sub(INTERNAL, text)
    text = _IP_LITERAL.sub(_non_global_ip, text)
    if _hosts_re is not None:
        text = _hosts_re.sub(INTERNAL, text)
    return text
