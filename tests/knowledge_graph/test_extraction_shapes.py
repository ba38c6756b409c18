"""Sentence shapes that state a relation away from the plain "X <words> Y" order (#28), pinned through
the entities route with `file_id` (what was extracted from one file): words after the last name that
refer back to the page's subject ("N repairs its engines"), role appositives ("Its purser, N,", "N,
its cellist since 1990,", "X's surveyor, N,"), a cleft ("P is where N grew up", also with a
pronoun), relative clauses ("B, which N planned, ...", "M, where N was born, ...", "..., the B,
which opened in D"), "by X" belonging to the name a place only completes ("B in T was designed by
X"), the passive of an active verb ("B was founded in 1881 by X"), a clause's opening pronoun left
out of the relation's words, and a page's title inside a longer name ("Vinter" in "Vinter
Observatory"). Then (#28, second round): a person's given name alone ("Maren was raised in D"), a
name ending on a lower-case word that ends titles of the store ("the Brevik canal" beside the title
"Oster canal"), a phrase that opens the sentence said of the name after its comma ("Restored by N
in 1962, the B grinds rye"), a name set off by commas ("The mill, in P, is run by N": the mill is
run by N, and is in P) and an active verb's participle before a preposition ("founded in D": no
founder). Third round: a coordinated list shares its role ("She taught A, B and C": all three; "P
is where A and B ..."; not "A founded X and B joined it"), "here" is the page's place when its
clause says so plainly ("A and B settled here", "Here, C grew up"; not "is here", "never lived
here"; "came here" is no "came in"), "N, who painted its lamp room," (the page's; not "who bought
a boat and sold it"), a capitalised "The" inside a sentence keeps the key of the title it precedes
("joined The Hague Court" is Hague Court's), and an enumeration after a colon ("Shells found by N:
A and B." -> A ~found by N; "Founders: A and B." -> the page's subject ~founders A; not "Warning: A
and B."). The texts are this test's own; every test fails on the extraction before it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from openai import OpenAI

from tests.knowledge_graph.test_knowledge_graph import _entities
from tests.support.procs import Gateway
from tests.support.retrieval_helpers import upload_pages

# ingested first, so their titles are the store's known names when the pages below are read
TOWNS = ("Marrick", "Dunholt", "Pellory", "Vinter")
PLACES = {f"{t.lower()}.md": f"# {t}\n\n{t} is a small harbour town." for t in TOWNS}
# titles whose last word is lower case: the store names things "<Name> canal" (three titles make the habit)
for _canal in ("Oster", "Lund", "Ruth"):
    PLACES[f"{_canal.lower()}_canal.md"] = f"# {_canal} canal\n\n{_canal} canal links two rivers."
# one title ending on a lower-case word that is no naming habit of the store (and looks like a verb)
PLACES["meeting_notes.md"] = "# Meeting notes\n\nThe spring meeting agreed the budget."
PLACES["hague_court.md"] = "# Hague Court\n\nHague Court hears appeals."
PAGES = {
    "corvane.md": "# Corvane Ferries\n\nCorvane Ferries sails between the outer islands. Teodor Valk repairs its "
    "engines. Its purser, Lene Dahlquist, joined in 2015. A visitor from Marrick praises its timetable.",
    "marwood.md": "# Ilse Marwood\n\nIlse Marwood is a baker. Dunholt is where Marwood grew up. "
    "Pellory is where she learned her trade.",
    "hall.md": "# Quayside Market Hall\n\nThe Quayside Market Hall, which Oskar Brenn planned in 1921, faces the "
    "harbour.",
    "footbridge.md": "# Tollen Footbridge\n\nThe Tollen Footbridge in Marrick was designed by Ada Kettle and opened "
    "in 1990.",
    "bakery.md": "# Pell Bakery\n\nPell Bakery was founded in 1881 by Ilse Marwood.",
    "kettle.md": "# Ada Kettle\n\nAda Kettle is an engineer. Since 2001 she has directed the Vinter Observatory.",
    "line.md": "# Harrow Line\n\nThe Harrow Line runs along the coast. Harrow Line's surveyor, Piet Loman, mapped it "
    "in 1870.",
    "quartet.md": "# Orla Quartet\n\nOrla Quartet tours the coast. Ines Varga, its cellist since 1990, writes its "
    "scores.",
    "varga.md": "# Ines Varga\n\nInes Varga is a cellist. Marrick, where Varga was born, lies on the coast.",
    "ferrant.md": "# Rosa Ferrant\n\nRosa Ferrant drew the plans for the Quayside Market Hall, which opened in "
    "Dunholt.",
    "holt.md": "# Maren Holt\n\nMaren Holt is a glazier. Maren was raised in Dunholt.",
    "sandvik.md": "# Sandvik lock\n\nSandvik lock is a flight of three chambers. It lifts boats onto the Brevik canal.",
    "pike.md": "# Hanna Pike\n\nHanna Pike is a millwright. Restored by Hanna Pike in 1962, the Ebbe Mill grinds "
    "rye. Designed by Hanna Pike, the Orrin Pier opened in 1911.",
    "sela.md": "# Sela Mill\n\nThe mill, in Pellory, is run by Tove Lind.",
    "norra.md": "# Norra Bakery\n\nThe bakery, founded in Dunholt, is owned by Tove Lind.",
    # ordinary English the rules above must not misread (#28, review of the second round)
    "green.md": "# Green Report\n\nWritten by Anna Jones, Bob Lee and Carl Berg.",
    "nightingale.md": "# Florence Nightingale\n\nFlorence Nightingale trained nurses. She was born in Florence.",
    "hilton.md": "# Paris Hilton\n\nParis Hilton visited Paris.",
    "burrows.md": "# Lincoln Burrows\n\nLincoln Burrows was born in Chicago. Lincoln is the capital of Nebraska.",
    "acme.md": "# Acme Works\n\nIts rival, in Berlin, is owned by Beta Ltd. His son, in Paris, runs a bakery. The next "
    "year, in Rome, he met Carl Berg.",
    "audit.md": "# Audit\n\nSmith notes that Acme Corp failed.",
    "night.md": "# Night Walks\n\nBerlin by night is beautiful. Rome of the Caesars was vast.",
    "varg.md": "# Anna Varg\n\nAnna met Bob Jones, in Berlin, and founded Acme Corp.",
    # third round (#28): lists, "here", "who ... its", a title after a capitalised "The"
    "lind.md": "# Tove Lind\n\nTove Lind is a potter. She taught Ada Bell, Bo Strand and Cai Moe.",
    "cove.md": "# Kestrel Cove\n\nKestrel Cove is a fishing village. Eli Sund and Gry Aas settled here in 1990. "
    "Here, Ada Moe grew up. Per Holm is here. Ulla Berg never lived here. Eli Sund came here.",
    "orm.md": "# Orm Valley\n\nOrm Valley is quiet. Orm Valley is where Ida Berg and Dina Roos spent their summers.",
    "lark.md": "# Lark Tower\n\nLark Tower is a lighthouse. Eva Brun, who painted its lamp room, kept the log. "
    "Ole Brun, who bought a boat and sold it, met Eva Brun.",
    "ek.md": "# Nils Ek\n\nNils Ek is a judge. Nils Ek joined The Hague Court in 1990.",
    "joined.md": "# Rolf Dahl\n\nAnna Jones founded Acme Corp and Bob Lee joined it.",
    "lund.md": "# Eva Lund\n\nEva Lund is a diver. Shells found by Eva Lund: Pink Conch and Blue Whelk. She said: Ake "
    "Moe met Siv Dal.",
    "guild.md": "# Tarn Guild\n\nTarn Guild is a club. Founders: Lars Fjell and Mia Fjell. Warning: Ulf Rask "
    "and Kim Rask.",
    # fourth round (#28): fronted participle phrases, "<plural noun> (of A) include B", a cleft with an
    # object, "is in", numbers out of phrases
    # an opening word is no name when the text also writes it in lower case ("housed", "set")
    "lab.md": "# Quill Data Lab\n\nHoused in the east wing of Marrowfield, Quill Data Lab has trained analysts "
    "since 1998. Its servers are housed in a basement.",
    "forge.md": "# Brisk Forge\n\nSet up by Nadia Voss in 2004, Brisk Forge keeps 6 servers at Kelton. They are "
    "set on a stone floor.",
    # a given name opening a sentence, shaped like a participle, the text never writes in lower case
    "tarrow.md": "# Tarrow Cove\n\nMargot lived by the cove with Petra Holm. Kent stood by Ivo Sand. Alfred in "
    "Kelton, Rune Berg met Sven Ek.",
    "orbit.md": "# Orbit Chess Club\n\nOrbit Chess Club is a society. Rivals of Orbit Chess Club include Petra Holm "
    "and Ivo Sand. Past champions include Rune Berg.",
    "falcon.md": "# Project Falcon\n\nProject Falcon is a release. Project Falcon is in Beta. Support is in "
    "Windows Server.",
}


@pytest.fixture(scope="module")
def shapes(http_gateway: Gateway, session_key: str) -> Iterator[dict[str, Any]]:
    client = OpenAI(base_url=http_gateway.url, api_key=session_key, max_retries=0)
    store = upload_pages(client, "kg-shapes", PLACES)  # the places first: the pages' names resolve to them
    ids = {**store.ids, **upload_pages(client, "kg-shapes", PAGES, store_id=store.id).ids}
    yield {"url": http_gateway.url, "store": store.id, "files": ids}
    client.vector_stores.delete(store.id)
    for fid in ids.values():
        client.files.delete(fid)


def _said(shapes: dict[str, Any], page: str, name: str) -> set[tuple[str, str, str]]:
    """(relation, other end, direction) of `name` as extracted from `page`, co-occurrence left out."""
    status, body = _entities(shapes["url"], shapes["store"], name, file_id=shapes["files"][page])
    assert status == 200, body
    entity = next(e for e in body["data"] if e["name"] == name)
    return {(n["relation"], n["name"], n["direction"]) for n in entity["neighbours"] if n["relation"] != "co_occurs"}


def test_words_after_the_last_name_that_refer_back_to_the_subject(shapes: dict[str, Any]) -> None:
    assert ("~repairs its engines", "Corvane Ferries", "out") in _said(shapes, "corvane.md", "Teodor Valk")
    # a name after a preposition is not the subject of the verb that follows ("a visitor from M praises")
    said = _said(shapes, "corvane.md", "Marrick")
    assert not any("praises" in relation for relation, _, _ in said), said


def test_a_role_appositive_of_the_subject(shapes: dict[str, Any]) -> None:
    assert ("~purser", "Lene Dahlquist", "out") in _said(shapes, "corvane.md", "Corvane Ferries")


def test_a_role_appositive_after_the_name_and_of_a_named_owner(shapes: dict[str, Any]) -> None:
    assert ("~cellist", "Ines Varga", "out") in _said(shapes, "quartet.md", "Orla Quartet")
    assert ("~surveyor", "Piet Loman", "out") in _said(shapes, "line.md", "Harrow Line")


def test_a_cleft_with_a_name_and_with_a_pronoun(shapes: dict[str, Any]) -> None:
    said = _said(shapes, "marwood.md", "Ilse Marwood")
    assert ("born_in", "Dunholt", "out") in said  # "grew up in", whatever the order of the sentence
    assert ("~learned her trade in", "Pellory", "out") in said


def test_a_relative_clause_names_its_own_subject(shapes: dict[str, Any]) -> None:
    assert ("~planned", "Quayside Market Hall", "out") in _said(shapes, "hall.md", "Oskar Brenn")
    assert ("born_in", "Marrick", "out") in _said(shapes, "varga.md", "Ines Varga")  # "M, where N was born,"
    # "..., which opened in D": the name before "which" opened there, not the sentence's subject
    assert ("~opened in", "Dunholt", "out") in _said(shapes, "ferrant.md", "Quayside Market Hall")
    assert not any(name == "Dunholt" for _, name, _ in _said(shapes, "ferrant.md", "Rosa Ferrant"))


def test_by_belongs_to_the_name_a_place_only_completes(shapes: dict[str, Any]) -> None:
    said = _said(shapes, "footbridge.md", "Ada Kettle")
    assert ("made_by", "Tollen Footbridge", "in") in said
    assert not any(name == "Marrick" for _, name, _ in said), said


def test_the_passive_of_an_active_verb(shapes: dict[str, Any]) -> None:
    assert ("founded_by", "Ilse Marwood", "out") in _said(shapes, "bakery.md", "Pell Bakery")


def test_a_known_title_inside_a_longer_name(shapes: dict[str, Any]) -> None:
    said = _said(shapes, "kettle.md", "Ada Kettle")
    # the pronoun opening the clause is the page's subject: the relation's words are the rest
    assert ("~has directed the", "Vinter Observatory", "out") in said, said
    assert not any(name == "Vinter" for _, name, _ in said), said


def test_a_given_name_alone_is_the_person(shapes: dict[str, Any]) -> None:
    assert ("~was raised in", "Dunholt", "out") in _said(shapes, "holt.md", "Maren Holt")
    status, body = _entities(shapes["url"], shapes["store"], "Maren", file_id=shapes["files"]["holt.md"])
    assert status == 200, body
    assert not any(e["name"] == "Maren" for e in body["data"]), body


def test_a_lower_case_word_that_ends_titles_ends_a_name(shapes: dict[str, Any]) -> None:
    # no page is titled "Brevik canal", but "Oster canal" is: the lock's relation reaches the canal
    said = _said(shapes, "sandvik.md", "Sandvik lock")
    assert ("~lifts boats onto the", "Brevik canal", "out") in said, said


def test_a_phrase_opening_the_sentence_is_said_of_the_name_after_its_comma(shapes: dict[str, Any]) -> None:
    assert ("~restored by", "Hanna Pike", "out") in _said(shapes, "pike.md", "Ebbe Mill")
    assert ("made_by", "Hanna Pike", "out") in _said(shapes, "pike.md", "Orrin Pier")
    # the opening participle is no name of its own
    status, body = _entities(shapes["url"], shapes["store"], "Restored", file_id=shapes["files"]["pike.md"])
    assert status == 200 and not any(e["name"] == "Restored" for e in body["data"]), body


def test_a_name_set_off_by_commas_and_a_participle_before_a_preposition(shapes: dict[str, Any]) -> None:
    said = _said(shapes, "sela.md", "Sela Mill")
    assert {("led_by", "Tove Lind", "out"), ("located_in", "Pellory", "out")} <= said, said
    assert not any(name == "Tove Lind" for _, name, _ in _said(shapes, "sela.md", "Pellory"))
    said = _said(shapes, "norra.md", "Norra Bakery")
    assert {("part_of", "Tove Lind", "out"), ("~founded in", "Dunholt", "out")} <= said, said
    assert not any(relation == "founded_by" for relation, _, _ in said), said


def _names(shapes: dict[str, Any], page: str, query: str) -> set[str]:
    status, body = _entities(shapes["url"], shapes["store"], query, file_id=shapes["files"][page])
    assert status == 200, body
    return {e["name"] for e in body["data"]}


def test_a_list_after_an_opening_phrase_names_no_subject(shapes: dict[str, Any]) -> None:
    # "Written by A, B and C.": B did not write A; the page's subject was written by them
    said = _said(shapes, "green.md", "Bob Lee")
    assert not any(name == "Anna Jones" for _, name, _ in said), said


def test_a_given_name_that_is_a_place_or_is_defined_stays_itself(shapes: dict[str, Any]) -> None:
    # after a preposition a given name is the place; beside the full name it is something else; and
    # "Lincoln is the capital of N" introduces a city, not the person
    assert ("born_in", "Florence", "out") in _said(shapes, "nightingale.md", "Florence Nightingale")
    assert ("~visited", "Paris", "out") in _said(shapes, "hilton.md", "Paris Hilton")
    said = _said(shapes, "burrows.md", "Lincoln Burrows")
    assert not any(name == "Nebraska" for _, name, _ in said), said


def test_a_possessive_or_another_noun_is_not_the_pages_subject(shapes: dict[str, Any]) -> None:
    # "Its rival, in B, is owned by O", "His son, in P, ...", "The next year, in R, ...": none of it
    # is said of Acme Works
    said = _said(shapes, "acme.md", "Acme Works")
    assert not any(name in ("Berlin", "Paris", "Rome", "Beta Ltd") for _, name, _ in said), said


def test_one_title_does_not_make_a_lower_case_word_end_names(shapes: dict[str, Any]) -> None:
    names = _names(shapes, "audit.md", "Smith")
    assert "Smith" in names and "Smith notes" not in names, names


def test_a_name_opening_a_sentence_before_by_or_of_stays_a_name(shapes: dict[str, Any]) -> None:
    assert "Berlin" in _names(shapes, "night.md", "Berlin")
    assert "Rome" in _names(shapes, "night.md", "Rome")


def test_an_aside_after_a_name_that_is_not_the_subject_locates_nothing(shapes: dict[str, Any]) -> None:
    said = _said(shapes, "varg.md", "Bob Jones")
    assert ("located_in", "Berlin", "out") not in said, said


def _linked(said: set[tuple[str, str, str]], other: str) -> bool:
    """Whether some typed relation joins the entity to `other` (the link, whatever its words)."""
    return any(name == other for _, name, _ in said)


def test_a_list_shares_its_role(shapes: dict[str, Any]) -> None:
    for name in ("Ada Bell", "Bo Strand", "Cai Moe"):
        assert _linked(_said(shapes, "lind.md", name), "Tove Lind"), name
    for name in ("Ida Berg", "Dina Roos"):  # "P is where A and B spent their summers"
        assert _linked(_said(shapes, "orm.md", name), "Orm Valley"), name
    # "A founded X and B joined it": B opens a clause of its own, no list with X
    said = _said(shapes, "joined.md", "Bob Lee")
    assert not any(relation == "founded_by" for relation, _, _ in said), said


def test_here_is_the_pages_place_when_the_clause_says_so(shapes: dict[str, Any]) -> None:
    for name in ("Eli Sund", "Gry Aas", "Ada Moe"):  # "A and B settled here in 1990", "Here, C grew up"
        assert _linked(_said(shapes, "cove.md", name), "Kestrel Cove"), name
    # "is here" states nothing, nor does a negated clause
    for name in ("Per Holm", "Ulla Berg"):
        assert not _linked(_said(shapes, "cove.md", name), "Kestrel Cove"), name
    # "came here" is no "came in": a verb of motion keeps its "here"
    said = _said(shapes, "cove.md", "Eli Sund")
    assert not any(relation.endswith(" in") for relation, _, _ in said), said


def test_who_and_its_refer_back_to_the_pages_subject(shapes: dict[str, Any]) -> None:
    assert _linked(_said(shapes, "lark.md", "Eva Brun"), "Lark Tower")
    # "who bought a boat and sold it": the boat may be what "it" is, so nothing is said of the page
    said = _said(shapes, "lark.md", "Ole Brun")
    assert not _linked(said, "Lark Tower"), said


def test_a_capitalised_the_inside_a_sentence_keeps_the_titles_key(shapes: dict[str, Any]) -> None:
    # "joined The Hague Court": the court the store's page "Hague Court" is about, not a new "The Hague Court"
    said = _said(shapes, "ek.md", "Nils Ek")
    assert _linked(said, "Hague Court"), said
    assert not _linked(said, "The Hague Court"), said


def test_an_enumeration_after_a_colon(shapes: dict[str, Any]) -> None:
    for name in ("Pink Conch", "Blue Whelk"):
        assert _linked(_said(shapes, "lund.md", name), "Eva Lund"), name
    for name in ("Lars Fjell", "Mia Fjell"):
        assert _linked(_said(shapes, "guild.md", name), "Tarn Guild"), name
    # a sentence after a colon that is more than names is no enumeration
    said = _said(shapes, "lund.md", "Siv Dal")
    assert not _linked(said, "Eva Lund"), said
    # a label that names no role ("Warning:") heads nothing
    said = _said(shapes, "guild.md", "Ulf Rask")
    assert not _linked(said, "Tarn Guild"), said


def test_a_fronted_participle_phrase_with_a_particle_or_a_place(shapes: dict[str, Any]) -> None:
    said = _said(shapes, "forge.md", "Brisk Forge")
    assert ("founded_by", "Nadia Voss", "out") in said, said  # "Set up by": no name "Set"
    assert ("~keeps servers at", "Kelton", "out") in said, said  # the number names no relation
    said = _said(shapes, "lab.md", "Quill Data Lab")
    assert ("~housed in the east wing of", "Marrowfield", "out") in said, said


def test_a_lone_opening_word_stays_a_name_unless_written_in_lower_case(shapes: dict[str, Any]) -> None:
    for name in ("Margot", "Kent", "Alfred"):
        status, body = _entities(shapes["url"], shapes["store"], name, file_id=shapes["files"]["tarrow.md"])
        assert status == 200 and name in {e["name"] for e in body["data"]}, body


def test_a_plural_noun_that_includes_names(shapes: dict[str, Any]) -> None:
    said = _said(shapes, "orbit.md", "Orbit Chess Club")
    for name in ("Petra Holm", "Ivo Sand"):
        assert ("~rivals", name, "out") in said, said
    assert ("~past champions", "Rune Berg", "out") in said, said
    status, body = _entities(shapes["url"], shapes["store"], "rivals", file_id=shapes["files"]["orbit.md"])
    assert status == 200 and body["data"] == [], body  # no entity "Rivals of Orbit Chess Club"


def test_a_copula_and_in_before_a_capitalised_word_locates_nothing(shapes: dict[str, Any]) -> None:
    # "is in Beta", "is in Windows Server": a state or a platform, no place; nothing says which
    for name in ("Project Falcon", "Windows Server"):
        said = _said(shapes, "falcon.md", name)
        assert not any(relation == "located_in" for relation, _, _ in said), said
