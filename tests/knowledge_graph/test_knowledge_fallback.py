"""Chain questions the relation-aware walk cannot complete, chains written with a noun's own
modifier, and paths that came back to the question's entity (#28), through the search endpoint and
`file_search`.

* "What work did Ventiv Lemdri's student compose?": the pupil's page says "Hensa studied under
  Ventiv Lemdri" (his first name only, so no relation joins the two pages' entities); the walk
  completes no path, and the ranker used to hand the question to hybrid search, which ranks the
  theorist's own page first and never reaches the work. Personalised PageRank around the
  question's entities (`spread.py`) reaches it through the pupil's page and ranks it first.
* "Which harbour does the ship carrying the Tessel Bell sail from?" is two relations (the ship
  carrying the bell, the harbour it sails from), though it has no "of" or "who": a present
  participle after a noun is one ("the ship carrying X"), and so is "whose" as the question's
  determiner ("Whose schooner carries X?": the owner's, and the schooner's). Counted as one
  relation, both were answered by hybrid search (the bell's page, or a note sharing their words).
* "Who owns the estate that makes Cuvée Nuth?": a note on the cuvée repeating those relations
  about it led the walk back to the cuvée itself with steps matched; a path no longer returns to
  a question entity.
Each answer page shares no word with its question.
"""

from __future__ import annotations

from pathlib import Path

from openai import OpenAI

from tests.knowledge_graph.chain_checks import assert_chain_answers_first, assert_kg_answers_first
from tests.knowledge_graph.test_knowledge_graph import KG, MODEL
from tests.support.procs import Backend, gateway
from tests.support.retrieval_helpers import upload_pages

PUPILS = {
    "ventiv.md": "# Ventiv Lemdri\n\nVentiv Lemdri was a theorist and organist who wrote a treatise on fugue.",
    "hensa.md": "# Hensa Grethm\n\nHensa Grethm was a composer and oboe player. Hensa studied under Ventiv Lemdri.",
    "nahan.md": "# Nahan Tone Poem\n\nNahan Tone Poem is a piece in four movements by Hensa Grethm, "
    "first heard in 1901.",
    # another theorist, pupil and piece; a note sharing the question's words
    "olaf.md": "# Olaf Brinde\n\nOlaf Brinde was a violinist. Olaf studied under Marta Sool.",
    "marta.md": "# Marta Sool\n\nMarta Sool was a theorist who taught in Kessel.",
    "kessel.md": "# Kessel Suite\n\nKessel Suite is a piece in three movements by Olaf Brinde.",
    "note.md": "# Programme note\n\nWhich work did the student of a theorist compose? This note on student "
    "works does not say.",
}

SHIPS = {
    "tessel.md": "# Tessel Bell\n\nThe Tessel Bell is a bronze bell cast in 1790. Since 1802 it has hung on the "
    "Marra Swift.",
    "marra.md": "# Marra Swift\n\nThe Marra Swift is a two-masted schooner. Her moorings are at Kelby Quay.",
    "kelby.md": "# Kelby Quay\n\nKelby Quay is a fishing town with a granite breakwater.",
    # another ship, its bell and town; a note sharing the question's words
    "orla.md": "# Orla Wren\n\nThe Orla Wren is a brig. Her moorings are at Dunholm.",
    "dunholm.md": "# Dunholm\n\nDunholm is a market town with a slate church.",
    "corven.md": "# Corven Gong\n\nThe Corven Gong is a brass gong. Since 1850 it has hung on the Orla Wren.",
    "note.md": "# Bell notes\n\nA ship carrying a bell sails from a harbour; whose schooner carries which bell "
    "is never said here.",
}
# the same ships with their buyers instead of their moorings ("Whose schooner ...?" names no word of
# the purchase: with both stated, the harbour and the buyer would be equally good answers)
OWNERS = {
    **{n: t for n, t in SHIPS.items() if n not in ("marra.md", "orla.md", "kelby.md", "dunholm.md")},
    "marra.md": "# Marra Swift\n\nThe Marra Swift is a two-masted schooner. Ilsa Varn bought her in 1799.",
    "varn.md": "# Ilsa Varn\n\nIlsa Varn is a sailmaker's daughter who went to sea at fourteen.",
    "orla.md": "# Orla Wren\n\nThe Orla Wren is a brig. Per Hask bought her in 1840.",
    "hask.md": "# Per Hask\n\nPer Hask is a pilot's son from the northern isles.",
}


def test_a_chain_the_walk_cannot_complete_is_ranked_by_pagerank(backend: Backend, tmp_path: Path, marker: str) -> None:
    """Before #28's fallback the first question was answered by hybrid search (the theorist's page
    first, the work not in sight); now the work comes first, through the search endpoint and
    through file_search."""
    question = "What work did Ventiv Lemdri's student compose?"
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store = upload_pages(own, "kg-fallback", PUPILS)
        answers = {question: "nahan.md"}
        assert_chain_answers_first(own, backend, marker, store, answers, via_file_search=question, model=MODEL, kg=KG)
        page = own.vector_stores.search(store.id, query=question, ranking_options=KG)  # type: ignore[arg-type]
        assert page.data[0].model_extra and page.data[0].model_extra["score_breakdown"]["graph"] == 1.0


def test_a_noun_modified_by_a_participle_or_whose_is_a_chain(backend: Backend, tmp_path: Path, marker: str) -> None:
    """Both questions were read as one relation before (answered by hybrid search: the note
    first); each is two, and its answer, two hops from the bell, comes first."""
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        ships = upload_pages(own, "kg-modifiers", SHIPS)
        harbour = "Which harbour does the ship carrying the Tessel Bell sail from?"
        owners = upload_pages(own, "kg-whose", OWNERS)
        assert_kg_answers_first(
            own, owners.id, owners.names, {"Whose schooner carries the Tessel Bell?": "varn.md"}, KG
        )
        answers = {harbour: "kelby.md"}
        assert_chain_answers_first(own, backend, marker, ships, answers, via_file_search=harbour, model=MODEL, kg=KG)


CUVEES = {
    "nuth.md": "# Cuvée Nuth\n\nCuvée Nuth is a syrah made at Domaine Lark.",
    "lark.md": "# Domaine Lark\n\nDomaine Lark lies in Pelby. It is owned by Ada Venn.",
    "venn.md": "# Ada Venn\n\nAda Venn is a vintner who trained in Burgundy.",
    "pelby.md": "# Pelby\n\nPelby is a hill village.",
    # a note on the cuvée repeating the question's relations about it ("owns", "makes")
    "note.md": "# Tasting note on Cuvée Nuth\n\nWho owns the estate that makes Cuvée Nuth, who trained its maker "
    "and where the grapes grow: the note leaves all of it to the label.",
    "orr.md": "# Cuvée Orr\n\nCuvée Orr is a gamay made at Domaine Fell.",
    "fell.md": "# Domaine Fell\n\nDomaine Fell lies in Kerby. It is owned by Ivo Strand.",
    "strand.md": "# Ivo Strand\n\nIvo Strand is a vintner.",
}


def test_a_path_never_returns_to_the_question_entity(backend: Backend, tmp_path: Path) -> None:
    """The note's relations led the walk from the cuvée to the note and back to the cuvée with two
    steps matched, so the cuvée's own page (which the question names, and no answer) ranked first,
    above the owner's; a path no longer comes back to a question entity: the owner outranks it."""
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store = upload_pages(own, "kg-no-return", CUVEES)
        names = store.names
        question = "Who owns the estate that makes Cuvée Nuth?"
        page = own.vector_stores.search(store.id, query=question, ranking_options=KG)  # type: ignore[arg-type]
        ranked = list(dict.fromkeys(names[h.file_id] for h in page.data))
        assert "venn.md" in ranked[:2] and ranked.index("venn.md") < ranked.index("nuth.md"), ranked
