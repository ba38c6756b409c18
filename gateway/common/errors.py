"""OpenAI-shaped errors.

Every failure a client can cause maps to one `APIError` so both front doors (HTTP and ExtProc) render
the same `{"error": {"message", "type", "param", "code"}}` body with the same status.
"""

from __future__ import annotations

from typing import Any

from gateway.common.redact import redact


class APIError(Exception):
    """An error with an HTTP status and an OpenAI error body."""

    status: int = 500
    type: str = "server_error"

    def __init__(
        self,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        status: int | None = None,
        type: str | None = None,
        verbatim: bool = False,
    ) -> None:
        # errors reach clients, stored responses and logs: never a secret. `verbatim`: a fixed text
        # of the gateway's own, which quotes no input (redaction garbled "Bearer auth (i.e. ...)")
        message = message if verbatim else redact(message)
        super().__init__(message)
        self.message = message
        self.param = param
        self.code = code
        if status is not None:
            self.status = status
        if type is not None:
            self.type = type

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}

    def as_error_object(self) -> dict[str, Any]:
        """The `error` field stored on a failed response (OpenAI's ResponseError: code + message)."""
        return {"code": self.code or self.type, "message": self.message}


class InvalidRequest(APIError):
    status = 400
    type = "invalid_request_error"


class NotFound(APIError):
    status = 404
    type = "invalid_request_error"

    def __init__(self, message: str, *, param: str | None = None, code: str | None = "not_found") -> None:
        super().__init__(message, param=param, code=code)


class Unauthorized(APIError):
    """No usable credentials: OpenAI's 401 body (`invalid_api_key`)."""

    status = 401
    type = "invalid_request_error"

    def __init__(self, message: str, *, verbatim: bool = False) -> None:
        super().__init__(message, code="invalid_api_key", verbatim=verbatim)


class RateLimited(APIError):
    """Over a project's requests or tokens per minute: 429 with `retry-after` seconds."""

    status = 429
    type = "requests"

    def __init__(
        self,
        message: str,
        *,
        retry_after: float,
        kind: str = "requests",
        code: str = "rate_limit_exceeded",
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message, code=code, type=kind)  # kind: "requests" or "tokens"
        self.retry_after = retry_after
        self.headers = headers or {}  # x-ratelimit-* (gateway.auth.limits)


class PayloadTooLarge(APIError):
    status = 413
    type = "invalid_request_error"


class BackendError(APIError):
    """The inference backend failed (refused, timed out, broke the stream, answered 5xx)."""

    status = 502
    type = "server_error"

    def __init__(self, message: str, *, status: int = 502, code: str = "backend_error") -> None:
        super().__init__(message, code=code, status=status)


# How a stream that lost its other end mid-way is stored, through either door: the Envoy door cannot
# tell a backend that dropped the connection from a client that left, so the HTTP door says the same.
STREAM_INTERRUPTED = (
    "The response was interrupted before it completed: the client disconnected or the connection "
    "to the inference backend was lost."
)


class BackendTimeout(BackendError):
    def __init__(self, message: str) -> None:
        super().__init__(message, status=504, code="backend_timeout")


class ServerError(APIError):
    status = 500
    type = "server_error"


class RequestTimeout(APIError):
    status = 408
    type = "invalid_request_error"


class UnsupportedMediaType(APIError):
    status = 415
    type = "invalid_request_error"
