"""Weak links from a page's short tables and labelled lists (`headed.py`, #28 session 14): a table of
at most `CROWD` rows whose first column is names, under a header row, or a list of at most `CROWD`
names under a "Label:" line, lists things of the page's subject, labelled by the header or label;
a register (more rows), a header that names someone, a remark's label or a value column gives
nothing. Through ingestion's `build_file_graph`; fictional names, the test's own wording."""

from __future__ import annotations

import pytest

from gateway.knowledge_graph.extract import RuleExtractor
from gateway.knowledge_graph.fallback import CROWD, WEIGHT
from gateway.knowledge_graph.index import build_file_graph


def _links(text: str, *titles: str) -> dict[tuple[str, str], tuple[str, float]]:
    graph = build_file_graph(RuleExtractor(), "s", "f", "page.md", [("c", text)], list(titles))
    return {(r.source, r.target): (r.type, r.weight) for r in graph.relations if r.type != "co_occurs"}


def test_a_short_table_of_names_links_the_subject_by_its_header() -> None:
    # "Vask" is no title yet (its page comes later): a lone capitalised word in such a column counts
    table = "| Town | Population (1901) |\n|---|---|\n| Kelby | 9,100 |\n| Vask | 3,000 |\n"
    links = _links(f"# Orlo\n\nThe Orlo district is hilly.\n\n{table}", "Kelby")
    assert links[("orlo", "kelby")] == ("~town", WEIGHT / 2)
    assert links[("orlo", "vask")] == ("~town", WEIGHT / 2)


def test_a_short_list_under_a_label_links_the_subject_by_the_label() -> None:
    links = _links("# Tarn Line\n\nA shipping firm.\n\nFleet:\n- SS Kelby Star, steamer\n- SV Orlo Maid, barque\n")
    assert links[("tarn line", "sv orlo maid")] == ("~fleet", WEIGHT / 2)


@pytest.mark.parametrize(
    "body",
    [
        "| Town | Population |\n|---|---|\n"
        + "".join(f"| Kelby {c} | 100 |\n" for c in "ABCDEFG"[: CROWD + 1]),  # a register
        "| Town | Population |\n|---|---|\n| Kelby | 9,100 |\n| many | 3,000 |\n",  # a cell that is no name
        "See also:\n- Kelby Star\n- Orlo Maid\n",  # a remark's label
        "| Option | Meaning |\n|---|---|\n| -v | Kelby Star |\n",  # names in the second column only
        "| Value | Meaning |\n|---|---|\n| Auto | Pick one |\n| Never | Skip it |\n",  # lone words beside words
    ],
)
def test_look_alikes_give_no_headed_link(body: str) -> None:
    links = _links(f"# Tarn Line\n\nA shipping firm.\n\n{body}", "Kelby")
    assert not any(pair[0] == "tarn line" and weight <= WEIGHT for pair, (_, weight) in links.items()), links
