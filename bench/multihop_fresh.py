"""The fresh multi-hop corpus (#28): a blind check written without reading the `kg` ranker's code.

Its author read no `gateway/knowledge_graph/` code, none of the other corpora's questions, and never
ran `kg` on it, so it is a fair test of a ranker tuned elsewhere; nobody tuning the ranker is to
read this file. Four domains the other corpora do not use: ships (shipyards, skippers, home ports),
theatre (plays, playwrights, companies and their patrons), bridges (engineers and their masters,
rivers and the dales they rise in) and seed banks (botanists, varieties, dales). People are born in
and grow up in towns and learn from a master.

Each link is stated on one of its two pages only, in varied grammar (pronouns for the page's
subject, appositives, relative clauses, lists, the passive, "X is where Y ..."). Questions walk
forward along functional links (every step has exactly one answer) and are phrased by relation
(possessives, relative clauses, passives, role nouns). A multi-hop answer page shares no word of
four letters or more with its question, and no page names both ends of a multi-hop chain. Traps:
people sharing a surname, organisations named after a town they are not in, registers that mention
many entities in passing, and notes that share the questions' relation words but sit off every chain.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from bench.multihop_corpus import Doc, Question
from bench.multihop_fresh_text import render

_SYL_A = ["bar", "cal", "dun", "elm", "fen", "gar", "hal", "ist", "kel", "lor", "mar", "nor", "ost", "pel", "quen"]
_SYL_A += ["rav", "sel", "tor", "ulv", "vard", "wes", "yar", "brun", "cor", "dorn", "esk", "frey"]
_SYL_B = ["ric", "sby", "tow", "vik", "wen", "dal", "mer", "ton", "wick", "ford", "holt", "moor", "stead", "lin"]
_FIRST_F = ["Ada", "Brita", "Clem", "Dorit", "Edda", "Fenna", "Greta", "Hild", "Ines", "Jorun", "Liv", "Maren"]
_FIRST_M = ["Aldo", "Bram", "Cyril", "Dag", "Emil", "Folke", "Gunnar", "Hugo", "Ivo", "Jonas", "Leif", "Mads"]
_SHIP_A = ["Grey", "Silver", "Bold", "Quiet", "Amber", "Swift", "Lucky", "Northern", "Patient", "Crimson"]
_SHIP_B = ["Petrel", "Heron", "Otter", "Lantern", "Tern", "Marlin", "Gannet", "Comet", "Skua", "Harrier"]
_PLAY_A = ["Salt", "Winter", "Paper", "Glass", "Copper", "Hollow", "Borrowed", "Seventh", "Painted", "Broken"]
_PLAY_B = ["Orchard", "Wedding", "Ledger", "Ferry", "Chorus", "Mirror", "Harvest", "Verdict", "Lullaby", "Masque"]
_GRAIN = ["barley", "flax", "rye", "spelt", "oats", "buckwheat", "lentil", "field bean"]
_HUE = ["Red", "Gold", "Dwarf", "Early", "Tall", "Bearded", "White", "Late"]
STOP = {"which", "what", "where", "whom", "whose", "does", "that", "from", "with", "this", "there", "into"}

# relation -> (source kind, target kind); every source has exactly one target
_RELS = {
    "built_at": ("ship", "yard"),
    "skipper": ("ship", "person"),
    "home_port": ("ship", "town"),
    "yard_founder": ("yard", "person"),
    "yard_in": ("yard", "town"),
    "author": ("play", "person"),
    "premiered_by": ("play", "company"),
    "based_in": ("company", "town"),
    "patron": ("company", "person"),
    "designer": ("bridge", "person"),
    "spans": ("bridge", "river"),
    "rises_in": ("river", "dale"),
    "bank_founder": ("bank", "person"),
    "bank_in": ("bank", "dale"),
    "collector": ("variety", "person"),
    "kept_at": ("variety", "bank"),
    "born_in": ("person", "town"),
    "grew_up_in": ("person", "town"),
    "mentor": ("person", "person"),
}
# how a question describes the target of a relation, given a description `x` of its source
_NP: dict[str, list[str]] = {
    "built_at": ["the shipyard that built {x}", "the yard where {x} was built", "the builder of {x}"],
    "skipper": ["the skipper of {x}", "the captain who commanded {x}", "the master of {x}"],
    "home_port": ["the home port of {x}", "the harbour {x} sailed from"],
    "yard_founder": ["the founder of {x}", "the person who founded {x}", "whoever established {x}"],
    "yard_in": ["the port where {x} stands", "the harbour town home to {x}"],
    "author": ["the playwright who wrote {x}", "the author of {x}", "the dramatist behind {x}"],
    "premiered_by": ["the company that premiered {x}", "the troupe that first staged {x}"],
    "based_in": ["the town where {x} is based", "the home town of {x}"],
    "patron": ["the patron of {x}", "the benefactor who backed {x}"],
    "designer": ["the engineer who designed {x}", "the engineer by whom {x} was designed", "the designer of {x}"],
    "spans": ["the river crossed by {x}", "the river that {x} spans"],
    "rises_in": ["the valley where {x} rises", "the valley at the source of {x}"],
    "bank_founder": ["the founder of {x}", "the botanist who set up {x}"],
    "bank_in": ["the valley that shelters {x}", "the valley where {x} is housed"],
    "collector": ["the botanist who collected {x}", "the collector of {x}"],
    "kept_at": ["the seed bank that holds {x}", "the seed bank where {x} is stored"],
    "born_in": ["the birthplace of {x}", "the town where {x} was born"],
    "grew_up_in": ["the town where {x} grew up", "the childhood home of {x}"],
    "mentor": ["the mentor of {x}", "the teacher of {x}", "the master who trained {x}"],
}
_POSS = {
    "skipper": "captain",
    "yard_founder": "founder",
    "author": "author",
    "patron": "patron",
    "designer": "designer",
    "bank_founder": "founder",
    "mentor": "mentor",
    "born_in": "birthplace",
    "home_port": "home port",
    "collector": "collector",
}
# a question whose last step is this relation, given a description `x` of the step's source
_ASK: dict[str, list[str]] = {
    "built_at": ["Where was {x} built?", "Which shipyard built {x}?"],
    "skipper": ["Who skippered {x}?", "Who was the captain of {x}?"],
    "home_port": ["What was the home port of {x}?", "From which harbour did {x} sail?"],
    "yard_founder": ["Who founded {x}?", "Who established {x}?"],
    "yard_in": ["In which port does {x} stand?"],
    "author": ["Who wrote {x}?", "Which playwright is the author of {x}?"],
    "premiered_by": ["Which company premiered {x}?", "Which troupe first staged {x}?"],
    "based_in": ["In which town is {x} based?"],
    "patron": ["Who was the patron of {x}?", "Which benefactor backed {x}?"],
    "designer": ["Who designed {x}?", "Which engineer was {x} designed by?"],
    "spans": ["Which river does {x} cross?", "What river is spanned by {x}?"],
    "rises_in": ["In which valley does {x} rise?"],
    "bank_founder": ["Who founded {x}?", "Which botanist set up {x}?"],
    "bank_in": ["In which valley is {x} housed?"],
    "collector": ["Who collected {x}?", "Which botanist gathered {x}?"],
    "kept_at": ["Which seed bank holds {x}?", "Where is {x} stored?"],
    "born_in": ["Where was {x} born?", "In which town was {x} born?", "What is the birthplace of {x}?"],
    "grew_up_in": ["Where did {x} grow up?", "In which town did {x} spend a childhood?"],
    "mentor": ["Under whom did {x} train?", "Who was the mentor of {x}?", "To whom was {x} apprenticed?"],
}


class _World:
    """Entities, their functional links, and where each link is stated (source page, target page)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()
        self.kind: dict[str, str] = {}
        self.links: dict[tuple[str, str], str] = {}  # (source, relation) -> target
        self.on_target: dict[tuple[str, str], bool] = {}  # stated on the target's page (else source's)
        self.female: dict[str, bool] = {}

    def stem(self) -> str:
        while True:
            s = (self.rng.choice(_SYL_A) + self.rng.choice(_SYL_B)).capitalize()
            if s not in self.used:
                self.used.add(s)
                return s

    def add(self, name: str, kind: str) -> str:
        assert name not in self.kind, name
        self.kind[name] = kind
        return name

    def pick(self, make: Callable[[], str], kind: str) -> str:
        while True:
            name = make()
            if name not in self.kind:
                return self.add(name, kind)

    def link(self, src: str, rel: str, dst: str) -> None:
        self.links[(src, rel)] = dst
        self.on_target[(src, rel)] = self.rng.random() < 0.45

    def of(self, kind: str) -> list[str]:
        return [n for n, k in self.kind.items() if k == kind]


def _populate(rng: random.Random) -> _World:
    w = _World(rng)
    towns = [w.add(w.stem(), "town") for _ in range(56)]
    dales = [w.add(w.stem() + "dale", "dale") for _ in range(22)]
    rivers = [w.add(w.stem(), "river") for _ in range(22)]
    surnames = [w.stem() for _ in range(70)]  # fewer surnames than people: namesakes on purpose
    people = []
    for i in range(104):
        female = i % 2 == 0
        first = rng.choice(_FIRST_F if female else _FIRST_M)

        def full(first: str = first) -> str:
            return f"{first} {rng.choice(surnames)}"

        p = w.pick(full, "person")
        w.female[p] = female
        people.append(p)
    named_after = rng.sample(towns, 12)  # organisations named after a town they are not in

    def org(suffix: str, kind: str, i: int) -> str:
        return w.add(f"{named_after[i // 3] if i % 5 == 0 and i // 3 < 12 else w.stem()} {suffix}", kind)

    yards = [org("Shipyard", "yard", i) for i in range(18)]
    companies = [org("Players", "company", i) for i in range(18)]
    banks = [org("Seed Bank", "bank", i) for i in range(14)]
    ships = [w.pick(lambda: f"{rng.choice(_SHIP_A)} {rng.choice(_SHIP_B)}", "ship") for _ in range(30)]
    plays = [w.pick(lambda: f"The {rng.choice(_PLAY_A)} {rng.choice(_PLAY_B)}", "play") for _ in range(30)]
    bridges = [w.add(f"{w.stem()} Bridge", "bridge") for _ in range(26)]
    varieties = [w.pick(lambda: f"{w.stem()} {rng.choice(_HUE)}", "variety") for _ in range(20)]
    for p in people:
        w.link(p, "born_in", rng.choice(towns))
        w.link(p, "grew_up_in", rng.choice(towns))
        w.link(p, "mentor", rng.choice([q for q in people if q != p]))
    for i, y in enumerate(yards):
        w.link(y, "yard_founder", people[i])
        w.link(y, "yard_in", rng.choice([t for t in towns if t not in y]))
    for i, c in enumerate(companies):
        w.link(c, "patron", people[18 + i])
        w.link(c, "based_in", rng.choice([t for t in towns if t not in c]))
    for i, b in enumerate(banks):
        w.link(b, "bank_founder", people[36 + i])
        w.link(b, "bank_in", rng.choice(dales))
    for s in ships:
        w.link(s, "built_at", rng.choice(yards))
        w.link(s, "skipper", rng.choice(people[50:80]))
        w.link(s, "home_port", rng.choice(towns))
    for p in plays:
        w.link(p, "author", rng.choice(people[60:90]))
        w.link(p, "premiered_by", rng.choice(companies))
    for b in bridges:
        w.link(b, "designer", rng.choice(people[80:]))
        w.link(b, "spans", rng.choice(rivers))
    for r in rivers:
        w.link(r, "rises_in", rng.choice(dales))
    for v in varieties:
        w.link(v, "collector", rng.choice(people[36:60]))
        w.link(v, "kept_at", rng.choice(banks))
    return w


def file_of(name: str) -> str:
    """The file name of an entity's page."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") + ".md"


def words(text: str) -> set[str]:
    """Content words of four letters or more: what a multi-hop answer may not share with its question."""
    return {x for x in re.findall(r"[a-z]+", text.lower().replace("'s", "")) if len(x) > 3} - STOP


def _mention(w: _World, name: str) -> str:
    return f"the {name}" if w.kind[name] in ("ship", "river") else name


def _phrase(w: _World, rng: random.Random, start: str, rels: list[str]) -> str:
    x = _mention(w, start)
    for i, rel in enumerate(rels):
        if i == len(rels) - 1:
            return rng.choice(_ASK[rel]).format(x=x)
        if i == 0 and rel in _POSS and rng.random() < 0.4:
            owner = f"{x}'" if x.endswith("s") else f"{x}'s"
            x = f"{owner} {_POSS[rel]}"
        else:
            x = rng.choice(_NP[rel]).format(x=x)
    raise AssertionError("no relations")


def _chains(w: _World) -> list[tuple[str, list[str], list[str]]]:
    """Every forward walk of one to three links: (start, relations, entities along the walk)."""
    out: list[tuple[str, list[str], list[str]]] = []
    after: dict[str, list[tuple[str, str]]] = {}
    for (src, rel), dst in w.links.items():
        after.setdefault(src, []).append((rel, dst))
    for start in w.kind:
        frontier: list[tuple[list[str], list[str]]] = [([], [start])]
        for _ in range(3):
            nxt = []
            for rels, path in frontier:
                for rel, dst in after.get(path[-1], []):
                    if dst not in path:
                        nxt.append(([*rels, rel], [*path, dst]))
            out += [(start, r, p) for r, p in nxt]
            frontier = nxt
    return out


def _build(seed: int) -> tuple[list[Doc], list[tuple[Question, list[str]]]]:
    rng = random.Random(seed)
    w = _populate(rng)
    docs = render(w, rng, file_of, _mention)
    texts = {d.name: d.text for d in docs}
    names = sorted(w.kind, key=len, reverse=True)
    pages_naming: dict[str, set[str]] = {
        n: {f for f, t in texts.items() if re.search(rf"(?<!\w){re.escape(n)}(?!\w)", t)} for n in names
    }
    want = {1: 36, 2: 90, 3: 45}
    candidates = _chains(w)
    rng.shuffle(candidates)
    kept: list[tuple[Question, list[str]]] = []
    used_rels: dict[tuple[int, tuple[str, ...]], int] = {}
    starts: set[str] = set()
    for start, rels, path in candidates:
        hops = len(rels)
        if sum(q.hops == hops for q, _ in kept) >= want[hops] or start in starts:
            continue
        if used_rels.get((hops, tuple(rels)), 0) >= (3 if hops == 1 else 5):
            continue  # spread the questions over the relation types
        files = [file_of(n) for n in path]
        if hops == 1:
            if not w.on_target[(start, rels[0])]:
                continue  # a control's answer page states the link and names the question's entity
        else:
            answer = texts[files[-1]]
            if pages_naming[start] & pages_naming[path[-1]]:
                continue  # no page names both ends
        text = _phrase(w, rng, start, rels)
        if hops > 1 and words(text) & words(answer):
            continue
        starts.add(start)
        used_rels[(hops, tuple(rels))] = used_rels.get((hops, tuple(rels)), 0) + 1
        kept.append((Question(text, files[-1], hops), files))
    kept.sort(key=lambda qf: qf[0].hops)
    return docs, kept


def build_fresh(seed: int = 2028) -> tuple[list[Doc], list[Question]]:
    """The fresh corpus's documents and questions (one-hop controls first, then two- and three-hop)."""
    docs, kept = _build(seed)
    return docs, [q for q, _ in kept]


def fresh_chains(seed: int = 2028) -> list[tuple[Question, list[str]]]:
    """Each question with the files along its chain, start to answer (for the contract test)."""
    return _build(seed)[1]
