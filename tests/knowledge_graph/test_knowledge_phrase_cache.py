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
