"""A chain whose first link a page states before the title it names has a page of its own, through
the search endpoint (#28 session 14, `names.py`): the writer's page is ingested first ("She wrote The
Grey Harbour"), when the store knows no such title, so the rule extractor alone reads the name. With
the capital "The" dropped the link was stored for "grey harbour" and the book's page, whose key is
"the grey harbour", never met it: the kg ranker could not walk from the book to its writer and on to
her birthplace. Read whole, the walk reaches the town. Fictional names, the test's own wording; the
distractor towns are written as Kelby is, and the book's page does not name its writer.
"""

from __future__ import annotations

from pathlib import Path

from openai import OpenAI

from tests.knowledge_graph.test_knowledge_graph import KG
from tests.support.procs import Backend, gateway
from tests.support.retrieval_helpers import Uploaded, upload_pages

TOWNS = ("Kelby", "Dunmere", "Harrowgate", "Lissom", "Tarnby")
WRITER = {"ada-vell.md": "# Ada Vell\n\nAda Vell was born in Kelby in 1911. She wrote The Grey Harbour in 1950.\n"}
LATER = {
    "the-grey-harbour.md": "# The Grey Harbour\n\nThe Grey Harbour is a novel of the sea, first printed in 1950.\n",
    "bo-lund.md": "# Bo Lund\n\nBo Lund was born in Dunmere in 1920. He wrote The Salt Road in 1960.\n",
    **{
        f"{town.lower()}.md": f"# {town}\n\n{town} is a market town by the river, with a harbour, a bridge and "
        "a weekly fair. Writers were born there.\n"
        for town in TOWNS
    },
}
QUESTION = "In which town was the writer of The Grey Harbour born?"


def test_a_title_named_before_its_page_is_read_whole(backend: Backend, tmp_path: Path) -> None:
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        first = upload_pages(own, "kg-unknown-title", WRITER)  # extracted before the book's page exists
        later = upload_pages(own, "kg-unknown-title", LATER, store_id=first.id)
        store = Uploaded(first.id, {**first.ids, **later.ids})
        page = own.vector_stores.search(store.id, query=QUESTION, ranking_options=KG)  # type: ignore[arg-type]
        ranked = store.ranked(page.data)
        assert ranked[0] == "kelby.md", ranked
