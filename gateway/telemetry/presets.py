"""Span presets: a span's name and starting attributes shared by the spans a call site starts alike,
and the bounded cache each call site keeps them in (split from `gateway.telemetry.lean_tracer`, which
re-exports `Preset`). Nothing of OpenTelemetry is imported here: the call sites import this module
whether tracing is on or off, and only make presets when it is on."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

__all__ = ["Preset", "PresetCache"]


class Preset:
    """A span's name and the attributes it starts with, shared by every span a call site starts
    alike (one model's `chat` spans on one replica, one route's server spans from one client), with
    their OTLP encoding made once (the first time a span of theirs ends: `LeanSpan._queue`).

    Why: a request's spans started with 3-9 attributes each that were the same request after request;
    each was a dict entry built on the event loop, kept until the export, and looked up again in
    the encoder's memo, attribute by attribute (#31). A span started from a preset holds only its own
    attributes in ``attributes``; set one of the preset's keys on it and it takes a copy of the
    preset's attributes as its own (`LeanSpan._own_preset`), so what is exported is the same."""

    __slots__ = ("attributes", "encoded", "keys", "name")

    def __init__(self, name: str, attributes: Mapping[str, Any]) -> None:
        self.name = name
        self.attributes = {k: v for k, v in attributes.items() if v is not None}  # never changed after
        self.keys = frozenset(self.attributes)
        self.encoded: bytes | None = None  # their `KeyValue` fields (`otlp_encode.span_bytes`)


class PresetCache:
    """Presets by what they depend on (a model and replica, a tool name, a route and client, ...),
    made once per key: a span starts with one dict look-up instead of building 3-9 attributes. The
    keys are few in practice (models, replicas, tool names, clients); a cache that fills up anyway
    (`limit`) is cleared rather than grown, so a stream of distinct keys cannot hold memory.

    Usage on a hot path: ``cache.get(key) or cache.make(key, name, attributes)`` (``get`` is the
    dict's own method: no Python call on a hit)."""

    __slots__ = ("get", "limit", "made")

    def __init__(self, limit: int = 1024) -> None:
        self.made: dict[Hashable, Preset] = {}
        self.get = self.made.get
        self.limit = limit

    def make(self, key: Hashable, name: str, attributes: Mapping[str, Any]) -> Preset:
        """The preset of ``key`` (call on a miss of `get`), kept for the next span of ``key``."""
        made = self.made
        if len(made) >= self.limit:
            made.clear()
        preset = made[key] = Preset(name, attributes)
        return preset
