"""The PageRank fallback of the `kg` ranker is safe (#28 review), through the search endpoint:

* single-hop questions whose noun has a prepositional modifier ("the timeout for Nginx", "the race
  at Monza") are one relation, answered as hybrid search answers them; the fallback's rule for
  "noun + preposition" counted them as chains and handed them to PageRank, whose pages two hops
  out came first (the answer page lost its place);
* chunks only the graph found are read for the top k; one the filters drop, or whose file is gone,
  is never returned (after the third read the fallback returned placeholders: no text, no
  filename, attributes failing the filter).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from openai import OpenAI

from gateway.knowledge_graph.question import steps
from tests.knowledge_graph.test_knowledge_fallback import PUPILS
from tests.knowledge_graph.test_knowledge_graph import KG
from tests.support.procs import Backend, gateway
from tests.support.retrieval_helpers import upload_pages

# a small wiki: each single-hop question's answer is one page, and each page links on to others
# (the server's author and his city, the race's winner and his team) for PageRank to wander to
PAGES = {
    "nginx.md": "# Nginx\n\nNginx is a web server written by Igor Sysoev. Set the keepalive_timeout directive "
    "to change the timeout; the default is 75 seconds. Nginx is sold by F5 Networks.",
    "sysoev.md": "# Igor Sysoev\n\nIgor Sysoev is a programmer born in Almaty. He wrote Nginx.",
    "almaty.md": "# Almaty\n\nAlmaty is the largest city of Kazakhstan, at the foot of the Tian Shan.",
    "f5.md": "# F5 Networks\n\nF5 Networks is a company in Seattle. It bought Nginx in 2019.",
    "seattle.md": "# Seattle\n\nSeattle is a port city in Washington on Puget Sound.",
    "tianshan.md": "# Tian Shan\n\nThe Tian Shan is a mountain range near Almaty.",
    "race.md": "# Monza Cup\n\nThe Monza Cup is a race at Monza, won in 1971 by Peter Gethin.",
    "monza.md": "# Monza\n\nMonza is a city in Lombardy, north of Milan.",
    "gethin.md": "# Peter Gethin\n\nPeter Gethin was a British driver for BRM. He won the Monza Cup.",
    "brm.md": "# BRM\n\nBRM was a racing team from Bourne.",
    "lombardy.md": "# Lombardy\n\nLombardy is a region of Italy whose capital is Milan.",
}
# a question whose "during" the fallback round's rule counted as a link (three relations, so no
# walk completed it and PageRank ranked the pages two and three hops out first); its answer is one
# hop from its entity, hybrid's first hit
REIGN = {
    "war.md": "# Channel War\n\nThe Channel War was fought during the reign of Henry VIII and ended in 1546.",
    "henry.md": "# Henry VIII\n\nHenry VIII was a king of England. He married Catherine of Aragon and Anne "
    "Boleyn, and built Nonsuch Palace.",
    "anne.md": "# Anne Boleyn\n\nAnne Boleyn was born at Blickling Hall.",
    "blickling.md": "# Blickling Hall\n\nBlickling Hall is a house in Norfolk.",
    "nonsuch.md": "# Nonsuch Palace\n\nNonsuch Palace stood in Surrey until 1682.",
    "catherine.md": "# Catherine of Aragon\n\nCatherine of Aragon was born in Alcala de Henares.",
    "alcala.md": "# Alcala de Henares\n\nAlcala de Henares is a city near Madrid with an old university.",
    "madrid.md": "# Madrid\n\nMadrid is the capital of Spain.",
}
# the pupil's page names the theorist only beside him (no typed relation, so no walk completes the
# chain): the question is always the fallback's
COMENTION = {
    **PUPILS,
    "hensa.md": "# Hensa Grethm\n\nHensa Grethm was a composer and oboe player. In 1890 Hensa Grethm and "
    "Ventiv Lemdri gave a recital.",
}
SINGLE_HOP = {"How do I set the timeout for Nginx?": "nginx.md", "Who won the race at Monza?": "race.md"}


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("How do I set the timeout for Nginx?", 1),
        ("Who won the race at Monza?", 1),
        ("Which options does the command in Bash accept?", 1),
        ("When did the war during the reign of Henry VIII end?", 2),  # "of" links two, as on main
        ("Which harbour does the ship carrying the Tessel Bell sail from?", 2),  # a participle does
    ],
)
def test_a_prepositional_modifier_is_no_link(question: str, count: int) -> None:
    """The relations counted by the question's grammar (the fallback's rule said 2, 2, 2 and 3)."""
    assert steps(question) == count


def _store(own: OpenAI, texts: dict[str, str], attributes: dict[str, dict[str, str]]) -> tuple[str, dict[str, str]]:
    store = upload_pages(own, "kg-safety", texts, attributes=attributes)
    return store.id, store.ids


def test_single_hop_questions_keep_their_answer_first(backend: Backend, tmp_path: Path) -> None:
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store_id, ids = _store(own, PAGES, {})
        names = {v: k for k, v in ids.items()}
        for question, answer in SINGLE_HOP.items():
            hybrid = own.vector_stores.search(store_id, query=question)
            assert names[hybrid.data[0].file_id] == answer, question
            page = own.vector_stores.search(store_id, query=question, ranking_options=KG)  # type: ignore[arg-type]
            assert names[page.data[0].file_id] == answer, (question, [names[h.file_id] for h in page.data])


def test_a_miscounted_single_hop_question_keeps_hybrids_first_hit(backend: Backend, tmp_path: Path) -> None:
    """Counted as two relations now ("of" links two, as on main), the war's page, hybrid's first,
    stays among the first two (third before, behind pages two and three hops out)."""
    question = "When did the war during the reign of Henry VIII end?"
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store_id, ids = _store(own, REIGN, {})
        names = {v: k for k, v in ids.items()}
        assert names[own.vector_stores.search(store_id, query=question).data[0].file_id] == "war.md"
        page = own.vector_stores.search(store_id, query=question, ranking_options=KG)  # type: ignore[arg-type]
        ranked = [names[h.file_id] for h in page.data]
        assert "war.md" in ranked[:2], ranked


def test_the_fallback_never_returns_a_chunk_failing_the_filters(backend: Backend, tmp_path: Path) -> None:
    """Only the note is in English; the pupil names the theorist only beside him, so no walk
    completes the chain and PageRank ranks it: its pages (the work, the pupil, the theorist) are
    read one round each and dropped by the filter; the next is never returned unread."""
    question = "What work did Ventiv Lemdri's student compose?"
    english = {"type": "eq", "key": "lang", "value": "en"}
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        langs = {n: {"lang": "en" if n == "note.md" else "de"} for n in COMENTION}
        store_id, ids = _store(own, COMENTION, langs)
        names = {v: k for k, v in ids.items()}
        for top in (1, 2, 10):
            page = own.vector_stores.search(
                store_id,
                query=question,
                ranking_options=KG,  # type: ignore[arg-type]
                filters=english,  # type: ignore[arg-type]
                max_num_results=top,
            )
            got = [(names.get(h.file_id), h.filename, h.attributes) for h in page.data]
            assert all(h.attributes == {"lang": "en"} and h.filename and h.content for h in page.data), (top, got)
        # a deleted file's chunks never come back, on the fallback path either
        unfiltered = own.vector_stores.search(store_id, query=question, ranking_options=KG)  # type: ignore[arg-type]
        # fused with hybrid by rank, the work is among the first (the theorist's page, hybrid's first, may lead)
        assert "nahan.md" in [names[h.file_id] for h in unfiltered.data][:3]
        own.vector_stores.files.delete(ids["nahan.md"], vector_store_id=store_id)
        page = own.vector_stores.search(store_id, query=question, ranking_options=KG)  # type: ignore[arg-type]
        assert page.data and ids["nahan.md"] not in {h.file_id for h in page.data}
        assert all(h.filename and h.content for h in page.data)
