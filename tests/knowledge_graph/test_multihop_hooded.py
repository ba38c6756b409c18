"""Contract of the hooded multi-hop corpus (#28, bench/multihop_hooded*.py): a blind check of the kg
ranker, so its promises are pinned here and not by a ranker's score. Nobody tuning a ranker reads it.

Shared checks (tests/support/corpus_pages.py) plus this corpus's own: every walked link stated in a
wording of its relation, no page contradicting another's link, the traps (namesakes, shared
surnames, organisations named after towns they are not in, shared stems, listings, notes), the seven
page styles, the question forms, grammar, dates and lifetimes."""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

import pytest

from bench.corpus_world import World
from bench.multihop_corpus import Doc
from bench.multihop_hooded import build_hooded, hooded_chains, hooded_world, words
from bench.multihop_hooded_questions import ASK, WHICH, WHOSE
from bench.multihop_hooded_words import CUES
from tests.support.corpus_pages import (
    Chains,
    Pages,
    check_answers_hidden,
    check_deterministic_and_sized,
    check_links_stated,
    check_links_worded,
    check_no_page_contradicts,
    check_no_page_off_the_chain_names_both_ends,
    link_sides,
    names,
)

_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_LISTING = re.compile(r"(party|sale|tasting|rota|subs|mileage|almanac)_")


@pytest.fixture(scope="module")
def made() -> tuple[World, list[Doc], Chains]:
    w, docs = hooded_world()
    return w, docs, hooded_chains()


def _units(text: str) -> list[str]:
    """A page's sentences, key-value lines, table rows and minutes' items: the spans a link is stated in."""
    return [u for line in text.splitlines() for u in re.split(r"(?<=[.\]]) (?=[A-Z])|; ", line) if u.strip()]


def test_deterministic_sized_and_every_start_once(made: tuple[World, list[Doc], Chains]) -> None:
    check_deterministic_and_sized(build_hooded, made[2], range(340, 421), (36, 90, 48))
    starts = [files[0] for _q, files in made[2]]
    assert len(set(starts)) == len(starts)


def test_answers_hidden_links_stated_and_no_page_off_the_chain_names_both_ends(
    made: tuple[World, list[Doc], Chains],
) -> None:
    w, docs, chains = made
    pages = Pages(docs)
    lowered = [(replace(q, text=q.text.lower()), files) for q, files in chains]
    check_answers_hidden(pages, lowered, words, start_off_answer=True, lower=True)
    check_links_stated(pages, chains)
    namesakes = {pages.title(d.name).split(" (")[0] for d in docs if d.name.startswith("namesake_")}
    for q, files in chains:
        assert w.ents[files[0]].title not in namesakes, q.text  # no start a namesake also bears
        if q.hops > 1:  # nor does the start's page name the answer
            assert not names(pages.by_name[files[0]].text, pages.title(files[-1])), q.text
    check_no_page_off_the_chain_names_both_ends(pages, chains)


def test_every_walked_link_is_stated_in_a_wording_of_its_relation(made: tuple[World, list[Doc], Chains]) -> None:
    check_links_worded(*made, CUES, _units)


def test_no_page_contradicts_a_link(made: tuple[World, list[Doc], Chains]) -> None:
    check_no_page_contradicts(made[0], made[1], CUES, _units)


def test_links_are_stated_on_either_side_or_both(made: tuple[World, list[Doc], Chains]) -> None:
    subject_only, other_only, both, total = link_sides(Pages(made[1]), made[2])
    assert total > 230 and min(subject_only, other_only, both) >= 40, (subject_only, other_only, both)


def test_questions_as_people_write_them(made: tuple[World, list[Doc], Chains]) -> None:
    w, _docs, chains = made
    texts = [q.text for q, _ in chains]
    lower = [t for t in texts if t == t.lower()]
    assert len(texts) // 5 <= len(lower) <= len(texts) // 5 + 1, len(lower)
    multi = [q.text for q, _ in chains if q.hops > 1]
    forms = {
        "question": [t for t in multi if t.endswith("?")],
        "request": [t for t in multi if re.match(r"(can you find|please name|help me find|i need) ", t, re.I)],
        "indirect": [t for t in multi if re.match(r"(i wonder|do you happen to know) ", t, re.I)],
        "wh-question": [t for t in multi if re.match(r"(which|who|where|in what|from which|what town) ", t, re.I)],
        "relative clause": [t for t in multi if re.search(r"\b(that|who) \w+", t)],
        "whose": [t for t in multi if " whose " in t],
        "possessive": [t for t in multi if re.search(r"\w's? ", t)],
        "of-chain": [t for t in multi if re.search(r"\b(of|for) the \w+ of\b", t, re.I)],
    }
    assert all(len(v) >= 8 for v in forms.values()), {k: len(v) for k, v in forms.items()}
    rels = {
        r for _q, files in chains for a, b in itertools.pairwise(files) for r, ls in w.link.items() if ls.get(a) == b
    }
    assert len(rels) >= 15, rels


_STYLES = {
    "obituary": "\nObituary, printed in ",
    "interview": "\nTranscript of a conversation recorded in ",
    "minutes": "\nMinutes of a meeting of the board, held on ",
    "catalogue": "\nCatalogue entry, accession no. ",
    "footnoted": "\nNotes\n\n[",
}


def _style(text: str) -> str:
    for style, mark in _STYLES.items():
        if mark in text:
            return style
    return "infobox" if re.search(r"\n[A-Z][A-Za-z ]+: \S", text) else "narrative"


def test_seven_styles(made: tuple[World, list[Doc], Chains]) -> None:
    w, docs, _chains = made
    used: dict[str, int] = {}
    for d in docs:
        e = w.ents.get(d.name)
        if e is None:
            continue
        style = _style(d.text)
        used[style] = used.get(style, 0) + 1
        assert style != "obituary" or "died" in e.facts, d.name  # obituaries of the dead only
        assert style != "interview" or (e.kind == "person" and "died" not in e.facts), d.name
    assert len(used) == 7 and min(used.values()) >= 15, used


def test_pages_read_as_english(made: tuple[World, list[Doc], Chains]) -> None:
    """No article before a pronoun, "an" before a vowel, no "he"/"she" right after a sentence led by
    someone else (nor "it" after one led by another thing), the dead in the past tense and the
    living in the present, a reported clause keeping no capital but a name's."""
    w, docs, _chains = made
    bad = re.compile(r"\b(the|a|an) (it|its|the|he|she|him|her|his)\b|\b(at|by|from|of|in|for) it\b", re.I)
    assert not [(d.name, m.group(0)) for d in docs for m in bad.finditer(d.text)]
    assert not [(d.name, m.group(0)) for d in docs for m in re.finditer(r"\ba [aeiou]\w+", d.text)]
    assert not [
        d.name for d in docs if re.search(r"(that|Further,) (Among|In|The|A|It|Its|His|Her|Since|Under) ", d.text)
    ]
    assert not [d.name for d in docs if re.search(r"\b(is|are) born\b", d.text)]
    for d in docs:
        own = Pages([d]).title(d.name).split(" (")[0]
        for line in d.text.splitlines():
            said = re.split(r"(?<=[.\]]) (?=[A-Z])", line)
            for before, s in itertools.pairwise(said):
                led = [e for e in w.ents.values() if before.startswith(e.title) and not before.startswith(own)]
                pronoun = r"(He|She|His|Her) " if any(e.kind == "person" for e in led) else r"(It|Its) "
                assert not (led and re.match(pronoun, s)), (d.name, before, s)
    for e in w.ents.values():
        if e.kind == "person":
            text = Pages(docs).by_name[e.file].text
            if "died" in e.facts:
                assert re.search(rf"{re.escape(e.title)}(?: \([^)]*\))?,? (?:who has died aged \d+, )?was ", text), (
                    e.file
                )
                assert not re.search(rf"{re.escape(e.title)}(?: \([^)]*\)|, born \d+,) is ", text), e.file
            else:
                assert not re.search(rf"{re.escape(e.title)}(?: \([^)]*\))?,? was an? ", text), e.file


def test_traps(made: tuple[World, list[Doc], Chains]) -> None:
    w, docs, chains = made
    titles = {d.name: Pages(docs).title(d.name) for d in docs}
    people = [e for e in w.ents.values() if e.kind == "person"]
    namesakes = [d for d in docs if d.name.startswith("namesake_")]
    assert len(namesakes) >= 10
    walked = {w.ents[f].title for _q, files in chains for f in files}
    assert any(titles[d.name].split(" (")[0] in walked for d in namesakes)
    for d in namesakes:
        p = next(p for p in people if titles[d.name].startswith(p.title + " ("))
        home = w.target("born", p)
        assert home is not None and not names(d.text, home.title), d.name
    surnames = [p.title.split()[-1] for p in people]
    assert sum(surnames.count(s) > 1 for s in set(surnames)) >= 3
    towns = {e.title: e for e in w.ents.values() if e.kind == "town"}
    misnamed = [e for e in w.ents.values() if e.kind != "town" and e.title.split()[0] in towns]
    assert len(misnamed) >= 5 and all(w.target("in", e) is not towns[e.title.split()[0]] for e in misnamed)
    orgs = [e for e in w.ents.values() if e.file in w.link["in"]]
    stems = [e.title.split()[0] for e in orgs]
    assert sum(stems.count(s) == 2 and s not in towns for s in set(stems)) >= 3
    ents = list(w.ents.values())
    listings = [d for d in docs if _LISTING.match(d.name)]
    assert len(listings) >= 40 and all(sum(names(d.text, e.title) for e in ents) >= 4 for d in listings)
    # a listing names entities in passing and states no link
    assert not [(d.name, r) for d in listings for r, c in CUES.items() if re.search(c, d.text, re.I)]
    notes = [d for d in docs if d.name.startswith("note_")]
    assert len(notes) >= 12
    for d in notes:
        assert not any(names(d.text, e.title) for e in ents), d.name
        assert sum(bool(re.search(c, d.text, re.I)) for c in CUES.values()) >= 2, d.name


def test_dates_agree(made: tuple[World, list[Doc], Chains]) -> None:
    """Founders 25 to 70 at a founding; comets found by astronomers of 22 to 80 from observatories
    already open; telescopes after their firm, designed by makers of 25 to 75, mounted where an
    observatory stood; bells after their foundry, given by winegrowers of 30 to 85; wines after
    their estate and cooperage, blended by winegrowers of 22 to 75; nothing after 2025."""
    w, docs, _chains = made
    y = {f: int(e.facts["year"]) for f, e in w.ents.items()}
    fact = {f: e.facts for f, e in w.ents.items()}
    ln = w.link
    assert all(25 <= y[o] - y[p] <= 70 for o, p in ln["founded"].items())
    assert all(22 <= y[c] - y[a] <= 80 and y[c] > y[ln["sighted"][c]] for c, a in ln["discovered"].items())
    assert all(y[t] > y[s] and 25 <= y[t] - y[ln["designed"][t]] <= 75 for t, s in ln["built"].items())
    assert all(y[t] <= fact[t]["y_housed"] <= 2025 and fact[t]["y_housed"] > y[o] for t, o in ln["housed"].items())
    assert all(y[b] > y[f] and 30 <= y[b] - y[ln["donated"][b]] <= 85 for b, f in ln["cast"].items())
    for x, e in ln["produced"].items():
        assert y[x] > y[e] and y[x] > y[ln["barrels"][x]] and 22 <= y[x] - y[ln["vinified"][x]] <= 75, x
    assert max(int(x) for d in docs for x in _YEAR.findall(d.text)) <= 2025


def test_lifetimes_agree(made: tuple[World, list[Doc], Chains]) -> None:
    """Students of 18 to 24 at a college already open; assistants to an astronomer 15 to 50 years
    older and still alive; directors living, appointed at 30 to 44 after their observatory opened;
    the dead died at 72 or later, after every dated link of theirs, by 2025; everyone born before
    1935 dead, everyone after alive; an obituary, minutes or interview dated no earlier than any year
    it mentions."""
    w, docs, _chains = made
    y = {f: int(e.facts["year"]) for f, e in w.ents.items()}
    fact = {f: e.facts for f, e in w.ents.items()}
    for p, c in w.link["studied"].items():
        assert 18 <= fact[p]["y_studied"] - y[p] <= 24 and y[c] < fact[p]["y_studied"], p
    for s, m in w.link["mentor"].items():
        assert 15 <= y[s] - y[m] <= 50 and fact[s]["y_mentor"] < fact[m].get("died", 9999), s
    for o, a in w.link["director"].items():
        assert "died" not in fact[a] and 30 <= fact[o]["y_director"] - y[a] <= 44 and y[o] < fact[o]["y_director"]
    last: dict[str, int] = {}
    for rel, links in w.link.items():
        for src, dst in links.items():
            for f in (src, dst):
                last[f] = max(last.get(f, 0), int(fact[src].get(f"y_{rel}", y[src])))
    for f, e in w.ents.items():
        if e.kind == "person":
            assert ("died" in e.facts) == (y[f] < 1935), f
            if "died" in e.facts:
                assert y[f] + 72 <= e.facts["died"] <= 2025 and e.facts["died"] > last.get(f, 0), f
    dated = re.compile(r"(?:Obituary, printed in|held on \d+ \w+|conversation recorded in) (\d{4})")
    for doc in docs:
        when = dated.search(doc.text)
        assert not when or int(when.group(1)) >= max(int(x) for x in _YEAR.findall(doc.text)), doc.name


_LISTING_YEAR = re.compile(
    r"^# (?:Star party programme|Saleroom catalogue|Tasting sheet|Ringing rota|Subscription list|Parish almanac)"
    r" (\d{4})|^# Mileage table \d+, (\d{4}) edition",
    re.M,
)


def test_listings_name_only_what_existed_then(made: tuple[World, list[Doc], Chains]) -> None:
    """A listing of year Y names people aged 20 to 70 and alive in Y, and works and organisations
    made before Y."""
    w, docs, _chains = made
    ents = [e for e in w.ents.values() if e.kind not in ("town", "province")]
    listings = [d for d in docs if _LISTING.match(d.name)]
    assert len(listings) >= 40
    for d in listings:
        m = _LISTING_YEAR.search(d.text)
        assert m, d.name
        year = int(m.group(1) or m.group(2))
        for e in ents:
            if names(d.text, e.title):
                age = year - int(e.facts["year"])
                ok = 20 <= age <= 70 and year < e.facts.get("died", 9999) if e.kind == "person" else age > 0
                assert ok, (d.name, e.title)


def test_first_sentence_agrees_with_the_title(made: tuple[World, list[Doc], Chains]) -> None:
    """A refractor is not called a reflecting telescope, nor the other way; only a "Tenor" is a tenor bell."""
    w, docs, _chains = made
    for d in docs:
        e = w.ents.get(d.name)
        if e is None or e.kind not in ("telescope", "bell"):
            continue
        first = re.search(rf"{re.escape(e.title)} is [^.]*\.", d.text)
        assert first, d.name
        said = first.group(0).removeprefix(e.title)
        if e.title.endswith(" Refractor"):
            assert "reflecting" not in said, said
        if e.title.endswith(" Reflector"):
            assert "refracting" not in said, said
        if not e.title.endswith(" Tenor"):
            assert "tenor" not in said, said


def test_namesake_pages_read_as_english(made: tuple[World, list[Doc], Chains]) -> None:
    """A namesake "is not to be confused with" the person of the same name, called by their own
    trade, and in the tense of their own lifetime."""
    w, docs, _chains = made
    roles = {"astronomer": "astronomer", "maker": "instrument maker", "vintner": "winegrower", "founder": "benefactor"}
    people = {e.title: e for e in w.ents.values() if e.kind == "person"}
    for d in docs:
        if d.name.startswith("namesake_"):
            p = people[Pages([d]).title(d.name).split(" (")[0]]
            assert re.search(rf" is not to be confused with the {roles[p.facts['role']]} of the same name", d.text)
            m = re.search(r"\((?:b\. |born )(\d{4})(, died \d{4})?\) (is|was) ", d.text)
            assert m and (m.group(3) == "was") == bool(m.group(2)) == (int(m.group(1)) < 1935), d.name


def test_pages_tidy(made: tuple[World, list[Doc], Chains]) -> None:
    """A name ending in s takes a bare apostrophe; no run of blank lines, no heading with nothing
    under it; each organisation at its own street address; footnote markers all explained."""
    _w, docs, chains = made
    texts = [d.text for d in docs] + [q.text for q, _files in chains]
    assert not [t for t in texts if re.search(r"s's\b", t)]
    assert not [d.name for d in docs if "\n\n\n" in d.text or not d.text.endswith("\n") or d.text.endswith("\n\n")]
    assert not [d.name for d in docs if re.search(r"\n(Notes|Present:[^\n]*)\n*$|\|---\|\n*$", d.text)]
    addresses = [m.group(1) for d in docs for m in re.finditer(r"Premises: (\d+ [A-Z]\w+ [A-Z]\w+),", d.text)]
    assert len(addresses) >= 3 and len(set(addresses)) == len(addresses), addresses
    for d in docs:
        if "\nNotes\n" in d.text:
            body, notes = d.text.split("\nNotes\n")
            assert set(re.findall(r"\[(\d+)\]", body)) == set(re.findall(r"^\[(\d+)\]", notes, re.M)), d.name


def test_questions_nest_as_people_write(made: tuple[World, list[Doc], Chains]) -> None:
    """No word said twice in a row, no phrase opened twice in a row ("the town the town"), no two
    clauses closing together ("... operates from is part of")."""
    texts = [q.text for q, _files in made[2]]
    assert not [t for t in texts if re.search(r"\b(\w+) \1\b", t, re.I)]
    assert not [t for t in texts if re.search(r"\b(the \w+ (?:that|who|where|whose) )\w+ \1", t, re.I)]
    tails = r"(?:came from|grew up in|operates from|went to|is part of|was spotted|sits|is)"
    assert not [t for t in texts if re.search(rf"\b{tails} {tails}\b", t)]


def test_a_founder_sets_up_a_few_ventures_in_different_years(made: tuple[World, list[Doc], Chains]) -> None:
    """No benefactor sets up eight organisations, nor two in one year (a clamp once gave the earliest
    benefactor every organisation older than the others, all in the same year)."""
    w = made[0]
    years: dict[str, list[int]] = {}
    for o, p in w.link["founded"].items():
        years.setdefault(p, []).append(int(w.ents[o].facts["year"]))
    assert all(len(ys) <= 4 and len(set(ys)) == len(ys) for ys in years.values()), years


def test_one_phrase_one_relation(made: tuple[World, list[Doc], Chains]) -> None:
    """A question's phrase for a hop fits only that hop: no two relations from one kind of entity share
    a phrase ("the maker of" a wine: its estate or its winemaker?), no phrase names the role of
    another relation's far end ("the maker of" a telescope designed by an instrument maker), and a
    "whose" form folds two hops only where the middle entity has one link to the end's kind ("the
    person whose station keeps X": its director or its founder?)."""
    w = made[0]
    kind = {f: str(e.facts.get("role", e.kind)) for f, e in w.ents.items()}
    broad = {f: e.kind for f, e in w.ents.items()}
    ends: dict[str, dict[str, set[str]]] = {}  # subject kind -> relation -> far ends' kinds
    for rel, links in w.link.items():
        for s, d in links.items():
            ends.setdefault(broad[s], {}).setdefault(rel, set()).add(kind[d])
    roles = {"astronomer": "astronomer", "maker": "maker", "vintner": "winegrower", "founder": "benefactor"}
    for rels in ends.values():
        for a, b in itertools.permutations(rels, 2):
            forms_a = {f.lower() for f in ASK[a] + WHICH[a]}
            assert not forms_a & {f.lower() for f in ASK[b] + WHICH[b]}, (a, b)
            for role in rels[b] & set(roles):
                assert not [f for f in forms_a if re.search(rf"\b{roles[role]}", f)] or role in rels[a], (a, b)
    broad_end = {r: {broad[d] for d in links.values()} for r, links in w.link.items()}
    for (a, b), _forms in WHOSE.items():
        middles = {broad[d] for d in w.link[a].values()}
        rivals = [r for m in middles for r in ends.get(m, {}) if r != b and broad_end[r] & broad_end[b]]
        assert not rivals, (a, b, rivals)


def test_interviews_and_infoboxes_say_a_thing_once(made: tuple[World, list[Doc], Chains]) -> None:
    """An interviewer asks each question once; an infobox gives one key per relation (not "Natives: X"
    and "Born here: Y" for the same thing); footnotes are numbered 1, 2, 3... and one marker ends a
    sentence."""
    w, docs, _chains = made
    for d in docs:
        asked = re.findall(r"^Q: (.*)$", d.text, re.M)
        assert len(set(asked)) == len(asked), d.name
        e = w.ents.get(d.name)
        if e is not None:
            kv = [ln for ln in d.text.splitlines() if re.match(r"[A-Z][\w ]+: \S", ln) and not ln.startswith("Object:")]
            for rel in w.link:
                others = w.incoming(rel, e)
                lines = {ln for ln in kv for x in others if names(ln, x.title)}
                assert len(lines) <= 1, (d.name, rel, lines)
        if "\nNotes\n" in d.text:
            body, notes = d.text.split("\nNotes\n")
            numbers = [int(n) for n in re.findall(r"^\[(\d+)\]", notes, re.M)]
            assert numbers == list(range(1, len(numbers) + 1)) and "][" not in body, d.name


def test_a_county_infobox_lists_its_towns(made: tuple[World, list[Doc], Chains]) -> None:
    """A county's key-value lines read from the county's side: its towns, not "Parish within: X" (which
    says the county is a parish within the town)."""
    w, docs, _chains = made
    counties = {e.file for e in w.ents.values() if e.kind == "province"}
    wrong = re.compile(r"^(?:Parish within|County|Region|Within)\b[^:\n]*: ", re.M)
    assert not [d.name for d in docs if d.name in counties and wrong.search(d.text)]
