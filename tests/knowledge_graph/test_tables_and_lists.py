"""Links stated by a page's markdown structure (#28): a key-value table row ("| Auditor | N |" in a
firm's "| Field | Value |" infobox, which read nothing before the review's mend) and an item of a
list under a label ("Pupils:" then "- N") are relations of the page's subject, and the `kg` ranker
follows them through the search endpoint and `file_search`; the tables of a manual page (options,
values, environment, exit codes) state none. The texts are this test's own; before `tables.py`, no
table row or list item gave a relation (the chains below ended at the table's or list's page, the
manual page's maintainer row was no relation), and a table row was read as one sentence across its
cells, so the option table's flags became phrase relations ("| -n | Dry Run |" -> the page's subject
`~n` Dry Run)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from openai import OpenAI

from tests.knowledge_graph.chain_checks import assert_chain_answers_first
from tests.knowledge_graph.test_knowledge_graph import KG, MODEL, _entities
from tests.support.procs import Backend, Gateway, gateway
from tests.support.retrieval_helpers import upload_pages

PAGES = {
    # the auditor only in an infobox ("| Field | Value |"); the founder, a distractor, in prose
    "kestrel.md": "# Kestrel Analytics\n\nKestrel Analytics is a data consultancy with forty staff. Mona Reyes "
    "started it in 2011.\n\n| Field | Value |\n|---|---|\n| Auditor | Tomas Quill |\n| Staff | 40 |\n"
    "| Office hours | Nine to Five |\n\nIt publishes a survey every spring.",
    "quill.md": "# Tomas Quill\n\nTomas Quill is an accountant. As a boy, Tomas Quill grew up in Varnholt.",
    "reyes.md": "# Mona Reyes\n\nMona Reyes is a statistician. Mona Reyes grew up in Orrigan.",
    "varnholt.md": "# Varnholt\n\nVarnholt has trams, a canal and a covered market.",
    "orrigan.md": "# Orrigan\n\nOrrigan sits on a plateau above a reservoir.",
    # the pupil only in a list under a label; her own teacher, a distractor, in prose
    "moor.md": "# Hedda Moor\n\nHedda Moor is a printmaker of the north coast. Moor studied under Aksel Brun.\n\n"
    "Pupils:\n- Sigrun Ness (1931)\n- Tor Blom, a painter\n\nShe kept a press in an old boathouse.",
    "ness.md": "# Sigrun Ness\n\nSigrun Ness is an engraver. Ness was raised in Kalvby.",
    "blom.md": "# Tor Blom\n\nTor Blom is a painter of harbours and boats.",
    "brun.md": "# Aksel Brun\n\nAksel Brun is a lithographer. Brun was raised in Vigby.",
    "kalvby.md": "# Kalvby\n\nKalvby is a hamlet of turf houses under a fell.",
    "vigby.md": "# Vigby\n\nVigby is a ferry landing with a chapel.",
    "notes.md": "# Audit and print notes\n\nAn auditor checks the accounts once a year; a pupil of a printmaker "
    "learns to cut and ink the block.",
}

QUESTIONS = {
    "Where did the auditor of Kestrel Analytics grow up?": "varnholt.md",
    "Where was the pupil of Hedda Moor raised?": "kalvby.md",
}

# a manual page as markdown: tables of options, values, environment and exit codes, whose capitalised
# cells ("Auto", "Never", "Dry Run", "None") are no names of anyone the page is about, and one row
# that does name someone
MANUAL = (
    "# Syncit\n\nSyncit copies directories between hosts over a secure channel.\n\n## Options\n\n"
    "| Option | Description |\n|---|---|\n| `-v`, `--verbose` | Print Debug Output |\n| `-q` | Quiet |\n"
    "| `--color WHEN` | Never, Always or Auto |\n| -n | Dry Run |\n\n"
    "| Value | Meaning |\n|---|---|\n| Auto | Colour on a terminal |\n| Always | Colour |\n| Never | Plain |\n\n"
    "## Environment\n\n| Variable | Default |\n|---|---|\n| SYNCIT_HOME | None |\n| TMPDIR | Temp Dir |\n\n"
    "## Exit status\n\n- 0 Success\n- 1 Syntax Error\n- 2 Protocol Error\n\n"
    "## Commands\n\n| Command | Effect |\n|---|---|\n| push | Send Files |\n| pull | Fetch Files |\n\n"
    "## Maintainers\n\n| Maintainer | Karin Holm |\n|---|---|\n| Since | 2019 |\n"
)


@pytest.fixture(scope="module")
def door(backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    """A gateway with the local embedder (no keys), as the chain-question tests run one."""
    with gateway(backend.url, tmp_path_factory.mktemp("kg-tables"), GATEWAY_AUTH="none") as gw:
        yield gw


def test_a_table_row_and_a_list_item_are_links_the_kg_ranker_follows(
    door: Gateway, backend: Backend, marker: str
) -> None:
    """Each question's second hop starts from a name stated only in a table row or a list item;
    the answer page shares no word with the question, and the page's prose names a distractor
    (the founder, the printmaker's own teacher) whose birthplace is the wrong answer."""
    own = OpenAI(base_url=door.url, api_key="unused", max_retries=0)
    store = upload_pages(own, "kg-tables", PAGES)
    via = "Where was the pupil of Hedda Moor raised?"
    assert_chain_answers_first(own, backend, marker, store, QUESTIONS, via_file_search=via, model=MODEL, kg=KG)


def test_the_option_tables_of_a_manual_page_state_no_relations(door: Gateway) -> None:
    """Of the manual page's tables only the maintainer row names someone the page relates to: the
    options, values, environment, exit codes and commands give no relation, co-occurrence aside."""
    own = OpenAI(base_url=door.url, api_key="unused", max_retries=0)
    store = upload_pages(own, "kg-manual", {"syncit.md": MANUAL})
    manual = store.ids["syncit.md"]
    status, body = _entities(door.url, store.id, "", None, file_id=manual, limit="100")
    assert status == 200, body
    relations = {
        (e["name"], n["relation"], n["name"], n["direction"])
        for e in body["data"]
        for n in e["neighbours"]
        if n["relation"] != "co_occurs"
    }
    assert relations == {
        ("Syncit", "~maintainer", "Karin Holm", "out"),
        ("Karin Holm", "~maintainer", "Syncit", "in"),
    }, relations


def _typed_relations(
    door: Gateway, name: str, text: str, others: dict[str, str] | None = None
) -> set[tuple[str, str, str, str]]:
    """The relations other than co-occurrence extracted from one file, added to a store once
    `others` are in it (their titles are then the store's)."""
    own = OpenAI(base_url=door.url, api_key="unused", max_retries=0)
    store = upload_pages(own, name, others or {})
    file_id = upload_pages(own, name, {name: text}, store_id=store.id).ids[name]
    status, body = _entities(door.url, store.id, "", None, file_id=file_id, limit="100")
    assert status == 200, body
    return {
        (e["name"], n["relation"], n["name"], n["direction"])
        for e in body["data"]
        for n in e["neighbours"]
        if n["relation"] != "co_occurs"
    }


# a rowing club's page: lists under section headings that say nothing of how their names relate to
# the club, a heading that is itself a name, and a key-value row whose label is a name
CLUB = (
    "# Harbour Guild\n\nHarbour Guild is a rowing club.\n\n## Contact\n\n- Petra Holm\n- Ivo Sand\n\n"
    "## Tarnvik\n\n- Rune Berg\n- Nadia Voss\n\n## Kelton Bay\n\n- Mira Lund\n- Eva Moss\n\n"
    "### Fixed\n\n- Olle Dahl\n- Sven Ek\n\n"
    "## Table of contents\n\n- Rowing Season\n- Boat House\n\n## Boats bought\n\n- Sea Lark\n- Grey Gull\n\n"
    # a sub-item is its parent item's; a numbered list after a bulleted one is a list of its own
    "## Sponsors\n\n- Tilde Marsh\n  - Hugo Brandt\n- Oskar Lind\n1. Vera Nyman\n\n"
    "| | |\n|---|---|\n| Tarnvik | Lina Borg |\n| Coach | Aron Falk |\n"
)


def test_a_caption_or_label_that_is_a_name_or_a_section_heading_states_nothing(door: Gateway) -> None:
    """Only a plural noun heads a list of the subject's names ("Boats bought"); a
    heading that is a name ("## Kelton Bay", "## Tarnvik": a page of the store), a document's section
    heading ("## Contact", "### Fixed", "## Table of contents") and a key-value label that is a name
    ("| Tarnvik | Lina Borg |") give no relation."""
    relations = _typed_relations(door, "guild.md", CLUB, {"tarnvik.md": "# Tarnvik\n\nTarnvik is a town."})
    assert relations == {
        ("Harbour Guild", "~coach", "Aron Falk", "out"),
        ("Aron Falk", "~coach", "Harbour Guild", "in"),
        # a plural noun before a participle that modifies it heads its list
        ("Harbour Guild", "~boats bought", "Sea Lark", "out"),
        ("Sea Lark", "~boats bought", "Harbour Guild", "in"),
        ("Harbour Guild", "~boats bought", "Grey Gull", "out"),
        ("Grey Gull", "~boats bought", "Harbour Guild", "in"),
        ("Harbour Guild", "~sponsors", "Tilde Marsh", "out"),
        ("Tilde Marsh", "~sponsors", "Harbour Guild", "in"),
        ("Harbour Guild", "~sponsors", "Oskar Lind", "out"),
        ("Oskar Lind", "~sponsors", "Harbour Guild", "in"),
    }, relations


def test_a_fact_sheets_participle_label_and_a_cell_listing_names_are_rows(door: Gateway) -> None:
    """A fact sheet under an empty header: a participle's label ("Based in") and a label with a
    bracketed note whose cell lists names ("A, B and C") are rows of the page's subject (#28, the
    muffled corpus's diagnosis: before, "based in" was read as function words only, and a label's
    brackets or a cell of several names left the whole table unread)."""
    sheet = (
        "# Orrin Rovers\n\nCLUB FACT SHEET\n\n| | |\n|---|---|\n| Founded | 1891 |\n| Based in | Kelby |\n"
        "| Players past and present (selected) | Ada Vell, Bo Sarn and Cai Morl |\n"
    )
    others = {
        "kelby.md": "# Kelby\n\nKelby is a town.",
        **{f"p{i}.md": f"# {n}\n\n{n} is a winger." for i, n in enumerate(("Ada Vell", "Bo Sarn", "Cai Morl"))},
    }
    relations = _typed_relations(door, "orrin.md", sheet, others)
    out = {(a, rel, b) for a, rel, b, d in relations if d == "out"}
    assert ("Orrin Rovers", "located_in", "Kelby") in out, relations
    for player in ("Ada Vell", "Bo Sarn", "Cai Morl"):
        assert ("Orrin Rovers", "~players past and present", player) in out, relations


_GIVEN = ("Anna", "Bruno", "Clara", "Dmitri", "Elena", "Felix", "Greta", "Hugo", "Irene", "Jonas")
_FAMILY = ("Adler", "Brandt", "Costa", "Dorn", "Ebert", "Fuchs", "Graf", "Hahn", "Iversen", "Jung")


def test_a_long_table_cut_into_chunks_gives_no_rows_as_key_value_pairs(door: Gateway) -> None:
    """A catalogue table of products and their makers long enough to be cut into several chunks: the
    chunks after the first open with bare rows, no header and no rule; read as header-less key-value
    tables, every row was the page's subject `~widget ...` its maker. They are the rest of a table."""
    rows = "".join(f"| widget {chr(97 + i % 26)} | {_GIVEN[i % 10]} {_FAMILY[(i // 10) % 10]} |\n" for i in range(400))
    relations = _typed_relations(door, "catalogue.md", "# Catalogue\n\n| Product | Maker |\n|---|---|\n" + rows)
    assert relations == set(), sorted(relations)[:5]


def test_a_rows_value_with_its_year_or_a_dated_preposition_is_the_name(door: Gateway) -> None:
    """A key-value row's value is its name when only the year or a bracketed note of the row's fact
    closes it ("N (1883)", "P, 1927"), or when a year and a preposition open it ("1901, by N": the
    label's relation with that preposition); a name followed by other words ("N, retired", "N and
    friends") or coming after them ("62 Tower Street, P") is no value (#28, session 15: the swathed
    corpus's infoboxes; before, every such row was unread)."""
    sheet = (
        "# Orrin Hall\n\nOrrin Hall is a concert hall.\n\n| Field | Detail |\n|---|---|\n"
        "| Designed by | Ada Vell (1883) |\n| Based in | Kelby, 1927 |\n| Founded | 1901, by Bo Sarn |\n"
        "| Patron | Cai Morl (b. 1950) |\n| Address | 62 Tower Street, Lunde |\n"
        "| Organist | Dag Holt, retired |\n| Tenants | Eir Stam and friends |\n"
    )
    people = ("Ada Vell", "Bo Sarn", "Cai Morl", "Dag Holt", "Eir Stam")
    others = {
        "kelby.md": "# Kelby\n\nKelby is a town.",
        "lunde.md": "# Lunde\n\nLunde is a town.",
        **{f"p{i}.md": f"# {n}\n\n{n} is a musician." for i, n in enumerate(people)},
    }
    relations = _typed_relations(door, "orrin-hall.md", sheet, others)
    out = {(a, rel, b) for a, rel, b, d in relations if d == "out" and a == "Orrin Hall"}
    assert out == {
        ("Orrin Hall", "made_by", "Ada Vell"),
        ("Orrin Hall", "located_in", "Kelby"),
        ("Orrin Hall", "founded_by", "Bo Sarn"),
        ("Orrin Hall", "~patron", "Cai Morl"),
    }, relations
