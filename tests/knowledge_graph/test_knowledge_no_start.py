"""Questions the graph has no start for (#28), through the search endpoint: the `kg` ranker's
`hybrid` path keeps hybrid search's ranking, hit for hit.

"Where was the composer of the Nahan tone piece born?" misremembers the piece's title, so no entity
of the graph is named and the walk has nowhere to start; its grammar still reads a chain of two
relations (`question.steps`). Two-hop expansion from hybrid's best hit would reach the town's page,
but most how-to questions read as chains too, their answers are hybrid's later hits, and nothing
tells the two apart (bench/doc_questions.py: the expansion pushed their answers out), so the chain
keeps hybrid's ranking, as a one-relation question does. So does a chain question that names an
entity but is searched by keywords alone (no vector: the walk has no phrase relation to follow).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from openai import OpenAI

from tests.knowledge_graph.test_knowledge_expansion import PAGES
from tests.knowledge_graph.test_knowledge_graph import KG
from tests.support.procs import Backend, gateway
from tests.support.retrieval_helpers import wait_ingested

CHAIN = "Where was the composer of the Nahan tone piece born?"
SINGLE = "Which instrument is the Nahan tone piece written for?"
NAMED = "Which town is in the letters of the oboist of Nahan Tone Poem?"  # no relation the patterns know
KEYWORDS: Any = {"hybrid_search": {"embedding_weight": 0, "text_weight": 1}}


def test_questions_the_graph_has_no_start_for_keep_hybrids_ranking(backend: Backend, tmp_path: Path) -> None:
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        ids = {n: own.files.create(file=(n, io.BytesIO(t.encode())), purpose="assistants").id for n, t in PAGES.items()}
        store = own.vector_stores.create(name="kg-no-start", file_ids=list(ids.values()))
        wait_ingested(own, store.id, timeout=120)
        names = {v: k for k, v in ids.items()}

        def search(question: str, **options: Any) -> list[tuple[str, float, dict[str, float]]]:
            page = own.vector_stores.search(store.id, query=question, **options)
            return [(names[h.file_id], h.score, (h.model_extra or {}).get("score_breakdown", {})) for h in page.data]

        for question in (CHAIN, SINGLE):
            page = own.vector_stores.search(store.id, query=question, ranking_options=KG)
            assert page.model_dump()["entities"]["query"] == [], page.model_dump()["entities"]
            kg = search(question, ranking_options=KG)
            assert [(n, s) for n, s, _b in kg] == [(n, s) for n, s, _b in search(question)], kg
            assert all("hops" not in b for _n, _s, b in kg), kg
            few = search(question, ranking_options=KG, max_num_results=3)
            assert [n for n, _s, _b in few] == [n for n, _s, _b in search(question, max_num_results=3)], few

        # a chain question naming an entity, by keywords alone: hybrid's (keyword) ranking stands
        plain = search(NAMED, ranking_options=KEYWORDS)
        keyword_kg = search(NAMED, ranking_options={**KG, **KEYWORDS})
        assert [n for n, _s, _b in keyword_kg] == [n for n, _s, _b in plain], (keyword_kg, plain)
