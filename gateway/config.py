"""Settings from environment variables (`GATEWAY_*`), optionally layered over a YAML file.

One immutable object is built at start-up and handed to every component, so the HTTP server, the
ExtProc and the supervisor agree on ports, paths and the backend without re-reading the environment.

`Settings` is one model whose fields come in groups, each declared in a module of its own so none
grows past what one reads at once: the backend's (`config_backends`, with `BackendPool`), the
server's (`config_server`), the knowledge base's (`config_knowledge`), then the operations' here
(workers, clients, keys, usage, PostgreSQL, readiness), with what is derived across groups and the
loading. Every setting is still read as `settings.<name>` and set as `GATEWAY_<NAME>`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import ConfigDict, Field, ValidationError, field_validator

from gateway.config_backends import BackendPool, BackendSettings
from gateway.config_knowledge import KnowledgeSettings
from gateway.config_server import ServerSettings

__all__ = ["BackendPool", "Settings", "load_settings"]


# (the groups in reverse: pydantic lays out the fields from the last base to the first, so the fields,
# their errors and dumps keep the order they had in one class; no docstring, as before: the schema's)
class Settings(KnowledgeSettings, ServerSettings, BackendSettings):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # --- operations: metrics, logs, drain, workers (#17)
    workers: int = Field(
        default_factory=lambda: _cores(),
        ge=1,
        le=64,
        description="HTTP server and ExtProc processes each (default: the cores this process may use)",
    )
    log_format: Literal["text", "json"] = "text"
    event_loop: Literal["uvloop", "asyncio"] = Field(
        default="uvloop", description="the doors' event loop (uvloop: less CPU per streamed token)"
    )
    gc_thresholds: tuple[int, int, int] = Field(
        # not Python's 700,10,10: with tracing on, spans waiting for their batch outlived the young
        # collections and set off full ones, 1-23 us a request at the HTTP door (#31, twelfth pass)
        default=(10_000, 10, 10),
        description="the doors' garbage-collector thresholds (gc.set_threshold N0,N1,N2): tracked "
        "objects made a young collection, then collections of each generation before the next's",
    )
    drain_seconds: float = Field(
        default=30.0, ge=0, description="on SIGTERM, how long streams in flight may take to finish"
    )
    metrics_dir: Path | None = Field(
        default=None, description="prometheus multiprocess directory shared by the stack; unset → data_dir/metrics"
    )

    # --- clients: Codex, Open Responses, WebSocket (#18)
    websocket_idle_seconds: float = Field(
        default=300.0, gt=0, description="a WebSocket-mode connection with no message for this long is closed"
    )
    max_websockets: int = Field(default=256, ge=1, description="open WebSocket-mode connections per HTTP worker")
    compaction_key: str | None = Field(
        default=None,
        description="the secret compaction items are sealed with (AES-GCM), the same on every replica; "
        "unset → a random key kept in data_dir/compaction.key",
    )
    # fairness between tenants (#26): the project (keys, trusted), else the client address
    max_concurrent_per_tenant: int = Field(
        default=128, ge=0, description="requests (streams, WebSockets) one tenant may have open per process (0: no cap)"
    )
    max_websockets_per_tenant: int = Field(
        default=64, ge=0, description="open WebSocket-mode connections one tenant may hold per process (0: no cap)"
    )
    max_background_per_tenant: int = Field(
        default=32, ge=0, description="background responses one tenant may have running per process (0: no cap)"
    )

    # --- API keys and projects (#16)
    auth: Literal["none", "keys", "trusted"] = Field(
        default="none",
        description="none: no keys, one 'default' project (a laptop); keys: every /v1 request needs "
        "`Authorization: Bearer <key>`; trusted: the project comes from a header set by Envoy or the mesh",
    )
    admin_key: str | None = Field(default=None, description="the key of the admin routes; unset → no admin routes")
    auth_project_header: str = Field(
        default="x-gateway-project", description="trusted mode: the header carrying the caller's project"
    )
    auth_trusted_proxies: str = Field(
        default="127.0.0.1/32,::1/128",
        description="trusted mode: comma-separated networks whose project header the HTTP server accepts "
        "(and, in every mode, Envoy's x-gateway-door label of the usage ledger)",
    )
    auth_cache_seconds: float = Field(
        default=1.0,
        gt=0,
        le=60,
        description="how long a key lookup is reused: revocation reaches every process in this time",
    )
    project_limits: str | None = Field(
        default=None,
        description='JSON per project (or "*"): {"p": {"requests_per_minute": 60, "tokens_per_minute": '
        '100000, "monthly_token_budget": 10000000, "monthly_cost_budget_usd": 50, "chat_completions": true}}; '
        "shared by every process and replica; unset → no limits, chat completions allowed",
    )

    # --- usage, costs, budgets (#30)
    model_prices: str | None = Field(
        default=None,
        description='JSON per model (or "*"), USD per million tokens: {"m": {"input": 0.5, "cached_input": 0.25, '
        '"output": 1.5}}: the Costs API and cost budgets; unset → every model costs nothing',
    )
    usage_retention_days: float = Field(
        default=30.0, gt=0, description="raw ledger rows (one per model call) and minute buckets are kept this long"
    )
    usage_flush_seconds: float = Field(
        default=1.0, gt=0, le=60, description="how often each process writes its queued usage records"
    )
    reserve_output_tokens: int = Field(
        default=1024,
        gt=0,
        description="tokens_per_minute: the output tokens a request reserves before its call when it sets no "
        "max_output_tokens / max_tokens (settled with what the backend reports)",
    )
    budget_warn_ratio: float = Field(
        default=0.8, gt=0, le=1, description="share of a monthly budget past which gateway_budget_warning is 1"
    )
    replica_name: str | None = Field(default=None, description="this replica in the ledger; unset → the host name")

    # --- PostgreSQL (#15)
    database_url: str | None = Field(
        default=None,
        pattern=r"^postgres(ql)?://",
        description="postgresql://user:password@host:port/db (or ?host=/socket/dir): state in PostgreSQL, "
        "shared by every replica; unset → the SQLite file in data_dir",
    )
    database_pool_size: int = Field(default=10, ge=1, le=200, description="PostgreSQL connections per process")

    # --- readiness (#25)
    ready_checks_extproc: bool = Field(
        default=False,
        description="/ready also asks every ExtProc worker (extproc_port to extproc_port + workers - 1) for "
        "its gRPC health; `up` sets it, as Envoy routes POST /v1/responses to them",
    )

    @field_validator("gc_thresholds", mode="before")
    @classmethod
    def _gc_thresholds(cls, value: Any) -> Any:
        """`GATEWAY_GC_THRESHOLDS` is three integers, comma-separated, each at least 1 (0 would turn
        the collector off, which reference cycles would then leak into); brackets around them are
        read too, as a parent process writes a chosen tuple for its workers (`child_env`)."""
        parts = [p.strip() for p in value.strip().strip("()[]").split(",")] if isinstance(value, str) else value
        if not isinstance(parts, list | tuple) or len(parts) != 3:
            raise ValueError(f"gc_thresholds: three integers N0,N1,N2, not {value!r}")
        try:
            numbers = tuple(int(p) for p in parts)
        except (TypeError, ValueError):
            raise ValueError(f"gc_thresholds: three integers N0,N1,N2, not {value!r}") from None
        if not all(1 <= n <= 10_000_000 for n in numbers):
            raise ValueError(f"gc_thresholds: each of N0,N1,N2 from 1 to 10,000,000, not {value!r}")
        return numbers

    # (here, not in `config_backends`: the local model's URL is the server group's `local_model_port`)
    @property
    def external_backend(self) -> bool:
        """An inference server is configured (a URL or pools): the bundled local model does not start."""
        return bool(self.backend_url or self.backends)

    @property
    def pools(self) -> list[BackendPool]:
        """The configured pools, or the one pool of `backend_url` (the local model when unset)."""
        if self.backends:
            return list(self.backends)
        return [BackendPool(name="default", urls=[self.backend_base], api=self.backend_api)]

    @property
    def backend_base(self) -> str:
        """The backend base URL without a trailing slash (always ends in the API prefix, e.g. /v1); with
        pools, the first pool's first replica (what Envoy's single `inference` cluster names)."""
        if not self.backend_url and self.backends:
            first = self.backends[0]
            return first.urls[0].rstrip("/") if first.urls else f"http://{first.dns}/v1"
        if not self.backend_url:
            return f"http://127.0.0.1:{self.local_model_port}/v1"
        return self.backend_url.rstrip("/")


_ENV_PREFIX = "GATEWAY_"


def _cores() -> int:
    """CPUs this process may use: its cpuset, capped by a cgroup v2 CPU quota (a container's limit),
    not the host's count (a 64-core GPU node would otherwise get 64 workers per door)."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            n = min(n, -(-int(quota) // int(period)))
    except (OSError, ValueError):
        pass
    return max(1, n)


def load_settings(env: dict[str, str] | None = None, **overrides: Any) -> Settings:
    """Build settings: YAML file (`GATEWAY_CONFIG`) < environment < explicit overrides."""
    env = dict(os.environ if env is None else env)
    values: dict[str, Any] = {}
    config_file = env.get("GATEWAY_CONFIG")
    if config_file:
        with open(config_file, encoding="utf-8") as fh:
            loaded = yaml.safe_load(fh) or {}
        if not isinstance(loaded, dict):
            raise ValueError(f"{config_file}: expected a mapping of settings")
        values.update(loaded)
    for name in Settings.model_fields:
        key = _ENV_PREFIX + name.upper()
        if key in env and env[key] != "":
            values[name] = env[key]
    values.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return Settings(**values)
    except ValidationError as exc:
        raise ValueError(f"invalid gateway settings: {exc}") from exc
