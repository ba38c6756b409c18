"""The shrouded corpus's pages (#28): short encyclopaedia articles, and a fifth of the pages in the
other kinds a knowledge base holds, stating links in the wordings of bench/multihop_shrouded_words.py.

An article opens with a definition (what the entity is, its dates or height, no names), then
paragraphs of statements: the subject named in full, by surname or by pronoun ("it", "its"), a
sentence now and then stating two relations ("Born in X in 1901, Y joined Z ..."), and several
subjects of one relation in one sentence ("Natives of X include A, B and C."). The other kinds: an
article with an infobox-like "Key: value" block, a register table, a timeline, a news item and a
list page. After a sentence led by another entity the next names the page's own entity again (a
"he", "she" or "it" there could mean either), and a timeline's or list page's items name it in full.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from bench.corpus_world import Ent, World, cap, join_and
from bench.multihop_shrouded_words import LEAD, REL

KIND_WORD = {
    "town": "the town", "region": "the region", "range": "the range", "peak": "the mountain", "hut": "the hut",
    "publisher": "the firm", "club": "the club", "mill": "the mill", "house": "the house", "school": "the school",
    "fabric": "the cloth", "collection": "the collection",
}  # fmt: skip

DEFINE: dict[str, list[str]] = {
    "town": ["{T} is a market town.", "{T} is a small town on a river crossing.",
             "{T} is a town of some {k},000 people."],
    "region": ["{T} is a region.", "{T} is an upland region with a long coastline.", "{T} is a historic region."],
    "range": ["{T} is a mountain range.", "{T} is a chain of mountains some {k}0 kilometres long."],
    "peak": ["{T} is a mountain, {h} metres high.", "{T} is a summit with a height of {h} m.",
             "{T} is a rock peak of {h} metres."],
    "hut": ["{T} is a mountain hut with {k}0 bunks.", "{T} is a stone refuge open in summer."],
    "publisher": ["{T} is a map publisher.", "{T} is a cartographic publishing house."],
    "club": ["{T} is a mountaineering club.", "{T} is a club for climbers and hill walkers."],
    "mill": ["{T} is a woollen mill.", "{T} is a spinning and weaving mill."],
    "house": ["{T} is a fashion house.", "{T} is a house of tailoring and ready-to-wear."],
    "school": ["{T} is a school of fashion and design.", "{T} is a college for cutters and designers."],
    "fabric": ["{T} is a woollen cloth.", "{T} is a cloth woven from carded wool."],
    "collection": ["{T} is a collection of clothing.", "{T} is a seasonal collection of coats and suits."],
    "founder": ["{T} {d} {was} an industrialist.", "{T} {d} {was} an entrepreneur and benefactor."],
    "guide": ["{T} {d} {was} a mountain guide.", "{T} {d} {was} an alpine guide and climber."],
    "surveyor": ["{T} {d} {was} a surveyor and cartographer.", "{T} {d} {was} a topographer."],
    "designer": ["{T} {d} {was} a fashion designer.", "{T} {d} {was} a designer of menswear and womenswear."],
}  # fmt: skip

FILLER: dict[str, list[str]] = {
    "town": ["A weekly market is held in the square.", "The old bridge was rebuilt after a flood.",
             "Its church has a detached bell tower."],
    "region": ["Sheep farming and quarrying were its trades.", "Its boundaries were redrawn twice.",
               "Much of the land is common grazing."],
    "range": ["Its glaciers have shrunk markedly.", "Most of its passes are closed in winter.",
              "The rock is mostly granite and gneiss."],
    "peak": ["The normal route takes about six hours from the valley.", "Its north face is rarely in condition.",
             "A cross stands on the summit."],
    "hut": ["Water comes from a spring behind the building.", "It is staffed from June to September.",
            "A winter room is left unlocked."],
    "publisher": ["Its sheets were printed in four colours.", "The archive of proofs survives.",
                  "It issued pocket editions on linen."],
    "club": ["It publishes a yearly journal.", "Its library holds old route books.", "It meets monthly."],
    "mill": ["The water wheel was replaced by a steam engine.", "Part of the building is now a museum.",
             "Its chimney is a local landmark."],
    "house": ["It shows twice a year.", "Its first shop had a single window.", "It sells mostly by appointment."],
    "school": ["Courses last three years.", "It holds a graduate show each summer.", "Entry is by portfolio."],
    "fabric": ["It is hard-wearing and sheds rain.", "It is usually dyed in muted colours.",
               "A herringbone version exists."],
    "collection": ["It was shown to the press before the season.", "It was sold out within weeks.",
                   "Reviews praised its tailoring."],
    "person": ["A portrait hangs in the town hall.", "The papers are in a private collection.",
               "A street is named after the family."],
}  # fmt: skip


def link_year(w: World, rel: str, src: Ent) -> int:
    """The year of `src`'s link of `rel`, the same on both its pages: a birth or founding, else the
    year the link began (fixed by bench/multihop_shrouded.py's `_populate`)."""
    if rel in ("born", "in", "founded"):
        return int(src.facts["year"])
    return int(src.facts.get(f"y_{rel}", src.facts["year"]))


def death(w: World, e: Ent, rng: random.Random) -> int | None:
    """A person's death year after every dated event of their life, or None (alive)."""
    born = int(e.facts["year"])
    events = [link_year(w, r, w.ents[s]) for r, ls in w.link.items() for s, d in ls.items() if e.file in (s, d)]
    events = [y for y in events if y > born] or [born]
    died = max(max(events) + rng.randint(1, 20), born + 48)
    return None if died > 2024 or died > born + 98 else died


def _refs(e: Ent, first: bool, rng: random.Random) -> dict[str, str]:
    """How the page refers to its own entity: in full the first time, then in full, by surname or pronoun."""
    if e.kind == "person":
        he, him, his = ("she", "her", "her") if e.facts["female"] else ("he", "him", "his")
        name = e.title if first else rng.choice([e.title, e.title.split()[-1], e.title.split()[-1], he, he])
        obj = him if name == he else name
        return {"S": cap(name), "N": name, "n": he, "O": obj, "P": his, "P_cap": cap(his)}
    word = KIND_WORD[e.kind]
    name = e.title if first else rng.choice([e.title, word, "it"])
    poss = "its" if name in ("it", word) else f"{name}'s"
    obj = word if name == "it" else name
    return {"S": cap(name), "N": name, "n": "it", "O": obj, "P": poss, "P_cap": cap(poss)}


class Page:
    """One page's statements, written in turn; remembers who led the last sentence."""

    def __init__(self, w: World, e: Ent, rng: random.Random, items: bool = False) -> None:
        self.w, self.e, self.rng = w, e, rng
        self.items = items  # each statement a list item of its own: the entity named in full in each
        self.fwd = [(r, d) for r in REL if (d := w.out(r, e)) is not None]
        self.back = [(r, srcs) for r in REL if (srcs := w.incoming(r, e))]
        rng.shuffle(self.fwd)
        rng.shuffle(self.back)
        self.fresh = True  # name the entity in full next time
        self.others = {x.title for x in w.ents.values()} - {e.title}

    def _done(self, said: str) -> str:
        """After a sentence led by another entity (a person, an organisation, a place) the next names
        the page's own again: a "he", "she", "it" or "the mill" there could mean either."""
        self.fresh = self.items or any(said.startswith(x) for x in self.others)
        return said

    def fwd_said(self, rel: str, other: Ent, kv: bool = False) -> str:
        tpl = self.rng.choice(REL[rel]["kv" if kv else "fwd"])
        r = _refs(self.e, self.fresh or self.items or "{S}," in tpl, self.rng)
        said = tpl.format(**r, t=other.title, y=link_year(self.w, rel, self.e))
        return said if kv else self._done(cap(said))

    def back_said(self, rel: str, srcs: list[Ent], group: bool) -> list[str]:
        r = _refs(self.e, self.fresh or self.items, self.rng)
        kw = dict(r, T=r["S"], TO=r["O"])
        if group and len(srcs) > 1:
            tpl = self.rng.choice(REL[rel]["group"])
            return [self._done(cap(tpl.format(**dict(kw, T=self.e.title), L=join_and([s.title for s in srcs]))))]
        out = []
        for s in srcs:
            tpl = self.rng.choice(REL[rel]["back"])
            out.append(self._done(cap(tpl.format(**kw, s=s.title, y=link_year(self.w, rel, s)))))
            r = _refs(self.e, self.fresh or self.items, self.rng)
            kw = dict(r, T=r["S"], TO=r["O"])
        return out

    def lead(self) -> list[str]:
        """One sentence stating two of the page's own relations, when it has a fitting pair."""
        firsts = [(r, d) for r, d in self.fwd if r in LEAD]
        # nor a birth after a later life's opening ("Trained at X, Y was born in Z")
        rests = [(r, d) for r, d in self.fwd if (r, d) not in firsts[:1] and r != "born"]
        if not firsts or not rests or self.rng.random() < 0.4:
            return []
        (r1, d1), (r2, d2) = firsts[0], rests[0]
        opening = self.rng.choice(LEAD[r1]).format(t=d1.title, y=link_year(self.w, r1, self.e))
        tpl = self.rng.choice([t for t in REL[r2]["fwd"] if t.startswith("{S} ")] or ["{S} " + r2])
        rest = tpl.format(**_refs(self.e, True, self.rng), t=d2.title, y=link_year(self.w, r2, self.e))
        self.fwd = [x for x in self.fwd if x not in ((r1, d1), (r2, d2))]
        return [self._done(opening + rest)]

    def sentences(self, kv: bool = False) -> list[str]:
        """Every statement: the page's own links (as kv lines with `kv`), then the links into it."""
        out = [] if kv else self.lead()
        out += [self.fwd_said(r, d, kv) for r, d in self.fwd]
        for r, srcs in self.back:
            out += self.back_said(r, srcs, group=self.rng.random() < 0.7)
        return out


def _define(w: World, e: Ent, rng: random.Random) -> str:
    kind = e.domain if e.kind == "person" else e.kind
    d, was = "", "is"
    if e.kind == "person":
        died = death(w, e, rng)
        d = f"({e.facts['year']}\u2013{died})" if died else f"(born {e.facts['year']})"
        was = "was" if died else "is"
    h, k = e.facts.get("height", 0), rng.randint(2, 9)
    return rng.choice(DEFINE[kind]).format(T=e.title, d=d, was=was, h=h, k=k)


def _paras(lines: list[str], rng: random.Random) -> str:
    out, para = [], []
    for x in lines:
        para.append(x)
        if len(para) >= rng.randint(2, 3):
            out.append(" ".join(para))
            para = []
    return "\n\n".join(out + ([" ".join(para)] if para else []))


def _filler(e: Ent, rng: random.Random, n: int = 1) -> str:
    """`n` sentences of the kind's colour (no names, so no link)."""
    return " ".join(rng.sample(FILLER["person" if e.kind == "person" else e.kind], n))


def _join(*parts: str) -> str:
    """Paragraphs, the empty ones left out."""
    return "\n\n".join(p for p in parts if p.strip())


def article(w: World, e: Ent, rng: random.Random) -> str:
    p = Page(w, e, rng)
    p.fresh = False  # the definition has just named it
    lines = p.sentences()
    opening = f"{_define(w, e, rng)} {lines[0] if lines else ''}".rstrip()
    return _join(opening, _paras(lines[1:], rng), _filler(e, rng, 2 if len(lines) < 3 else 1))


def infobox(w: World, e: Ent, rng: random.Random) -> str:
    p = Page(w, e, rng)
    box = "\n".join(f"{x}" for x in [f"Name: {e.title}"] + [p.fwd_said(r, d, kv=True) for r, d in p.fwd])
    p.fwd = []
    return _join(_define(w, e, rng), box, _paras(p.sentences(), rng), _filler(e, rng))


def register(w: World, e: Ent, rng: random.Random) -> str:
    p = Page(w, e, rng)
    rows = [p.fwd_said(r, d, kv=True).split(": ", 1) for r, d in p.fwd]
    table = "\n".join(f"| {k} | {v} |" for k, v in [["Entry", e.title], *rows])
    p.fwd = []
    n = rng.randint(100, 999)
    return _join(
        f"Register entry no. {n}. {_define(w, e, rng)}",
        f"| Field | Entry |\n|---|---|\n{table}",
        _paras(p.sentences(), rng),
    )


def _when(line: str) -> int:
    """The earliest year a statement gives (a timeline's order), or one past every year if none."""
    return min((int(y) for y in re.findall(r"\b(1[789]\d\d|20\d\d)\b", line)), default=9999)


def timeline(w: World, e: Ent, rng: random.Random) -> str:
    p = Page(w, e, rng, items=True)
    lines = sorted(p.sentences(), key=_when)  # in the order of their years, the undated last
    items = "\n".join(f"- {x}" for x in lines)
    return _join(_define(w, e, rng), "## Chronology", items, _filler(e, rng))


def news(w: World, e: Ent, rng: random.Random) -> str:
    p = Page(w, e, rng)
    day = f"{rng.randint(1, 28)} {rng.choice(['March', 'June', 'October', 'December'])} {rng.randint(2024, 2025)}"
    head = rng.choice(["marks an anniversary", "in the news again", "opens its archive", "honoured this week"])
    lead = f"_News, {day}._ {e.title} was in the papers this week. {_define(w, e, rng)}"
    return _join(f"**{e.title} {head}**", lead, _paras(p.sentences(), rng))


def listing(w: World, e: Ent, rng: random.Random) -> str:
    p = Page(w, e, rng, items=True)
    own = [p.fwd_said(r, d) for r, d in p.fwd]
    items = [x for r, srcs in p.back for x in p.back_said(r, srcs, group=False)]
    bullets = "\n".join(f"- {x}" for x in items)
    return _join(f"{_define(w, e, rng)} {' '.join(own)}".rstrip(), "This page lists the records held.", bullets)


Style = Callable[[World, Ent, random.Random], str]
OTHER: dict[str, list[Style]] = {
    "person": [infobox, timeline, news],
    "peak": [infobox, register, timeline],
    "range": [listing],
    "region": [listing],
    "town": [listing, news],
    "hut": [register, infobox],
    "publisher": [timeline, register],
    "club": [listing, register, news],
    "mill": [listing, register, timeline],
    "house": [news, listing, infobox],
    "school": [register, listing],
    "fabric": [infobox, register],
    "collection": [news, infobox],
}


def render(w: World, e: Ent, rng: random.Random) -> str:
    """`e`'s page: an article, or (one page in five) another kind of page."""
    i = int(e.file.split("_")[-1].removesuffix(".md"))
    styles = OTHER["person" if e.kind == "person" else e.kind]
    style = styles[(i // 5) % len(styles)] if i % 5 == 3 else article
    if style is listing and not any(w.incoming(r, e) for r in REL):
        style = article  # a list page with nothing to list
    return f"# {e.title}\n\n{style(w, e, rng).strip()}\n"
