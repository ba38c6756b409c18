"""Contract of the swathed multi-hop corpus (#28, bench/multihop_swathed*.py): a blind check of the
kg ranker, so its promises are pinned here and not by a ranker's score. Nobody tuning a ranker reads it.

Shared checks (tests/support/corpus_pages.py) plus this corpus's own: every walked link stated in a
wording of its relation, no page contradicting another's link, the traps (namesakes, shared
surnames, organisations named after towns they are not in, shared stems, listings, notes), the six
page styles, the question forms, pronouns and dates."""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

import pytest

from bench.corpus_world import World
from bench.multihop_corpus import Doc
from bench.multihop_swathed import build_swathed, swathed_chains, swathed_world, words
from bench.multihop_swathed_words import CUES
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


@pytest.fixture(scope="module")
def made() -> tuple[World, list[Doc], Chains]:
    w, docs = swathed_world()
    return w, docs, swathed_chains()


def _units(text: str) -> list[str]:
    """A page's sentences, key-value pairs and table rows: the spans one link is stated in."""
    return [u for line in text.splitlines() for u in re.split(r"(?<=\.) (?=[A-Z])|; ", line) if u.strip()]


def test_deterministic_sized_and_every_start_once(made: tuple[World, list[Doc], Chains]) -> None:
    check_deterministic_and_sized(build_swathed, made[2], range(370, 411), (36, 90, 48))
    starts = [files[0] for _q, files in made[2]]
    assert len(set(starts)) == len(starts)


def test_answers_hidden_links_stated_and_no_page_off_the_chain_names_both_ends(
    made: tuple[World, list[Doc], Chains],
) -> None:
    _w, docs, chains = made
    pages = Pages(docs)
    lowered = [(replace(q, text=q.text.lower()), files) for q, files in chains]
    check_answers_hidden(pages, lowered, words, start_off_answer=True, lower=True)
    check_links_stated(pages, chains)
    check_no_page_off_the_chain_names_both_ends(pages, chains)
    for q, files in chains:
        if q.hops > 1:  # nor does the start's page name the answer
            assert not names(pages.by_name[files[0]].text, pages.title(files[-1])), q.text


def test_every_walked_link_is_stated_in_a_wording_of_its_relation(made: tuple[World, list[Doc], Chains]) -> None:
    check_links_worded(*made, CUES, _units)


def test_no_page_contradicts_a_link(made: tuple[World, list[Doc], Chains]) -> None:
    check_no_page_contradicts(made[0], made[1], CUES, _units)


def test_links_are_stated_on_either_side_or_both(made: tuple[World, list[Doc], Chains]) -> None:
    subject_only, other_only, both, total = link_sides(Pages(made[1]), made[2])
    assert total > 250 and min(subject_only, other_only, both) >= 40, (subject_only, other_only, both)


def test_questions_as_people_write_them(made: tuple[World, list[Doc], Chains]) -> None:
    w, _docs, chains = made
    texts = [q.text for q, _ in chains]
    lower = [t for t in texts if t == t.lower()]
    assert len(texts) // 5 <= len(lower) <= len(texts) // 5 + 1, len(lower)
    forms = {
        "question": [t for t in texts if t.endswith("?")],
        "request": [t for t in texts if re.match(r"(name|find|i'm looking|i'd like) ", t, re.I)],
        "indirect": [t for t in texts if re.match(r"(could you tell me|do you know) ", t, re.I)],
        "relative clause": [t for t in texts if re.search(r"\b(where|who|that) ", t)],
        "possessive": [t for t in texts if "'s " in t],
        "of-chain": [t for t in texts if re.search(r"\bof the\b", t)],
    }
    assert all(len(v) >= 10 for v in forms.values()), {k: len(v) for k, v in forms.items()}
    rels = {
        r for _q, files in chains for a, b in itertools.pairwise(files) for r, ls in w.link.items() if ls.get(a) == b
    }
    assert len(rels) >= 15, rels


_STYLES = {
    "timeline": "\nTimeline\n- ",
    "table": "| Field | Detail |",
    "news": "From the archive of",
    "register": "Register entry ",
}


def test_six_styles(made: tuple[World, list[Doc], Chains]) -> None:
    w, docs, _chains = made
    core = [d for d in docs if d.name in w.ents]
    used = {style: sum(mark in d.text for d in core) for style, mark in _STYLES.items()}
    plain = [d for d in core if not any(mark in d.text for mark in _STYLES.values())]
    used["infobox"] = sum(bool(re.search(r"\n[A-Z][A-Za-z ]+: \S", d.text)) for d in plain)
    used["prose"] = len(plain) - used["infobox"]
    assert min(used.values()) >= 15, used


def test_pages_read_as_english(made: tuple[World, list[Doc], Chains]) -> None:
    """No article before a pronoun, no "at it"-like object pronoun for an organisation, and no "he"
    or "she" right after a sentence led by someone else, nor "it" after one led by another thing
    (it could mean either)."""
    w, docs, _chains = made
    bad = re.compile(r"\b(the|a|an) (it|its|the|he|she|him|her|his)\b|\b(at|by|from|of|in) it\b", re.I)
    assert not [(d.name, m.group(0)) for d in docs for m in bad.finditer(d.text)]
    # a sentence reported in a clause keeps no capital but a name's
    assert not [d.name for d in docs if re.search(r"that (Among|In|The|A|It|Its|His|Her|Sprays) ", d.text)]
    for d in docs:
        own = Pages([d]).title(d.name).split(" (")[0]
        for line in d.text.splitlines():
            said = re.split(r"(?<=\.) (?=[A-Z])", line)
            for before, s in itertools.pairwise(said):
                led = [e for e in w.ents.values() if e.title != own and before.startswith(e.title)]
                pronoun = r"(He|She|His|Her) " if any(e.kind == "person" for e in led) else r"(It|Its) (?!was reported)"
                assert not (led and re.match(pronoun, s)), (d.name, before, s)
    # the living and the dead alike "were born": no "is born"; nobody born before 1935 "is" a singer
    assert not [d.name for d in docs if re.search(r"\b(is|are) born\b", d.text)]
    old = re.compile(r"\((?:b\. )?1([6-8]\d\d|9[0-2]\d|93[0-4])\) is |, born 1([6-8]\d\d|9[0-2]\d|93[0-4]), is ")
    assert not [d.name for d in docs if old.search(d.text)]
    # a news item reports nothing later than its own date
    for d in docs:
        m = re.search(r"From the archive of [\w ]+, (\d{4}):", d.text)
        assert not m or int(m.group(1)) >= max(int(y) for y in re.findall(r"\b(1[6-9]\d\d|20\d\d)\b", d.text)), d.name


def test_traps(made: tuple[World, list[Doc], Chains]) -> None:
    w, docs, chains = made
    titles = {d.name: Pages(docs).title(d.name) for d in docs}
    people = [e for e in w.ents.values() if e.kind == "person"]
    # namesakes: another page of a person's name, stating a birthplace not theirs
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
    orgs = [e for e in w.ents.values() if "in" in w.link and e.file in w.link["in"]]
    stems = [e.title.split()[0] for e in orgs]
    assert sum(stems.count(s) == 2 and s not in towns for s in set(stems)) >= 3
    ents = list(w.ents.values())
    listings = [d for d in docs if re.match(r"(season|seeds|auction|chart|gazetteer|roll|brief)_", d.name)]
    assert len(listings) >= 40 and all(sum(names(d.text, e.title) for e in ents) >= 5 for d in listings)
    # a listing names entities in passing and states no link
    assert not [(d.name, r) for d in listings for r, c in CUES.items() if re.search(c, d.text, re.I)]
    notes = [d for d in docs if d.name.startswith("note_")]
    assert len(notes) >= 12
    for d in notes:
        assert not any(names(d.text, e.title) for e in ents), d.name
        assert sum(bool(re.search(c, d.text, re.I)) for c in CUES.values()) >= 2, d.name


def test_dates_agree(made: tuple[World, list[Doc], Chains]) -> None:
    """Founders 25 to 70 at a founding, composers 25 to 75 at a premiere in a house already open,
    recordings after their opera and label with a soloist of 20 to 70, breeders 25 to 80 at a
    cultivar introduced by a nursery already trading, a cultivar named after a grown singer,
    porcelain after its factory and its flower, teachers 15 years older, no page past 2025."""
    w, docs, _chains = made
    y = {f: int(e.facts["year"]) for f, e in w.ents.items()}
    assert all(25 <= y[o] - y[p] <= 70 for o, p in w.link["founded"].items())
    assert all(25 <= y[o] - y[c] <= 75 for o, c in w.link["composed"].items())
    assert all(y[o] > y[h] for o, h in w.link["premiered"].items())
    assert all(y[r] > y[w.link["of_opera"][r]] and y[r] > y[w.link["label"][r]] for r in w.link["label"])
    assert all(20 <= y[r] - y[s] <= 70 for r, s in w.link["soloist"].items())
    assert all(25 <= y[c] - y[b] <= 80 and y[c] > y[w.link["introduced"][c]] for c, b in w.link["bred"].items())
    assert all(y[c] - y[s] >= 20 for c, s in w.link["named_for"].items())
    assert all(y[s] > y[f] and y[s] > y[w.link["depicts"][s]] for s, f in w.link["made_by"].items())
    assert all(y[t] <= y[s] - 15 for s, t in w.link["teacher"].items())
    assert max(int(x) for d in docs for x in re.findall(r"\b(1[6-9]\d\d|20\d\d)\b", d.text)) <= 2025


def test_lifetimes_agree(made: tuple[World, list[Doc], Chains]) -> None:
    """Review n28r: students of 18 to 24 at a school already open (not "graduated in 1921" at 70),
    apprentices of 19 to 24 before their first cultivar, teachers 15 to 50 years older (no lessons
    from someone of 127), curators alive (the pages and questions say "is curator", "who looks
    after") and appointed at 30 to 44, no record label before the gramophone."""
    w, _docs, _chains = made
    y = {f: int(e.facts["year"]) for f, e in w.ents.items()}
    fact = {f: e.facts for f, e in w.ents.items()}
    for p, school in w.link["studied"].items():
        assert 18 <= fact[p]["y_studied"] - y[p] <= 24 and y[school] < fact[p]["y_studied"], p
    first_bred: dict[str, int] = {}
    for c, b in w.link["bred"].items():
        first_bred[b] = min(first_bred.get(b, 9999), y[c])
    for b, garden in w.link["trained"].items():
        assert 19 <= fact[b]["y_trained"] - y[b] <= 24 and y[garden] < fact[b]["y_trained"], b
        assert fact[b]["y_trained"] <= first_bred.get(b, 9999), b
    assert all(15 <= y[s] - y[t] <= 50 for s, t in w.link["teacher"].items())
    for g, b in w.link["curator"].items():
        assert y[b] >= 1945 and 30 <= fact[g]["y_curator"] - y[b] <= 44, (g, b)
    assert all(y[lab] >= 1895 for lab in w.link["in"] if w.ents[lab].kind == "label")


_LISTING_YEAR = re.compile(
    r"^# (?:Festival season|Spring list|Ceramics sale|Members' roll|News in brief,) ?(\d{4})"
    r"|^# Classical chart, week \d+, (\d{4})",
    re.M,
)


def test_listings_name_only_what_existed_then(made: tuple[World, list[Doc], Chains]) -> None:
    """Review n28r: a festival season, seed list, sale, chart, roll or news in brief of year Y names
    people aged 20 to 70 in Y and works and organisations made before Y (not a 1950 cast with a
    singer born in 1983, nor a 1966 list offering a plant introduced in 2017)."""
    w, docs, _chains = made
    ents = [e for e in w.ents.values() if e.kind != "town"]
    listings = [d for d in docs if re.match(r"(season|seeds|auction|chart|roll|brief)_", d.name)]
    assert len(listings) >= 40
    for d in listings:
        m = _LISTING_YEAR.search(d.text)
        assert m, d.name
        year = int(m.group(1) or m.group(2))
        for e in ents:
            if names(d.text, e.title):
                age = year - int(e.facts["year"])
                assert (20 <= age <= 70) if e.kind == "person" else age > 0, (d.name, e.title)


_SUFFIX_WORD = {"Vase": "vase", "Tureen": "tureen", "Service": "service", "Figure Group": "figure group",
                "Botanic Garden": "botanic", "Physic Garden": "physic", "Arboretum": "arboretum"}  # fmt: skip


def test_first_sentence_agrees_with_the_title(made: tuple[World, list[Doc], Chains]) -> None:
    """Review n28r: a page's first sentence calls its entity nothing its title denies (no "X Vase is
    a dinner service", "X Live is a studio album", "X Arboretum is a walled physic garden")."""
    w, docs, _chains = made
    for d in docs:
        e = w.ents.get(d.name)
        if e is None or e.kind not in ("service", "recording", "garden"):
            continue
        first = re.search(rf"{re.escape(e.title)} (?:is|was) [^.]*\.", d.text)
        assert first, d.name
        said = first.group(0)
        for suffix, word in _SUFFIX_WORD.items():
            if e.title.endswith(" " + suffix):
                kinds = ("vase", "tureen", "service", "figure group", "botanic", "physic", "arboretum")
                assert not any(k in said.lower() for k in kinds if k != word), said
        if e.title.endswith((" Live", " Nights")):
            assert "studio" not in said, said
        if e.title.endswith(" Sessions"):
            assert "live album" not in said, said


def test_namesake_pages_read_as_english(made: tuple[World, list[Doc], Chains]) -> None:
    """Review n28r: "an architect" (not "a architect"), "is not to be confused" whatever the
    namesake's dates, and the person confused with named by their own trade (a founder is no
    "musician or gardener")."""
    w, docs, _chains = made
    roles = {"singer": "singer", "composer": "composer", "breeder": "plant breeder", "founder": "patron"}
    assert not [(d.name, m.group(0)) for d in docs for m in re.finditer(r"\ba [aeiou]\w+", d.text)]
    people = {e.title: e for e in w.ents.values() if e.kind == "person"}
    for d in docs:
        if d.name.startswith("namesake_"):
            p = people[Pages([d]).title(d.name).split(" (")[0]]
            assert re.search(rf" is not to be confused with the {roles[p.facts['role']]} of the same name", d.text)


def test_pages_tidy(made: tuple[World, list[Doc], Chains]) -> None:
    """Review n28r: a plural-looking name's possessive is "Lowlands'" (not "Lowlands's"); a birthplace
    is not "Skiarbbury, in 1857"; no run of blank lines nor a heading with nothing under it; no woman
    "a nurseryman"; each organisation at its own street address (not every one at "4 Quay Row")."""
    _w, docs, chains = made
    texts = [d.text for d in docs] + [q.text for q, _files in chains]
    assert not [t for t in texts if re.search(r"s's\b", t)]
    assert not [d.name for d in docs if re.search(r"birthplace was [A-Z]\w+, in \d", d.text)]
    assert not [d.name for d in docs if "\n\n\n" in d.text]
    assert not [d.name for d in docs if re.search(r"\nTimeline\n*$|\|---\|---\|\n*$", d.text)]  # a bare heading
    women = {e.file for e in _w.ents.values() if e.kind == "person" and e.facts["female"]}
    assert not [d.name for d in docs if d.name in women and re.search(r"\b[a-z]+man\b", d.text)]  # "a nurseryman"
    addresses = [m.group(1) for d in docs for m in re.finditer(r"Address:? \|? ?(\d+ [A-Z]\w+ [A-Z]\w+),", d.text)]
    assert len(addresses) >= 5 and len(set(addresses)) == len(addresses), addresses


_TAILS = (
    r"(?:was born|hails from|is based|operates|belongs to|attended|trained|studied|premiered|was first heard|"
    r"lessons|is named after|was apprenticed|learned horticulture|in gardening|to market|born in|located|based|"
    r"attend|premiere|lie|study music|named|apprenticed)"
)


def test_questions_nest_as_people_write(made: tuple[World, list[Doc], Chains]) -> None:
    """Review n28r: no word said twice in a row ("lessons lessons"), no relative clause opened twice
    in a row ("the place where the place where"), no three clauses closing together ("... was first
    heard operates belongs to?")."""
    texts = [q.text for q, _files in made[2]]
    assert not [t for t in texts if re.search(r"\b(\w+) \1\b", t, re.I)]
    assert not [t for t in texts if re.search(r"\b(the \w+ (?:where|who \w+|that \w+|on which)) \1\b", t, re.I)]
    assert not [t for t in texts if re.search(rf"\b{_TAILS} {_TAILS} {_TAILS}\b", t)]
