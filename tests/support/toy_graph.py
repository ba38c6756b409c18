"""A toy graph and a toy embedder for walking hand-built chains in process (#28): the walk's and the
specificity tests build a few edges and phrase vectors and read what the walk reaches."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable

import numpy as np

from storage.graph import Edge, MentionRow

Embed = Callable[[list[str]], Awaitable[list[list[float]]]]


class ToyGraph:
    """A fixed set of edges read as the store reads them (both ends of each frontier entity), in the
    given order or reversed, as two stores with no ORDER BY may return them; no mentions."""

    def __init__(self, edges: list[Edge], reverse: bool = False) -> None:
        self._edges, self._reverse = edges, reverse

    async def edges(self, store_id: str, keys: list[str], per_entity: int = 50) -> list[Edge]:
        out = [e for e in self._edges if e.source in keys or e.target in keys]
        return out[::-1] if self._reverse else out

    async def mentions(self, store_id: str, keys: list[str], limit: int = 200) -> list[MentionRow]:
        return []

    async def hop(
        self, store_id: str, keys: list[str], per_entity: int, parents: list[str], parent_limit: int
    ) -> tuple[list[Edge], list[MentionRow]]:
        return await self.edges(store_id, keys, per_entity), []


def basis_embedder(basis: dict[str, int], dim: int = 64) -> Embed:
    """An embedder whose texts named in `basis` are orthogonal unit vectors (axis `basis[text]`) and
    every other text a fixed random vector orthogonal to the first eight axes."""

    async def embed(texts: list[str]) -> list[list[float]]:
        out = []
        for text in texts:
            v = np.zeros(dim)
            if text.strip() in basis:
                v[basis[text.strip()]] = 1.0
            else:
                v = np.random.default_rng(int(hashlib.md5(text.encode()).hexdigest()[:8], 16)).normal(size=dim)
                v[:8] = 0
            out.append(v.tolist())
        return out

    return embed
