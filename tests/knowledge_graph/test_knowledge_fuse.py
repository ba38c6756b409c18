"""A completed chain's ranking fused with two-hop expansion's (#28, `fuse.py`), through the search
endpoint, and the fusion's order and scores (`fuse.fuse`).

"Where was the composer of Nahan Tone Poem born?": the piece's page names its composer, whose
page says where he was born ("born in Dorn", a town no page is about) and lists his letters
("Letters: Tarrin, Ulm."). The walk completes the chain at Dorn, one entity: its ranking used to
stand alone, and Tarrin's page (two names out from the piece's page, sharing no word with the
question) was nowhere. Hybrid's best hit is the piece's page, the page of the entity the question
names (the chain's start), so the expansion's pages join the walk's by weighted reciprocal rank:
Tarrin's page enters the top 10, after the walk's first two pages, which keep their places.
"""

from __future__ import annotations

from pathlib import Path

from openai import OpenAI

from gateway.knowledge_graph.blend import RankedHit
from gateway.knowledge_graph.fuse import LEAD, fuse, vote
from tests.knowledge_graph.test_knowledge_expansion import NOTES
from tests.knowledge_graph.test_knowledge_graph import KG
from tests.support.procs import Backend, gateway
from tests.support.retrieval_helpers import upload_pages

PAGES = {
    **NOTES,
    "nahan.md": "# Nahan Tone Poem\n\nNahan Tone Poem is a piece for oboe. Nahan Tone Poem was composed by "
    "Hensa Grethm.",
    "hensa.md": "# Hensa Grethm\n\nHensa Grethm is an oboist. Hensa Grethm was born in Dorn. Letters: Tarrin, Ulm.",
    "tarrin.md": "# Tarrin\n\nTarrin is a harbour with a slate church.",
}
QUESTION = "Where was the composer of Nahan Tone Poem born?"


def test_a_completed_chain_gains_the_expansions_page_and_keeps_its_first_hits(backend: Backend, tmp_path: Path) -> None:
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store = upload_pages(own, "kg-fuse", PAGES)
        names = store.names
        hybrid = [names[h.file_id] for h in own.vector_stores.search(store.id, query=QUESTION).data]
        assert hybrid[0] == "nahan.md" and "tarrin.md" not in hybrid, hybrid  # the chain's start first
        found = own.vector_stores.search(store.id, query=QUESTION, ranking_options=KG)  # type: ignore[arg-type]
        ranked = list(dict.fromkeys(names[h.file_id] for h in found.data))
        breakdown = {names[h.file_id]: (h.model_extra or {})["score_breakdown"] for h in found.data}
        # the walk completed the chain: its first hit, the composer's page stating the birthplace,
        # leads with the walk's graph relevance (an unsure walk would have it too, but then the
        # expansion's first page comes second, `expand.interleave`)
        assert ranked[0] == "hensa.md" and breakdown["hensa.md"]["graph"] > 0, (ranked, breakdown)
        # the expansion's page, two names out, in the top 10 but after the walk's first pages
        assert "tarrin.md" in ranked[:10], ranked
        assert ranked.index("tarrin.md") >= 2, ranked  # the walk's first two pages kept first
        assert breakdown["tarrin.md"].get("hops") == 2.0, breakdown["tarrin.md"]
        scores = [h.score for h in found.data]
        assert scores == sorted(scores, reverse=True), scores


def _hits(prefix: str, n: int, hops: float | None = None) -> list[RankedHit]:
    extra = {} if hops is None else {"hops": hops}
    return [
        RankedHit(f"{prefix}{i}", f"f-{prefix}{i}", "", "", 1.0 - i / 10, score_breakdown={"graph": 1.0, **extra})
        for i in range(n)
    ]


def test_the_fusion_keeps_the_walks_first_pages_lifts_shared_ones_and_never_rises() -> None:
    walk = _hits("w", 10)
    expansion = [*_hits("x", 2, hops=2.0), walk[7], walk[0]]  # two new pages, then two the walk holds
    fused = fuse(walk, expansion, 10, vote(1))
    ids = [h.chunk_id for h in fused]
    assert ids[:LEAD] == ["w0", "w1"], ids
    assert "x0" in ids and "x1" in ids and len(ids) == len(set(ids)) == 10, ids
    assert ids.index("w7") < 7, ids  # both lists hold it: lifted above the walk's seventh place
    assert ids.index("x0") < ids.index("x1"), ids
    scores = [h.score for h in fused]
    assert scores == sorted(scores, reverse=True), scores
    assert fused[0].score == 1.0 and fused[1].score == walk[1].score, scores
    # the walk's ranking, unchanged, when the expansion brings nothing
    assert [h.chunk_id for h in fuse(walk, [], 10, vote(1))] == [h.chunk_id for h in walk]
    # the walk's doubt raises the expansion's vote toward the walk's own
    assert vote(1) < vote(2) < vote(5) < 1.0


def test_a_pages_later_hit_keeps_its_place_behind_the_pages_first_hits() -> None:
    # the walk lists nine pages, then page A's second chunk; the expansion brings one new page
    walk = [*_hits("p", 9), RankedHit("p0-2", "f-p0", "", "", 0.05, score_breakdown={"graph": 0.1})]
    expansion = _hits("x", 1, hops=2.0)
    fused = fuse(walk, expansion, 10, vote(1))
    ids = [h.chunk_id for h in fused]
    # page A's second chunk does not ride up with its first: a distinct page (the walk's ninth) is
    # kept and the second chunk is what the new page pushes out
    assert ids[:2] == ["p0", "p1"] and "x0" in ids and "p8" in ids and "p0-2" not in ids, ids
    # with room for every hit, the second chunk comes after every page's first, at no borrowed score
    whole = fuse(walk, expansion, 11, vote(1))
    assert [h.chunk_id for h in whole][-1] == "p0-2" and whole[-1].score == 0.05, whole


def test_a_chain_whose_start_has_no_page_keeps_the_walks_ranking(backend: Backend, tmp_path: Path) -> None:
    # the piece has no page of its own: hybrid's best hit is the composer's page, no page of an
    # entity the question names, so the completed chain is not fused and Tarrin's page, one name
    # out from that hit (the expansion's first hop), stays out of the top 10
    pages = {
        **NOTES,
        "hensa.md": "# Hensa Grethm\n\nHensa Grethm is an oboist. Hensa Grethm composed Nahan Tone Poem. "
        "Hensa Grethm was born in Dorn. Letters: Tarrin, Ulm.",
        "tarrin.md": PAGES["tarrin.md"],
    }
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store = upload_pages(own, "kg-fuse-no-start", pages)
        names = store.names
        hybrid = [names[h.file_id] for h in own.vector_stores.search(store.id, query=QUESTION).data]
        assert hybrid[0] == "hensa.md" and "tarrin.md" not in hybrid, hybrid
        found = own.vector_stores.search(store.id, query=QUESTION, ranking_options=KG)  # type: ignore[arg-type]
        ranked = list(dict.fromkeys(names[h.file_id] for h in found.data))
        breakdown = {names[h.file_id]: (h.model_extra or {})["score_breakdown"] for h in found.data}
        assert ranked[0] == "hensa.md" and breakdown["hensa.md"]["graph"] > 0, (ranked, breakdown)
        assert "tarrin.md" not in ranked[:10], ranked
        assert not any("hops" in b for b in breakdown.values()), breakdown  # no expansion page
