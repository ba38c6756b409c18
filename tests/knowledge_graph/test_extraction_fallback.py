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


def test_words_that_refer_back_to_the_subject_label_the_link_from_the_name() -> None:
    # the words after the name say what it did to the subject: name -> subject, as the rules read
    # "It is where N spent his childhood" ("where" is "in which")
    links = _links("# Tarn Guild\n\nAda Vell founded us in 1961.")
    assert links[("ada vell", "tarn guild")] == ("~founded", WEIGHT)
    links = _links("# Kelby\n\nIt is where Ivo Maren spent a childhood.")
    assert links[("ivo maren", "kelby")] == ("~spent a childhood in", WEIGHT)


def test_a_link_shared_by_the_names_of_one_sentence_is_weaker() -> None:
    links = _links("# Tarn Guild\n\nOrlo Farm and Vask Mill supply our wool.")
    assert links[("orlo farm", "tarn guild")] == ("~supply wool", WEIGHT / 2)
    assert links[("vask mill", "tarn guild")] == ("~supply wool", WEIGHT / 2)


def test_a_field_value_continued_by_semicolons_keeps_its_key() -> None:
    links = _links("# Tarn Guild\n\nPart of: Kelby\n\nOther contributors: Ada Vell (editor); Bob Lee (printer)")
    assert links[("tarn guild", "kelby")] == ("~part of", WEIGHT)  # a key of a noun and "of"
    assert links[("tarn guild", "ada vell")] == ("~other contributors", WEIGHT / 2)
    assert links[("tarn guild", "bob lee")] == ("~other contributors", WEIGHT / 2)


def test_here_after_a_noun_refers_back_to_the_subject() -> None:
    links = _links("# Tarn Guild\n\nAda Vell is a master weaver here.")
    assert links[("ada vell", "tarn guild")] == ("~master weaver in", WEIGHT)


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ("Opened: 1901. Architect: Ada Vell.", "~architect"),  # not the line's first key
        ("Built: 1890; owner: Ada Vell; town: Kelby.", "~owner"),
    ],
)
def test_each_field_of_a_line_is_labelled_by_its_own_key(body: str, key: str) -> None:
    links = _links(f"# Orlo House\n\n{body}")
    assert links[("orlo house", "ada vell")] == (key, links[("orlo house", "ada vell")][1])


def test_a_name_a_rule_relates_gets_no_fallback() -> None:
    links = _links("# Ada Vell\n\nAda Vell was born in Kelby in 1901.", "Kelby")
    assert links == {("ada vell", "kelby"): ("born_in", 1.0)}


@pytest.mark.parametrize(
    "body",
    [
        "Members: Ada Vell; Bob Lee; Carl Berg; Dana Ek.",  # a field listing names
        "Ada Vell, Bob Lee, Carl Berg, Dana Ek and Eva Lund founded us.",  # a crowded sentence
        "Open the Settings page. Click the Save button. Install the Debian package.",  # instructions
        "Contact Bob Lee for details about us.",  # an instruction read as a name: no verb after it
        "Ada Vell was never here. Bob Lee could have worked there.",  # denied, only possible
        "Ada Vell didn\u2019t found us. Bob Lee can\u2019t join us. Carl Berg should join us.",  # curly, modal
        "Ada Vell grew apples and sold them.",  # "them" is the apples: the words stop at "and"
        "Ada Vell's son founded us.",  # the son's clause, not Ada Vell's
        "Ada Vell had two children. Bob Lee works in Kelby.",  # said of the name, not the subject
        "Its rival, in Kelby, is owned by Beta Ltd.",  # the rival's relation
        "Visitors to the Orlo Bridge often ask about its architect.",  # the bridge's own architect
        "Note: Ada Vell and Bob Lee.",  # a remark's key
        "Updated: May 2020. Contact Ada Vell for details.",  # a key's value ends at its sentence
        "The Tarn River rises in the Orlo Hills.\n\nSource: Kelby Press",  # an attribution
        "From: Bob Lee\nTo: Ada Vell\nCc: Carl Berg",  # keys of a function word or two letters
        "A sample page:\n\n```markdown\nAda Vell founded us in 1961.\n```\n",  # a code block
        "Backend: `Orlo Cache`",  # an inline code span: an identifier, no name the page relates to
        "Delete specified Globals from Orlo Cache.",  # an imperative (`_instruction`)
        "After Ada Vell sold the farm beside it, the road was widened.",  # "it" is the farm's (a determiner)
    ],
)
def test_look_alikes_give_no_fallback_link(body: str) -> None:
    links = _links(f"# Tarn Guild\n\n{body}")
    # the fallback's links either way (a rule's weigh 1.0: "depends: Orlo Cache" is the field rule's)
    assert not any("tarn guild" in pair and weight <= WEIGHT for pair, (_, weight) in links.items()), links


def test_the_guards_look_alikes_link_without_what_they_guard() -> None:
    # each look-alike above gives its link once the guarded word goes: the guards, not some other
    # rule, keep those links out
    links = _links("# Tarn Guild\n\nBackend: Orlo Cache")
    assert links[("tarn guild", "orlo cache")] == ("~backend", WEIGHT)
    links = _links("# Tarn Guild\n\nAfter Ada Vell bought it, the road was widened.")
    assert links[("ada vell", "tarn guild")] == ("~bought", WEIGHT)
    links = _links("# Tarn Guild\n\nThey deleted specified Globals from Orlo Cache.")
    assert links[("tarn guild", "orlo cache")] == ("~deleted specified from", WEIGHT)


def test_prose_after_a_code_block_keeps_its_link_before_an_inline_code_span() -> None:
    # the fence's closing ``` is no inline code span's opening backtick: the prose up to `tg` is prose
    links = _links("# Tarn Guild\n\n```\nx = 1\n```\nAfter Ada Vell bought it, the road was widened. Run `tg`.\n")
    assert links[("ada vell", "tarn guild")] == ("~bought", WEIGHT)


def test_a_name_in_inline_code_gets_no_fallback_link_but_its_field_neighbour_does() -> None:
    # the key's value names two: the one in `code` is an identifier, the other keeps the whole link
    links = _links("# Tarn Guild\n\nBackend: Orlo Cache or `Vask Store`")
    assert {pair: kind for pair, kind in links.items() if kind[1] <= WEIGHT} == {
        ("tarn guild", "orlo cache"): ("~backend", WEIGHT)
    }
