"""Telemetry (gateway/telemetry): tracing, logs."""
