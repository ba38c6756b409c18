"""Processes (gateway/process): the supervisor, workers, readiness, the local model."""
