"""The walk credits a relation only for its own hop of the question's chain (#28, from the misses of
the spent `veiled` corpus), through the search endpoint.

"In which town was the mentor of Ada Moss born?" nests two relations: the mentoring (applied to
Ada Moss) first, the birth (whose target is the answer) last. A wrong path takes them in the other
order: Ada Moss's own birthplace, Lorn, then someone who "mentored young sailors in Lorn". Judged
against the question as a whole it matched as many relations as the chain (the birth, then the
mentoring) and, stated in plainer words than the chain's, it outranked the answer: Wick, where
Ada's master "first saw the light of day". With the hops in the question's nesting order, the birth
is no step from Ada Moss (it is the second hop's relation), and the chain's page comes first.
The answer page shares no word with the question.
"""

from __future__ import annotations

from pathlib import Path

from openai import OpenAI

from gateway.knowledge_graph.hops import hop_plan
from tests.knowledge_graph.test_knowledge_graph import KG
from tests.support.procs import Backend, gateway
from tests.support.retrieval_helpers import upload_pages

SAILORS = {
    "ada.md": "# Ada Moss\n\nAda Moss is a sailor. Ada Moss was born in Lorn. She sailed as an apprentice to "
    "Bram Holt.",
    "bram.md": "# Bram Holt\n\nBram Holt is a master mariner. Bram Holt first saw the light of day in Wick.",
    "wick.md": "# Wick\n\nWick is a fishing village on a cold coast, with a harbour and a chapel.",
    # the wrong order: Ada's own birthplace, then a relation like the first hop's word
    "lorn.md": "# Lorn\n\nLorn is a port with grey roofs. Cy Dunn mentored young sailors in Lorn.",
    "cy.md": "# Cy Dunn\n\nCy Dunn is a retired captain with a beard.",
    "fen.md": "# Fen Roe\n\nFen Roe is a sailor. Fen Roe was born in Wick.",
}
QUESTION = "In which town was the mentor of Ada Moss born?"


def test_the_question_places_each_asked_type_in_its_hop() -> None:
    plan = hop_plan(QUESTION)
    assert plan.words == [["mentor"], ["town"]]
    assert plan.types == {"born_in": 1}
    # the innermost relation first: "behind" Vel Orbis, then the founding, then the birth
    assert hop_plan("Where was the founder of the firm behind Vel Orbis born?").types == {
        "made_by": 0,
        "founded_by": 1,
        "born_in": 2,
    }


def _ranked(own: OpenAI, store_id: str, names: dict[str, str], question: str, **extra: object) -> list[str]:
    page = own.vector_stores.search(store_id, query=question, **extra)  # type: ignore[arg-type]
    return list(dict.fromkeys(names[h.file_id] for h in page.data))


def test_a_relation_counts_only_for_its_own_hop(backend: Backend, tmp_path: Path) -> None:
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store = upload_pages(own, "kg-hop-order", SAILORS)
        names = store.names
        ranked = _ranked(own, store.id, names, QUESTION, ranking_options=KG)
        assert ranked[0] == "wick.md", ranked
        assert _ranked(own, store.id, names, QUESTION)[0] != "wick.md"  # hybrid search does not find it
