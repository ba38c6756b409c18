"""The parts every generated multi-hop corpus (#28) shares: a world of entities tied by directed
relations, the fictional-name maker, and how a page and its questions are assembled from a seed.

Each corpus (bench/multihop_blind*.py, _veiled*.py, _masked*.py, _cloaked*.py) keeps its own domain, wording,
traps and question grammar; what is the same logic in all of them lives here once, so a fix to how
a chain is followed or a link is stated holds in every corpus. Generating is deterministic: the same
seed gives the same pages and questions, byte for byte.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from bench.multihop_corpus import Doc, Question

# which page states a link: its source's ("fwd"), its target's ("back") or both
SIDES = ("fwd", "back", "both")


@dataclass
class Ent:
    file: str
    title: str
    kind: str  # the corpus's own entity kinds (town, person, ship, ...)
    domain: str = ""  # a sub-domain where a corpus has several (blind: type, scent or watch)
    facts: dict[str, Any] = field(default_factory=dict)


@dataclass
class World:
    ents: dict[str, Ent] = field(default_factory=dict)
    link: dict[str, dict[str, str]] = field(default_factory=dict)  # relation -> source file -> target file
    side: dict[tuple[str, str], str] = field(default_factory=dict)  # (relation, source) -> one of SIDES

    def add(self, e: Ent) -> Ent:
        self.ents[e.file] = e
        return e

    def tie(self, rel: str, src: Ent, dst: Ent, side: str = "fwd") -> None:
        self.link.setdefault(rel, {})[src.file] = dst.file
        self.side[(rel, src.file)] = side

    def out(self, rel: str, src: Ent) -> Ent | None:
        """The target of `src`'s link when `src`'s own page states it."""
        dst = self.link.get(rel, {}).get(src.file)
        return self.ents[dst] if dst and self.side[(rel, src.file)] in ("fwd", "both") else None

    def target(self, rel: str, src: Ent) -> Ent | None:
        """The target of `src`'s link, wherever (if anywhere) it is stated."""
        dst = self.link.get(rel, {}).get(src.file)
        return self.ents[dst] if dst else None

    def incoming(self, rel: str, dst: Ent) -> list[Ent]:
        """The sources of links into `dst` that `dst`'s page states."""
        return [
            self.ents[s]
            for s, d in self.link.get(rel, {}).items()
            if d == dst.file and self.side[(rel, s)] in ("back", "both")
        ]


class NameMaker(Protocol):
    def word(self) -> str: ...


class Names:
    """Fictional words from a corpus's own syllables, each used once unless a trap reuses one on purpose.
    A word shorter than `shortest` or matching `reject` (a regex on its lower case) is drawn again."""

    def __init__(
        self, rng: random.Random, syllables: Sequence[Sequence[str]], shortest: int, reject: str | None = None
    ) -> None:
        self.rng, self.syllables, self.shortest, self.used = rng, syllables, shortest, set[str]()
        self.reject = re.compile(reject) if reject else None

    def word(self, last: Sequence[str] | None = None) -> str:
        """A fresh word; `last` replaces the final syllables (a place's or a surname's ending, say)."""
        parts = self.syllables if last is None else [*self.syllables[:-1], last]
        while True:
            w = "".join(self.rng.choice(part) for part in parts).capitalize()
            bad = self.reject is not None and self.reject.search(w.lower()) is not None
            if len(w) >= self.shortest and w.lower() not in self.used and not bad:
                self.used.add(w.lower())
                return w


# words a question and its answer may share without giving the answer away
FUNCTION_WORDS = frozenset(
    "which what where whose when that this these those with from into have been were does whom their there they "
    "them also than then after before under over about other some each only most more such very upon".split()
)


def join_and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def article(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def cap(s: str) -> str:
    return s[0].upper() + s[1:]


def names(text: str, name: str) -> bool:
    """Whether `text` names `name` as a whole (not as part of a longer word)."""
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


def side(rng: random.Random, fwd: int, both: int, back: int) -> str:
    """Which page states a new link, drawn with the corpus's weights (one of SIDES)."""
    return rng.choices(["fwd", "both", "back"], [fwd, both, back])[0]


@dataclass
class People:
    """People with fresh names, each born in one of `towns`; up to `max_shared` surnames end up shared
    by two people (the shared-surname trap), each new person taking a used surname with chance
    `share`. hushed, shrouded and swathed draw their people this way: the random draws are made in
    one fixed order (given name, the share draw while sharing is open, surname, year, town, side), so a
    corpus's pages depend only on its seed and these settings."""

    rng: random.Random
    nm: Names
    w: World
    towns: list[Ent]
    given: Sequence[str]  # given names to draw from
    female: set[str]  # which of them are women's
    surname_ends: Sequence[str]  # endings for fresh surnames (`Names.word(last=...)`)
    side: Callable[[random.Random], str]  # which page states the "born" link
    max_shared: int = 6
    share: float = 0.07
    role_fact: bool = False  # also record the role as the fact "role"
    surnames: list[str] = field(default_factory=list)
    titles: set[str] = field(default_factory=set)
    shared: int = 0

    def make(self, role: str, n: int, years: tuple[int, int]) -> list[Ent]:
        """`n` people of one role (their files `<role>_NN.md`), born in a year of `years`."""
        out = []
        for i in range(n):
            while True:
                given = self.rng.choice(self.given)
                again = bool(self.surnames) and self.shared < self.max_shared and self.rng.random() < self.share
                surname = self.rng.choice(self.surnames) if again else self.nm.word(last=self.surname_ends)
                if f"{given} {surname}" not in self.titles:
                    break
            self.shared += again
            self.surnames.append(surname)
            self.titles.add(f"{given} {surname}")
            facts: dict[str, Any] = {"female": given in self.female, "year": self.rng.randint(*years)}
            if self.role_fact:
                facts["role"] = role
            p = self.w.add(Ent(f"{role}_{i:02d}.md", f"{given} {surname}", "person", role, facts))
            self.w.tie("born", p, self.rng.choice(self.towns), self.side(self.rng))
            out.append(p)
        return out


def stated(w: World, text: dict[str, str], a: str, b: str) -> bool:
    """Whether the link between `a` and `b` is stated: either's page names the other."""
    return names(text[a], w.ents[b].title) or names(text[b], w.ents[a].title)


def chains(w: World, pattern: tuple[str, ...]) -> list[list[str]]:
    """Every walk of `pattern`'s relations through the world: the files from start to answer."""
    out = []
    for start in w.link.get(pattern[0], {}):
        files = [start]
        for rel in pattern:
            nxt = w.link.get(rel, {}).get(files[-1])
            if nxt is None:
                break
            files.append(nxt)
        else:
            out.append(files)
    return out


def question_pools(
    w: World,
    text: dict[str, str],
    naming: dict[str, set[str]],
    patterns: list[tuple[str, ...]],
    rng: random.Random,
    words: Callable[[str], set[str]],
    phrase: Callable[[World, list[str], tuple[str, ...], random.Random], str],
) -> list[list[tuple[str, list[str]]]]:
    """Each pattern's askable questions with their chains' files, shuffled; patterns with none left out.

    A chain is askable when it visits no page twice and each of its links is stated. A one-hop
    control is kept when its answer page names the start; a multi-hop question when its answer page
    does not name the start, no page off the chain names both ends, and one of 60 phrasings shares
    no content word with the answer page.
    """
    pools = []
    for pattern in patterns:
        pool = []
        for files in chains(w, pattern):
            answer = files[-1]
            if len(set(files)) < len(files) or not all(stated(w, text, a, b) for a, b in itertools.pairwise(files)):
                continue
            if len(pattern) == 1:  # a control: its answer page names the start
                if answer in naming[files[0]]:
                    pool.append((phrase(w, files, pattern, rng), files))
                continue
            if answer in naming[files[0]] or (naming[files[0]] & naming[answer]) - set(files):
                continue
            for _ in range(60):
                q = phrase(w, files, pattern, rng)
                if not words(q) & words(text[answer]):
                    pool.append((q, files))
                    break
        rng.shuffle(pool)
        pools.append(pool)
    return [p for p in pools if p]


def crude_stem(word: str) -> str:
    """A crude stem: a plural's -s dropped, then the first six letters, so "studio" meets "Studios",
    "producer" meets "production" and "publisher" meets "published" ("road" meets "roads")."""
    if word.endswith("s") and not word.endswith("ss") and len(word) > 4:
        word = word[:-1]
    return word[:6]


def stemmed_words(text: str, function_words: frozenset[str] | set[str]) -> set[str]:
    """Crude stems of the content words of four letters or more (lower-cased): what a multi-hop
    question and its answer page must not share, not even as singular and plural or as a verb and
    its noun."""
    found = re.findall(r"[a-z']{4,}", text.lower().replace("'s ", " ").replace("' ", " "))
    return {crude_stem(t) for t in found if t not in function_words}


def draw(pools: list[list[tuple[str, list[str]]]], want: int, cap: int) -> list[tuple[Question, list[str]]]:
    """`want` questions drawn round-robin over the patterns' pools (popped from their ends): one per
    start entity, and a multi-hop answer page the answer of at most `cap` of them."""
    ends: dict[str, int] = {}
    taken: list[tuple[Question, list[str]]] = []
    starts: set[str] = set()
    while len(taken) < want and any(pools):
        for pool in pools:
            while pool and len(taken) < want:
                q, files = pool.pop()
                if files[0] in starts or (len(files) > 2 and ends.get(files[-1], 0) >= cap):
                    continue
                starts.add(files[0])
                ends[files[-1]] = ends.get(files[-1], 0) + 1
                taken.append((Question(q, files[-1], len(files) - 1), files))
                break
    return taken


Patterns = list[tuple[str, ...]]


def draw_questions(
    w: World,
    docs: list[Doc],
    rng: random.Random,
    words: Callable[[str], set[str]],
    phrase: Callable[[World, list[str], tuple[str, ...], random.Random], str],
    plan: Sequence[tuple[Patterns, int]],
    lower: Callable[[int], bool],
    controls_by_fame: bool = False,
) -> list[tuple[Question, list[str]]]:
    """A corpus's questions with their chains' files, drawn per `plan` (patterns and how many, in the
    order drawn) and returned by hop count: one start per question, never a start a namesake's page
    ("# Name (cellist)") also bears, and a multi-hop answer page that does not name its start. The
    `i`-th question is typed in lower case when `lower(i)`; with `controls_by_fame` one-hop controls
    start on the entities fewest pages name last, so the most-named are drawn first, as real
    questions' starts are."""
    text = {d.name: d.text for d in docs}
    twins = {f for f, e in w.ents.items() for d in docs if d.text.startswith(f"# {e.title} (")}
    naming = {f: {d.name for d in docs if e.title in d.text and names(d.text, e.title)} for f, e in w.ents.items()}
    used: set[str] = set()
    drawn: dict[int, list[tuple[Question, list[str]]]] = {}
    for patterns, want in plan:
        pools = question_pools(w, text, naming, patterns, rng, words, phrase)
        pools = [
            [(q, f) for q, f in pool if f[0] not in used | twins and (len(f) == 2 or f[0] not in naming[f[-1]])]
            for pool in pools
        ]
        if controls_by_fame and len(patterns[0]) == 1:
            pools = [sorted(pool, key=lambda qf: len(naming[qf[1][0]])) for pool in pools]
        got = draw(pools, want, cap=4)
        used |= {f[0] for _q, f in got}
        drawn[len(patterns[0])] = got
    taken = [qf for hops in sorted(drawn) for qf in drawn[hops]]
    return [(replace(q, text=q.text.lower()) if lower(i) else q, f) for i, (q, f) in enumerate(taken)]


@dataclass(frozen=True)
class Recipe:
    """How one corpus is made from a seed: its names, world, pages, traps and questions."""

    names: Callable[[random.Random], Names]
    populate: Callable[[random.Random, Names], World]
    render: Callable[[World, Ent, random.Random], str]
    traps: Callable[[World, Names, random.Random], list[Doc]]
    questions: Callable[[World, list[Doc], random.Random], list[tuple[Question, list[str]]]]
    seed: int = 28  # the corpus's own seed, what build, world and chains use when given none

    def world(self, seed: int | None = None) -> tuple[World, list[Doc]]:
        """The world and its pages (the core entities, then the traps)."""
        rng = random.Random(self.seed if seed is None else seed)
        nm = self.names(rng)
        w = self.populate(rng, nm)
        docs = [Doc(e.file, self.render(w, e, rng)) for e in list(w.ents.values())]
        docs += self.traps(w, nm, rng)
        return w, docs

    def chains(self, seed: int | None = None) -> list[tuple[Question, list[str]]]:
        """Every question with the files of its chain, start to answer (for the contract tests)."""
        seed = self.seed if seed is None else seed
        w, docs = self.world(seed)
        return self.questions(w, docs, random.Random(seed + 1))

    def build(self, seed: int | None = None) -> tuple[list[Doc], list[Question]]:
        """The corpus: its pages and its questions, the same for a seed."""
        seed = self.seed if seed is None else seed
        w, docs = self.world(seed)
        return docs, [q for q, _files in self.questions(w, docs, random.Random(seed + 1))]


def place_orgs(
    rng: random.Random,
    nm: Names,
    w: World,
    kind: str,
    spec: tuple[int, list[str], tuple[int, int]],
    extra: list[str],
    side_of: Callable[[random.Random], str],
) -> list[Ent]:
    """`spec`'s count of organisations of one kind (a fresh word and a suffix, then `extra`'s titles,
    the traps), each in a town its title does not name, the link stated on `side_of`'s page."""
    n, suffixes, years = spec
    titles = [f"{nm.word()} {rng.choice(suffixes)}" for _ in range(n)] + extra
    towns = [e for e in w.ents.values() if e.kind == "town"]
    out = []
    for i, title in enumerate(titles):
        e = w.add(Ent(f"{kind}_{i:02d}.md", title, kind, facts={"year": rng.randint(*years)}))
        w.tie("in", e, rng.choice([t for t in towns if t.title not in title]), side_of(rng))
        out.append(e)
    return out


def make_works(rng: random.Random, nm: Names, w: World, kind: str, n: int, forms: list[str]) -> list[Ent]:
    """`n` works of one kind, each titled by one of `forms` around a fresh word."""
    return [
        w.add(Ent(f"{kind}_{i:02d}.md", rng.choice(forms).format(nm.word()), kind, facts={"year": 0})) for i in range(n)
    ]
