"""The swathed corpus's pages (#28): each entity's page in one of six encyclopaedic styles, stating
its links in the wordings of bench/multihop_swathed_words.py.

Styles: a narrative article (the name once, then a surname, a pronoun or the kind), an infobox of
"Key: value" lines, a two-column table, a dated timeline, a news item (statements reported in a
subordinate clause) and a terse register entry (key-value pairs on one line).
"""

from __future__ import annotations

import random
import re

from bench.corpus_world import Ent, World, cap
from bench.multihop_swathed_words import REL

_STREET_NAMES = ["Quay", "Mill", "Chapel", "Market", "Orchard", "Bridge", "Station", "Abbey", "Kiln", "Tower"]
_STREET_KINDS = ["Row", "Street", "Lane", "Road", "Square", "Walk"]

Statement = tuple[str, str, Ent]  # relation, "fwd" (this page is the subject's) or "back", the other end

KIND_WORD = {
    "town": "the town",
    "province": "the province",
    "house": "the theatre",
    "conservatory": "the school",
    "label": "the company",
    "nursery": "the firm",
    "garden": "the garden",
    "works": "the factory",
    "opera": "the work",
    "recording": "the album",
    "cultivar": "the plant",
    "service": "the piece",
}

# the first sentence of a page, by kind: what the entity is ({T} its title, {y} its year)
INTRO: dict[str, list[str]] = {
    "town": ["{T} is a small market settlement.", "{T} is a river port and parish.", "{T} is a hill settlement."],
    "province": ["{T} is one of the country's provinces.", "{T} is an administrative province."],
    "composer": ["{T} (b. {y}) {is} a composer.", "{T} {is} a composer of stage music, born in {y}."],
    "singer": ["{T} (b. {y}) {is} an opera singer.", "{T} (b. {y}) {is} a concert and opera singer."],
    "breeder": ["{T} (b. {y}) {is} a plant breeder.", "{T}, born {y}, {is} a hybridiser of ornamental plants."],
    "founder": ["{T} (b. {y}) {is} a patron and entrepreneur.", "{T} (b. {y}) {is} a merchant and philanthropist."],
    "house": ["{T} is a lyric theatre, opened in {y}.", "{T} is an auditorium for opera dating from {y}."],
    "conservatory": ["{T} is a college of music, chartered in {y}.", "{T} is a music academy dating from {y}."],
    "label": ["{T} is a gramophone company dating from {y}.", "{T} is a classical record label begun in {y}."],
    "nursery": ["{T} is a plant nursery trading since {y}.", "{T} is a seed and plant merchant of {y}."],
    "garden": ["{T} is a garden of living collections, dating from {y}."],
    "works": ["{T} is a porcelain manufactory, fired first in {y}.", "{T} is a pottery making fine china since {y}."],
    "opera": ["{T} is an opera.", "{T} is a lyric drama in three acts.", "{T} is a comic opera."],
    "recording": ["{T} is a recording issued on disc.", "{T} is an album of the complete opera."],
    "cultivar": ["{T} is a garden cultivar.", "{T} is a hybrid grown for its flowers."],
    "service": ["{T} is a piece of painted porcelain.", "{T} is a piece of fine china."],
}

# what a page's first sentence may also call an entity whose title ends so (never what the title denies:
# no "Vase" called a dinner service, no "Live" album called a studio one)
BY_SUFFIX: dict[str, list[str]] = {
    "Service": ["{T} is a dinner service.", "{T} is a tea and coffee service."],
    "Vase": ["{T} is a painted vase.", "{T} is a porcelain vase."],
    "Tureen": ["{T} is a soup tureen.", "{T} is a covered tureen in porcelain."],
    "Figure Group": ["{T} is a porcelain figure group."],
    "Live": ["{T} is a live album."],
    "Nights": ["{T} is a live album."],
    "Sessions": ["{T} is a studio album."],
    "Botanic Garden": ["{T} is a botanic garden laid out in {y}."],
    "Arboretum": ["{T} is an arboretum planted in {y}."],
    "Physic Garden": ["{T} is a walled physic garden of {y}."],
}


def _year(w: World, rel: str, src: Ent, dst: Ent) -> int:
    """One year per link, the same on both its pages: the link's own (fixed by the world) or the subject's."""
    return int(src.facts.get(f"y_{rel}", src.facts["year"]))


def possessive(name: str) -> str:
    """A name's possessive: "Lowlands'" and "Works'" for a name ending in s, else "'s"."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def _refs(e: Ent, full: bool, rng: random.Random) -> dict[str, str]:
    """How a page refers to its own entity: by name when `full`, else a surname, a pronoun or its kind."""
    if e.kind == "person":
        he = "she" if e.facts["female"] else "he"
        him, his = ("her", "her") if e.facts["female"] else ("him", "his")
        name = e.title if full else rng.choice([e.title.split()[-1], he, he])
        obj = him if name == he else name
        poss = his if name == he else possessive(name)
        return {"S": cap(name), "N": name, "O": obj, "P": poss, "P_cap": cap(poss)}
    word = KIND_WORD[e.kind]
    name = e.title if full else rng.choice([word, "it"])
    poss = "its" if name in ("it", word) else possessive(name)
    obj = word if name == "it" else name
    return {"S": cap(name), "N": name, "O": obj, "P": poss, "P_cap": cap(poss)}


def statements(w: World, e: Ent) -> list[Statement]:
    """The links `e`'s page states: its own (fwd or both) and those into it meant for its page."""
    out: list[Statement] = []
    for rel in REL:
        dst = w.out(rel, e)
        if dst is not None:
            out.append((rel, "fwd", dst))
        out += [(rel, "back", src) for src in w.incoming(rel, e)]
    return out


def say(w: World, e: Ent, st: Statement, kv: bool, full: bool, rng: random.Random) -> str:
    rel, way, other = st
    src, dst = (e, other) if way == "fwd" else (other, e)
    tpl = rng.choice(REL[rel][f"{way}_kv" if kv else way])
    street = f"{rng.choice(_STREET_NAMES)} {rng.choice(_STREET_KINDS)}"
    where = {"no": rng.randint(1, 120), "street": street}
    said = tpl.format(t=other.title, y=_year(w, rel, src, dst), **where, **_refs(e, full, rng))
    return said if kv else cap(said)


def _sentences(w: World, e: Ent, rng: random.Random, always_full: bool = False) -> list[tuple[int, str]]:
    """The page's statements as sentences with their years; the entity is named in full first and
    again after any sentence not led by it (a pronoun there could mean the other one)."""
    sts = statements(w, e)
    rng.shuffle(sts)
    own = (e.title, e.title.split()[-1] + " ", "He ", "She ", "It ", cap(KIND_WORD.get(e.kind, "it")) + " ")
    out: list[tuple[int, str]] = []
    led = False
    for rel, way, other in sts:
        s = say(w, e, (rel, way, other), False, always_full or not led, rng)
        out.append((_year(w, rel, e if way == "fwd" else other, other if way == "fwd" else e), s))
        led = s.startswith(own) and not s.startswith(other.title)
    return out


def _intro(e: Ent, rng: random.Random) -> str:
    kind = str(e.facts.get("role", e.kind))
    # the living "is", the long dead "was"
    tense = "was" if int(e.facts["year"]) < 1935 else "is"
    forms = INTRO[kind] + next((v for k, v in BY_SUFFIX.items() if e.title.endswith(" " + k)), [])
    return rng.choice(forms).format(T=e.title, y=e.facts["year"], **{"is": tense})


def prose(w: World, e: Ent, rng: random.Random) -> str:
    body = [s for _y, s in _sentences(w, e, rng)]
    cut = max(1, len(body) // 2)
    return f"# {e.title}\n\n{_intro(e, rng)} {' '.join(body[:cut])}\n\n{' '.join(body[cut:])}".rstrip() + "\n"


def infobox(w: World, e: Ent, rng: random.Random) -> str:
    lines = [say(w, e, st, True, True, rng) for st in statements(w, e)]
    return f"# {e.title}\n\n{_intro(e, rng)}\n\n" + "\n".join(lines) + "\n"


def table(w: World, e: Ent, rng: random.Random) -> str:
    rows = [say(w, e, st, True, True, rng).split(": ", 1) for st in statements(w, e)]
    body = "\n".join(f"| {k} | {v} |" for k, v in rows)
    return f"# {e.title}\n\n{_intro(e, rng)}\n\n| Field | Detail |\n|---|---|\n{body}\n"


def timeline(w: World, e: Ent, rng: random.Random) -> str:
    dated = sorted(_sentences(w, e, rng, always_full=True), key=lambda ys: ys[0])
    lines = "\n".join(f"- {y}: {s}" for y, s in dated)
    return f"# {e.title}\n\n{_intro(e, rng)}\n\nTimeline\n{lines}\n"


def _clause(s: str) -> str:
    """A sentence as a subordinate clause: a template's first word in lower case, a name as it is."""
    first = s.split()[0]
    return s[0].lower() + s[1:] if first in ("Among", "In", "The", "A", "It", "Its", "His", "Her", "Sprays") else s


def news(w: World, e: Ent, rng: random.Random) -> str:
    dated = _sentences(w, e, rng, always_full=True)
    said = [s for _y, s in dated]
    paper = rng.choice(["the Courier", "the Evening Post", "the Weekly Observer", "the Gazette"])
    latest = max([y for y, _s in dated] + [int(e.facts["year"]), 1950])  # no archive reports what came later
    lead = f"From the archive of {paper}, {rng.randint(min(latest, 2024), 2025)}: {_intro(e, rng)}"
    heard = ["It was reported that", "Readers learned that", "Our correspondent notes that"]
    body = " ".join(f"{rng.choice(heard)} {_clause(s)}" if i % 2 else s for i, s in enumerate(said))
    return f"# {e.title}\n\n{lead}\n\n{body}\n"


def register(w: World, e: Ent, rng: random.Random) -> str:
    pairs = "; ".join(say(w, e, st, True, True, rng) for st in statements(w, e))
    return f"# {e.title}\n\nRegister entry {rng.randint(100, 999)}. {_intro(e, rng)}\n{pairs}.\n"


STYLES = {"prose": prose, "infobox": infobox, "table": table, "timeline": timeline, "news": news, "register": register}
WEIGHTS = {
    "person": (5, 2, 1, 3, 1, 1),
    "town": (3, 1, 1, 0, 1, 3),
    "province": (3, 2, 1, 0, 0, 1),
}


def render(w: World, e: Ent, rng: random.Random) -> str:
    """`e`'s page in a style drawn for its kind (people mostly narrative, works mostly infoboxes)."""
    weights = WEIGHTS.get(e.kind, (2, 3, 2, 1, 2, 1) if e.kind in KIND_WORD else (3, 2, 1, 2, 2, 1))
    style = rng.choices(list(STYLES), weights)[0]
    if not statements(w, e):  # no "Timeline" heading or table header with nothing under it
        style = "prose"
    # a page stating no link of its own ends after its first sentence, with no run of blank lines
    return re.sub(r"\n{3,}", "\n\n", STYLES[style](w, e, rng)).rstrip() + "\n"
