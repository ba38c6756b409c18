"""Logging set-up: plain text, or one JSON object per line (`GATEWAY_LOG_FORMAT=json`).

Every record made while a request is handled carries that request's id (Envoy's `x-request-id`,
passed through to both doors, or one generated here) and, once known, the response id: they live in
a context variable that the doors set, so engine code logs them without knowing about requests.
Messages go through `scrub()` before they are written, so a secret that slips into a log call
(a bearer token, an API key, credentials in a URL) is replaced by `[redacted]`.
With tracing on (`gateway.telemetry.tracing`), a record made inside a span carries its `trace_id` and
`span_id`, so a log line leads to its trace and back.
"""

from __future__ import annotations

import contextvars
import itertools
import logging
import sys
import time
import uuid
from typing import Any

import orjson

from gateway.common.redact import redact
from gateway.config import Settings
from gateway.telemetry import tracing

# The request being handled: {"request_id": ..., "response_id": ...}; None outside requests.
request_context: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("request_context", default=None)

_EXTRA_FIELDS = ("door", "route", "method", "status", "duration_ms", "response_id", "request_id", "event")


def scrub(text: str) -> str:
    """Replace secrets in ``text`` with `[redacted]` (see `gateway.common.redact`)."""
    return redact(text)


_ID_PREFIX = uuid.uuid4().hex[:12]  # random per process: ids are unique across processes and restarts
_ids = itertools.count(1)


def new_request_id(given: str | None) -> str:
    """Envoy's id when it sent one (bounded, printable), otherwise a fresh one (a counter behind a
    per-process random prefix: cheaper than a uuid4 per request)."""
    if given and len(given) <= 128 and given.isprintable():
        return given
    return f"{_ID_PREFIX}-{next(_ids)}"


class JSONFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request fields, exception."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "msg": scrub(record.getMessage()),
        }
        ctx = request_context.get()
        if ctx:
            out.update({k: v for k, v in ctx.items() if v is not None})
        for key in _EXTRA_FIELDS:
            value = record.__dict__.get(key)
            if value is not None:
                out[key] = value
        if tracing.ON and (ids := tracing.current_ids()) is not None:
            out["trace_id"], out["span_id"] = ids
        if record.exc_info:
            out["exc"] = scrub(self.formatException(record.exc_info))
        return orjson.dumps(out, default=str).decode()


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = scrub(super().format(record))
        if tracing.ON and (ids := tracing.current_ids()) is not None:
            text += f" trace_id={ids[0]} span_id={ids[1]}"
        return text


ACCESS_LOGGER = "gateway.access"  # one INFO line per request from each door
_LIFECYCLE = logging.getLogger("gateway.lifecycle")


def announce(message: str) -> None:
    """A start/stop line that shows at any log level (in the chosen format)."""
    _LIFECYCLE.info(message)


def configure(settings: Settings) -> None:
    """Install the chosen format on the root logger (idempotent)."""
    handler = logging.StreamHandler(sys.stderr)
    if settings.log_format == "json":
        handler.setFormatter(JSONFormatter())
    else:
        handler.setFormatter(TextFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(settings.log_level.upper())
    _LIFECYCLE.setLevel(logging.INFO)
