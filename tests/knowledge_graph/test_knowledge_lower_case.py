"""Questions typed in lower case (#28), through the search endpoint: with no capitalised word the
`kg` ranker has no name to look up, so its plain word runs are looked up instead (`keys.lower_keys`),
only then: a question with any capitalised key is read as before, a single common word the
store holds in many files steers nothing, and neither does a run no page is about (not the title of
a document: "Ulm", which two pages list, has none).

The store is test_knowledge_expansion's: "where was the composer of nahan tone poem born" asks for a
composer's birthplace, which only the names of the pages lead to (the town's page shares no word
with the question, so hybrid search misses it).
"""

from __future__ import annotations

import io
from pathlib import Path

from openai import OpenAI

from gateway.knowledge_graph.keys import MAX_LOWER_KEYS, MAX_LOWER_WORD_FILES, MAX_OPENED_KEYS, lower_keys, numeric
from tests.knowledge_graph.test_knowledge_expansion import PAGES
from tests.knowledge_graph.test_knowledge_graph import KG
from tests.support.procs import Backend, gateway
from tests.support.retrieval_helpers import wait_ingested

# a page whose title opens on an article, as a film's or a book's does ("The Quell Affair"): the
# store's key for it keeps the article (`index.title_of`)
QUELL = {
    "quell.md": "# The Quell Affair\n\nThe Quell Affair is a tone poem of 1931. The Quell Affair was composed by "
    "Olaf Brinde."
}

# a title that is a number ("1984"), and a year many pages mention: a question whose only key is
# that number is read on the lower-case path, which must still take the number that titles a page
NOVEL = {
    "novel.md": "# 1984\n\n1984 is a novel of a grim state. 1984 was written by Edric Vale.",
    "vale.md": "# Edric Vale\n\nEdric Vale is a writer. Edric Vale was born in Morrowby.",
    "morrowby.md": "# Morrowby\n\nMorrowby is a market town with a stone bridge.",
    **{
        f"ledger{i}.md": f"# Guild ledger {i}\n\nIn 1984 the guild met {i} times; the 1984 ledger grew."
        for i in range(MAX_LOWER_WORD_FILES + 2)
    },
}

# a word some text capitalises ("the Oboe") in more files than a typed name is likely to be in
OBOE = {
    f"oboe{i}.md": f"# Reed care {i}\n\nSoak the reed of the Oboe for a minute; tip {i} on reeds and cane."
    for i in range(MAX_LOWER_WORD_FILES + 2)
}


def test_lower_case_questions(backend: Backend, tmp_path: Path) -> None:
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        pages = {**PAGES, **OBOE, **QUELL, **NOVEL}
        ids = {n: own.files.create(file=(n, io.BytesIO(t.encode())), purpose="assistants").id for n, t in pages.items()}
        store = own.vector_stores.create(name="kg-lower", file_ids=list(ids.values()))
        wait_ingested(own, store.id, timeout=180)
        names = {v: k for k, v in ids.items()}

        def ranked(question: str, **options: object) -> list[str]:
            page = own.vector_stores.search(store.id, query=question, **options)  # type: ignore[arg-type]
            return list(dict.fromkeys(names[h.file_id] for h in page.data))

        def entities(question: str) -> list[str]:
            page = own.vector_stores.search(store.id, query=question, ranking_options=KG)  # type: ignore[arg-type]
            return [e["name"] for e in page.model_dump()["entities"]["query"]]

        # a lower-case two-hop question: the kg ranker reaches the town hybrid search misses
        lower = "where was the composer of nahan tone poem born"
        assert "tarrin.md" not in ranked(lower), ranked(lower)
        assert "tarrin.md" in ranked(lower, ranking_options=KG)[:5], ranked(lower, ranking_options=KG)
        assert entities(lower) == ["Nahan Tone Poem"], entities(lower)  # the longest run known only

        # one capitalised word the graph does not know: the question is read as before (its
        # lower-case runs are not looked up), so the graph knows nothing of it: hybrid's ranking
        mixed = "where was the composer of nahan tone poem born, Zedorix?"
        assert entities(mixed) == [] and ranked(mixed, ranking_options=KG) == ranked(mixed)

        # a rare known name no page is about ("Ulm": listed on two pages, titling none) is no entity
        # of a lower-case question: a common word some text capitalises ("Remove", "Directory") is
        # like it in a store of manual pages (bench/doc_questions.py)
        titleless = "who wrote the letters of the oboist from ulm"
        assert "ulm" in lower_keys(titleless)
        assert entities(titleless) == [] and ranked(titleless, ranking_options=KG) == ranked(titleless)

        # common words only: "oboe" is a lower-case key candidate, but the graph holds it in more
        # files than a typed name: not taken for the question's entity, hybrid's ranking stands
        common = "which composer cared for the oboe reed"
        assert "oboe" in lower_keys(common)
        assert entities(common) == [] and ranked(common, ranking_options=KG) == ranked(common)

        # a year before a lower-case title ("the 1931 tone poem ..."): a key opening on a number names
        # nothing capitalised, so the question is read as typed in lower case; the title opens on an
        # article, which the page's title keeps: the run "the quell affair" is looked up too
        dated = "where was the composer of the 1931 tone poem the quell affair born"
        assert "the quell affair" in lower_keys(dated)
        assert [e.lower() for e in entities(dated)] == ["the quell affair"], entities(dated)
        assert "kessel.md" not in ranked(dated), ranked(dated)
        assert "kessel.md" in ranked(dated, ranking_options=KG)[:5], ranked(dated, ranking_options=KG)

        # a number that is a title ("1984"), the question's only key: its page is the entity (in more
        # files than a typed lower-case name, as a year is), and the walk reaches the writer's town
        for numbered in ("Where was the author of 1984 born?", "where was the author of 1984 born"):
            assert entities(numbered) == ["1984"], entities(numbered)
            assert "morrowby.md" in ranked(numbered, ranking_options=KG)[:3], ranked(numbered, ranking_options=KG)


def test_a_key_opening_on_a_number_names_nothing() -> None:
    """A year or a count typed before a lower-case title is no name ("2012 documentary"); a code
    whose number follows its letters is ("xr 500")."""
    assert numeric("1931") and numeric("2012 documentary winter")
    assert not numeric("xr 500") and not numeric("nahan tone poem")


def test_runs_opening_on_an_article_have_their_own_cap() -> None:
    """The runs opening on an article or a preposition go into the same one batch lookup as the
    others: at most MAX_OPENED_KEYS of them (longest first), however long the question."""
    long = "who drew " + " and ".join(f"the {w} mill by the {w} weir" for w in "red tan ash oak elm yew fir".split())
    keys = lower_keys(long)
    opened = [k for k in keys if k.split(" ", 1)[0] in {"the", "by"}]
    assert len(opened) == MAX_OPENED_KEYS, opened
    assert len(keys) <= MAX_LOWER_KEYS + MAX_OPENED_KEYS


def test_a_lower_case_title_may_open_on_an_article_or_a_preposition() -> None:
    """Runs of two words or more opening on an article or a preposition are candidates too, after
    the others; never one ending on a function word, nor the word alone."""
    keys = lower_keys("who photographed after prinzheim and the drystar affair")
    assert {"after prinzheim", "the drystar affair"} <= set(keys)
    assert "the" not in keys and "after" not in keys and "and the" not in keys
    assert keys.index("the drystar affair") > keys.index("drystar affair")
