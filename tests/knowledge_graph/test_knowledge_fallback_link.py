"""A chain whose last link only a field line states, through the search endpoint (#28 session 13,
`fallback.py`): "Headquarters: Kelby" on the maker's page is no sentence any rule reads, so before
the fallback link the maker and Kelby only co-occurred, which the walk follows on its first hop
alone, and the kg ranker could not reach the town from the aircraft. The fallback links the maker
to Kelby by the line's key (`~headquarters`), like the question's own word, so the town's page
leads. Fictional names, the test's own wording; the distractor towns are written as Kelby is.
"""

from __future__ import annotations

from pathlib import Path

from openai import OpenAI

from tests.knowledge_graph.test_knowledge_graph import KG
from tests.support.procs import Backend, gateway
from tests.support.retrieval_helpers import upload_pages

TOWNS = ("Kelby", "Dunmere", "Harrowgate", "Lissom", "Tarnby")
PAGES = {
    "vask-40.md": "# Vask 40\n\nThe Vask 40 is a light aircraft built by Orlo Aeroworks. It first flew in 1990.\n",
    "orlo-aeroworks.md": "# Orlo Aeroworks\n\nAn aircraft maker with a long history of light aircraft.\n\n"
    "* Headquarters: Kelby\n",
    "brisk-aero.md": "# Brisk Aero\n\nA maker of gliders and light aircraft.\n\n* Headquarters: Dunmere\n",
    **{
        f"{town.lower()}.md": f"# {town}\n\n{town} is a market town by the river, with a harbour, a bridge and "
        "a weekly fair. Its headquarters buildings line the square.\n"
        for town in TOWNS
    },
}
QUESTION = "In which town are the headquarters of the maker of the Vask 40?"


def test_a_field_lines_link_completes_the_chain(backend: Backend, tmp_path: Path) -> None:
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store = upload_pages(own, "kg-fallback-link", PAGES)
        page = own.vector_stores.search(store.id, query=QUESTION, ranking_options=KG)  # type: ignore[arg-type]
        ranked = store.ranked(page.data)
        assert ranked[0] == "kelby.md", ranked
