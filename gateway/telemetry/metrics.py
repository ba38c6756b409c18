"""Prometheus metrics shared by every process of one stack (HTTP workers and ExtProc workers).

prometheus-client's multiprocess mode: each process writes its samples to memory-mapped files in
one directory (`metrics_dir`, default `<data_dir>/metrics`) and `GET /metrics` on any HTTP worker
merges all of them. So the ExtProc's metrics are exported through the HTTP server (label
`door="extproc"`); the ExtProc has no port of its own to scrape. Counters of a process that exits
keep counting until the next start-up sweeps files of processes that are gone.

The directory must be known before `prometheus_client` is imported (it picks its value class at
import), so `init()` runs first thing in each process and every other function here is a no-op
until it has: the engine and unit tests run without metrics.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
_ENV = "PROMETHEUS_MULTIPROC_DIR"


class _Metrics:
    """The metric objects; built once per process by init()."""

    def __init__(self) -> None:
        from prometheus_client import Counter, Gauge, Histogram, values

        # The default value class asks os.getpid() (a system call) on every increment to notice a
        # fork; gateway processes are started by exec, never forked after this point, so the pid is
        # read once (measured: ~20 µs of the ~60 µs the metrics first added per request).
        pid = os.getpid()
        values.ValueClass = values.MultiProcessValue(process_identifier=lambda: pid)

        self.requests = Counter(
            "gateway_requests_total",
            "Requests answered, by door, route, method and status",
            ["door", "route", "method", "status"],
        )
        self.latency = Histogram(
            "gateway_request_duration_seconds",
            "Time from request to the end of the reply (the whole stream for SSE)",
            ["door", "route"],
            buckets=LATENCY_BUCKETS,
        )
        self.overhead = Histogram(
            "gateway_added_latency_seconds",
            "Time the gateway itself spent on a request: the request's duration minus the time spent "
            "waiting for the inference backend",
            ["door"],
            buckets=LATENCY_BUCKETS,
        )
        self.first_event = Histogram(
            "gateway_time_to_first_event_seconds",
            "Time from request to the first event written to a streaming client",
            ["door"],
            buckets=LATENCY_BUCKETS,
        )
        self.tokens = Counter("gateway_streamed_tokens_total", "Output tokens of streamed responses", ["door"])
        self.active = Gauge("gateway_active_streams", "SSE streams open now", ["door"], multiprocess_mode="livesum")
        self.background = Gauge(
            "gateway_background_queue", "Background responses queued or running", multiprocess_mode="livesum"
        )
        self.research = Gauge("gateway_research_queue", "Research runs queued or running", multiprocess_mode="livesum")
        self.ingestion = Gauge(
            "gateway_ingestion_backlog", "Vector store files waiting for or in ingestion", multiprocess_mode="livesum"
        )
        self.backend_errors = Counter(
            "gateway_backend_errors_total", "Failures of the inference backend, by error code", ["door", "code"]
        )
        self.backend_calls = Counter(
            "gateway_backend_calls_total",
            "Calls to an inference server (every kind: turns, passthroughs, research, token counts), by "
            "replica and outcome (ok, http_<status>, backend_error, backend_timeout, client_gone)",
            ["door", "replica", "outcome"],
        )
        self.backend_failovers = Counter(
            "gateway_backend_failovers_total",
            "Calls moved to another replica because this one failed before its reply",
            ["door", "replica"],
        )
        self.backend_affinity = Counter(
            "gateway_backend_affinity_total",
            "Calls that continue a chain, by replica: hit (the chain's own replica) or miss (moved: that "
            "replica was down or over the load bound)",
            ["door", "replica", "result"],
        )
        self.backend_waiting = Gauge(
            "gateway_backend_waiting",
            "Requests waiting in a replica's queue, as its vLLM /metrics said at the last scrape (-1: unknown)",
            ["replica"],
            multiprocess_mode="max",
        )
        self.sqlite_busy = Counter(
            "gateway_sqlite_busy_total",
            "SQLite lock contention: a transaction that failed on a lock after the busy timeout, or a "
            "WAL restart checkpoint that backed off because a reader held the log",
            ["kind"],
        )
        self.usage_tokens = Counter(
            "gateway_usage_tokens_total",
            "Tokens of recorded model calls (the usage ledger), by project, model and type "
            "(input, cached_input, output, reasoning); at most 100 projects and 50 models, the rest as 'other'",
            ["project", "model", "type"],
        )
        self.usage_cost = Counter(
            "gateway_usage_cost_usd_total",
            "Cost in USD of recorded model calls at GATEWAY_MODEL_PRICES, by project and model",
            ["project", "model"],
        )
        self.budget_used = Gauge(
            "gateway_budget_used_ratio",
            "Share of the project's monthly budget (tokens or USD, whichever is higher) spent, as last checked",
            ["project"],
            multiprocess_mode="max",
        )
        self.budget_warning = Gauge(
            "gateway_budget_warning",
            "1 once a project has spent GATEWAY_BUDGET_WARN_RATIO of its monthly budget",
            ["project"],
            multiprocess_mode="max",
        )
        self.draining = Gauge("gateway_draining", "1 while this process drains before exiting", multiprocess_mode="max")


_m: _Metrics | None = None
_dir: Path | None = None
_door = "http"  # which door this process is: "http" or "extproc"
# Seconds this request spent waiting for the inference backend (a mutable cell per request).
backend_clock: contextvars.ContextVar[list[float] | None] = contextvars.ContextVar("backend_clock", default=None)


def metrics_dir(data_dir: Path, configured: Path | None) -> Path:
    return Path(configured) if configured is not None else Path(data_dir) / "metrics"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep(directory: Path) -> None:
    """Remove the files of processes that are gone (files are named `<kind>_<pid>.db`)."""
    for path in directory.glob("*.db"):
        pid_s = path.stem.rsplit("_", 1)[-1]
        if pid_s.isdigit() and not _alive(int(pid_s)):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


def init(directory: Path, door: str) -> bool:
    """Turn metrics on for this process, writing into ``directory`` (shared by the whole stack).

    Returns False when prometheus_client was imported before without the directory (then the
    metrics would be this process's alone, so they stay off).
    """
    global _m, _dir, _door
    if _m is not None:
        return True
    directory.mkdir(parents=True, exist_ok=True)
    sweep(directory)
    current = os.environ.get(_ENV)
    if "prometheus_client" in sys.modules and current != str(directory):
        return False
    os.environ[_ENV] = str(directory)
    _dir = directory
    _door = door
    _m = _Metrics()
    _hook_storage()
    return True


def enabled() -> bool:
    return _m is not None


def render() -> tuple[bytes, str]:
    """The merged exposition of every process of the stack."""
    from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest, multiprocess

    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=str(_dir) if _dir else None)
    return generate_latest(registry), CONTENT_TYPE_LATEST


def process_exit() -> None:
    """This process is stopping: its live gauges no longer count."""
    if _m is not None and _dir is not None:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(os.getpid(), str(_dir))


# -- recording (no-ops without init) ------------------------------------------------------------


_children: dict[tuple[str, ...], Any] = {}  # labelled metrics, looked up once per label set


def _child(metric: Any, *labels: str) -> Any:
    key = (metric._name, *labels)
    child = _children.get(key)
    if child is None:
        child = _children[key] = metric.labels(*labels)
    return child


def request_done(route: str, method: str, status: int | str, seconds: float, backend_seconds: float = 0.0) -> None:
    if _m is None:
        return
    _child(_m.requests, _door, route, method, str(status)).inc()
    _child(_m.latency, _door, route).observe(seconds)
    if route == "/v1/responses" and method == "POST":
        _child(_m.overhead, _door).observe(max(0.0, seconds - backend_seconds))


def first_event(seconds: float) -> None:
    if _m is not None:
        _m.first_event.labels(_door).observe(seconds)


def streamed_tokens(n: int) -> None:
    if _m is not None and n > 0:
        _m.tokens.labels(_door).inc(n)


def stream_open(delta: int) -> None:
    if _m is not None:
        _m.active.labels(_door).inc(delta)


def backend_error(code: str | None) -> None:
    if _m is not None:
        _m.backend_errors.labels(_door, code or "unknown").inc()


def backend_call(replica: str, outcome: str) -> None:
    if _m is not None:
        _child(_m.backend_calls, _door, replica, outcome).inc()


def backend_failover(replica: str) -> None:
    if _m is not None:
        _child(_m.backend_failovers, _door, replica).inc()


def backend_queue(replica: str, waiting: int | None) -> None:
    if _m is not None:
        _child(_m.backend_waiting, replica).set(-1 if waiting is None else waiting)


def backend_affinity(replica: str, hit: bool) -> None:
    if _m is not None:
        _child(_m.backend_affinity, _door, replica, "hit" if hit else "miss").inc()


def add_backend_time(seconds: float) -> None:
    cell = backend_clock.get()
    if cell is not None:
        cell[0] += seconds


def gauge(name: str) -> Callable[[float], None]:
    """A hook for one of the queue gauges ('background', 'research'): other modules call it with a
    delta (+1 when work is queued, -1 when it leaves)."""

    def add(delta: float) -> None:
        if _m is not None:
            getattr(_m, name).inc(delta)

    return add


background_queue = gauge("background")
research_queue = gauge("research")  # the hook for research mode (#13): +1 queued, -1 done


def ingestion_backlog(n: int) -> None:
    """This process's ingestion backlog (queued + running files); processes add up."""
    if _m is not None:
        _m.ingestion.set(n)


def set_draining(on: bool) -> None:
    if _m is not None:
        _m.draining.set(1 if on else 0)


def door() -> str:
    """Which door this process is ("http" or "extproc")."""
    return _door


def usage_tokens(project: str, model: str, kind: str, n: int) -> None:
    if _m is not None and n > 0:
        _child(_m.usage_tokens, project, model, kind).inc(n)


def usage_cost(project: str, model: str, usd: float) -> None:
    if _m is not None and usd > 0:
        _child(_m.usage_cost, project, model).inc(usd)


def budget_used(project: str, ratio: float, warning: bool) -> None:
    if _m is not None:
        _child(_m.budget_used, project).set(ratio)
        _child(_m.budget_warning, project).set(1 if warning else 0)


def sqlite_busy(kind: str) -> None:
    if _m is not None:
        _m.sqlite_busy.labels(kind).inc()


def _hook_storage() -> None:
    """storage/ must not import the gateway: it exposes a callback that is pointed here."""
    with contextlib.suppress(ImportError):
        from storage.sqlite import conn as sqlite_conn

        sqlite_conn.on_busy = sqlite_busy
