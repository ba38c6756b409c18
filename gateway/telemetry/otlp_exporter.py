"""The library's OTLP span exporter of the configured protocol, fed the bytes
`gateway.telemetry.otlp_encode` makes (split from `gateway.telemetry.tracing`, which builds it in `setup`).

The exporters keep what is theirs: endpoint, headers, timeout, compression, retries (and, to a
plain `http://` collector, `gateway.telemetry.otlp_http`'s kept-alive connection as transport).
Nothing of OpenTelemetry is imported until `exporter` is called (tracing on).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit


class _Encoded:
    """What the HTTP exporter serialises (it calls `encode_spans(spans).SerializePartialToString()`):
    the bytes `gateway.telemetry.otlp_encode` already made."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    def SerializePartialToString(self) -> bytes:  # (the protobuf message's method)
        return self.data


def protocol_of(environ: Mapping[str, str]) -> str:
    """`grpc` or `http/protobuf` (the specification's default)."""
    value = (
        environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "").strip()
        or environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "").strip()
        or "http/protobuf"
    )
    return value.lower()


def exporter(env: Mapping[str, str], encode: Any) -> Any:
    """The library's OTLP span exporter for the configured protocol (each reads its endpoint,
    headers, timeout and compression from the environment itself), encoding through ``encode``."""
    if protocol_of(env) == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        parse = ExportTraceServiceRequest.FromString

        class Exporter(GrpcExporter):  # type: ignore[misc]
            def _translate_data(self, data: Any) -> Any:  # the hook the gRPC exporter encodes through
                return parse(encode(data))  # (its stub serialises a message: parsing ours back is C)

        return Exporter()
    from opentelemetry.exporter.otlp.proto.http import trace_exporter

    # The HTTP exporter calls its module's `encode_spans` (no hook): ours goes there, same contract.
    trace_exporter.encode_spans = lambda spans: _Encoded(encode(spans))  # type: ignore[assignment,return-value]
    if plain_http(env):  # a kept-alive `http.client` connection: a fifth of `requests`' CPU a POST
        try:  # (an exporter release without the transport hook or its module keeps `requests`)
            from gateway.telemetry import otlp_http
        except ImportError:
            otlp_http = None  # type: ignore[assignment]
        kept_alive = otlp_http.exporter(trace_exporter) if otlp_http is not None else None
        if kept_alive is not None:
            return kept_alive
        import requests

        session = requests.Session()
        session.trust_env = False
        return trace_exporter.OTLPSpanExporter(session=session)
    return trace_exporter.OTLPSpanExporter()


_CREDENTIAL_VARIABLES = (
    "OTEL_PYTHON_EXPORTER_OTLP_HTTP_CREDENTIAL_PROVIDER",
    "OTEL_PYTHON_EXPORTER_OTLP_HTTP_TRACES_CREDENTIAL_PROVIDER",
)


def plain_http(env: Mapping[str, str]) -> bool:
    """Whether the HTTP exporter may send without the environment (`gateway.telemetry.otlp_http`'s
    kept-alive connection, else a `requests` session with `trust_env = False`): the collector is
    a plain `http://` URL, and no proxy variable, `.netrc` or credential provider could change the
    request, so either sends the very same request. Why: with it on, `requests` looks
    up proxies and `.netrc` files (stat calls) for every export, ~0.3 ms of the export thread's CPU
    a batch, which shares the GIL with the event loop (#31)."""
    endpoint = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip() or env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "")
    url = urlsplit(endpoint.strip())
    if url.scheme.lower() != "http" or url.username is not None or url.password is not None:
        return False  # not plain http, or a user in the URL (`requests` sends it as Basic auth)
    names = {name.lower() for source in (os.environ, env) for name, value in source.items() if value}
    if any(name.endswith("_proxy") and name != "no_proxy" for name in names):  # any case, as urllib reads them
        return False
    if any(name.lower() in names for name in (*_CREDENTIAL_VARIABLES, "NETRC")):
        return False
    home = os.path.expanduser("~")
    return not any(os.path.exists(os.path.join(home, name)) for name in (".netrc", "_netrc"))
