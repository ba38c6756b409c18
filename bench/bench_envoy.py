"""Envoy + ExtProc overhead benchmark: what each layer of the :8081 door adds.

    .venv/bin/python -m bench.bench_envoy [--quick] [--client raw|aiohttp] [--out PATH] [--wait-quiet SECONDS]

One run starts the scripted vLLM stand-in, the real stack (`tests.support.stack.envoy_stack`: ExtProc, HTTP
gateway and Envoy with envoy/envoy.yaml.tmpl) and a second, minimal Envoy (a plain proxy listener to
the backend cluster, no ext_proc, same binary, `--concurrency 1` like the stack's), all subprocesses
on free ports with a fresh temp data dir. Then, with the load generator in this process
(bench/loadgen.py):

1. latency at concurrency 1, interleaved in rounds, for
   (1) the backend alone:   POST /v1/chat/completions stream=false (reply "Echo: hi"),
   (2) Envoy alone:          the same request through the minimal Envoy,
   (3) Envoy + ExtProc:      POST /v1/responses store=true, non-stream, through the stack's Envoy,
   (4) the HTTP gateway:     POST /v1/responses store=true on its own port (the :8082 door),
   plus (info) Envoy alone with the streamed chat completion the ExtProc really asks for;
2. streaming at concurrency 1: time to the first SSE event through Envoy + ExtProc (stream=true,
   store=true: `response.created`) vs the backend's own first `data:` chunk of a streamed chat
   completion (with include_usage, as the ExtProc asks), plus the time to the first
   `response.output_text.delta` vs the first content chunk (info) and the plain Envoy's first chunk;
3. throughput: closed-loop requests/s at 1 and 32 clients for (1)-(4), with the CPU per request of
   every process from /proc/<pid>/stat (the ExtProc's at 32 clients is the figure to drive down).

With --phases it also starts a third Envoy from the stack's own rendered configuration plus a file
access log of ext_proc's filter state, and prints where a request's time goes as Envoy sees it: the
gRPC round trip of each ext_proc message (request headers/body, response headers/body) and the
upstream time (diagnostic only; ~10 s more).

It prints a table, PASS/MISS per target, and writes bench/results/envoy.json. Targets are reported,
never enforced: the exit status is 0 unless the benchmark itself broke.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson

from bench.bench_gateway import HOST, MODEL
from bench.loadgen import CHAT_TOKEN, RESPONSES_TOKEN, Generator, Target, percentile
from bench.measure import (
    CpuWatch,
    add_run_args,
    failures,
    latency_interleaved,
    phase,
    stats,
    throughput,
    verdict,
    wait_quiet,
)
from gateway.process.envoy_runner import envoy_binary, start_envoy, stop_envoy
from tests.support.procs import Backend, free_port, scripted_backend, wait_http
from tests.support.stack import EnvoyStack, envoy_stack

RESULTS = Path(__file__).resolve().parent / "results" / "envoy.json"

TARGET_EXTPROC_ADDED_P50_MS = 3.0  # (3) - (2), non-streaming create
TARGET_ADDED_TTFE_MS = 5.0  # first SSE event through Envoy + ExtProc - backend's first chunk

# The minimal Envoy: one listener, one route, the router filter, the backend cluster over HTTP/1.1
# (as the stack's `inference` cluster). No ext_proc, no local-reply mappers, no path normalization.
PLAIN_ENVOY_YAML = """\
admin:
  address:
    socket_address: {{address: 127.0.0.1, port_value: {admin_port}}}
static_resources:
  listeners:
  - name: plain
    address:
      socket_address: {{address: 127.0.0.1, port_value: {port}}}
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: plain
          codec_type: AUTO
          route_config:
            name: plain
            virtual_hosts:
            - name: backend
              domains: ["*"]
              routes:
              - match: {{prefix: /}}
                route: {{cluster: backend, timeout: 300s}}
          http_filters:
          - name: envoy.filters.http.router
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
  clusters:
  - name: backend
    type: STATIC
    connect_timeout: 5s
    circuit_breakers:
      thresholds:
      - {{max_connections: 100000, max_pending_requests: 100000, max_requests: 100000, max_retries: 3}}
    typed_extension_protocol_options:
      envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
        "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
        explicit_http_config: {{http_protocol_options: {{}}}}
    load_assignment:
      cluster_name: backend
      endpoints:
      - lb_endpoints:
        - endpoint:
            address:
              socket_address: {{address: 127.0.0.1, port_value: {backend_port}}}
"""


class Profile:
    """Sizes of one run."""

    def __init__(self, quick: bool) -> None:
        self.name = "quick" if quick else "full"
        self.warmup_requests = 100 if quick else 200
        self.rounds = 2 if quick else 5
        self.per_round = 150 if quick else 300
        self.stream = SimpleNamespace(
            warmup_requests=50 if quick else 100, rounds=2 if quick else 5, per_round=100 if quick else 200
        )
        self.tp_warmup = 0.5 if quick else 1.0
        self.tp_duration = 2.0 if quick else 8.0
        self.phase_requests = 300 if quick else 600


# -- processes -------------------------------------------------------------------------------------
class _BenchEnvoy:
    """An Envoy of the benchmark's own, beside the stack's: started ready, stopped at the end."""

    def __init__(self) -> None:
        self.port, self.admin_port = free_port(), free_port()

    def _start(self, config: Path, log_path: Path | None = None) -> None:
        self.config = config
        self.proc = start_envoy(config, log_level="error", concurrency=1, log_path=log_path)
        try:
            wait_http(f"http://127.0.0.1:{self.admin_port}/ready", proc=self.proc)
        except BaseException:
            stop_envoy(self.proc)
            raise

    def stop(self) -> None:
        stop_envoy(self.proc)


class PlainEnvoy(_BenchEnvoy):
    """The minimal Envoy (no ext_proc) in front of the backend."""

    def __init__(self, backend_port: int, workdir: Path) -> None:
        super().__init__()
        config = workdir / f"envoy-plain-{self.port}.yaml"
        config.write_text(
            PLAIN_ENVOY_YAML.format(port=self.port, admin_port=self.admin_port, backend_port=backend_port)
        )
        self._start(config, log_path=workdir / f"envoy-plain-{self.port}.log")


# Appended to the stack's rendered HTTP connection manager (after `merge_slashes`) for --phases.
PHASES_LOG = """\
          access_log:
          - name: envoy.access_loggers.file
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog
              path: "{path}"
              log_format:
                json_format:
                  total: "%COMMON_DURATION(DS_RX_BEG:DS_TX_END:us)%"
                  to_upstream: "%COMMON_DURATION(DS_RX_BEG:US_TX_BEG:us)%"
                  upstream_first_byte: "%COMMON_DURATION(US_TX_BEG:US_RX_BEG:us)%"
                  upstream_body: "%COMMON_DURATION(US_RX_BEG:US_RX_END:us)%"
                  to_downstream: "%COMMON_DURATION(US_RX_BEG:DS_TX_BEG:us)%"
                  ext_proc: "%FILTER_STATE(envoy.filters.http.ext_proc:TYPED)%"
"""
PHASE_FIELDS = (
    ("total", "Envoy: downstream request start -> response sent"),
    ("to_upstream", "Envoy: request start -> upstream request sent"),
    ("request_header_latency_us", "  ext_proc request_headers round trip"),
    ("request_body_total_latency_us", "  ext_proc request_body round trip"),
    ("upstream_first_byte", "backend: request sent -> first response byte"),
    ("to_downstream", "Envoy: first upstream byte -> response headers out"),
    ("response_header_latency_us", "  ext_proc response_headers round trip"),
    ("response_body_total_latency_us", "  ext_proc response_body round trip(s), total"),
    ("response_body_call_count", "  ext_proc response_body messages (count)"),
)


class PhasesEnvoy(_BenchEnvoy):
    """The stack's Envoy configuration on other ports, with the ext_proc filter state logged."""

    def __init__(self, stack: EnvoyStack, workdir: Path) -> None:
        super().__init__()
        self.log = workdir / f"envoy-phases-{self.port}.access.log"
        text = stack.config_path.read_text()
        anchor = "          merge_slashes: true\n"
        if anchor not in text:
            raise RuntimeError("--phases: the rendered Envoy configuration changed shape (no merge_slashes line)")
        text = text.replace(anchor, anchor + PHASES_LOG.format(path=self.log), 1)
        text = re.sub(rf"port_value: {stack.envoy_port}\b", f"port_value: {self.port}", text)
        text = re.sub(rf"port_value: {stack.admin_port}\b", f"port_value: {self.admin_port}", text)
        config = workdir / f"envoy-phases-{self.port}.yaml"
        config.write_text(text)
        self._start(config)

    def records(self) -> list[dict[str, Any]]:
        out = []
        for line in self.log.read_text().splitlines():
            rec = json.loads(line)
            ext = rec.pop("ext_proc", None)
            if isinstance(ext, str):
                ext = json.loads(ext) if ext.startswith("{") else None
            if isinstance(ext, dict):
                rec.update(ext)
            out.append(rec)
        return out


def _number(value: Any) -> float | None:
    """An access-log value as a number ("-" and missing fields are None)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


async def ext_proc_phases(gen: Generator, t: dict[str, Target], diag: PhasesEnvoy, n: int) -> dict[str, Any]:
    """Sequential requests through the logging Envoy; p50/p99 of each phase (microseconds)."""

    async def logged(count: int) -> list[dict[str, Any]]:
        recs: list[dict[str, Any]] = []
        for _ in range(50):  # the file access log is flushed about every second
            recs = diag.records() if diag.log.exists() else []
            if len(recs) >= count:
                break
            await asyncio.sleep(0.2)
        return recs

    out: dict[str, Any] = {}
    sent = 0
    for key in ("extproc", "extproc_stream"):
        target = Target(t[key].name, HOST, diag.port, t[key].path, t[key].body, t[key].stream)
        await gen.sequential(target, 50)
        sent += 50
        await gen.sequential(target, n)
        recs = (await logged(sent + n))[sent : sent + n]
        sent += n
        phases: dict[str, Any] = {"n": len(recs)}
        for field, _label in PHASE_FIELDS:
            vals = [v for v in (_number(r.get(field)) for r in recs) if v is not None]
            if vals:
                phases[field] = {"p50": percentile(vals, 50), "p99": percentile(vals, 99)}
        out[key] = phases
    return out


# -- targets ---------------------------------------------------------------------------------------
def targets(backend_port: int, plain_port: int, envoy_port: int, http_port: int) -> dict[str, Target]:
    messages = [{"role": "user", "content": "hi"}]
    chat = {"model": MODEL, "messages": messages, "stream": False}
    # What the ExtProc asks the backend for (stream + include_usage).
    chat_stream = {"model": MODEL, "messages": messages, "stream": True, "stream_options": {"include_usage": True}}
    create = {"model": MODEL, "input": "hi", "store": True}
    chat_done, resp_done = b"data: [DONE]", b"event: response.completed"
    return {
        "backend": Target("(1) backend chat stream=false", HOST, backend_port, "/v1/chat/completions", chat),
        "envoy": Target("(2) Envoy alone chat stream=false", HOST, plain_port, "/v1/chat/completions", chat),
        "extproc": Target("(3) Envoy+ExtProc responses store=true", HOST, envoy_port, "/v1/responses", create),
        "http": Target("(4) HTTP gateway responses store=true", HOST, http_port, "/v1/responses", create),
        "backend_stream": Target(
            "backend chat stream=true",
            HOST,
            backend_port,
            "/v1/chat/completions",
            chat_stream,
            True,
            CHAT_TOKEN,
            chat_done,
        ),
        "envoy_stream": Target(
            "Envoy alone chat stream=true",
            HOST,
            plain_port,
            "/v1/chat/completions",
            chat_stream,
            True,
            CHAT_TOKEN,
            chat_done,
        ),
        "extproc_stream": Target(
            "Envoy+ExtProc responses stream=true store=true",
            HOST,
            envoy_port,
            "/v1/responses",
            {**create, "stream": True},
            True,
            RESPONSES_TOKEN,
            resp_done,
        ),
    }


async def check_replies(gen: Generator, t: dict[str, Target]) -> None:
    """One request of each kind, checked for content, so a broken setup fails loudly before timing."""
    for key, target in t.items():
        client = gen.client(target)
        sample, body = await client.send(keep_body=True)
        await client.close()
        if not sample.ok:
            raise RuntimeError(f"{target.name}: HTTP {sample.status} {body[:500]!r}")
        if target.stream:
            if target.token_marker is not None and target.token_marker not in body:
                raise RuntimeError(f"{target.name}: no model text in the stream {body[:500]!r}")
            continue
        parsed = orjson.loads(body)
        if key in ("extproc", "http"):
            assert parsed["status"] == "completed", parsed
            text = parsed["output"][0]["content"][0]["text"]
        else:
            text = parsed["choices"][0]["message"]["content"]
        if text != "Echo: hi":
            raise RuntimeError(f"{target.name}: unexpected reply {text!r}")


def _added(a: dict[str, Any], b: dict[str, Any]) -> dict[str, float]:
    return {"p50": round(a["p50"] - b["p50"], 3), "p99": round(a["p99"] - b["p99"], 3)}


# -- the run ---------------------------------------------------------------------------------------
async def run(
    args: argparse.Namespace, prof: Profile, t: dict[str, Target], pids: dict[str, int], diag: PhasesEnvoy | None
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    watch = CpuWatch(list(pids.values()))
    watch.start()
    async with Generator(args.client) as gen:
        await check_replies(gen, t)

        phase("latency, non-streaming, concurrency 1")
        keys = ["backend", "envoy", "extproc", "http"]
        part = CpuWatch(list(pids.values()))
        part.start()
        res = await latency_interleaved(gen, [t[k] for k in keys], prof)  # type: ignore[arg-type]
        lat = {k: stats([s.end - s.t0 for s in r]) for k, r in zip(keys, res, strict=True)}
        out["latency"] = {
            **lat,
            "envoy_minus_backend": _added(lat["envoy"], lat["backend"]),
            "extproc_added": _added(lat["extproc"], lat["envoy"]),  # (3) - (2): the target
            "extproc_minus_backend": _added(lat["extproc"], lat["backend"]),
            "http_minus_backend": _added(lat["http"], lat["backend"]),
            "failed": {k: failures(r) for k, r in zip(keys, res, strict=True)},
            "machine": part.stop(),
        }

        phase("streaming time to first event, concurrency 1")
        keys = ["backend_stream", "envoy_stream", "extproc_stream"]
        part.start()
        res = await latency_interleaved(gen, [t[k] for k in keys], prof.stream)  # type: ignore[arg-type]
        st = {
            k: {m: stats([getattr(s, m) - s.t0 for s in r]) for m in ("first", "token", "end")}
            for k, r in zip(keys, res, strict=True)
        }
        out["stream"] = {
            "backend": st["backend_stream"],
            "envoy": st["envoy_stream"],
            "extproc": st["extproc_stream"],
            "added": {m: _added(st["extproc_stream"][m], st["backend_stream"][m]) for m in ("first", "token", "end")},
            "envoy_added": {
                m: _added(st["envoy_stream"][m], st["backend_stream"][m]) for m in ("first", "token", "end")
            },
            "failed": {k: failures(r) for k, r in zip(keys, res, strict=True)},
            "machine": part.stop(),
        }

        out["throughput"] = {}
        for key in ("backend", "envoy", "extproc", "http"):
            for clients in (1, 32):
                phase(f"throughput: {t[key].name}, {clients} client(s), {prof.tp_duration:g} s")
                out["throughput"][f"{key}@{clients}"] = await throughput(
                    gen,
                    t[key],
                    clients,
                    prof,  # type: ignore[arg-type]
                    pids,
                )
        out["machine"] = watch.stop()
        if diag is not None:
            phase("ext_proc phases through a logging copy of the stack's Envoy")
            out["ext_proc_phases"] = await ext_proc_phases(gen, t, diag, prof.phase_requests)
    return out


def report(res: dict[str, Any]) -> str:
    lat, st, tp, meta = res["latency"], res["stream"], res["throughput"], res["meta"]
    lines = [
        f"Envoy + ExtProc benchmark ({meta['profile']}; client={meta['client']}; {meta['cpus']} CPUs shared by "
        "backend, 2 Envoys, ExtProc, HTTP gateway and load generator)",
        "",
        "Latency, non-streaming, concurrency 1 (ms)                  n     p50     p99"
        f"   (other processes: {lat['machine']['foreign_cores']:.2f} cores)",
    ]

    def row(label: str, s: dict[str, Any]) -> str:
        return f"  {label:<54}{s['n']:>6} {s['p50']:>7.3f} {s['p99']:>7.3f}"

    def diff(label: str, d: dict[str, float]) -> str:
        return f"  {label:<54}{'':>6} {d['p50']:>7.3f} {d['p99']:>7.3f}"

    lines += [
        row("(1) backend        POST /v1/chat/completions", lat["backend"]),
        row("(2) Envoy alone    POST /v1/chat/completions", lat["envoy"]),
        row("(3) Envoy+ExtProc  POST /v1/responses store=true", lat["extproc"]),
        row("(4) HTTP gateway   POST /v1/responses store=true", lat["http"]),
        diff("Envoy alone added: (2) - (1)", lat["envoy_minus_backend"]),
        diff("ExtProc added: (3) - (2)", lat["extproc_added"]),
        diff("(info) Envoy+ExtProc added: (3) - (1)", lat["extproc_minus_backend"]),
        diff("(info) HTTP gateway added: (4) - (1)", lat["http_minus_backend"]),
        "",
        "Streaming, concurrency 1 (ms)                               n     p50     p99"
        f"   (other processes: {st['machine']['foreign_cores']:.2f} cores)",
        row("backend  first data: chunk", st["backend"]["first"]),
        row("Envoy+ExtProc  first SSE event (response.created)", st["extproc"]["first"]),
        diff("added time to first event", st["added"]["first"]),
        row("(info) Envoy alone  first data: chunk", st["envoy"]["first"]),
        row("(info) backend  first content chunk", st["backend"]["token"]),
        row("(info) Envoy+ExtProc  first response.output_text.delta", st["extproc"]["token"]),
        diff("(info) added time to first text", st["added"]["token"]),
        row("(info) backend  stream complete (data: [DONE])", st["backend"]["end"]),
        row("(info) Envoy+ExtProc  complete (response.completed)", st["extproc"]["end"]),
        "",
        f"Throughput, closed loop, {tp['backend@1']['duration_s']:g} s     req/s  p50 ms  p99 ms   "
        "CPU ms/req: backend envoy extproc http loadgen   cores: ours other",
    ]
    for key, label in (
        ("backend", "(1) backend"),
        ("envoy", "(2) Envoy alone"),
        ("extproc", "(3) Envoy+ExtProc"),
        ("http", "(4) HTTP gateway"),
    ):
        for clients in (1, 32):
            r = tp[f"{key}@{clients}"]
            c = r["cpu_ms_per_request"]
            envoy = sum(v for k, v in c.items() if k.startswith("envoy"))
            fail = f"  FAILED {r['failed']}" if r["failed"] else ""
            lines.append(
                f"  {label + ', ' + str(clients) + (' client' if clients == 1 else ' clients'):<31}"
                f"{r['rps']:>8.1f} {r['latency_ms']['p50']:>7.3f} {r['latency_ms']['p99']:>7.3f}   "
                f"{c['backend']:>19.3f} {envoy:>5.3f} {c['extproc']:>7.3f} {c['http']:>4.3f} {c['loadgen']:>7.3f}"
                f"{r['machine']['ours_cores']:>13.2f} {r['machine']['foreign_cores']:>5.2f}{fail}"
            )
    lines.append(
        f"  ExtProc CPU per request at 32 clients: {tp['extproc@32']['cpu_ms_per_request']['extproc']:.3f} ms "
        f"(Envoy {tp['extproc@32']['cpu_ms_per_request']['envoy']:.3f} ms, vs Envoy alone "
        f"{tp['envoy@32']['cpu_ms_per_request']['envoy_plain']:.3f} ms; HTTP gateway for the same create "
        f"{tp['http@32']['cpu_ms_per_request']['http']:.3f} ms)"
    )
    lines.append("")
    failed = {f"{part}/{k}": n for part in ("latency", "stream") for k, n in res[part]["failed"].items() if n}
    if failed:
        lines.append(f"FAILED requests at concurrency 1: {failed}")
    m = res["machine"]
    lines.append(
        f"Machine during the run: our processes {m['ours_cores']:.2f} cores, other processes "
        f"{m['foreign_cores']:.2f} cores, steal {m['steal_cores']:.2f} cores"
    )
    parts = [m, lat["machine"], st["machine"], *(r["machine"] for r in tp.values())]
    if max(x["foreign_cores"] for x in parts) > 0.1:
        lines.append("  WARNING: other processes used CPU during the run; the numbers are not reliable.")
    if "ext_proc_phases" in res:
        ph = res["ext_proc_phases"]
        lines += [
            "",
            f"Where a request's time goes, per Envoy (--phases; concurrency 1; n={ph['extproc']['n']}/"
            f"{ph['extproc_stream']['n']}; us)",
            f"  {'':<54}{'non-stream p50':>15}{'stream p50':>12}",
        ]
        for field, label in PHASE_FIELDS:
            a, b = ph["extproc"].get(field), ph["extproc_stream"].get(field)
            fa = f"{a['p50']:>15.0f}" if a else f"{'-':>15}"
            fb = f"{b['p50']:>12.0f}" if b else f"{'-':>12}"
            lines.append(f"  {label:<54}{fa}{fb}")
    lines += ["", "Targets"]
    for tgt in res["targets"]:
        lines.append(f"  {tgt['verdict']}  {tgt['name']}: {tgt['measured']} (target {tgt['target']})")
    return "\n".join(lines)


def evaluate(res: dict[str, Any]) -> list[dict[str, Any]]:
    added = res["latency"]["extproc_added"]["p50"]
    ttfe = res["stream"]["added"]["first"]["p50"]
    items = [
        (
            "ExtProc added p50 over Envoy alone, non-streaming create, (3) - (2)",
            f"{added:.3f} ms",
            f"<= {TARGET_EXTPROC_ADDED_P50_MS:g} ms",
            added <= TARGET_EXTPROC_ADDED_P50_MS,
        ),
        (
            "first streamed event through Envoy+ExtProc after the backend's first chunk, p50",
            f"{ttfe:.3f} ms",
            f"<= {TARGET_ADDED_TTFE_MS:g} ms",
            ttfe <= TARGET_ADDED_TTFE_MS,
        ),
    ]
    return [{"name": n, "measured": m, "target": t, "verdict": verdict(ok)} for n, m, t, ok in items]


def _pids(backend: Backend, plain: PlainEnvoy, stack: EnvoyStack) -> dict[str, int]:
    return {
        "backend": backend.proc.pid,
        "envoy_plain": plain.proc.pid,
        "envoy": stack.envoy.pid,
        "extproc": stack.extproc.pid,
        "http": stack.http.proc.pid,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="short run (~30 s): 2 s throughput windows, fewer samples")
    ap.add_argument("--client", choices=("raw", "aiohttp"), default="raw", help="load generator's HTTP client")
    add_run_args(ap, RESULTS)
    ap.add_argument(
        "--phases",
        action="store_true",
        help="also log ext_proc's per-message latencies through a copy of the stack's Envoy (diagnostic)",
    )
    args = ap.parse_args(argv)
    prof = Profile(args.quick)
    if args.wait_quiet > 0:
        wait_quiet(args.wait_quiet)
    started = time.time()
    print(f"starting backend, ExtProc, HTTP gateway and two Envoys ({prof.name} run) ...", file=sys.stderr, flush=True)
    # Envoy dies with the thread that started it (PR_SET_PDEATHSIG): start both from this thread.
    with (
        tempfile.TemporaryDirectory(prefix="envoy-bench-") as tmp,
        scripted_backend(MODEL) as backend,
        envoy_stack(backend.url, Path(tmp) / "stack") as stack,
    ):
        plain = PlainEnvoy(backend.port, Path(tmp))
        diag = PhasesEnvoy(stack, Path(tmp)) if args.phases else None
        try:
            pids = _pids(backend, plain, stack)
            t = targets(backend.port, plain.port, stack.envoy_port, stack.http_port)
            if diag is not None:
                pids["envoy_phases"] = diag.proc.pid
            res = asyncio.run(run(args, prof, t, pids, diag))
            procs = {"backend": backend.proc, "envoy_plain": plain.proc, "envoy": stack.envoy}
            procs |= {"extproc": stack.extproc, "http": stack.http.proc}
            dead = {name: p.returncode for name, p in procs.items() if p.poll() is not None}
            if dead:
                raise RuntimeError(f"processes died during the run: {dead}")
        finally:
            plain.stop()
            if diag is not None:
                diag.stop()
    res["meta"] = {
        "profile": prof.name,
        "client": args.client,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "envoy": envoy_binary(),
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "wall_seconds": round(time.time() - started, 1),
        "latency_samples_per_kind": prof.rounds * prof.per_round,
        "stream_samples_per_kind": prof.stream.rounds * prof.stream.per_round,
        "note": "all processes share the CPUs; CPU ms/req is per completed request, from /proc/<pid>/stat",
    }
    res["targets"] = evaluate(res)
    print(report(res))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=2) + "\n")
    print(f"\nresults: {args.out}  ({res['meta']['wall_seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
