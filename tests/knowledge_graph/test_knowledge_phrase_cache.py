"""What the kg ranker keeps per process to cut per-query work (#28 speed): each phrase relation's
likeness to the pattern types is computed once, not on every walk hop of every question that meets
it, and it is bounded like the phrase vectors it comes from (dropped with its vector)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.config import load_settings
from gateway.knowledge_graph import phrases
from gateway.knowledge_graph.phrases import KIND_WORDS, PhraseVectors
from vectorstore.embedders import build_embedder

pytestmark = pytest.mark.asyncio


async def test_phrase_type_likeness_is_kept_and_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
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
    assert again == first and not calls
    # bounded: past the cap, the oldest vectors go and their likeness with them (the pattern types'
    # words stay: every hop compares with them)
    monkeypatch.setattr(phrases, "MAX_PHRASES", len(KIND_WORDS) + 3)
    fresh = [f"~was moved to site {n}" for n in range(6)]
    await vectors.relate(question).kinds(fresh)
    assert len(vectors._vectors) <= phrases.MAX_PHRASES
    assert set(vectors._type_sims) <= set(vectors._vectors)
    assert "~came into the world in" not in vectors._type_sims
    assert set(KIND_WORDS) <= set(vectors._vectors)
