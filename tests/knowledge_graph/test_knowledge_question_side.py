"""The question side of the `kg` ranker (#28, round on the spent `fresh` corpus's misses), through the
search endpoint and `file_search`:

* a relative "where" after a noun opens that noun's own clause: "Who founded the vault where Orlan
  Red is stored?" is two relations (the vault holding the wheat, its founder), read as one before,
  so the walk stopped at the vault;
  only after a determined noun, not after a verb ("How do I check where Nginx writes its access
  log?") nor in a "how" question's condition;
* a question about an entity of the graph whose one relation is no pattern type ("Where does Nginx
  write its access log?") is hybrid search's: walked one hop and fused with hybrid's ranking, the
  entity's own page and its neighbours' tied with the page that answers it and outranked it;
* a phrase more like one of the question's relation words that no asked type stands for ("was
  apprenticed to" and "mentor") than like the asked type's words ("born in") is that word's step,
  not the type's: taken as the birthplace, the mentor's own birthplace could no longer be a step.
Each chain's answer page shares no word with its question.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from openai import OpenAI

from gateway.knowledge_graph.question import cue_words, kind_nouns, relation_words, steps
from tests.knowledge_graph.chain_checks import assert_file_search_answers_first
from tests.knowledge_graph.test_knowledge_graph import KG, MODEL
from tests.support.procs import Backend, gateway
from tests.support.retrieval_helpers import upload_pages

VAULTS = {
    "orlan.md": "# Orlan Red\n\nOrlan Red is a wheat variety with a short stem. Orlan Red is stored at Tarsk Vault.",
    "tarsk.md": "# Tarsk Vault\n\nTarsk Vault is a seed vault cut into a hill. It was founded by Mira Quell.",
    "quell.md": "# Mira Quell\n\nMira Quell is a botanist from the northern isles.",
    "kesh.md": "# Kesh Gold\n\nKesh Gold is a barley variety. Kesh Gold is stored at Brenn Vault.",
    "brenn.md": "# Brenn Vault\n\nBrenn Vault is a seed vault by a river. It was founded by Tobin Ashe.",
    "ashe.md": "# Tobin Ashe\n\nTobin Ashe is a gardener.",
    "note.md": "# Vault notes\n\nWho founded which vault, and what is stored where, is told on each page.",
}
# single-hop questions about a graph entity: the page that answers names it in passing, next to its
# own page and its neighbours' (a walk one hop from it reaches all of them)
SERVERS = {
    "nginx.md": "# Nginx\n\nNginx is a web server written by Igor Sysoev. Nginx is sold by F5 Networks.",
    "logging.md": "# Logging\n\nNginx writes its access log to /var/log/nginx/access.log; "
    "set access_log to change the file.",
    "proxy.md": "# Reverse proxy\n\nWhen Nginx sits in front of the app, set proxy_read_timeout to raise the timeout.",
    "sysoev.md": "# Igor Sysoev\n\nIgor Sysoev is a programmer born in Almaty. He wrote Nginx.",
    "f5.md": "# F5 Networks\n\nF5 Networks is a company in Seattle. It bought Nginx in 2019.",
}
LANGUAGES = {
    "python.md": "# Python\n\nPython is a programming language created by Guido van Rossum. "
    "Python was released by the CWI.",
    "release.md": "# Release history\n\nPython was first released in February 1991 in Amsterdam, on alt.sources.",
    "guido.md": "# Guido van Rossum\n\nGuido van Rossum is a programmer born in Haarlem.",
    "cwi.md": "# CWI\n\nThe CWI is a research centre in Amsterdam. It employed Guido van Rossum.",
    "haarlem.md": "# Haarlem\n\nHaarlem is a city in North Holland.",
}
MENTORS = {
    "lorstead.md": "# Gunnar Lorstead\n\nGunnar Lorstead was a carpenter. He was apprenticed to Fenna Wesdal. "
    "He was born in Pelby.",
    "wesdal.md": "# Fenna Wesdal\n\nFenna Wesdal was a joiner. Her birthplace was Yarford.",
    "yarford.md": "# Yarford\n\nYarford is a market town on the coast.",
    "pelby.md": "# Pelby\n\nPelby is a hill village.",
    "ostby.md": "# Dag Ostby\n\nDag Ostby was a carpenter. He was apprenticed to Liv Garn. He was born in Torvik.",
    "garn.md": "# Liv Garn\n\nLiv Garn was a joiner. Her birthplace was Selmoor.",
    "selmoor.md": "# Selmoor\n\nSelmoor is a river town.",
    "torvik.md": "# Torvik\n\nTorvik is a fishing village.",
}


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("Who founded the vault where Orlan Red is stored?", 2),
        ("Under whom did whoever established the yard where the Lark was built train?", 3),
        ("Which town is where Ada Quell grew up?", 1),  # a cleft, after "is": no noun's clause
        # after a verb, "where" opens the verb's object, no noun's relation
        ("How do I check where Nginx writes its access log?", 1),
        ("How do I find where Postgres keeps its WAL files?", 1),
        ("What happens where the cache is full?", 1),
        ("How do I set the timeout where the proxy is behind Nginx?", 2),  # a "how": a condition
        ("What is the name of the town where Ada Quell was born?", 2),  # "of" carries the copula's relation
    ],
)
def test_a_relative_where_after_a_noun_is_a_link(question: str, count: int) -> None:
    assert steps(question) == count


def _store(own: OpenAI, name: str, texts: dict[str, str]) -> tuple[str, dict[str, str]]:
    store = upload_pages(own, name, texts)
    return store.id, store.ids


def _ranked(own: OpenAI, store_id: str, names: dict[str, str], question: str, **extra: object) -> list[str]:
    page = own.vector_stores.search(store_id, query=question, **extra)  # type: ignore[arg-type]
    return list(dict.fromkeys(names[h.file_id] for h in page.data))


def test_a_relative_where_leads_on_to_the_founder(backend: Backend, tmp_path: Path, marker: str) -> None:
    """Read as one relation before, the walk stopped at the vault (its page first)."""
    question = "Who founded the vault where Orlan Red is stored?"
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store_id, ids = _store(own, "kg-where", VAULTS)
        names = {v: k for k, v in ids.items()}
        ranked = _ranked(own, store_id, names, question, ranking_options=KG)
        assert ranked[0] == "quell.md", ranked
        assert _ranked(own, store_id, names, question)[0] != "quell.md"
        assert_file_search_answers_first(
            own, backend, marker, model=MODEL, store_id=store_id, kg=KG, question=question,
            answer_id=ids["quell.md"], names=names,
        )  # fmt: skip


@pytest.mark.parametrize(
    ("texts", "question", "answer"),
    [
        (SERVERS, "Where does Nginx write its access log?", "logging.md"),
        (SERVERS, "How do I check where Nginx writes its access log?", "logging.md"),
        (LANGUAGES, "Where was Python first released?", "release.md"),
        (LANGUAGES, "When was Python first released?", "release.md"),
    ],
)
def test_a_one_relation_question_keeps_hybrids_answer(
    backend: Backend, tmp_path: Path, marker: str, texts: dict[str, str], question: str, answer: str
) -> None:
    """Walked one hop and fused with hybrid's ranking before, the entity's own page (or a
    neighbour's) led: the page hybrid search ranks first must stay first, on both paths."""
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store_id, ids = _store(own, "kg-one-hop", texts)
        names = {v: k for k, v in ids.items()}
        assert _ranked(own, store_id, names, question)[0] == answer
        ranked = _ranked(own, store_id, names, question, ranking_options=KG)
        assert ranked[0] == answer, ranked
        assert_file_search_answers_first(
            own, backend, marker, model=MODEL, store_id=store_id, kg=KG, question=question,
            answer_id=ids[answer], names=names,
        )  # fmt: skip


def test_a_phrase_like_an_open_word_is_its_step(backend: Backend, tmp_path: Path) -> None:
    """ "was apprenticed to" was the birthplace's step before, so the mentor's "Her birthplace was
    Yarford" completed nothing and the pupil's own birthplace led."""
    question = "In which town was the mentor of Gunnar Lorstead born?"
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store_id, ids = _store(own, "kg-mentors", MENTORS)
        names = {v: k for k, v in ids.items()}
        ranked = _ranked(own, store_id, names, question, ranking_options=KG)
        assert ranked[0] == "yarford.md", ranked


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("Name the island where the architect of Dring Hall grew up.", {"island", "grew", "up"}),
        ("Who taught the physician who established the Neiskes Clinic?", {"physician", "established"}),
        ("In which town was the mentor of Ada Quell born?", {"town", "born"}),
        # a relation noun of what follows, an opening auxiliary, a verb before "where": no kind
        ("Which mentor of Ada Quell was born in Pelby?", {"born"}),
        ("Was the mentor of Ada Quell born in Pelby?", {"born"}),
        ("How do I check where Nginx writes its access log?", set()),
        (
            "What is the birthplace of the engineer by whom Halwen Bridge was designed?",
            {"engineer", "birthplace", "designed"},
        ),
    ],
)
def test_words_naming_no_relation_beyond_the_asked_types(question: str, kinds: set[str]) -> None:
    """The answer's kind, a relative clause's head and the words of an asked type's cue (not
    "mentor", "architect", "taught": relations no asked type names)."""
    assert (kind_nouns(question) | cue_words(question)) & set(relation_words(question)) == kinds & set(
        relation_words(question)
    )
