"""Shared test support: the processes, servers and stand-ins tests start; the checks `make` runs."""
