"""What the kg ranker keeps per process (#28 speed): phrase vectors, embedded once and bounded; past
the cap the oldest go, never the pattern types' own words, which every walk hop compares with (a
batch of new phrases used to evict them, and the next hop's lookup failed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.config import load_settings
from gateway.knowledge_graph import phrases
from gateway.knowledge_graph.phrases import KIND_WORDS, PhraseVectors
from vectorstore.embedders import build_embedder

pytestmark = pytest.mark.asyncio


async def test_phrase_vectors_are_kept_and_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = build_embedder(load_settings({}, data_dir=tmp_path))
    calls: list[list[str]] = []

    async def embed(texts: list[str]) -> list[list[float]]:
        calls.append(texts)
        return list(await embedder.embed(texts))

    vectors = PhraseVectors(embed)
    (question,) = await embedder.embed(["In which town was the founder of Pell Records born?"])
    first = await vectors.relate(question).kinds(["~came into the world in", "~owes its existence to"])
    assert max(first["~came into the world in"], key=first["~came into the world in"].__getitem__) == "born_in"
    assert calls, "the phrases were embedded"
    calls.clear()
    # another question meeting the same phrases: nothing embedded, the same likeness
    (other,) = await embedder.embed(["Where was the maker of the Driork 90 founded?"])
    again = await vectors.relate(other).kinds(["~owes its existence to", "~came into the world in"])
    assert not calls
    assert all(again[p][t] == pytest.approx(first[p][t], abs=1e-5) for p in first for t in first[p])
    # bounded: past the cap, the oldest vectors go (the pattern types' words stay)
    monkeypatch.setattr(phrases, "MAX_PHRASES", len(KIND_WORDS) + 3)
    fresh = [f"~was moved to site {n}" for n in range(6)]
    await vectors.relate(question).kinds(fresh)
    assert len(vectors._vectors) <= phrases.MAX_PHRASES
    assert "~came into the world in" not in vectors._vectors
    assert set(KIND_WORDS) <= set(vectors._vectors)


async def test_a_phrase_asked_again_outlives_newer_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cap drops the least recently asked, not the first learned: a common question word learned
    early and asked every query stays while phrases asked once go."""
    embedder = build_embedder(load_settings({}, data_dir=tmp_path))
    vectors = PhraseVectors(embedder.embed)
    await vectors.warm(list(KIND_WORDS))
    monkeypatch.setattr(phrases, "MAX_PHRASES", len(KIND_WORDS) + 3)
    await vectors.warm(["~common", "~once a", "~once b"])
    await vectors.warm(["~common"])  # asked again: now the newest
    await vectors.warm(["~new c", "~new d"])
    kept = set(vectors._vectors)
    assert "~common" in kept
    assert "~once a" not in kept and "~once b" not in kept
    assert {"~new c", "~new d"} <= kept and set(KIND_WORDS) <= kept
