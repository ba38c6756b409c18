"""What the multi-hop corpora's contract tests read from a page, and the checks every generated corpus
must pass. One copy, so each corpus's contract (blind, veiled, fresh, sealed, ...) holds its pages and
chains to the same rules; each test file adds the checks of its own styles and traps."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable

from bench.corpus_world import World
from bench.multihop_corpus import Doc, Question


class Pages:
    """A corpus's pages by name."""

    def __init__(self, docs: Iterable[Doc]) -> None:
        self.by_name = {d.name: d for d in docs}

    def title(self, name: str) -> str:
        """The page's first line, its `# ` heading."""
        return self.by_name[name].text.splitlines()[0].removeprefix("# ")


def names(text: str, name: str) -> bool:
    """Whether `text` names `name` as a whole (not as part of a longer word)."""
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


Build = Callable[..., tuple[list[Doc], list[Question]]]
Chains = list[tuple[Question, list[str]]]


def check_deterministic_and_sized(build: Build, chains: Chains, pages: range, hops: tuple[int, int, int]) -> None:
    """The same seed gives the same corpus, another seed another; a size in `pages`; `hops` questions
    of one, two and three hops, each asked once, in the order of their chains."""
    docs, questions = build()
    again_docs, again_questions = build()
    assert again_docs == docs and again_questions == questions
    assert build(seed=7)[0] != docs
    assert len(docs) in pages, len(docs)
    p = Pages(docs)
    assert len(p.by_name) == len(docs) and len({p.title(d.name) for d in docs}) == len(docs)
    assert tuple(sum(q.hops == h for q in questions) for h in (1, 2, 3)) == hops
    assert [q for q, _ in chains] == questions
    assert len({q.text for q in questions}) == len(questions)


def check_answers_hidden(
    pages: Pages, chains: Chains, words: Callable[[str], set[str]], start_off_answer: bool, lower: bool = False
) -> None:
    """A question names where its chain starts and not its answer; a multi-hop answer shares no content
    word with the question (and, with `start_off_answer`, does not name the start either); no chain
    visits a page twice. `lower`: the questions are typed in lower case, so the titles are compared
    in lower case in them."""
    case = str.lower if lower else str
    for q, files in chains:
        assert q.answer == files[-1] and q.answer in pages.by_name and len(files) == q.hops + 1
        assert len(set(files)) == len(files), q.text
        assert names(q.text, case(pages.title(files[0]))), q.text
        assert not names(q.text, case(pages.title(q.answer))), q.text
        if q.hops > 1:
            assert not words(q.text) & words(pages.by_name[q.answer].text), q.text
            if start_off_answer:
                assert not names(pages.by_name[q.answer].text, pages.title(files[0])), q.text


def check_links_stated(pages: Pages, chains: Chains) -> None:
    """Each link of a chain is stated on one page of its pair at least; a one-hop control's answer page
    names the question's entity."""
    for q, files in chains:
        for a, b in itertools.pairwise(files):
            assert names(pages.by_name[a].text, pages.title(b)) or names(pages.by_name[b].text, pages.title(a)), (
                q.text,
                a,
                b,
            )
        if q.hops == 1:
            assert names(pages.by_name[q.answer].text, pages.title(files[0])), q.text


def link_sides(pages: Pages, chains: Chains) -> tuple[int, int, int, int]:
    """How the chains' distinct links are stated: on the subject's page only, on the other end's only,
    on both, and in all."""
    pairs = {(a, b) for _q, files in chains for a, b in itertools.pairwise(files)}
    forward = {(a, b) for a, b in pairs if names(pages.by_name[a].text, pages.title(b))}
    backward = {(a, b) for a, b in pairs if names(pages.by_name[b].text, pages.title(a))}
    return len(forward - backward), len(pairs - forward), len(forward & backward), len(pairs)


def check_no_page_off_the_chain_names_both_ends(pages: Pages, chains: Chains) -> None:
    """No page outside a multi-hop chain names both its start and its answer: such a page would
    answer the question by sharing words with it, not by following the chain."""
    for q, files in chains:
        if q.hops > 1:
            start, end = pages.title(files[0]), pages.title(files[-1])
            both = {name for name, d in pages.by_name.items() if names(d.text, start) and names(d.text, end)}
            assert both <= set(files), (q.text, both)


def named_titles(text: str, titles: list[str]) -> set[str]:
    """The titles `text` names, the longest first (a town's name inside an organisation's is not the town)."""
    found: set[str] = set()
    for t in sorted(titles, key=len, reverse=True):
        for m in re.finditer(rf"(?<!\w){re.escape(t)}(?!\w)", text):
            found.add(t)
            text = text[: m.start()] + "#" * len(t) + text[m.end() :]
    return found


def check_links_worded(
    w: World, docs: list[Doc], chains: Chains, cues: dict[str, str], units: Callable[[str], list[str]]
) -> None:
    """Every link a question walks is stated, on one of its two pages, in a span (`units`) naming the
    other end with a wording of its relation (`cues`, a pattern per relation)."""
    pages = Pages(docs)
    for q, files in chains:
        for a, b in itertools.pairwise(files):
            rels = [r for r, links in w.link.items() if links.get(a) == b]
            assert len(rels) == 1, (q.text, a, b)
            cue = re.compile(cues[rels[0]], re.I)
            said = [u for u in units(pages.by_name[a].text) if names(u, pages.title(b))]
            said += [u for u in units(pages.by_name[b].text) if names(u, pages.title(a))]
            assert any(cue.search(u) for u in said), (q.text, a, b, said)


def check_no_page_contradicts(
    w: World, docs: list[Doc], cues: dict[str, str], units: Callable[[str], list[str]]
) -> None:
    """Where a span names a link's subject (or is on its page) with the relation's wording, it names no
    other entity of the link's target's kind in its target's place: one birthplace, one maker, ...
    (namesakes' pages, another person of the same name, are each corpus's trap test's)."""
    by_title = {e.title: e for e in w.ents.values()}
    titles = list(by_title)
    for d in docs:
        if d.name.startswith("namesake_"):
            continue
        own = Pages([d]).title(d.name)
        for u in units(d.text)[1:]:
            here = named_titles(u, titles) | ({own} if own in by_title else set())
            for rel, links in w.link.items():
                if not re.search(cues[rel], u, re.I):
                    continue
                for s in here:
                    dst = links.get(by_title[s].file)
                    if dst is None:
                        continue
                    kind = w.ents[dst].facts.get("role", w.ents[dst].kind)
                    # the same relation the other way ("X was coached by S" on S's page) is no rival
                    pupils = {t for t in here if links.get(by_title[t].file) == by_title[s].file}
                    rivals = {t for t in here - {s} - pupils if by_title[t].facts.get("role", by_title[t].kind) == kind}
                    assert not rivals or w.ents[dst].title in here, (d.name, rel, u)
