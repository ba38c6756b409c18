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
    """A record laid out as a list (a programme's personnel, a resume): "- Label: Name" and, with a
    role noun as the label, "- Label \u2014 Name"."""
    personnel = "Personnel\n- Conductor \u2014 Ivo Sand\n- Soloist \u2013 Tove Lind\n- Running time \u2014 40 min"
    got = _typed(personnel, ("Harbour Suite", "work"), "Ivo Sand", "Tove Lind")
    assert ("harbour suite", "ivo sand", "~conductor") in got
    assert ("harbour suite", "tove lind", "~soloist") in got
    resume = "Resume\n\n- Employer: Brask Instruments\n- Province: Orrin County\n- Hobbies: several"
    got = _typed(resume, ("Ada Vell", "person"), "Brask Instruments", "Orrin County")
    assert ("ada vell", "brask instruments", "~employer") in got
    assert ("ada vell", "orrin county", "~province") in got


def _labelled(text: str, subject: tuple[str, str], *titles: str) -> set[str]:
    """The kinds of the relations a field's label would name (the sentences' own relations aside)."""
    labels = (
        *("~conductor", "~soloist", "~fixed", "~note", "~thanks", "~ada", "~windows", "~mac", "~linux"),
        *("~good", "~bad", "~supported", "~unsupported", "~hosting"),
    )
    return {kind for _, _, kind in _typed(text, subject, *titles) if kind.startswith(labels)}


def test_a_spaced_dash_outside_a_list_item_or_before_no_lone_name_states_nothing() -> None:
    subject = ("Harbour Suite", "work")
    titles = ("Ivo Sand", "Tove Lind")
    # prose: a spaced dash opens an aside, not a value
    assert not _labelled("Conductor \u2014 Ivo Sand led it.\nSoloist \u2014 Tove Lind played.", subject, *titles)
    # one item alone is no record
    assert not _labelled("- Conductor \u2014 Ivo Sand", subject, *titles)
    # an item whose label is a name, whose value is a clause, or a name followed by more words
    items = "- Tove Lind \u2014 Ivo Sand\n- Fixed \u2014 Ivo Sand crash on start\n- Note \u2014 see Tove Lind"
    assert not _labelled(items, subject, *titles)
    # a changelog's items: a value naming several
    log = "- Thanks \u2014 Tove Lind and Ivo Sand\n- Fixed \u2014 Ivo Sand, Tove Lind"
    assert not _labelled(log, subject, *titles)


def test_a_list_items_label_that_is_a_name_or_a_judgement_states_nothing() -> None:
    """A dash joins an item to any gloss, so only a role or an abstract noun labels a field there
    ("- Windows \u2014 Chocolatey" pairs two names); a colon's label is a key unless a judgement,
    an interjection or an adjective ("- Good: Python")."""
    subject = ("Acme", "product")
    names = ("Chocolatey", "Homebrew", "Snap", "Ubuntu", "Windows", "Python", "Perl", "GitHub", "Netlify")
    for text in [
        "- Windows \u2014 Chocolatey\n- Mac \u2014 Homebrew\n- Linux \u2014 Snap",
        "- Supported \u2014 Ubuntu\n- Unsupported \u2014 Windows",
        "Contributors\n- Thanks \u2014 GitHub\n- Hosting \u2014 Netlify",
        "- Good: Python\n- Bad: Perl",
    ]:
        assert not _labelled(text, subject, *names), text


def test_an_irregular_plural_heads_an_enumeration_as_a_plural_in_s_does() -> None:
    """ "Notable alumnae: A, B and C." reads as "Graduates: A, B and C." does (a closed list of
    English's irregular plurals of people); a name, a singular in "-i"/"-men", a note or a clause
    heads none."""
    subject = ("Brask Conservatory", "organization")
    titles = ("Ada Vell", "Tove Lind", "Ivo Sand")
    for label in ["Alumni", "Notable alumnae", "Chairwomen", "Famous people", "Their children"]:
        got = _typed(f"{label}: Tove Lind, Ivo Sand and Ada Vell.", subject, *titles)
        assert {d for s, d, _ in got if s == "brask conservatory"} == {"ada vell", "tove lind", "ivo sand"}, label
    for label in [
        "Anna Jones",
        "Note",
        "Data",
        "Men",
        "Delhi",
        "Yemen",
        "Taxi",
        "Wiki",
        "Sushi",
        "Specimen",
        "Abdomen",
    ]:
        got = _typed(f"{label}: Tove Lind, Ivo Sand and Ada Vell.", subject, *titles, "Anna Jones")
        assert not any(s == "brask conservatory" for s, _, _ in got), label


def test_a_fields_dated_value_gives_its_place_by_the_preposition() -> None:
    """An infobox's "Died: 1990 at P" or "Married: 3 June 1961 in P": the one-word participle label
    and the preposition are the relation ("born in" is `born_in`); a value with no preposition, a
    date alone, or a label or a value that is no date ("Suite 2000 at ...") gives nothing."""
    box = "Biography\n- Born: 1941 in Brask\n- Married: 3 June 1961 at Orrin Chapel\n- Instrument: cello"
    got = _typed(box, ("Tove Lind", "person"), "Brask", "Orrin Chapel")
    assert ("tove lind", "brask", "born_in") in got
    assert any(s == "tove lind" and d == "orrin chapel" and k.startswith("~married") for s, d, k in got)
    for card in ["- Born: 1941\n- Seen: Brask and Orrin Chapel", "- Born: 1941, Brask Road 4\n- Staff: 12"]:
        assert not any(
            k.startswith("~born") or k == "born_in" for _, _, k in _typed(card, ("Tove Lind", "person"), "Brask")
        )
    subject = ("Acme", "product")
    places = ("Tower One", "Compatibility Mode", "Census", "Beta")
    for card in [
        "- Address: Suite 2000 at Tower One\n- Phone: 555",
        "- Platform: Windows 2000 in Compatibility Mode\n- Status: ok",
        "- Population: 2021 in Census\n- Area: 5 km",
        "- Version: 2023 in Beta\n- Status: Active",
    ]:
        got = _typed(card, subject, *places)
        assert not any(d in {p.lower() for p in places} for _, d, _ in got), card


def test_a_present_be_form_and_in_alone_link_two_names() -> None:
    """ "P is in R", "P is near R": the whole relation the sentence states (a travel note's "Brask
    is in Orrin County, two hours by train."); longer wording keeps its own phrase; a be-form with
    no locative preposition, a past one or "at" (a visit), a time phrase after the place (a stay), or
    a name after a preposition (no subject) gives no "~is in"."""
    got = _typed("Brask is in Orrin County, two hours by train.", ("Brask", "place"), "Orrin County")
    assert ("brask", "orrin county", "~is in") in got
    got = _typed("Tove Lind is in the band with Ivo Sand.", ("Tove Lind", "person"), "Ivo Sand")
    assert not any(k in ("~is in", "~is") for _, _, k in got)
    got = _typed("Tove Lind is on Brask Road.", ("Tove Lind", "person"), "Brask Road")
    assert not any(k in ("~is on", "~is") for _, _, k in got)
    for text, names in [
        ("Alice is in London this week.", ("Alice", "London")),
        ("Trump was in Court on Monday.", ("Trump", "Court")),
        ("Smith was at Wembley when Arsenal scored.", ("Smith", "Wembley", "Arsenal")),
        ("Obama was in Berlin and Merkel was at Davos.", ("Obama", "Berlin", "Merkel", "Davos")),
        ("Support for Wayland is in GNOME 45.", ("Wayland", "GNOME 45")),
        ("John was at Google before joining us.", ("John", "Google")),
    ]:
        got = _typed(text, ("Notes", "topic"), *names)
        assert not any(k in ("~is in", "~was in", "~was at", "~is at") for _, _, k in got), text


def test_it_after_an_opening_names_verb_group_is_the_pages_subject() -> None:
    """ "N, which published it, ..." (as "N, who drew its plans, ...", "it" closing the relative
    clause) and "N recorded it in ..." / "N recorded it, ...": N's relation to the page's subject;
    not "it" with a word after it ("found it hard", "which makes it easy to ..."), after a noun of
    the clause ("bought a house and sold it"), or after a name that does not open the sentence."""
    subject = ("Harbour Suite", "work")
    got = _typed("Brask Editions, which published it, went bankrupt a year later.", subject, "Brask Editions")
    assert ("brask editions", "harbour suite", "~published") in got
    assert ("ivo sand", "harbour suite", "~recorded") in _typed("Ivo Sand recorded it, twice.", subject, "Ivo Sand")
    for text in [
        "Brask Editions, which makes it easy, is small.",
        "Brask Editions, which makes it easy to publish, is popular.",
    ]:
        got = _typed(text, subject, "Brask Editions")
        # a dummy "it": no relation of any kind between the page's subject and the name
        assert not any("harbour suite" in (s, d) for s, d, _ in got), (text, got)
    for text in [
        "Ivo Sand found it hard to stop.",
        "Ivo Sand bought a house and sold it.",
        "The name is followed by an MD5 hash calculated for it.",
    ]:
        got = _typed(text, subject, "Ivo Sand", "MD5")
        short = {"~found", "~bought a house and sold", "~sold", "~hash calculated for", "~calculated for"}
        assert not any(d == "harbour suite" and k in short for _, d, k in got), text
