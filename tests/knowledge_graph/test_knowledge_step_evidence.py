"""Of the chains a walk completes at the same weight, the one whose steps state the relations the
question names at their hops ranks first (#28, `evidence.py`), through the search endpoint.

"Where did the mentor of the Orrin Physic Garden's designer grow up?" asks for three relations:
the design (`made_by`), then two the text states in its own words. The garden had two designers,
each trained under one teacher. Edda Harrow "spent her childhood in" Dunmere; Bea Lorn "spent her last
years in" Kiel. Each teacher has one phrase, so each is the likest at its entity and the walk
takes both as the chain's last step at the same weight (it judges a phrase against the other
relations *of its entity*): Dunmere and Kiel tie, and the vector and keyword signals put Kiel,
whose page talks of a designer growing up, first. Read against the question's
own words for that hop ("grow up"), "spent her childhood in" states it better than "spent her last years
in", so Dunmere ranks first; Kiel still follows.

In process, on hand-built walks with set vectors: a step least like its hop (a negative cosine) fits
no better than `FLOOR`, never as if the question named nothing there; a hop the question names no
word for weighs no completer.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
from openai import OpenAI

from gateway.knowledge_graph.evidence import evidenced
from gateway.knowledge_graph.phrases import PhraseVectors
from gateway.knowledge_graph.walk import Reached
from tests.knowledge_graph.test_knowledge_graph import KG
from tests.support.procs import Backend, gateway
from tests.support.retrieval_helpers import upload_pages

PAGES = {
    "orrin.md": "# Orrin Physic Garden\n\nThe Orrin Physic Garden is a walled herb garden of four acres. "
    "It was designed by Mabel Quist in 1881. The Orrin Physic Garden was also designed by Ilse Marrow.",
    "quist.md": "# Mabel Quist\n\nMabel Quist is a botanist and garden maker. Quist trained under Edda Harrow.",
    "marrow.md": "# Ilse Marrow\n\nIlse Marrow is a landscape architect. Marrow trained under Bea Lorn.",
    "harrow.md": "# Edda Harrow\n\nEdda Harrow is a plant collector. Harrow spent her childhood in Dunmere.",
    "lorn.md": "# Bea Lorn\n\nBea Lorn is a gardener. Lorn spent her last years in Kiel.",
    "dunmere.md": "# Dunmere\n\nDunmere is a hamlet of slate cottages at the head of a long lake.",
    "kiel.md": "# Kiel\n\nKiel is a town where a designer grew up.",
}

CHAIN = "Where did the mentor of the Orrin Physic Garden's designer grow up?"


def test_the_chain_whose_last_step_states_the_asked_relation_ranks_first(backend: Backend, tmp_path: Path) -> None:
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store = upload_pages(own, "kg-evidence", PAGES)

        def ranked(kg: bool) -> list[str]:
            options = {"ranking_options": KG} if kg else {}
            page = own.vector_stores.search(store.id, query=CHAIN, **options)  # type: ignore[arg-type]
            return store.ranked(page.data)

        hybrid = ranked(False)
        # the premise: Kiel's page shares the question's words, Dunmere's none
        assert "kiel.md" in hybrid[:3] and "dunmere.md" not in hybrid[:3], hybrid
        kg = ranked(True)
        placed = [name for name in kg if name in {"dunmere.md", "kiel.md"}]
        assert placed == ["dunmere.md", "kiel.md"], kg


# "alpha" and "beta" the question's words; "~near" a little like "beta", "~away" unlike it (cosine < 0)
AXES = {"alpha": [1.0, 0.0, 0.0], "beta": [0.0, 1.0, 0.0], "near": [0.0, 0.1, 0.995], "away": [0.0, -0.3, 0.954]}


async def _embed(texts: list[str]) -> list[list[float]]:
    return [AXES.get(t, [0.0, 0.0, 1.0]) for t in texts]


def _weighed(hops: list[list[str]]) -> dict[str, float]:
    """Two chains completing at the same weight, one whose last step is "~near", the other "~away",
    and an unfinished path below them, reweighed for a question whose words by hop are `hops`."""

    async def run() -> dict[str, float]:
        vectors = PhraseVectors(_embed)
        await vectors.warm(["~alpha", "~near", "~away"])
        relate = vectors.relate([0.0, 0.0, 1.0], ["alpha", "beta"], plan=lambda: (hops, {}))
        await relate.prepare()
        seed = Reached(1.0, 0, frozenset())
        a, b = (
            Reached(1.0, 1, frozenset({"~alpha"}), "S", prior=seed),
            Reached(1.0, 1, frozenset({"~alpha"}), "T", prior=seed),
        )
        reached = {
            "S": seed,
            "T": seed,
            "A": a,
            "B": b,
            "near": Reached(1.0, 2, frozenset({"~alpha", "~near"}), "A", prior=a),
            "away": Reached(1.0, 2, frozenset({"~alpha", "~away"}), "B", prior=b),
        }
        return {e: r.potential() for e, r in evidenced(reached, relate, 2).items()}

    return asyncio.run(run())


def test_a_step_unlike_its_hop_fits_no_better_than_one_a_little_like_it() -> None:
    out = _weighed([["alpha"], ["beta"]])
    assert out["near"] > out["away"] > out["A"], out  # reweighed above the unfinished paths
    assert np.isclose(out["near"], Reached(1.0, 2, frozenset({"x", "y"})).potential())  # the best keeps its weight
