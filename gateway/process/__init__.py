"""Processes: the command, the supervisor of `up`, worker parents, Envoy, the local model."""
