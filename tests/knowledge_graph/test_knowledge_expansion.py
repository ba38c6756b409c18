"""Two-hop expansion in the `kg` ranker (#28), through the search endpoint: a two-hop question
whose chain the walk follows one step of and completes at no entity, whose answer only the names
of the pages lead to.

"Where was the composer of Nahan Tone Poem born?" asks for two relations: the composer (which the
piece's page states twice: "was composed by Hensa Grethm", "was composed by Olaf Brinde") and the
birthplace, which no page states: each composer's page only lists a town ("Letters: Tarrin,
Ulm."). No entity completes the chain, so two-hop expansion joins the walk's ranking after its
first hit and follows the names: the piece's page (hybrid's best), a composer's, the town's, which
shares no word with the question. A chain the walk completes at one entity keeps the walk's
ranking (the bench figures in docs/ARCHITECTURE.md, step 3c).
"""

from __future__ import annotations

import io
from pathlib import Path

from openai import OpenAI

from tests.knowledge_graph.test_knowledge_graph import KG
from tests.support.procs import Backend, gateway
from tests.support.retrieval_helpers import upload_pages, wait_ingested

# pages sharing the question's words (so hybrid search fills its top 10 with them)
NOTES = {
    f"notes{i}.md": f"# Poem notes {i}\n\nA poem by a composer born in a town; note {i} on the composer of a "
    "tone poem and the town where a composer was born."
    for i in range(14)
}
PAGES = {
    "nahan.md": "# Nahan Tone Poem\n\nNahan Tone Poem is a piece for oboe. Nahan Tone Poem was composed by "
    "Hensa Grethm. Nahan Tone Poem was composed by Olaf Brinde.",
    "hensa.md": "# Hensa Grethm\n\nHensa Grethm is an oboist. Letters: Tarrin, Ulm.",
    "tarrin.md": "# Tarrin\n\nTarrin is a harbour with a slate church.",
    "olaf.md": "# Olaf Brinde\n\nOlaf Brinde is a cellist. Letters: Kessel, Ulm.",
    "kessel.md": "# Kessel\n\nKessel is a mill on a river.",
    **NOTES,
}


# With the fallback link (#28 session 13, `fallback.py`) the composers' "Letters: Tarrin, Ulm." is
# `composer ~letters town` (weight 0.25 each), a link no rule made. "letters" is no step of the
# question's chain; the walk used to follow it anyway as a non-step (`UNASKED`, as "written by"
# again), so the towns were the walk's own hits and the expansion placed none of them. A weak link
# that is no step is read as the co-occurrence it is (`walk_step.step`): on the first hop only.
def test_a_chain_no_entity_completes_lets_the_names_of_pages_reach_the_answer(backend: Backend, tmp_path: Path) -> None:
    question = "Where was the composer of Nahan Tone Poem born?"
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        ids = {n: own.files.create(file=(n, io.BytesIO(t.encode())), purpose="assistants").id for n, t in PAGES.items()}
        store = own.vector_stores.create(name="kg-expansion", file_ids=list(ids.values()))
        wait_ingested(own, store.id, timeout=120)
        names = {v: k for k, v in ids.items()}
        hybrid = [names[h.file_id] for h in own.vector_stores.search(store.id, query=question).data]
        assert "tarrin.md" not in hybrid, hybrid  # the premise: no word of the question on the town's page
        page = own.vector_stores.search(store.id, query=question, ranking_options=KG)  # type: ignore[arg-type]
        ranked = list(dict.fromkeys(names[h.file_id] for h in page.data))
        assert "tarrin.md" in ranked[:5] and "hensa.md" in ranked[:5], ranked
        town = next(h for h in page.data if names[h.file_id] == "tarrin.md")
        assert town.model_extra and town.model_extra["score_breakdown"]["hops"] == 2.0, town.model_extra
        # hybrid's best is the page of the entity the question names (its start), so the
        # expansion's farthest hop comes first: a town (the composers are the walk's hits already)
        hops = [(h.model_extra or {})["score_breakdown"].get("hops") for h in page.data]
        expanded = [hop for hop in hops if hop]
        assert expanded and expanded[0] == 2.0, hops
        # an expansion page scores no higher than the hit it displaced (the next graph hit below
        # it), so a score threshold drops the two together; the list never increases
        scores = [h.score for h in page.data]
        assert scores == sorted(scores, reverse=True), scores
        for i, hop in enumerate(hops):
            below = [s for s, other in zip(scores[i + 1 :], hops[i + 1 :], strict=True) if not other]
            if hop and below:
                assert scores[i] <= below[0], (i, scores, hops)


def test_one_entity_completing_the_chain_keeps_the_walks_ranking_and_filters_hold(
    backend: Backend, tmp_path: Path
) -> None:
    """The negative case of the gate: one composer completes "The composer of Lute Suite" chain,
    so the walk's ranking stands (no hit found by the expansion, none carrying `hops`). And the
    expansion's reads apply the attribute filters: with the town's page filtered out, the
    uncompleted chain's expansion still reaches the other composer's town, never the filtered page."""
    pages = {
        **PAGES,
        "lute.md": "# Lute Suite\n\nLute Suite is a piece for lute. Lute Suite was composed by Olaf Brinde.",
    }
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        ids = {n: own.files.create(file=(n, io.BytesIO(t.encode())), purpose="assistants").id for n, t in pages.items()}
        store = own.vector_stores.create(name="kg-expansion-gate")
        for name, file_id in ids.items():
            kind = "place" if name == "tarrin.md" else "page"
            own.vector_stores.files.create(store.id, file_id=file_id, attributes={"kind": kind})
        wait_ingested(own, store.id, timeout=120)
        names = {v: k for k, v in ids.items()}
        single = own.vector_stores.search(store.id, query="The composer of Lute Suite: which town?", ranking_options=KG)  # type: ignore[arg-type]
        ranked = [names[h.file_id] for h in single.data]
        assert "olaf.md" in ranked[:3], ranked
        assert all("hops" not in (h.model_extra or {})["score_breakdown"] for h in single.data), single.data
        scores = [h.score for h in single.data]
        assert scores == sorted(scores, reverse=True), scores
        only_pages = {"type": "eq", "key": "kind", "value": "page"}
        tied = own.vector_stores.search(
            store.id,
            query="Where was the composer of Nahan Tone Poem born?",
            ranking_options=KG,  # type: ignore[arg-type]
            filters=only_pages,  # type: ignore[arg-type]
        )
        found = {names[h.file_id]: (h.model_extra or {})["score_breakdown"] for h in tied.data}
        assert "tarrin.md" not in found, list(found)
        assert found.get("kessel.md", {}).get("hops") == 2.0, found


def test_a_lone_link_unlike_the_step_is_none_while_a_like_one_completes_the_chain(
    backend: Backend, tmp_path: Path
) -> None:
    """At an entity whose only relation onward is one phrase link, the link is a step only when it
    is like what the question asks in absolute terms (`walk_step.WEAK_MIN`), not for being the
    entity's likest relation (which it always is). "Travels: Tarrin, Ulm." (a weak fallback link,
    `~travels`, at most 0.05 like "born") is no step: no entity completes the chain and the
    expansion reaches the town (hops 2). "Travels: Dorn." (one name: a rule-made link, weight 1)
    is no step either: the chain does not complete at the town, whose path ranks below the
    composer's (taken as the step, with a relative likeness of 0.8, the chain completed at the
    towns and they ranked first as the walk's answers). "Burial: Kessel, Ulm.", a weak link like
    "die" that stands for no pattern type (so judged by its words, not as `born_in`'s), completes
    its chain: the walk's ranking stands, the town with the walk's best score."""
    pages = {
        **NOTES,
        "nahan.md": "# Nahan Tone Poem\n\nNahan Tone Poem is a piece for oboe. Nahan Tone Poem was composed by "
        "Hensa Grethm.",
        "hensa.md": "# Hensa Grethm\n\nHensa Grethm is an oboist. Travels: Tarrin, Ulm.",
        "tarrin.md": PAGES["tarrin.md"],
        "reel.md": "# Wedda Reel\n\nWedda Reel is a piece for fiddle. Wedda Reel was composed by Pira Solde.",
        "pira.md": "# Pira Solde\n\nPira Solde is a fiddler. Travels: Dorn.",
        "dorn.md": "# Dorn\n\nDorn is a ford with a stone bridge.",
        "lute.md": "# Lute Suite\n\nLute Suite is a piece for lute. Lute Suite was composed by Olaf Brinde.",
        "olaf.md": "# Olaf Brinde\n\nOlaf Brinde is a cellist. Burial: Kessel, Ulm.",
        "kessel.md": PAGES["kessel.md"],
    }
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store = upload_pages(own, "kg-lone-link", pages)

        def kg(question: str) -> dict[str, dict[str, float]]:
            found = own.vector_stores.search(store.id, query=question, ranking_options=KG)  # type: ignore[arg-type]
            return {store.names[h.file_id]: (h.model_extra or {})["score_breakdown"] for h in found.data}

        weak = kg("Where was the composer of Nahan Tone Poem born?")
        assert weak.get("tarrin.md", {}).get("hops") == 2.0, weak
        ruled = kg("Where was the composer of Wedda Reel born?")
        assert ruled["dorn.md"]["graph"] < ruled["pira.md"]["graph"], ruled
        like = kg("Where did the composer of Lute Suite die?")
        assert like["kessel.md"]["graph"] == max(b["graph"] for b in like.values()), like
        assert all("hops" not in b for b in like.values()), like
