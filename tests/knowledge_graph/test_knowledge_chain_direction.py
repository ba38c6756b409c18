"""Two general rules from the misses of the spent `blind` corpus (#28), through the search endpoint:

* "of" between two capitalised words is inside a name ("Varrow School of Lettering"), no link
  between two relations: "In which town is Varrow School of Lettering?" asks for one relation, and
  was walked as a chain of two (the school's alumni's birthplaces outranked the town's page);
* an entity entered as a relation's target goes on as the source of the next: at the town where a
  firm is headquartered, "Dalby is a mill town in the shire of Wensmoor" (the town's own
  statement) is the chain's next step, however much more like the question the statements other
  firms make about the town are ("Kestle Paper has its offices in the town": they lead to siblings).
  Judged against those, the town's own relation was no step and the walk's chain stopped at Dalby;
  "Gull Market belongs to Dalby", the likest to the question's "belong", led the chain to the market.
Each chain's answer page shares no word with its question.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from openai import OpenAI

from gateway.knowledge_graph.question import steps
from tests.knowledge_graph.test_knowledge_graph import KG
from tests.support.procs import Backend, gateway
from tests.support.retrieval_helpers import upload_pages

TOWNS = {
    "orrin.md": "# Orrin Mills\n\nOrrin Mills is a paper maker headquartered in Dalby. It employs 300 people.",
    "dalby.md": "# Dalby\n\nDalby is a mill town in the shire of Wensmoor, with a fish market. Kestle Paper has "
    "its offices in the town.",
    "wensmoor.md": "# Wensmoor\n\nWensmoor has moors, sheep and a cold coast. Its seat is Harl.",
    "kestle.md": "# Kestle Paper\n\nKestle Paper is a paper maker. It keeps its head office in Dalby.",
    "brune.md": "# Brune Ink\n\nBrune Ink is an ink maker. Brune Ink has had its main office in Dalby since 1950.",
    "vell.md": "# Vell Boats\n\nVell Boats is a boat builder in Dalby.",
    "harl.md": "# Harl\n\nHarl is a market town in the shire of Wensmoor.",
    "tolt.md": "# Tolt Press\n\nTolt Press is a printer headquartered in Harl.",
    # another entity's statement about the town, more like the question ("belong") than the town's own
    "gull.md": "# Gull Market\n\nGull Market is a fish market on the quay. It belongs to Dalby.",
}


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("In which town is Varrow School of Lettering?", 1),
        ("Who founded the Bank of Tarsk?", 1),
        ("Where was the founder of the Bank of Tarsk born?", 2),
        ("What is the birthplace of the founder of Quill Institute of Art?", 2),
        ("What is the hometown of the founder of the firm behind Vel Orbis?", 3),  # lower-case "of": links
        ("Where was the CEO of Acme born?", 2),  # an abbreviated title before "of": a relation
        ("Where was the CTO of the maker of Driork 90 born?", 3),
    ],
)
def test_of_inside_a_name_is_no_link(question: str, count: int) -> None:
    assert steps(question) == count


def _ranked(own: OpenAI, store_id: str, names: dict[str, str], question: str, **extra: object) -> list[str]:
    page = own.vector_stores.search(store_id, query=question, **extra)  # type: ignore[arg-type]
    return list(dict.fromkeys(names[h.file_id] for h in page.data))


def test_the_chain_goes_on_from_a_target_as_a_source(backend: Backend, tmp_path: Path) -> None:
    question = "To which province does the place where Orrin Mills is headquartered belong?"
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store = upload_pages(own, "kg-direction", TOWNS)
        names = store.names
        ranked = _ranked(own, store.id, names, question, ranking_options=KG)
        assert ranked[0] == "wensmoor.md", ranked
        assert _ranked(own, store.id, names, question)[0] != "wensmoor.md"
