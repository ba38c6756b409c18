"""Envoy's own OpenTelemetry tracer (`envoy.tracers.opentelemetry`), from the same `OTEL_*` variables.

When tracing is on (`gateway.telemetry.tracing_setup.endpoint_of`), the rendered Envoy configuration gets a
`tracing` block on its HTTP connection manager and an `otel_collector` cluster, so Envoy exports
its spans to the endpoint the doors export to, over the same protocol. Envoy then starts (or joins,
from a client's `traceparent`) the trace of every request, gives the ext_proc gRPC call a child span
whose context rides the call's metadata (the ExtProc's spans are its children), and injects
`traceparent` into the upstream request (vLLM on the inference route, the HTTP door on the
re-routed tool-loop route; its ingress span's, or with a fleet its upstream attempt's span's: see
`render`), so one trace reads Envoy -> ExtProc -> backend.

Only plaintext collectors (`http://`, the usual local agent or sidecar) are rendered; an `https://`
endpoint is refused with a clear error rather than silently not traced.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Mapping
from urllib.parse import urlsplit

from gateway.telemetry.otlp_exporter import protocol_of
from gateway.telemetry.tracing import DEFAULT_SERVICE_NAME
from gateway.telemetry.tracing_setup import endpoint_of

_HCM_TRACING = """\
          tracing:
            random_sampling: {{value: {percent}}}
            spawn_upstream_span: {upstream}
            provider:
              name: envoy.tracers.opentelemetry
              typed_config:
                "@type": type.googleapis.com/envoy.config.trace.v3.OpenTelemetryConfig
                service_name: {service}
{transport}"""

_GRPC = """\
                grpc_service:
                  envoy_grpc: {cluster_name: otel_collector}
                  timeout: 2s"""

_HTTP = """\
                http_service:
                  http_uri: {{uri: {uri}, cluster: otel_collector, timeout: 2s}}"""

_CLUSTER = """\
  - name: otel_collector
    type: {cluster_type}
    dns_lookup_family: V4_PREFERRED
    connect_timeout: 1s
    typed_extension_protocol_options:
      envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
        "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
        explicit_http_config: {{{protocol}: {{}}}}
    load_assignment:
      cluster_name: otel_collector
      endpoints:
      - lb_endpoints:
        - endpoint:
            address:
              socket_address: {{address: "{host}", port_value: {port}}}"""


_RUNTIME = """\
layered_runtime:
  layers:
  - name: tracing
    static_layer:
      tracing.opentelemetry.min_flush_spans: {spans}
      tracing.opentelemetry.flush_interval_ms: {delay_ms}"""


class TracingConfigError(ValueError):
    """The OTEL_* variables name an endpoint Envoy cannot export to."""


def _sampling_percent(env: Mapping[str, str]) -> float:
    """Envoy's random sampling from OTEL_TRACES_SAMPLER(_ARG): a ratio sampler's ratio, 0 for
    `always_off`, else everything (a parent-based sampler's parent decides in the doors anyway)."""
    sampler = env.get("OTEL_TRACES_SAMPLER", "").strip().lower()
    if sampler in ("always_off", "parentbased_always_off"):
        return 0.0
    if sampler in ("traceidratio", "parentbased_traceidratio"):
        try:
            ratio = float(env.get("OTEL_TRACES_SAMPLER_ARG", "1"))
        except ValueError:
            ratio = 1.0
        return max(0.0, min(1.0, ratio)) * 100
    return 100.0


def render(environ: Mapping[str, str], *, retries: bool = False) -> tuple[str, str]:
    """The HCM `tracing` block and the collector cluster, or two empty strings when tracing is off.

    ``retries``: the inference route retries on other replicas (a fleet, #27); only then does Envoy
    spawn a span per upstream attempt (`spawn_upstream_span`), the one place a retry and the replica
    it went to show. With one backend there is one attempt, to the host the ExtProc's `chat` span
    already names over the same call: that span's twin cost the door ~1-1.5 % CPU a request (#31).
    Without it Envoy's router gives the upstream request its ingress span's `traceparent` (still the
    same trace: the backend's spans are that span's children)."""
    endpoint = endpoint_of(environ)
    if endpoint is None:
        return "", ""
    grpc = protocol_of(environ) == "grpc"
    url = urlsplit(endpoint if "://" in endpoint else f"http://{endpoint}")
    if url.scheme != "http" or not url.hostname:
        raise TracingConfigError(
            f"Envoy exports traces to plaintext http:// collectors only (got {endpoint!r}): "
            "point OTEL_EXPORTER_OTLP_ENDPOINT at a local collector or agent"
        )
    port = url.port or (4317 if grpc else 4318)
    if grpc:
        transport = _GRPC
    else:
        path = url.path if environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") else url.path.rstrip("/") + "/v1/traces"
        transport = _HTTP.format(uri=json.dumps(f"http://{url.hostname}:{port}{path}"))
    service = environ.get("OTEL_SERVICE_NAME") or DEFAULT_SERVICE_NAME
    block = _HCM_TRACING.format(
        percent=_sampling_percent(environ),
        upstream="true" if retries else "false",
        service=json.dumps(f"{service}-envoy"),
        transport=transport,
    )
    try:
        ipaddress.ip_address(url.hostname)
        cluster_type = "STATIC"
    except ValueError:
        cluster_type = "STRICT_DNS"
    cluster = _CLUSTER.format(
        cluster_type=cluster_type,
        protocol="http2_protocol_options" if grpc else "http_protocol_options",
        host=url.hostname,
        port=port,
    )
    return block, cluster


def runtime(environ: Mapping[str, str]) -> str:
    """Envoy's runtime layer batching its span exports as the doors batch theirs: every
    `OTEL_BSP_SCHEDULE_DELAY` ms or `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` spans (the SDK's defaults,
    5000 and 512). Envoy's own default flushes every 5 spans, one export request per two or three
    requests through the door, a large share of tracing's cost there (#31). Empty when off."""
    if endpoint_of(environ) is None:
        return ""

    def number(name: str, default: int) -> int:
        try:
            value = int(environ.get(name, "").strip() or default)
        except ValueError:
            return default
        return value if value > 0 else default

    return _RUNTIME.format(
        spans=number("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512), delay_ms=number("OTEL_BSP_SCHEDULE_DELAY", 5000)
    )
