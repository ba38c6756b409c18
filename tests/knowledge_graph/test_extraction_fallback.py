"""The general fallback link (`fallback.py`, #28 session 13): a name a page mentions that no rule
relates to the page's subject or to another name of its sentence is linked to the subject, weakly,
by its clause's words or its line's key. Through ingestion's `build_file_graph` (the page's subject
is its title line, as in production), each with the look-alikes that must give no such link: a
sentence a rule already reads, a crowded sentence or field, a manual page's imperatives, a denied
or modal clause, words said of the name itself, a sentence opening on a possessive. Fictional names,
the test's own wording."""

from __future__ import annotations

import pytest

from gateway.knowledge_graph.extract import RuleExtractor
from gateway.knowledge_graph.fallback import WEIGHT
from gateway.knowledge_graph.index import build_file_graph


def _links(text: str, *titles: str) -> dict[tuple[str, str], tuple[str, float]]:
    """Typed links of a one-chunk file as ingestion stores them: (source, target) -> (type, weight)."""
    graph = build_file_graph(RuleExtractor(), "s", "f", "page.md", [("c", text)], list(titles))
    return {(r.source, r.target): (r.type, r.weight) for r in graph.relations if r.type != "co_occurs"}


def test_a_field_line_links_the_subject_by_its_key() -> None:
    links = _links("# Tarn Guild\n\nA guild of makers.\n\n* Headquarters: Kelby")
    assert links[("tarn guild", "kelby")] == ("~headquarters", WEIGHT)


def test_words_that_refer_back_to_the_subject_label_the_link() -> None:
    links = _links("# Tarn Guild\n\nAda Vell founded us in 1961.")
    assert links[("tarn guild", "ada vell")] == ("~founded us in", WEIGHT)
    links = _links("# Kelby\n\nIt is where Ivo Maren spent a childhood.")
    assert links[("kelby", "ivo maren")] == ("~spent a childhood", WEIGHT)


def test_a_link_shared_by_the_names_of_one_sentence_is_weaker() -> None:
    links = _links("# Tarn Guild\n\nOrlo Farm and Vask Mill supply our wool.")
    assert links[("tarn guild", "orlo farm")] == ("~supply our wool", WEIGHT / 2)
    assert links[("tarn guild", "vask mill")] == ("~supply our wool", WEIGHT / 2)


def test_a_name_a_rule_relates_gets_no_fallback() -> None:
    links = _links("# Ada Vell\n\nAda Vell was born in Kelby in 1901.", "Kelby")
    assert links == {("ada vell", "kelby"): ("born_in", 1.0)}


@pytest.mark.parametrize(
    "body",
    [
        "Members: Ada Vell; Bob Lee; Carl Berg; Dana Ek.",  # a field listing names
        "Ada Vell, Bob Lee, Carl Berg, Dana Ek and Eva Lund met in Kelby.",  # a crowded sentence
        "Open the Settings page. Click the Save button. Install the Debian package.",  # instructions
        "Ada Vell was never here. Bob Lee could have worked there.",  # denied, only possible
        "Ada Vell had two children. Bob Lee works in Kelby.",  # said of the name, not the subject
        "Its rival, in Kelby, is owned by Beta Ltd.",  # the rival's relation
        "Visitors to the Orlo Bridge often ask about its architect.",  # the bridge's own architect
        "Note: Ada Vell and Bob Lee.",  # a remark's key
    ],
)
def test_look_alikes_give_no_fallback_link(body: str) -> None:
    links = _links(f"# Tarn Guild\n\n{body}")
    assert not any(src == "tarn guild" for src, _ in links), links
