"""Links a page states in fragments and fact sheets rather than in full sentences (#28, the muffled
corpus's diagnosis): a fact sheet's row whose label is a participle ("| Based in | P |"), whose label
carries a bracketed note ("| Players (selected) | A and B |") or whose value lists names ("A, B and
C"); a clause whose subject is left out ("Spent his playing days at N.", "Came up through the N.",
"Winner of the N Medal."); a name modifying the noun after a copula's article ("He was a N player
for years."); and a plural subject with its qualifiers before "include" ("Players past and present
include A and B."). Each with the look-alikes it must leave as they were. Through the extractor's
API and ingestion's `build_file_graph` (the page's subject and type guess as in production);
fictional names, the test's own wording."""

from __future__ import annotations

import pytest

from gateway.knowledge_graph.extract import Gazetteer, RuleExtractor, extract
from gateway.knowledge_graph.index import build_file_graph

CLUB = ("Orrin Rovers", "organization")
PERSON = ("Tove Lind", "person")


def _typed(text: str, subject: tuple[str, str], *titles: str) -> set[tuple[str, str, str]]:
    graph = extract(RuleExtractor(), text, known=Gazetteer([subject[0], *titles]), subject=subject)
    return {(s, d, kind) for s, d, kind, _ in graph.relations if kind != "co_occurs"}


def _filed(filename: str, text: str, *titles: str) -> set[tuple[str, str, str]]:
    graph = build_file_graph(RuleExtractor(), "s", "f", filename, [("c", text)], list(titles))
    return {(r.source, r.target, r.type) for r in graph.relations if r.type != "co_occurs"}


FACT_SHEET = (
    "# Orrin Rovers\n\nCLUB FACT SHEET\n\n| | |\n|---|---|\n| Founded | 1891 |\n| Based in | Kelby |\n"
    "| Home ground | Vask Park |\n| Players past and present (selected) | Ada Vell, Bo Sarn and Cai Morl |\n"
)


def test_a_fact_sheets_participle_label_qualified_label_and_listed_names_are_rows() -> None:
    got = _filed("orrin.md", FACT_SHEET, "Kelby", "Ada Vell", "Bo Sarn", "Cai Morl", "Vask Park")
    assert ("orrin rovers", "kelby", "located_in") in got  # "Based in": a participle's label
    assert ("orrin rovers", "vask park", "~home ground") in got
    for player in ("ada vell", "bo sarn", "cai morl"):  # the note "(selected)" aside, each name listed
        assert ("orrin rovers", player, "~players past and present") in got


@pytest.mark.parametrize(
    "row",
    [
        "| Notes | Former players include Ada Vell and Bo Sarn |",  # a sentence in a cell: no list of names
        "| Players | Ada Vell and some others |",  # not every part a name
        "| In | Ada Vell |",  # a label of function words only names no relation
    ],
)
def test_a_value_cell_that_is_not_wholly_names_is_no_row(row: str) -> None:
    text = f"# Orrin Rovers\n\n| | |\n|---|---|\n| Founded | 1891 |\n{row}\n"
    got = _filed("orrin.md", text, "Ada Vell", "Bo Sarn")
    assert not {(s, d, k) for s, d, k in got if s == "orrin rovers" and not k.startswith("~former")}


def test_a_clause_with_its_subject_left_out_is_the_pages_subjects() -> None:
    text = "HALL OF FAME\nTOVE LIND (1951—)\nSpent her playing days at Orrin Rovers; the boots are from then."
    assert ("tove lind", "orrin rovers", "~spent her playing days at") in _typed(text, PERSON, "Orrin Rovers")
    text = "Came up through the Vask Youth Academy, same as half the league."
    assert ("tove lind", "vask youth academy", "~came up through the") in _typed(text, PERSON)
    text = "Winner of the Kelby Medal, 2003."
    assert ("orrin rovers", "kelby medal", "~winner of the") in _typed(text, CLUB)
    text = "Winning the Kelby Medal made her name."  # an "-ing" form straight before its object
    assert ("tove lind", "kelby medal", "~winning the") in _typed(text, PERSON)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Vask and her sister moved to Kelby Town.", "vask"),  # a connector after the name: the subject
        ("Vask, her sister says, moved to Kelby Town.", "vask"),  # a comma: the subject
        ("Visitors to the Kelby Bridge pay a toll.", "visitors"),  # a plural noun: the subject
        # a name before a preposition and a determiner: no past form, no subjectless clause's verb
        ("Napoleon at the Battle of Waterloo lost his army.", "napoleon"),
        ("Google in the early days hired Larry Page.", "google"),
        ("Rome under the Caesars grew rich.", "rome"),
        ("Microsoft with its partners shipped Windows.", "microsoft"),
        ("Obama at the White House signed it.", "obama"),
        ("Fred at the door knocked twice.", "fred"),  # "-ed" after one letter: a name's
        ("Reading in the 1990s grew fast.", "reading"),  # "-ing" before a preposition: a place's too
        # before "of the" and a name, a noun that is no agent's stays a name
        ("Crew of the Endeavour sailed home.", "crew"),
        ("Museum of the Moving Image opened.", "museum"),
        ("Home of the Brave is a song.", "home"),
    ],
)
def test_a_name_opening_a_sentence_stays_a_name(text: str, name: str) -> None:
    spans = {s.text.lower() for s in RuleExtractor().spans(text, Gazetteer([]))}
    assert name in spans


def test_an_imperative_before_a_determiner_links_nothing_to_the_pages_subject() -> None:
    text = "Open the Settings page. Click the Save button. Install the Debian package."
    assert not _typed(text, ("Vask Server", "software"), "Debian")


def test_a_name_modifying_a_copulas_noun_is_linked_by_that_noun() -> None:
    text = "Tove Lind grew up by the sea. He was a Orrin Rovers player for years."
    assert ("tove lind", "orrin rovers", "~was a player") in _typed(text, PERSON, "Orrin Rovers")
    text = "She's a Orrin Rovers player now, on a three-year deal."
    assert ("tove lind", "orrin rovers", "~a player") in _typed(text, PERSON, "Orrin Rovers")


@pytest.mark.parametrize(
    "text",
    [
        "It is an HTTP connection pool.",  # no name in title case: a technical term
        "He was a Orrin Rovers and Kelby fan.",  # a connector after the name, no noun
        "He met a Orrin Rovers player in Kelby.",  # a verb before the article, not a copula
    ],
)
def test_look_alikes_of_a_modifying_name_link_nothing_by_a_noun(text: str) -> None:
    got = _typed(text, PERSON, "Orrin Rovers", "HTTP")
    assert not {k for _, _, k in got if k.startswith(("~was a", "~is a", "~a "))}


def test_a_plural_subject_and_its_qualifiers_before_include_are_the_pages_relation() -> None:
    text = "Home games are played nearby. Players past and present include Ada Vell, Bo Sarn and Cai Morl."
    got = _typed(text, CLUB, "Ada Vell", "Bo Sarn", "Cai Morl")
    for player in ("ada vell", "bo sarn", "cai morl"):
        assert ("orrin rovers", player, "~players past and present") in got


def test_a_field_line_of_its_own_names_a_relation_by_a_participle_or_a_two_word_label() -> None:
    text = "MENU — Vask Kitchen, Kelby\n\nStarter: cured hake\n\nHead chef: Ada Vell\n\nHolder of a star."
    assert ("vask kitchen", "ada vell", "~head chef") in _typed(text, ("Vask Kitchen", "organization"), "Ada Vell")
    text = "HALL OF FAME\nTOVE LIND (1951—)\nBorn: Kelby.\nA winger."
    assert ("tove lind", "kelby", "~born") in _typed(text, PERSON, "Kelby")


@pytest.mark.parametrize(
    "text",
    [
        "Note: Ada Vell.\n\nThe rest is below.",  # a lone noun heads a note
        "Tip: Kelby Town.",
        "Warning: Ada Vell",
        "Setup\n\nNext page: Kelby Town\n",  # a navigation label: a link to another page
        "Setup\n\nPrevious chapter: Kelby Town\n",
    ],
)
def test_a_lone_field_line_headed_by_one_noun_is_no_record(text: str) -> None:
    assert not _typed(text, CLUB, "Ada Vell", "Kelby Town")


def test_a_role_set_off_before_a_name_and_a_name_modifying_an_appositive_are_linked() -> None:
    text = "3. Football. The head coach, Ada Vell, reported on the injuries."
    assert ("orrin rovers", "ada vell", "~head coach") in _typed(text, CLUB, "Ada Vell")
    text = "Orrin Rovers, the Kelby club, has confirmed its plans for the new season."
    assert ("orrin rovers", "kelby", "~club") in _typed(text, CLUB, "Kelby")


@pytest.mark.parametrize(
    "text",
    [
        "The next day, Ada Vell went to Kelby.",  # a fronted time, no appositive closing after the name
        "Orrin Rovers, the Kelby club and the Vask side met.",  # no comma closing the appositive
    ],
)
def test_look_alikes_of_an_appositive_role_link_nothing_by_it(text: str) -> None:
    got = _typed(text, CLUB, "Ada Vell", "Kelby")
    assert not {k for _, _, k in got if k in ("~next day", "~club")}


def test_a_timeline_entry_naming_one_name_is_said_of_the_pages_subject() -> None:
    text = "TIMELINE OF THE CLUB\n1886 — founded by Bo Sarn\n2023 — Ada Vell appointed head coach\n"
    assert ("ada vell", "orrin rovers", "~appointed head coach") in _typed(text, CLUB, "Ada Vell", "Bo Sarn")
    text = "In 2023 Ada Vell appointed a new head coach."  # a sentence, no dated entry: nothing of the club
    assert not {r for r in _typed(text, CLUB, "Ada Vell") if r[1] == "orrin rovers"}


@pytest.mark.parametrize(
    "entry",
    [
        "2019 — Vask 5.0 released",  # a lone verb: what befell the name, not the page's subject
        "2020 — Ada Vell and Kelby Town signed a deal",  # two names: said of each other, not of the page
    ],
)
def test_a_timeline_entry_with_a_lone_verb_or_two_names_says_nothing_of_the_pages_subject(entry: str) -> None:
    text = f"TIMELINE OF THE CLUB\n1886 — founded by Bo Sarn\n{entry}\n"
    got = _typed(text, CLUB, "Vask", "Ada Vell", "Kelby Town", "Bo Sarn")
    assert not {r for r in got if "orrin rovers" in r[:2] and "bo sarn" not in r[:2]}


def test_a_chat_lines_time_and_handle_are_not_its_subject() -> None:
    text = "[chat log #kitchen]\n[20:01] <ada_v> who is Tove Lind anyway\n[20:03] <saucier88> trained at Vask Academy\n"
    got = _typed(text, PERSON, "Vask Academy")
    assert ("tove lind", "vask academy", "studied_at") in got
    assert not {r for r in got if r[0].startswith("saucier")}
    text = "Compare <b> tags with [20:03] marks: Ada Vell wrote both."  # no chat line: left as it is
    assert "saucier" not in str(_typed(text, PERSON, "Ada Vell"))


def test_i_and_its_contractions_are_no_name() -> None:
    text = "VIV: And today? LIND: I'm head chef at Vask Kitchen."
    got = _typed(text, PERSON, "Vask Kitchen")
    assert ("tove lind", "vask kitchen", "~i m head chef at") in got
    assert not {r for r in got if r[0] == "i m"}


def test_an_object_list_before_a_prepositional_phrase_shares_its_relation() -> None:
    text = "5. Heritage. The club history names Ada Vell and Bo Sarn among those who have played for it."
    got = _typed(text, CLUB, "Ada Vell", "Bo Sarn")
    assert {("orrin rovers", "ada vell"), ("orrin rovers", "bo sarn")} <= {(s, d) for s, d, _ in got}
    text = "Anna Kell founded Vask Mills and Bo Sarn joined it in 1990."  # a clause of its own after the list
    assert not {
        r for r in _typed(text, CLUB, "Anna Kell", "Bo Sarn", "Vask Mills") if r[2] == "founded_by" and "bo sarn" in r
    }


def test_a_row_listing_one_word_names_not_yet_in_the_store_and_its_label_saying_its() -> None:
    text = "# Brask\n\n| | |\n|---|---|\n| Landscape | hill |\n| Towns within its borders | Kelby and Vask |\n"
    text += "\nThe road runs from Kelby to Vask."  # both written mid-sentence: names
    got = _filed("brask.md", text)
    assert {("brask", "kelby", "~towns within its borders"), ("brask", "vask", "~towns within its borders")} <= got
    text = "# Brask\n\n| | |\n|---|---|\n| Landscape | hill |\n| Towns within its borders | Kelby and Vask Town |\n"
    assert ("brask", "kelby", "~towns within its borders") in _filed("brask.md", text)  # beside a name


@pytest.mark.parametrize(
    "row",
    [
        "| Default | Auto |",  # one capitalised word alone is a value
        "| Values | Never, Always or Auto |",  # "or": a choice, no list of names
        "| Colour | Red |",
        "| Options | Fast, Slow and Auto |",  # values listed, written nowhere else
        "| Modes | Fast and Slow |",
    ],
)
def test_one_word_values_alone_or_as_a_choice_are_no_names(row: str) -> None:
    text = f"# Brask\n\n| | |\n|---|---|\n| Landscape | hill |\n{row}\n"
    assert not _filed("brask.md", text)


def test_a_capitalised_the_inside_a_sentence_opens_a_titles_name() -> None:
    spans = {
        s.text
        for s in RuleExtractor().spans(
            "Kelby is home to Vask Farm, The Orrin Table Guide and The Grey Arms.", Gazetteer([])
        )
    }
    assert {"Vask Farm", "The Orrin Table Guide", "The Grey Arms"} <= spans
    got = _typed("Kelby is home to Vask Farm and The Orrin Table Guide.", ("Kelby", "place"))
    assert ("kelby", "the orrin table guide", "~is home to") in got  # the key of the page titled so


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("The Orrin Table opened in 1990.", "Orrin Table"),  # a sentence's first word: the article
        ("She ran the Orrin Table for years.", "Orrin Table"),  # lower case: the article
        ("It went to The Orrin.", "Orrin"),  # one word after it: the article's
    ],
)
def test_the_article_before_a_name_stays_out_of_it(text: str, name: str) -> None:
    assert name in {s.text for s in RuleExtractor().spans(text, Gazetteer([]))}
