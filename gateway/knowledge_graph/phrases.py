"""The question's likeness to relations named by their own words (#28), by the store's embedder.

A relation no pattern types is stored as `~` + the words that link its two mentions ("~came into
the world in", `extract._phrases`). The walk follows such a relation when the question means it,
which no word list can say for wording nobody listed: the cosine between the question's vector
(already computed for the vector search) and the phrase's vector does. Phrase vectors are computed
once per process and kept (`PhraseVectors`): ingestion warms them for the phrases of each file it
indexes, so a search embeds only phrases this process has never seen (another process's files).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

import numpy as np

from gateway.knowledge_graph.patterns import CUES

Embed = Callable[[list[str]], Awaitable[list[list[float]]]]
MAX_PHRASES = 50_000  # kept vectors (384 floats each: ~77 MB at the cap with MiniLM)


class PhraseVectors:
    """Unit vectors of phrase relation types, embedded once and kept (oldest dropped past the cap)."""

    def __init__(self, embed: Embed) -> None:
        self._embed = embed
        self._vectors: dict[str, np.ndarray] = {}
        self._lock = asyncio.Lock()

    async def warm(self, phrases: Sequence[str]) -> None:
        """Embed the phrases not known yet (one batch)."""
        missing = sorted({p for p in phrases if p not in self._vectors})
        if not missing:
            return
        async with self._lock:
            missing = [p for p in missing if p not in self._vectors]
            if not missing:
                return
            rows = np.asarray(await self._embed([p[1:] for p in missing]), dtype=np.float32)
            rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)
            for phrase, row in zip(missing, rows, strict=True):
                self._vectors[phrase] = row
            while len(self._vectors) > MAX_PHRASES:
                self._vectors.pop(next(iter(self._vectors)))

    def relate(self, question: list[float]) -> Likeness:
        """The likeness of one question (its embedding) to relation words."""
        return Likeness(self, question)

    def cosines(self, phrases: Sequence[str], to: np.ndarray) -> dict[str, np.ndarray]:
        found = [p for p in phrases if p in self._vectors]
        if not found:
            return {}
        sims = np.stack([self._vectors[p] for p in found]) @ to.T
        return dict(zip(found, sims, strict=True))

    def matrix(self, phrases: Sequence[str]) -> np.ndarray:
        return np.stack([self._vectors[p] for p in phrases])


class Likeness:
    """One question's likeness to relation words (`rest`, `table`), and each phrase's
    likeness to the pattern types (`kinds`: "~came into the world in" is most like "born in")."""

    def __init__(self, vectors: PhraseVectors, question: list[float]) -> None:
        self._vectors = vectors
        q = np.asarray(question, dtype=np.float32)
        self._q = q / max(float(np.linalg.norm(q)), 1e-9)
        self._rests: dict[tuple[str, ...], np.ndarray] = {}

    def rest(self, used: Sequence[str]) -> np.ndarray:
        """What the question still asks once the relations on a path are accounted for: its vector
        with the directions of those relations' words (`used`: phrases or pattern types) projected
        out (Gram-Schmidt), unit length. "Where was the person who started the label that released
        X raised?" is, as a whole, most like "founded by"; after a path "issued on the", "founded
        by" it is most like "was raised in", the relation the next hop has to match."""
        known = [u if u.startswith("~") else "~" + u.replace("_", " ") for u in used]
        known = [u for u in known if u in self._vectors._vectors]
        if not known:
            return self._q
        key = tuple(sorted(known))
        if key in self._rests:  # many entities of one hop share their path's relations
            return self._rests[key]
        rest = self._q.copy()
        basis: list[np.ndarray] = []
        for row in self._vectors.matrix(known):
            for b in basis:
                row = row - float(row @ b) * b
            norm = float(np.linalg.norm(row))
            if norm > 1e-6:
                basis.append(row / norm)
        for b in basis:
            rest -= float(rest @ b) * b
        self._rests[key] = rest / max(float(np.linalg.norm(rest)), 1e-9)
        return self._rests[key]

    def table(self, phrases: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """The embedded ones of `phrases` and their unit vectors as rows (one stack per walk hop)."""
        known = [p for p in phrases if p in self._vectors._vectors]
        return known, (self._vectors.matrix(known) if known else np.zeros((0, self._q.shape[0]), np.float32))

    def likest(self, phrase: str, others: Sequence[str]) -> float:
        """The highest cosine between `phrase` and `others` (phrases or "~type words"), both embedded."""
        known = [o if o.startswith("~") else "~" + o.replace("_", " ") for o in others]
        sims = self._vectors.cosines(known, self._vectors.matrix([phrase])) if phrase in self._vectors._vectors else {}
        return max((float(v[0]) for v in sims.values()), default=0.0)

    async def kinds(self, phrases: list[str]) -> dict[str, dict[str, float]]:
        """Per phrase, its cosine to each pattern type's words ("~came into the world in" → born_in 0.58, ...)."""
        await self._vectors.warm([*phrases, *KIND_WORDS])
        types = self._vectors.matrix(list(KIND_WORDS))
        names = list(KIND_WORDS.values())
        return {
            p: dict(zip(names, (float(x) for x in sims), strict=True))
            for p, sims in self._vectors.cosines(phrases, types).items()
        }


# the pattern types by their words, as phrases are: "~founded by" -> founded_by
KIND_WORDS: dict[str, str] = {"~" + kind.replace("_", " "): kind for kind in CUES}
