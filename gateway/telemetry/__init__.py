"""Telemetry: JSON logs, Prometheus metrics, OpenTelemetry tracing (the gateway's and Envoy's)."""
