"""Per-project rates and permissions: requests and tokens per minute, chat-completions passthrough.

`GATEWAY_PROJECT_LIMITS` is JSON keyed by project (`"*"` for every other project), e.g.
`{"free": {"requests_per_minute": 60, "tokens_per_minute": 40000, "chat_completions": false}}`.
Each limit is a token bucket that refills continuously (a minute's allowance at most), so a burst
up to the limit passes and a steady rate above it gets 429 with the seconds until it would pass
(`retry-after`). Tokens are charged when the backend reports usage (`charge`), so a request is
refused while the project is over its token budget, not part-way through a response.

The buckets are per process: with `GATEWAY_WORKERS=N` processes per door, the deployment admits
up to N times the figure (divide it by N, or put Envoy's rate-limit service in front for exact
global limits).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from gateway.errors import APIError, RateLimited


class Forbidden(APIError):
    status = 403
    type = "invalid_request_error"


@dataclass
class _Bucket:
    per_minute: float
    level: float = field(init=False)
    at: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.level = self.per_minute

    def refill(self, now: float) -> float:
        self.level = min(self.per_minute, self.level + (now - self.at) * self.per_minute / 60.0)
        self.at = now
        return self.level


@dataclass(frozen=True)
class Policy:
    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    chat_completions: bool = True


def parse_policies(spec: str | None) -> dict[str, Policy]:
    if not spec:
        return {}
    try:
        raw = json.loads(spec)
    except json.JSONDecodeError as exc:
        raise ValueError(f"GATEWAY_PROJECT_LIMITS is not JSON: {exc}") from exc
    if not isinstance(raw, dict):
        raise ValueError("GATEWAY_PROJECT_LIMITS must be a JSON object keyed by project")
    out = {}
    for project, value in raw.items():
        if not isinstance(value, dict) or set(value) - {"requests_per_minute", "tokens_per_minute", "chat_completions"}:
            raise ValueError(
                f"GATEWAY_PROJECT_LIMITS[{project!r}]: requests_per_minute, tokens_per_minute, chat_completions"
            )
        out[project] = Policy(**value)
    return out


class Limits:
    def __init__(self, spec: str | None = None) -> None:
        self.policies = parse_policies(spec)
        self._requests: dict[str, _Bucket] = {}
        self._tokens: dict[str, _Bucket] = {}

    def policy(self, project: str) -> Policy:
        return self.policies.get(project) or self.policies.get("*") or Policy()

    def admit(self, project: str) -> None:
        """Count one request, or raise 429 when the project is over a rate."""
        if not self.policies:
            return
        policy, now = self.policy(project), time.monotonic()
        if policy.tokens_per_minute:
            tokens = self._tokens.setdefault(project, _Bucket(policy.tokens_per_minute))
            if tokens.refill(now) < 0:
                wait = -tokens.level * 60.0 / policy.tokens_per_minute
                raise RateLimited(
                    f"Rate limit reached for project {project} on tokens per min (TPM): limit "
                    f"{policy.tokens_per_minute}. Please try again in {wait:.1f}s.",
                    retry_after=wait,
                    kind="tokens",
                )
        if policy.requests_per_minute:
            requests = self._requests.setdefault(project, _Bucket(policy.requests_per_minute))
            if requests.refill(now) < 1:
                wait = (1 - requests.level) * 60.0 / policy.requests_per_minute
                raise RateLimited(
                    f"Rate limit reached for project {project} on requests per min (RPM): limit "
                    f"{policy.requests_per_minute}. Please try again in {wait:.1f}s.",
                    retry_after=wait,
                )
            requests.level -= 1

    def charge(self, project: str, tokens: int) -> None:
        """Spend `tokens` of the project's budget (the backend's reported usage)."""
        if not self.policies or tokens <= 0:
            return
        policy = self.policy(project)
        if policy.tokens_per_minute:
            bucket = self._tokens.setdefault(project, _Bucket(policy.tokens_per_minute))
            bucket.refill(time.monotonic())
            bucket.level -= tokens

    def check_chat(self, project: str) -> None:
        if not self.policy(project).chat_completions:
            raise Forbidden(
                f"Project {project} may not use the chat/completions passthrough.", code="permission_denied"
            )


LIMITS = Limits()  # the process's limits; `configure` replaces it at start-up


def configure(spec: str | None) -> Limits:
    global LIMITS
    LIMITS = Limits(spec)
    return LIMITS


def charge_current(tokens: int, project: Any) -> None:
    if project is not None:
        LIMITS.charge(str(project), tokens)
