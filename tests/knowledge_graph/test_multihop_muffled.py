"""The muffled multi-hop corpus's contract (bench/multihop_muffled.py, #28): deterministic, its size,
every answer reachable only through its chain (each link stated on a page of its pair, in a wording
of its relation; the answer page not naming the start and sharing no content word with the
question; no page off the chain naming both ends), pages in many genres, questions as people type
them (a fifth in lower case, relation words varied), its traps present and its dates agreeing. It
builds the corpus in memory and ingests nothing; it runs no ranker. Nobody tuning a ranker is to
read this file (it is a blind corpus's contract)."""

from __future__ import annotations

import itertools
import re
from collections import Counter

from bench.multihop_muffled import build_muffled, muffled_chains, muffled_world, words
from tests.support.corpus_pages import (
    Pages,
    check_answers_hidden,
    check_deterministic_and_sized,
    check_links_stated,
    check_no_page_off_the_chain_names_both_ends,
    link_sides,
    names,
)

DOCS, QUESTIONS = build_muffled()
CHAINS = muffled_chains()
WORLD, _ = muffled_world()
PAGES = Pages(DOCS)
BY_NAME = PAGES.by_name
title = PAGES.title
LOWER = [(q, fs) for q, fs in CHAINS if q.text == q.text.lower()]
CASED = [(q, fs) for q, fs in CHAINS if q.text != q.text.lower()]


def _kind(file: str) -> str:
    return file.split("_")[0]


def _rel(a: str, b: str) -> str:
    return next(r for r, links in WORLD.link.items() if links.get(a) == b)


def test_deterministic_and_sized() -> None:
    check_deterministic_and_sized(build_muffled, CHAINS, range(350, 401), (36, 90, 48))


def test_answers_exist_and_multihop_answers_share_no_word_with_the_question() -> None:
    check_answers_hidden(PAGES, CASED, words, start_off_answer=True)
    check_answers_hidden(PAGES, LOWER, words, start_off_answer=True, lower=True)  # typed in lower case
    for q, files in CHAINS:  # nor does the start page name the answer (one hop by another relation)
        assert q.hops == 1 or not names(BY_NAME[files[0]].text, title(q.answer)), q.text


def test_each_link_is_stated_on_at_least_one_page_of_its_pair_and_controls_on_the_answer() -> None:
    check_links_stated(PAGES, CHAINS)


def test_links_are_stated_forward_backward_and_both() -> None:
    fwd, back, both, pairs = link_sides(PAGES, CHAINS)
    assert fwd >= 0.35 * pairs and back >= 25 and both >= 25, (fwd, back, both, pairs)


def test_no_page_off_the_chain_names_both_ends() -> None:
    check_no_page_off_the_chain_names_both_ends(PAGES, CHAINS)


def test_questions_are_typed_in_varied_ways() -> None:
    texts = [q.text for q in QUESTIONS if q.hops > 1]
    assert len(LOWER) == len(QUESTIONS) // 5
    leads = ("find ", "tell me ", "give me ", "looking for ", "i need ")
    assert sum(t.lower().startswith(leads) for t in texts) >= 20  # instructions
    assert sum(t.endswith("?") for t in texts) >= 40
    assert sum(not t.endswith("?") and not t.lower().startswith(leads) for t in texts) >= 3  # bare noun phrases
    assert sum(len(re.findall(r"'s? [a-zA-Z]", t)) >= 2 for t in texts) >= 2  # possessive chains
    assert sum("'s " in t or "' " in t for t in texts) >= 15
    assert sum(" who " in t or " that " in t or " whoever " in t for t in texts) >= 10  # relative clauses
    assert len({t.split()[0].lower() for t in texts}) >= 8
    for t in [q.text for q in QUESTIONS]:  # no slip of grammar: "is in in", "what's the person"
        assert not re.search(r"\b(\w+) \1\b|\bwhere is where\b|\bwhat's the (person|founder|chef)", t.lower()), t
    assert len({q.answer for q in QUESTIONS if q.hops > 1}) >= 50
    assert len(Counter((q.hops, _kind(fs[0]), _kind(fs[1])) for q, fs in CHAINS)) >= 20
    assert len({_kind(fs[0]) for q, fs in CHAINS if q.hops == 3}) >= 4


def test_each_relation_is_asked_with_several_words() -> None:
    """The question words for each relation a chain walks vary, and chains cross kinds."""
    cues = {
        "plays_for": ("plays for", "turned out", "on the books", "club", "team", "play for", " at?"),
        "born_in": ("birthplace", "born", "hometown", "comes from", " from?"),
        "based_in": ("based", "location", "hosts", "you'd find", "base", " in?"),
        "head_chef": ("chef", "kitchen", "cooks"),
        "owned_by": ("owner", "owns", "company", "belong"),
    }
    for rel, wording in cues.items():
        used = Counter(
            next(c for c in wording if c in q.text.lower())
            for q, fs in CHAINS
            if any(_rel(a, b) == rel for a, b in itertools.pairwise(fs)) and any(c in q.text.lower() for c in wording)
        )
        assert len(used) >= 3, (rel, used)
    kinds = {tuple(_kind(f) for f in fs) for q, fs in CHAINS if q.hops == 3}
    assert len(kinds) >= 8, kinds
    walked = {_rel(a, b) for _q, fs in CHAINS for a, b in itertools.pairwise(fs)}
    assert len(walked) == 16, walked  # every relation type is walked somewhere


def test_pages_are_written_in_many_genres() -> None:
    texts = [d.text for d in DOCS]
    assert sum("OBITUARY. " in t and "who has died aged" in t for t in texts) >= 4
    assert sum("TRANSCRIPT " in t and re.search(r"^[A-Z]+: ", t, re.M) is not None for t in texts) >= 10  # podcasts
    assert sum("HALL OF FAME" in t for t in texts) >= 4
    assert sum(t.count(" wrote:\n") >= 2 for t in texts) >= 5  # forum threads
    assert sum("|---|---|" in t for t in texts) >= 20  # fact sheets and tables
    assert sum("MINUTES of the " in t for t in texts) >= 4
    assert sum("PRESS RELEASE" in t for t in texts) >= 10
    assert sum("TIMELINE" in t for t in texts) >= 10
    assert sum(re.search(r"^\[\d\d:\d\d\] <\w+> ", t, re.M) is not None for t in texts) >= 8  # chat logs
    assert sum("REVIEW. Rating: " in t for t in texts) >= 8
    assert sum(t.startswith("# ") and "\nMENU \u2014 " in t for t in texts) >= 8
    assert sum("WHERE TO EAT." in t or "GETTING THERE." in t or "TRAVEL GUIDE:" in t for t in texts) >= 15
    assert sum("MATCH REPORT." in t for t in texts) >= 10


def test_relations_are_worded_in_several_ways() -> None:
    text = "\n".join(d.text for d in DOCS)
    passives = ["is sponsored by ", "is owned by ", "are supplied by ", "is awarded each year by ", "Founded by "]
    assert all(text.count(p) >= 1 for p in passives), [(p, text.count(p)) for p in passives]
    appositive = [", the head chef,", ", the club's home ground,", "The head coach, "]
    assert all(text.count(a) >= 1 for a in appositive), [(a, text.count(a)) for a in appositive]
    rows = ["| Birthplace | ", "| Club | ", "| Home ground | ", "| Head chef at | ", "| Based in | "]
    assert all(text.count(r) >= 1 for r in rows) and sum(text.count(r) for r in rows) >= 30, [
        (r, text.count(r)) for r in rows
    ]
    fragments = ["Came through the ", "Born: ", "Part of ", "Holder of the ", "Winner of the ", "Head chef: "]
    assert all(text.count(f) >= 1 for f in fragments), [(f, text.count(f)) for f in fragments]
    assert text.count("It is where ") + text.count(" is where ") >= 5  # "it is where ..."
    assert sum(text.count(f) for f in ("I was born in ", "I came through ", "I trained at ", "I'm head chef")) >= 8


def test_traps_present() -> None:
    titles = [title(d.name) for d in DOCS]
    person_titles = [title(f) for f in BY_NAME if f.startswith("person_")]
    towns = {title(f) for f in BY_NAME if f.startswith("town_")}
    assert sum(any(t.startswith(p + " (") for t in titles) for p in person_titles) >= 10  # namesakes
    assert sum(n >= 2 for n in Counter(p.split()[-1] for p in person_titles).values()) >= 6  # shared surnames
    based = WORLD.link["based_in"]
    for kind in ("club", "restaurant"):  # named after a town they are not in
        named = [e for e in WORLD.ents.values() if e.kind == kind and set(e.title.split()) & towns]
        assert len(named) >= 3, kind
        assert all(WORLD.ents[based[e.file]].title not in e.title.split() for e in named)

    def stems(kind: str) -> set[str]:  # an organisation's own word ("Loska" of "Loska Foods", "The Loska Guide")
        return {e.title.removeprefix("The ").split()[0] for e in WORLD.ents.values() if e.kind == kind}

    assert stems("sponsor") & stems("farm") and stems("award") & stems("guide")  # two organisations on one stem
    core = [title(f) for f in BY_NAME if f.startswith(("club_", "restaurant_"))]
    renamed = [d for d in DOCS if d.name.startswith("renamed_")]
    assert len(renamed) >= 10 and all(" was " in d.text and any(names(d.text, t) for t in core) for d in renamed)
    hubs = [d for d in DOCS if d.name.startswith(("table_", "squad_", "match_", "listing_", "festival_"))]
    assert len(hubs) >= 40
    assert sum(len(re.findall(r"\n(- |\d+\. |\| \d+ \| |Stall \d)", d.text)) >= 4 for d in hubs) >= 25
    notes = [d for d in DOCS if d.name.startswith("note_")]
    relation_words = ("founder", "born", "trained", "supplies", "sponsor", "based", "award", "manages", "owns")
    assert len(notes) >= 12 and sum(any(r in d.text for r in relation_words) for d in notes) >= 8
    entity_titles = [title(f) for f in BY_NAME if not f.startswith("note_")]
    assert not any(names(d.text, t) for d in notes for t in entity_titles)


def test_a_question_naming_a_shared_name_says_which_person_it_means() -> None:
    shared = {title(d.name).split(" (")[0] for d in DOCS if d.name.startswith("namesake_")}
    for q in QUESTIONS:
        for name in shared:
            if names(q.text.lower(), name.lower()):
                assert re.search(rf"the (footballer|coach|chef) {re.escape(name.lower())}", q.text.lower()), q.text


# how each relation a question may walk is worded where a link of it is stated
_CUES = {
    "plays_for": r"(?i:\bplay(ed|s)? for\b|\bplayers?\b|playing days|\bsigns for\b|\bsquad\b)|^\| Club \|",
    "came_through": r"(?i:came (up )?through|product of|youth career|as a schoolboy|graduates of|produced)",
    "coached_by": r"(?i:head coach|\bmanages\b|\bcoach(es|ing)\b)",
    "founded_by": r"(?i:\bfound(ed|er|s)\b|set up by)",
    "sponsored_by": r"(?i:sponsor|on the shirts)",
    "home_ground": r"(?i:home (ground|games))",
    "head_chef": r"(?i:head chef)",
    "trained_at": r"(?i:\btrain(ed|s|ing)\b|alumni|former students)",
    "apprenticed_under": r"(?i:\btrain(ed|s)? under\b|\btrained\b|started under)",
    "supplied_by": r"(?i:suppl(ied|ies)|produce|delivers)",
    "owned_by": r"(?i:\bown(s|ed)\b|restaurants of\b|^part of\b|restaurant\.$|its restaurants)",
    "won": r"(?i:\bw(on|inners?)\b|holders?\b)",
    "award_by": r"(?i:award(ed|s)|present(ed|s)|\bgives\b)",
    "born_in": r"(?i:\bborn\b|birthplace|births)",
    "based_in": r"(?i:\bbased\b|\bis in\b|offices|home to|address|stands on|old quarter|home in|, the \w+ club,)"
    r"|^MENU \u2014 .*, ",
    "in_county": r"(?i:town in|part of|county|within its borders)",
}


def _units(text: str) -> list[str]:
    """A page cut into what a reader takes in at once: paragraphs, lines, sentences."""
    out: list[str] = []
    for para in text.split("\n\n"):
        lines: list[str] = []
        for line in para.split("\n"):
            if lines and lines[-1].endswith(" wrote:"):
                lines[-1] += "\n" + line
            else:
                lines.append(line)
        out += [u for line in lines for u in re.split(r"(?<=[.!]) (?=[A-Z])", line)]
    return out


def test_each_relation_a_question_walks_is_stated_as_such() -> None:
    """A link asked as a birthplace is stated as a birth, a supplier as supplying, a head chef as
    the head chef, and so on for every relation: never merely named alongside."""
    checked = 0
    for q, files in CHAINS:
        for a, b in itertools.pairwise(files):
            rel = _rel(a, b)
            back = [u for u in _units(BY_NAME[b].text) if names(u, title(a))]
            units = [u for u in _units(BY_NAME[a].text) if names(u, title(b))] + back
            assert any(re.search(_CUES[rel], u, re.M) for u in units), (q.text, rel, a, b, units)
            if q.hops == 1:
                assert any(re.search(_CUES[rel], u, re.M) for u in back), (q.text, rel, back)
            checked += 1
    assert checked >= 300


def test_dates_agree() -> None:
    """No page dated in the future; clubs founded by grown men before they died, groups by grown
    restaurateurs; chefs of age when they head a kitchen, mentors older than their pupils, academies
    and schools open when their pupils joined; awards after their guides and won once they exist."""
    w, docs = muffled_world()
    years = [int(y) for d in docs for y in re.findall(r"\b(?:18|19|20)\d\d\b", d.text)]
    assert max(years) <= 2026
    born = {f: e.facts["born"] for f, e in w.ents.items() if e.kind == "person"}
    year = {f: e.facts["year"] for f, e in w.ents.items() if "year" in e.facts}
    for org, p in w.link["founded_by"].items():
        assert born[p] + 25 <= year[org], org
        assert year[org] < w.ents[p].facts.get("died", 9999), org
    for r, c in w.link["head_chef"].items():
        assert born[c] + 24 <= year[r] <= born[c] + 55
    assert all(born[m] + 12 <= born[c] for c, m in w.link["apprenticed_under"].items())
    assert all(year[a] <= born[p] + 12 for p, a in w.link["came_through"].items())
    assert all(year[s] <= born[c] + 17 for c, s in w.link["trained_at"].items())
    assert all(year[a] >= year[g] for a, g in w.link["award_by"].items())
    for r, a in w.link["won"].items():
        assert year[a] <= w.ents[r].facts["won_year"] <= 2025 and year[r] <= w.ents[r].facts["won_year"]
    for d in docs:
        m = re.search(r"who has died aged (\d+)", d.text)
        if m:
            assert 40 <= int(m.group(1)) <= 100, d.text
        if "TIMELINE" in d.text and "OF THE TOWN" not in d.text:  # a person's or club's timeline runs in order
            ys = [int(x[:4]) for x in d.text.split("TIMELINE", 1)[1].splitlines()[1:]]
            assert ys == sorted(ys) and max(ys) <= 2025, d.text
        for moved, ground in re.findall(r"^(\d{4}) \u2014 moves to (.+), its home ground", d.text, re.M):
            opened = year[next(f for f, e in w.ents.items() if e.title == ground)]
            assert int(moved) >= opened, d.text  # a club moves to a ground once it has opened


def test_pages_and_questions_read_as_english() -> None:
    from bench.multihop_muffled_questions import ECHO, lower_ambiguous

    for d in DOCS:
        assert not re.search(r"\bAn [B-DF-HJ-NP-TV-Z]|\b[Aa] [AEIOU]|\ban [b-df-hj-np-tv-z]", d.text), d.text
        assert not re.search(r"\S  \S", d.text), d.text
    for q in QUESTIONS:
        assert not ECHO.search(q.text.lower()), q.text
    assert not [q.text for q, fs in LOWER if lower_ambiguous(WORLD, fs[0])]
    assert sum(lower_ambiguous(WORLD, fs[0]) for _q, fs in CASED) >= 10
