"""Contract of the shrouded multi-hop corpus (#28, bench/multihop_shrouded*.py): a blind check of the
kg ranker, so its rules are pinned here and not by a ranker's score. Nobody tuning a ranker reads it.

Shared checks (tests/support/corpus_pages.py) plus this corpus's own: every walked link stated in a
wording of its relation, the start's page not naming a multi-hop answer, a tenth of the questions
in lower case, the question forms, the encyclopaedia's grammar and the other page kinds, the traps
and the dates."""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

import pytest

from bench.corpus_world import World, cap
from bench.multihop_corpus import Doc
from bench.multihop_shrouded import build_shrouded, shrouded_chains, shrouded_world, words
from bench.multihop_shrouded_text import KIND_WORD, link_year
from bench.multihop_shrouded_words import CUES
from tests.support.corpus_pages import (
    Chains,
    Pages,
    check_answers_hidden,
    check_deterministic_and_sized,
    check_links_stated,
    check_no_page_off_the_chain_names_both_ends,
    link_sides,
    names,
)


@pytest.fixture(scope="module")
def made() -> tuple[World, list[Doc], Chains]:
    w, docs = shrouded_world()
    return w, docs, shrouded_chains()


def _sentences(text: str) -> list[str]:
    return [s for line in text.splitlines() for s in re.split(r"(?<=\.) (?=[A-Z])", line) if s.strip()]


def test_deterministic_sized_and_every_question_once(made: tuple[World, list[Doc], Chains]) -> None:
    check_deterministic_and_sized(build_shrouded, made[2], range(380, 421), (36, 90, 48))
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


def test_no_start_is_a_name_a_namesake_bears(made: tuple[World, list[Doc], Chains]) -> None:
    w, docs, chains = made
    for q, files in chains:
        assert not [d.name for d in docs if d.text.startswith(f"# {w.ents[files[0]].title} (")], q.text


def test_pages_read_as_english(made: tuple[World, list[Doc], Chains]) -> None:
    """No article before a pronoun or another article, no "it" as a name's stand-in after a
    preposition it cannot follow ("the top of it"), no placeholder left unfilled, and no "he" or
    "she" right after a sentence led by another person (it could mean either)."""
    w, docs, _chains = made
    bad = re.compile(r"\b(the|a|an) (it|its|the|he|she|him|her|his)\b|\{|\}|\b(of|by|at) (he|she|it)\b", re.I)
    assert not [(d.name, m.group(0)) for d in docs for m in bad.finditer(d.text)]
    # nor "the work of her" nor a noun defined as itself ("The cloth is the cloth of X"), nor a birth
    # after an opening on a later part of a life ("Trained at X, Y was born in Z"), nor "all her
    # life" of somebody alive
    later = r"^(- )?(Trained at|Woven at|A summit of|Based in|Situated in) [^,]+, [^.]*\b(born|native)\b"
    odd = re.compile(rf"\bof (him|her)\b|\b[Tt]he (\w+) is the \2\b|{later}", re.M)
    assert not [(d.name, m.group(0)) for d in docs for m in odd.finditer(d.text)]
    alive = [d for d in docs if re.search(r"\(born \d{4}\) is\b", d.text)]
    assert not [d.name for d in alive if re.search(r" all (his|her) life", d.text)]
    people = [e.title for e in w.ents.values() if e.kind == "person"]
    for d in docs:
        for before, s in itertools.pairwise(_sentences(d.text)):
            led = [p for p in people if before.startswith(p) and not d.text.startswith(f"# {p}\n")]
            assert not (led and re.match(r"(He|She) ", s)), (d.name, before, s)


def test_a_page_own_stand_in_never_follows_another_entity_nor_opens_a_list_item(
    made: tuple[World, list[Doc], Chains],
) -> None:
    """In a paragraph, no "It", "Its", "He", "She" or "The mill" right after a sentence led by another
    entity (a club, a mill, a person: the pronoun could mean it), and no list item (a timeline's, a
    list page's) opening on one: an item stands alone, so it names the page's entity."""
    w, docs, _chains = made
    stand_in = re.compile(rf"(It|Its|He|She|His|Her|{'|'.join(cap(k) for k in KIND_WORD.values())})\b")
    titles = [e.title for e in w.ents.values()]
    bad = []
    for d in docs:
        for para in d.text.split("\n\n"):
            sents = _sentences(para)
            bad += [(d.name, s) for s in sents if s.startswith("- ") and stand_in.match(s[2:])]
            for before, s in itertools.pairwise(sents):
                led = max((t for t in titles if before.lstrip("- ").startswith(t)), key=len, default=None)
                if led and not d.text.startswith(f"# {led}\n") and stand_in.match(s.lstrip("- ")):
                    bad.append((d.name, before, s))
    assert not bad, bad[:5]


def test_every_walked_link_is_stated_in_a_wording_of_its_relation(made: tuple[World, list[Doc], Chains]) -> None:
    w, docs, chains = made
    pages = Pages(docs)
    for q, files in chains:
        for a, b in itertools.pairwise(files):
            rels = [r for r, links in w.link.items() if links.get(a) == b]
            assert rels, (q.text, a, b)
            cue = re.compile("|".join(CUES[r] for r in rels), re.I)
            said = [s for s in _sentences(pages.by_name[a].text) if names(s, pages.title(b))]
            said += [s for s in _sentences(pages.by_name[b].text) if names(s, pages.title(a))]
            assert any(cue.search(s) for s in said), (q.text, a, b, said)


def test_links_are_stated_on_either_side_or_both(made: tuple[World, list[Doc], Chains]) -> None:
    subject_only, other_only, both, total = link_sides(Pages(made[1]), made[2])
    assert total > 250 and min(subject_only, other_only, both) >= 40, (subject_only, other_only, both)


def test_questions_as_users_type_them(made: tuple[World, list[Doc], Chains]) -> None:
    texts = [q.text for q, _ in made[2]]
    lower = [t for t in texts if t == t.lower()]
    assert len(texts) // 10 <= len(lower) <= len(texts) // 10 + 1, len(lower)
    forms = {
        "question": [t for t in texts if t.endswith("?")],
        "instruction": [t for t in texts if re.match(r"(find|tell me|look up|show me|i need) ", t, re.I)],
        "possessive chain": [t for t in texts if t.count("'s ") >= 2],
        "bare phrase": [t for t in texts if not re.search(r"\?|'s |\b(of|the)\b", t)],
        "relative clause": [t for t in texts if re.search(r"\b(who|whoever|that|where)\b", t)],
    }
    assert all(len(v) >= 10 for v in forms.values()), {k: len(v) for k, v in forms.items()}
    relations = {r for _q, files in made[2] for r in _relations(made[0], files)}
    assert len(relations) >= 14, relations
    # a question has no antecedent for "it" ("the mapper of the hill above it of X"), and a person on
    # a chain may be dead: no present tense of their posts ("the label X works for")
    assert not [t for t in texts if re.search(r"\bit\b|\bworks for\b|\bemploying\b", t, re.I)]


def _relations(w: World, files: list[str]) -> list[str]:
    return [r for a, b in itertools.pairwise(files) for r, links in w.link.items() if links.get(a) == b]


_KINDS = {
    "infobox": r"\nName: ",
    "register table": r"\| Field \| Entry \|",
    "timeline": r"## Chronology",
    "news item": r"_News, \d",
    "list page": r"This page lists",
}


def test_encyclopaedia_pages_and_a_fifth_of_other_kinds(made: tuple[World, list[Doc], Chains]) -> None:
    """Most entity pages are articles opening on a definition ("X is a ...", "X (1850-1920) was a
    ..."); the rest are the other kinds, each used; the articles' grammar varies: a sentence stating
    two relations, several subjects listed in one sentence, pronouns, surnames alone."""
    w, docs, _chains = made
    core = [d for d in docs if d.name in w.ents]
    other = {kind: [d for d in core if re.search(mark, d.text)] for kind, mark in _KINDS.items()}
    assert min(len(v) for v in other.values()) >= 6, {k: len(v) for k, v in other.items()}
    n_other = sum(len(v) for v in other.values())
    assert 0.15 <= n_other / len(core) <= 0.25, n_other
    opening = re.compile(r"# (.+)\n\n\1 (\(\D*\d{4}[^)]*\) )?(is|was) (a|an) ")
    articles = [d for d in core if not any(d in v for v in other.values())]
    assert all(opening.match(d.text) for d in articles), [d.name for d in articles if not opening.match(d.text)][:3]
    text = "\n".join(d.text for d in articles)
    assert (
        len(
            re.findall(r"(Born in|A native of|Based in|Situated in|Trained at|Woven at|A summit of) [^,]+, [A-Z]", text)
        )
        >= 20
    )
    lists = r"\b(include|founded|surveyed|weaves|designed|runs|first ascents of|takes in|stand) [^.]+ and [A-Z]"
    assert len(re.findall(lists, text)) >= 25  # several subjects of one relation in one sentence
    assert len(re.findall(r"(?:^|\. )(He|She|It|Its) ", text, re.M)) >= 100
    surnames = {e.title.split()[-1] for e in w.ents.values() if e.kind == "person"}
    alone = re.findall(r"(?:^|\. )([A-Z][a-z]+) [a-z]", text, re.M)
    assert sum(s in surnames for s in alone) >= 20


def test_a_chronology_runs_in_the_order_of_its_years(made: tuple[World, list[Doc], Chains]) -> None:
    """A timeline's items in the order of the earliest year each gives, the undated ones last."""
    chronologies = [d.text.split("## Chronology\n\n", 1)[1] for d in made[1] if "## Chronology" in d.text]
    assert len(chronologies) >= 6
    for text in chronologies:
        items = [x for x in text.split("\n\n", 1)[0].splitlines() if x.startswith("- ")]
        when = [min((int(y) for y in re.findall(r"\b(1[789]\d\d|20\d\d)\b", x)), default=9999) for x in items]
        assert when == sorted(when), items


def test_traps(made: tuple[World, list[Doc], Chains]) -> None:
    w, docs, chains = made
    pages = Pages(docs)
    people = [e for e in w.ents.values() if e.kind == "person"]
    # namesakes: another page of a person's name, born elsewhere
    namesakes = [d for d in docs if d.name.startswith("namesake_")]
    assert len(namesakes) >= 10
    for d in namesakes:
        p = next(p for p in people if pages.title(d.name).startswith(p.title + " ("))
        home = w.target("born", p)
        assert home is not None and not names(d.text, home.title) and "born in" in d.text
    # shared surnames
    surnames = [p.title.split()[-1] for p in people]
    assert sum(surnames.count(s) > 1 for s in set(surnames)) >= 3
    # organisations named after a town they are not in, some of them on a walked chain
    towns = {e.title: e for e in w.ents.values() if e.kind == "town"}
    misnamed = [e for e in w.ents.values() if e.kind != "town" and e.title.split()[0] in towns]
    assert len(misnamed) >= 5 and all(w.target("in", e) is not towns[e.title.split()[0]] for e in misnamed)
    walked = {f for _q, files in chains for f in files}
    assert any(e.file in walked for e in misnamed)
    # two organisations on one stem
    orgs = [e for e in w.ents.values() if e.kind in ("publisher", "club", "mill", "house", "school", "hut")]
    stems = [e.title.split()[0] for e in orgs]
    assert sum(stems.count(s) == 2 for s in set(stems)) >= 3
    # listings naming many entities in passing and stating no link (no relation words)
    listings = [
        d for d in docs if re.match(r"(heights|lectures|fair|subscribers|catwalk|booking|rota|accessions)_", d.name)
    ]
    titles = [e.title for e in w.ents.values()]
    assert len(listings) >= 35 and all(sum(names(d.text, t) for t in titles) >= 6 for d in listings)
    assert not [d.name for d in listings if re.search(r"born|found|member|woven|designed|surveyed", d.text)]
    # notes sharing the relation words and naming nobody
    notes = [d for d in docs if d.name.startswith("note_")]
    assert len(notes) >= 10
    for d in notes:
        assert not any(names(d.text, t) for t in titles)
        assert sum(bool(re.search(c, d.text, re.I)) for c in CUES.values()) >= 2, d.name


def test_dates_agree(made: tuple[World, list[Doc], Chains]) -> None:
    """Organisations founded by people of 25 to 70, first ascents led by guides of 20 to 55 and
    surveys made by surveyors of 22 to 65, memberships and posts after the organisation began and
    the person was grown, training after the school opened, collections after their designer
    trained and once their cloth was woven, huts built after their club began, deaths after every
    dated event, nobody alive past 95, no year past 2025."""
    w, docs, _chains = made
    y = {f: int(e.facts["year"]) for f, e in w.ents.items()}
    fact = {f: e.facts for f, e in w.ents.items()}
    assert all(25 <= y[org] - y[p] <= 70 for org, p in w.link["founded"].items())
    assert all(20 <= fact[pk]["y_first_ascent"] - y[g] <= 55 for pk, g in w.link["first_ascent"].items())
    assert all(22 <= fact[pk]["y_surveyed"] - y[s] <= 65 for pk, s in w.link["surveyed"].items())
    for rel in ("club", "employer", "house"):
        assert all(fact[p][f"y_{rel}"] >= max(y[o], y[p] + 16) for p, o in w.link[rel].items()), rel
    assert all(fact[d]["y_trained"] > y[s] and fact[d]["y_trained"] >= y[d] + 18 for d, s in w.link["trained"].items())
    assert all(fact[d]["y_house"] > fact[d]["y_trained"] for d in w.link["house"])
    assert all(y[c] > fact[d]["y_trained"] for c, d in w.link["designed"].items())
    assert all(y[h] > y[c] for h, c in w.link["hut_club"].items())
    assert all(y[c] >= fact[f]["y_woven"] for c, f in w.link["fabric"].items())  # its cloth woven by then
    living = [int(x) for d in docs for x in re.findall(r"\(born (\d{4})\) is\b", d.text)]
    assert min(living) >= 1930, min(living)  # nobody alive at over 95, namesakes too
    for d in docs:
        m = re.match(r"# (.+)\n\n\1 \((\d{4})\u2013(\d{4})\)", d.text)
        if m and d.name in w.ents:  # a person dead by now: after every dated link of theirs, on any page
            events = [link_year(w, r, w.ents[s]) for r, ls in w.link.items() for s, o in ls.items() if d.name in (s, o)]
            assert int(m.group(3)) >= max(events), d.name
    years = r"\b(1[789]\d\d|20\d\d)\b(?! ?m\b| metres)"  # not a height
    assert max(int(x) for d in docs for x in re.findall(years, d.text)) <= 2025
