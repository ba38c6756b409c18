"""Layouts that state a link away from a sentence's "X <words> Y" (#28, the masked corpus's
diagnosis), through the extractor's API (`extract`, as ingestion runs it per chunk):

- a field line, "Label: Name", in a record (two fields or more in one block: a record's or a card's
  "Keeper: N.", "Built by: W, 1901."): the page's subject -[~label]-> the name, as a key-value table
  row says it; not a lone field line ("Note: See Appendix B."), a value opening on an "-ing" form, a
  value with other names after it ("Entries: A; B."), a label that is a name, or one ending on a
  function word other than a participle's preposition ("See also: N");
- a nominalised clause, "The <noun> of A <preposition> B" with a verb's noun ("The rebuilding of A
  by N", "the schooling of N at S"): A -[~<noun> <preposition>]-> B; not a noun naming a thing
  ("The church of A in B", "The statue of N at P": B places the thing).

And a word of address ("Madam, — I was born at P", "Dear Sir, I ...": an opening word or two set off
by a comma from an I/we/you clause) is no name, so the speaker's clause is the page subject's; a
parenthetical ("Rome, I think, was ...") leaves the name the subject.

Fictional names, the test's own wording. Each test fails on the extraction before the rule."""

from __future__ import annotations

from gateway.knowledge_graph.extract import Gazetteer, RuleExtractor, extract


def _typed(text: str, subject: tuple[str, str], *titles: str) -> set[tuple[str, str, str]]:
    graph = extract(RuleExtractor(), text, known=Gazetteer([subject[0], *titles]), subject=subject)
    return {(s, d, kind) for s, d, kind, _ in graph.relations if kind != "co_occurs"}


def test_a_field_line_names_the_pages_subjects_relation() -> None:
    card = "Record card. Kind: rowing boat, clinker built.\nBuilt by: Orrin Boatyard, 1901.\nKeeper: Ada Vell."
    got = _typed(card, ("Sela Skiff", "product"), "Orrin Boatyard", "Ada Vell")
    assert ("sela skiff", "orrin boatyard", "~built by") in got or ("sela skiff", "orrin boatyard", "made_by") in got
    assert ("sela skiff", "ada vell", "~keeper") in got
    # a field after another sentence on the same line, as a gazetteer writes it
    entry = "DUNHOLT, a fishing town; pop. 4,100. Chief catch: herring. Harbour master: Ivo Sand."
    assert ("dunholt", "ivo sand", "~harbour master") in _typed(entry, ("Dunholt", "place"), "Ivo Sand")


def test_a_field_line_with_many_names_a_name_or_a_see_also_states_nothing() -> None:
    subject = ("Tarn Guild", "organization")
    assert not _typed("Entries: Anna Jones; Bob Lee; Carl Berg.", subject, "Anna Jones", "Bob Lee", "Carl Berg")
    assert not _typed("See also: Ada Vell.", subject, "Ada Vell")
    assert not _typed("Anna Jones: Bob Lee.", subject, "Anna Jones", "Bob Lee")
    assert not _typed("Kind: a club for rowers.", subject)


def test_a_nominalised_clause_links_its_two_names() -> None:
    text = "The rebuilding of Orrin Mill by Tove Lind in 1920 doubled its output."
    got = _typed(text, ("Orrin Mill", "place"), "Tove Lind")
    assert ("orrin mill", "tove lind", "~rebuilding by") in got
    text = "The apprenticeship of Ada Vell under Tove Lind lasted four years."
    assert ("ada vell", "tove lind", "~apprenticeship under") in _typed(text, ("Ada Vell", "person"), "Tove Lind")
    # a locative places the act: "at" after a verb's noun is a relation of A's, as after its verb
    text = "The schooling of Ada Vell at Kelton Academy lasted four years."
    assert ("ada vell", "kelton academy", "~schooling at") in _typed(text, ("Ada Vell", "person"), "Kelton Academy")


def test_a_noun_of_no_verb_before_of_links_nothing_by_it() -> None:
    got = _typed("The church of Saint Anna in Dunholt is old.", ("Saint Anna", "place"), "Dunholt")
    assert not any(kind.startswith("~church") for _, _, kind in got)
    # a noun naming a thing, no verb's ("church", "statue", "wife", "copy"), states no act
    for text, subject, other in [
        ("The statue of Nelson at Trafalgar Square is tall.", ("Nelson", "person"), "Trafalgar Square"),
        ("The wife of Henry at Hampton Court was Jane Seymour.", ("Henry", "person"), "Hampton Court"),
        ("A copy of Hamlet from Oxford Library was sold.", ("Hamlet", "work"), "Oxford Library"),
    ]:
        got = _typed(text, subject, other, "Jane Seymour")
        assert not any(kind.startswith(("~statue", "~wife", "~copy", "~schooling")) for _, _, kind in got), got


def test_a_lone_field_line_is_no_record() -> None:
    """A record lays out two fields or more in one block; a lone "Label: Value" line is a note, a tip
    or a heading, and a value opening on an "-ing" form reads as a clause."""
    subject = ("Install Guide", "topic")
    titles = ("Appendix B", "Press Enter", "Setup Wizard", "Hello World", "Getting Started")
    for line in ["Note: See Appendix B.", "Tip: Press Enter.", "Usage: Run Setup Wizard.", "Example: Hello World."]:
        assert not _typed(line, subject, *titles), line
    assert not _typed("Kind: guide.\nNext: Getting Started.", subject, *titles)


def test_a_word_of_address_is_no_name() -> None:
    """A lone opening word set off by a comma from a clause whose subject is "I", "we" or "you" is a
    word of address ("Madam, — I ...", a letter's salutation): the clause is the speaker's, so on the
    speaker's page the page's subject stands in, as for a clause with no name before its words."""
    letter = "To the harbour board, 1871. Madam, — I was born at Dunholt and trained at Kelton Academy."
    got = _typed(letter, ("Ada Vell", "person"), "Dunholt", "Kelton Academy")
    assert ("ada vell", "dunholt", "born_in") in got
    assert not any(src == "madam" for src, _, _ in got)
    assert ("ada vell", "leeds", "born_in") in _typed("Dear Sir, I was born in Leeds.", ("Ada Vell", "person"), "Leeds")
    # a parenthetical I/we/you clause, closed by a comma within a few words, leaves the name the subject
    for text, subject, other, rel in [
        (
            "Einstein, you may recall, was born in Ulm.",
            ("Physics Prize", "topic"),
            "Ulm",
            ("einstein", "ulm", "born_in"),
        ),
        (
            "Rome, I think, was founded by Romulus.",
            ("Old Texts", "topic"),
            "Romulus",
            ("rome", "romulus", "founded_by"),
        ),
        (
            "Nginx, you see, was written by Igor Sysoev.",
            ("Web Servers", "topic"),
            "Igor Sysoev",
            ("nginx", "igor sysoev", "written_by"),
        ),
    ]:
        assert rel in _typed(text, subject, other), text
    # a name followed by a comma and another clause's subject stays a name
    assert ("ivo sand", "dunholt", "born_in") in _typed(
        "Ivo Sand, who was born in Dunholt, sails.", ("Tarn Guild", "organization"), "Ivo Sand", "Dunholt"
    )


def test_a_list_items_field_with_a_colon_or_a_spaced_dash_is_a_field() -> None:
    """A record laid out as a list (a credit block, a CV): "- Label: Name" and "- Label \u2014 Name"."""
    credits = "CREDITS\n- Builder \u2014 Orrin Boatyard\n- Keeper \u2013 Ada Vell\n- Length \u2014 9 m"
    got = _typed(credits, ("Sela Skiff", "product"), "Orrin Boatyard", "Ada Vell")
    assert ("sela skiff", "orrin boatyard", "~builder") in got
    assert ("sela skiff", "ada vell", "~keeper") in got
    cv = "CURRICULUM VITAE\n\n- Born: 1938 in Dunholt\n- Schooling: Kelton Academy\n- Languages: three"
    got = _typed(cv, ("Ada Vell", "person"), "Kelton Academy", "Dunholt")
    assert ("ada vell", "kelton academy", "~schooling") in got


def _labelled(text: str, subject: tuple[str, str], *titles: str) -> set[str]:
    """The kinds of the relations a field's label would name (the sentences' own relations aside)."""
    labels = ("~builder", "~keeper", "~fixed", "~note", "~thanks", "~ada")
    return {kind for _, _, kind in _typed(text, subject, *titles) if kind.startswith(labels)}


def test_a_spaced_dash_outside_a_list_item_or_before_no_lone_name_states_nothing() -> None:
    subject = ("Sela Skiff", "product")
    titles = ("Orrin Boatyard", "Ada Vell")
    # prose: a spaced dash opens an aside, not a value
    assert not _labelled("Builder \u2014 Orrin Boatyard built it.\nKeeper \u2014 Ada Vell kept it.", subject, *titles)
    # one item alone is no record
    assert not _labelled("- Builder \u2014 Orrin Boatyard", subject, *titles)
    # an item whose label is a name, whose value is a clause, or a name followed by more words
    items = "- Ada Vell \u2014 Orrin Boatyard\n- Fixed \u2014 Orrin Boatyard crash on start\n- Note \u2014 see Ada Vell"
    assert not _labelled(items, subject, *titles)
    # a changelog's items: a value naming several
    log = "- Thanks \u2014 Ada Vell and Orrin Boatyard\n- Fixed \u2014 Orrin Boatyard, Ada Vell"
    assert not _labelled(log, subject, *titles)


def test_an_irregular_plural_heads_an_enumeration_as_a_plural_in_s_does() -> None:
    """ "Alumni: A, B and C." reads as "Graduates: A, B and C." does (Latin "-i"/"-ae", "-men",
    "children", "people"); a name, a singular note or a clause heads none."""
    subject = ("Kelton Academy", "organization")
    titles = ("Ada Vell", "Tove Lind", "Ivo Sand")
    for label in ["Alumni", "Notable alumnae", "Chairmen", "Notable people", "Children"]:
        got = _typed(f"{label}: Ada Vell, Tove Lind and Ivo Sand.", subject, *titles)
        assert {d for s, d, _ in got if s == "kelton academy"} == {"ada vell", "tove lind", "ivo sand"}, label
    for label in ["Anna Jones", "Note", "Data", "Men"]:
        got = _typed(f"{label}: Ada Vell, Tove Lind and Ivo Sand.", subject, *titles, "Anna Jones")
        assert not any(s == "kelton academy" for s, _, _ in got), label


def test_a_fields_dated_value_gives_its_place_by_the_preposition() -> None:
    """A CV's "Born: 1938 in P" or "Died: 4 May 1990 at P": the label and the preposition are the
    relation ("born in" is `born_in`); a value with no preposition, or a date alone, gives nothing."""
    cv = "CURRICULUM VITAE\n- Born: 1938 in Dunholt\n- Died: 4 May 1990 at Kelton\n- Schooling: none"
    got = _typed(cv, ("Ada Vell", "person"), "Dunholt", "Kelton")
    assert ("ada vell", "dunholt", "born_in") in got
    assert any(s == "ada vell" and d == "kelton" and k.startswith("~died") for s, d, k in got)
    for card in ["- Born: 1938\n- Seen: Dunholt and Kelton", "- Born: 1938, Dunholt Road 4\n- Staff: 12"]:
        assert not any(
            k.startswith("~born") or k == "born_in" for _, _, k in _typed(card, ("Ada Vell", "person"), "Dunholt")
        )


def test_a_be_form_and_a_places_preposition_alone_link_two_names() -> None:
    """ "P is in R", "N was at S": the whole relation the sentence states (a forum reply's "Dunholt is
    in Orrin County, permits are cheap there."); longer wording keeps its own phrase, and a be-form
    with no locative preposition gives no "~is" relation."""
    got = _typed("Dunholt is in Orrin County, permits are cheap there.", ("Dunholt", "place"), "Orrin County")
    assert ("dunholt", "orrin county", "~is in") in got
    got = _typed("Ada Vell was at Kelton Academy.", ("Ada Vell", "person"), "Kelton Academy")
    assert ("ada vell", "kelton academy", "~was at") in got
    got = _typed("Ada Vell is in the band with Tove Lind.", ("Ada Vell", "person"), "Tove Lind")
    assert not any(k in ("~is in", "~is") for _, _, k in got)
    got = _typed("Ada Vell is on Kelton Road.", ("Ada Vell", "person"), "Kelton Road")
    assert not any(k in ("~is on", "~is") for _, _, k in got)


def test_it_after_an_opening_names_verb_group_is_the_pages_subject() -> None:
    """ "N, which produced it, ..." (as "N, who drew its plans, ...") and "N made it and ...": N's
    relation to the page's subject; not "it" with a word after it ("found it hard"), after a noun of
    the clause ("bought a house and sold it"), or after a name that does not open the sentence."""
    subject = ("Sela Skiff", "work")
    got = _typed("Orrin Pictures, which produced it, has rarely backed anything so strange.", subject, "Orrin Pictures")
    assert ("orrin pictures", "sela skiff", "~produced") in got
    assert ("ada vell", "sela skiff", "~made") in _typed("Ada Vell made it and you can tell.", subject, "Ada Vell")
    for text in [
        "Ada Vell found it hard to stop.",
        "Ada Vell bought a house and sold it.",
        "Orrin Pictures, which makes it easy, is small.",
        "The name is followed by an MD5 hash calculated for it.",
    ]:
        got = _typed(text, subject, "Ada Vell", "Orrin Pictures", "MD5")
        short = {"~found", "~bought a house and sold", "~sold", "~makes", "~hash calculated for", "~calculated for"}
        assert not any(d == "sela skiff" and k in short for _, d, k in got), text
