"""The hooded corpus's pages (#28): each entity's page in one of seven styles, stating its links in
the wordings of bench/multihop_hooded_words.py.

Styles: a narrative article (the name once, then a surname, a pronoun or the kind), an infobox of
"Key: value" lines, an obituary (the dead only), an interview transcript (the living only, answers
in the first person), minutes of a board meeting (organisations; each link reported in a clause),
a museum catalogue entry (works; key-value lines and a provenance paragraph) and a scholarly note
with numbered footnotes, one link told in a footnote only.
"""

from __future__ import annotations

import random

from bench.corpus_world import Ent, World, article, cap
from bench.multihop_hooded_words import FIRST, REL

_STREETS = ["Lantern", "Cooper", "Vane", "Cistern", "Meridian", "Granary", "Belfry", "Tithe", "Sextant", "Quarry"]
_WAYS = ["Yard", "Close", "Steps", "Parade", "Terrace", "Wynd"]
_AGAIN = ["Any others?", "And besides that?", "Anything more along those lines?", "And after that?"]
_MONTHS = ["January", "March", "April", "June", "September", "October", "November"]

Statement = tuple[str, str, Ent]  # relation, "fwd" (this page is the subject's) or "back", the other end

KIND_WORD = {
    "town": "the town",
    "province": "the county",
    "observatory": "the observatory",
    "workshop": "the firm",
    "foundry": "the foundry",
    "estate": "the estate",
    "cooperage": "the cooperage",
    "university": "the college",
    "comet": "the comet",
    "telescope": "the instrument",
    "bell": "the bell",
    "wine": "the wine",
}

ROLE = {"founder": "benefactor", "astronomer": "astronomer", "maker": "instrument maker", "vintner": "winegrower"}

INTRO: dict[str, list[str]] = {
    "town": ["{T} is a market town.", "{T} is a small hill town with a weekly fair.", "{T} is a riverside town."],
    "province": ["{T} is one of the country's counties.", "{T} is a rural county."],
    "observatory": ["{T} is an astronomical observatory, opened in {y}.", "{T} is a research observatory of {y}."],
    "workshop": ["{T} is a maker of optical instruments, trading since {y}.", "{T} is an optical firm of {y}."],
    "foundry": ["{T} is a bell foundry working since {y}.", "{T} is a foundry of church bells, first lit in {y}."],
    "estate": ["{T} is a wine estate planted in {y}.", "{T} is a family wine estate dating from {y}."],
    "cooperage": ["{T} is a cooperage making oak casks since {y}.", "{T} is a cask maker founded in {y}."],
    "university": ["{T} is a college of the sciences, chartered in {y}.", "{T} is a teaching college of {y}."],
    "comet": ["{T} is a periodic comet.", "{T} is a long-period comet.", "{T} is a faint comet."],
    "telescope": ["{T} is a telescope completed in {y}.", "{T} is an astronomical telescope of {y}."],
    "bell": ["{T} is a church bell hung in {y}.", "{T} is a bell of {y}, hung for change ringing."],
    "wine": ["{T} is a red wine of the {y} vintage.", "{T} is a white wine of the {y} vintage."],
}


# what a page's first sentence may call a work whose title ends so (never what the title denies)
BY_SUFFIX: dict[str, list[str]] = {
    "Refractor": ["{T} is a refracting telescope completed in {y}."],
    "Reflector": ["{T} is a reflecting telescope of {y}."],
    "Tenor": ["{T} is the tenor bell of a ring, hung in {y}."],
}


def _year(rel: str, src: Ent) -> int:
    """One year per link, the same on both its pages: the link's own (fixed by the world) or the subject's."""
    return int(src.facts.get(f"y_{rel}", src.facts["year"]))


def possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def dead(e: Ent) -> bool:
    return "died" in e.facts


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


def say(e: Ent, st: Statement, kv: bool, full: bool, rng: random.Random, tpl: str = "") -> tuple[str, bool]:
    """One statement of a link (in `tpl`, else a wording drawn), and whether its sentence is led by
    the page's own entity."""
    rel, way, other = st
    src = e if way == "fwd" else other
    tpl = tpl or rng.choice(REL[rel][f"{way}_kv" if kv else way])
    where = {"no": rng.randint(1, 140), "street": f"{rng.choice(_STREETS)} {rng.choice(_WAYS)}"}
    said = tpl.format(t=other.title, y=_year(rel, src), **where, **_refs(e, full, rng))
    return (said if kv else cap(said)), tpl.startswith(("{S}", "{P_cap}"))


def _box(e: Ent, sts: list[Statement], rng: random.Random) -> list[str]:
    """Key-value lines, one key per relation and direction: "Parishes: A, B", not a line for each."""
    groups: dict[tuple[str, str], list[Statement]] = {}
    for st in sts:
        groups.setdefault((st[0], st[1]), []).append(st)
    lines = []
    for (rel, way), group in groups.items():
        tpl = rng.choice(REL[rel][f"{way}_kv"])
        said = [say(e, st, True, True, rng, tpl)[0] for st in group]
        key = said[0].split(": ")[0] + ": "
        lines.append(key + ", ".join(x.removeprefix(key) for x in said))
    return lines


def _prose(e: Ent, sts: list[Statement], rng: random.Random, full: bool = False) -> list[str]:
    """Sentences after the first: a pronoun or kind only right after a sentence the entity leads."""
    out, led = [], True
    for st in sts:
        s, led_now = say(e, st, False, full or not led, rng)
        out.append(s)
        led = led_now
    return out


def _years(w: World, e: Ent, sts: list[Statement]) -> int:
    """The latest year a page mentions (its entity's, its links', a death)."""
    ys = [int(e.facts["year"]), int(e.facts.get("died", 0))]
    ys += [_year(rel, e if way == "fwd" else o) for rel, way, o in sts]
    return max(ys)


def intro(e: Ent, rng: random.Random) -> str:
    y = int(e.facts["year"])
    if e.kind == "person":
        role = ROLE[str(e.facts["role"])]
        if dead(e):
            return f"{e.title} (born {y}, died {e.facts['died']}) was {article(role)}."
        return rng.choice([f"{e.title} (b. {y}) is {article(role)}.", f"{e.title}, born {y}, is {article(role)}."])
    forms = INTRO[e.kind] + next((f for end, f in BY_SUFFIX.items() if e.title.endswith(" " + end)), [])
    return rng.choice(forms).format(T=e.title, y=y)


def _clause(s: str, titles: list[str]) -> str:
    """A sentence reported in a clause: its capital dropped unless it opens with a name."""
    return s[:-1] if any(s.startswith(t) for t in titles) else s[0].lower() + s[1:-1]


def render(w: World, e: Ent, rng: random.Random) -> str:
    sts = statements(w, e)
    rng.shuffle(sts)
    head = f"# {e.title}\n\n{intro(e, rng)}"
    works = e.kind in ("comet", "telescope", "bell", "wine")
    orgs = e.kind in ("observatory", "workshop", "foundry", "estate", "cooperage", "university")
    styles = ["narrative", "infobox", "footnoted"]
    if e.kind == "person":
        styles += ["obituary"] * 2 if dead(e) else ["interview"]
    if orgs:
        styles += ["minutes"] * 3
    if works:
        styles += ["catalogue"] * 2
    style = rng.choice(styles) if sts else "narrative"
    if e.kind == "person" and not dead(e) and any((r, way) in FIRST for r, way, _o in sts) and rng.random() < 0.8:
        style = "interview"  # the living are few: most of them were interviewed
    titles = [x.title for x in w.ents.values()]
    if style == "infobox":
        return head + "\n\n" + "\n".join(_box(e, sts, rng)) + "\n"
    if style == "catalogue":
        kv = sts[: max(1, len(sts) // 2)]
        rest = sts[len(kv) :]
        text = f"# {e.title}\n\nCatalogue entry, accession no. HD.{rng.randint(100, 999)}/{rng.randint(1, 40)}\n\n"
        text += f"Object: {intro(e, rng)}\n" + "\n".join(_box(e, kv, rng)) + "\n"
        if rest:
            text += "\nProvenance. " + " ".join(_prose(e, rest, rng, full=True)) + "\n"
        return text
    if style == "minutes":
        year = min(_years(w, e, sts) + rng.randint(1, 6), 2025)
        date = f"{rng.randint(2, 27)} {rng.choice(_MONTHS)} {year}"
        items = [
            f"{i}. {rng.choice(['The secretary reported', 'The chair noted', 'It was recorded'])} that "
            f"{_clause(say(e, st, False, True, rng)[0], titles)}."
            for i, st in enumerate(sts, 1)
        ]
        return (
            f"{head}\n\nMinutes of a meeting of the board, held on {date}\n\nPresent: the chair, the secretary "
            "and five members.\n\n" + "\n".join(items) + f"\n{len(items) + 1}. There being no other business, "
            "the meeting closed.\n"
        )
    if style == "interview":
        told = [st for st in sts if (st[0], st[1]) in FIRST]
        other = [st for st in sts if (st[0], st[1]) not in FIRST]
        year = min(max(_years(w, e, sts) + 1, rng.randint(2008, 2025)), 2025)
        text = head + ("\n\n" + " ".join(_prose(e, other, rng)) if other else "")
        text += f"\n\nTranscript of a conversation recorded in {year}.\n"
        asked: set[str] = set()
        for rel, way, o in told:  # a question asked again is a follow-up, not the same words twice
            ask, answer = FIRST[(rel, way)]
            ask = rng.choice([x for x in _AGAIN if x not in asked]) if ask in asked else ask
            asked.add(ask)
            src = e if way == "fwd" else o
            text += f"\nQ: {ask}\nA: {answer.format(t=o.title, y=_year(rel, src))}"
        return text + "\n"
    if style == "obituary":
        he = "She" if e.facts["female"] else "He"
        age = int(e.facts["died"]) - int(e.facts["year"])
        lead = f"{e.title}, who has died aged {age}, was {article(ROLE[str(e.facts['role'])])}."
        died = e.facts["died"]
        said = _prose(e, sts, rng)
        life = " ".join(said)
        last = said[-1] if said else lead  # "She died" only after a sentence she leads
        own = (e.title, e.title.split()[-1], he, "His " if he == "He" else "Her ")
        who = he if last.startswith(own) else e.title.split()[-1]
        return f"# {e.title}\n\nObituary, printed in {died}\n\n{lead} {life} {who} died in {died}.\n"
    if style == "footnoted" and len(sts) >= 2:
        body = _prose(e, sts[:-1], rng)
        # sources cited on the 1st, 3rd and 5th sentences but not the last (which carries the
        # further note), numbered in order: [1], [2], [3], never "[3][4]" nor a gap
        cited = [i for i in (1, 3, 5) if i < len(body)]
        marked = [f"{s}[{cited.index(i) + 1}]" if i in cited else s for i, s in enumerate(body, 1)]
        notes = [
            f"[{n}] See the county survey, vol. {rng.randint(2, 9)}, p. {rng.randint(3, 300)}."
            for n in range(1, len(cited) + 1)
        ]
        tail = say(e, sts[-1], False, True, rng)[0]
        n = len(cited) + 1
        notes.append(f"[{n}] Further, {_clause(tail, titles)}.")
        return f"{head} " + " ".join(marked) + f"[{n}]\n\nNotes\n\n" + "\n".join(notes) + "\n"
    return head + (" " + " ".join(_prose(e, sts, rng)) if sts else "") + "\n"
