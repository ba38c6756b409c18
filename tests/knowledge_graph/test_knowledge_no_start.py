"""A chain question the graph has no start for (#28), through the search endpoint: the `kg` ranker's
`hybrid` path.

"Where was the composer of the Nahan tone piece born?" misremembers the piece's title, so no entity
of the graph is named and the walk has nowhere to start; its grammar still says it is a chain of two
relations (`question.steps`). Hybrid search finds the piece's page (the question's words) and never
the town's, which shares no word with it; two-hop expansion from hybrid's best hit (`expand.pages`)
follows the names of the pages to it, so those pages rank ahead of hybrid's later hits, the
farthest first (a chain of two relations ends two pages out). A one-relation question with no
entity keeps hybrid search's own ranking, hit for hit.
"""

from __future__ import annotations

import io
from pathlib import Path

from openai import OpenAI

from tests.knowledge_graph.test_knowledge_expansion import PAGES
from tests.knowledge_graph.test_knowledge_graph import KG
from tests.support.procs import Backend, gateway
from tests.support.retrieval_helpers import wait_ingested

CHAIN = "Where was the composer of the Nahan tone piece born?"
SINGLE = "Which instrument is the Nahan tone piece written for?"


def test_a_chain_question_naming_no_entity_is_expanded_from_hybrids_best_hit(backend: Backend, tmp_path: Path) -> None:
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        ids = {n: own.files.create(file=(n, io.BytesIO(t.encode())), purpose="assistants").id for n, t in PAGES.items()}
        store = own.vector_stores.create(name="kg-no-start")
        for name, file_id in ids.items():
            kind = "place" if name == "tarrin.md" else "page"
            own.vector_stores.files.create(store.id, file_id=file_id, attributes={"kind": kind})
        wait_ingested(own, store.id, timeout=120)
        names = {v: k for k, v in ids.items()}

        def search(question: str, **options: object) -> list[tuple[str, float, dict[str, float]]]:
            page = own.vector_stores.search(store.id, query=question, **options)  # type: ignore[arg-type]
            if options.get("ranking_options") == KG:
                assert page.model_dump()["entities"]["query"] == [], page.model_dump()["entities"]
            return [(names[h.file_id], h.score, (h.model_extra or {}).get("score_breakdown", {})) for h in page.data]

        # the chain: hybrid's first hit stays first, the town's page (no word of the question,
        # absent from hybrid's ranking) is reached two pages out, scores never increase
        hybrid = [name for name, _s, _b in search(CHAIN)]
        assert "tarrin.md" not in hybrid and "kessel.md" not in hybrid, hybrid
        kg = search(CHAIN, ranking_options=KG)
        ranked = [name for name, _s, _b in kg]
        assert ranked[0] == hybrid[0] == "nahan.md", (ranked, hybrid)
        # a chain of two relations ends two pages out: those pages come before the composers'
        # (the chain's middle), then hybrid's later hits
        assert set(ranked[1:3]) == {"tarrin.md", "kessel.md"}, kg
        assert all(b["hops"] == 2.0 for _n, _s, b in kg[1:3]), kg
        assert set(ranked[3:5]) == {"hensa.md", "olaf.md"}, ranked
        scores = [s for _n, s, _b in kg]
        assert scores == sorted(scores, reverse=True), scores

        # one relation, no entity either: hybrid search's ranking, hit for hit, nothing expanded
        single = search(SINGLE, ranking_options=KG)
        assert [(n, s) for n, s, _b in single] == [(n, s) for n, s, _b in search(SINGLE)], single
        assert all("hops" not in b for _n, _s, b in single), single

        # the expansion's reads apply the attribute filters: the town filtered out is never returned
        only_pages = {"type": "eq", "key": "kind", "value": "page"}
        filtered = [name for name, _s, _b in search(CHAIN, ranking_options=KG, filters=only_pages)]
        assert "tarrin.md" not in filtered and "kessel.md" in filtered, filtered
