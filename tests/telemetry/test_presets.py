"""The bounded preset cache the engine's and the HTTP door's span call sites share (#31)."""

from __future__ import annotations

from gateway.telemetry.presets import Preset, PresetCache


def test_a_key_is_made_once_and_a_full_cache_starts_over() -> None:
    cache = PresetCache(limit=2)
    assert cache.get("a") is None
    a = cache.make("a", "chat m", {"gen_ai.request.model": "m", "server.port": None})
    assert isinstance(a, Preset) and a.name == "chat m"
    assert a.attributes == {"gen_ai.request.model": "m"} and a.keys == frozenset({"gen_ai.request.model"})
    assert cache.get("a") is a  # the next span of "a" looks it up
    cache.make("b", "b", {})
    cache.make("c", "c", {})  # full: cleared rather than grown
    assert cache.get("a") is None and cache.get("b") is None and cache.get("c") is not None
