"""The hushed corpus's pages (#28): each entity's page in one of thirteen styles no earlier corpus
used, stating its links in the wordings of bench/multihop_hushed_words.py.

Styles: museum plaques, service bulletins, patent abstracts, release notes, slide-deck outlines,
social-media threads, inquiry records (a witness's questions and answers), radio transcripts,
conference programmes, job postings, yearbook entries, letters of recommendation and hospital
newsletters. A statement is made in the third person (the subject as its name, surname or a
pronoun), in the first person where the page speaks for its entity (a yearbook quote, a witness,
an airline's own posts) or as a key-value line.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from bench.corpus_world import Ent, World, cap
from bench.multihop_hushed_words import REL

Statement = tuple[str, str, Ent]  # relation, "fwd" (this page is the subject's) or "back", the other end

KIND_WORD = {
    "town": "the town",
    "region": "the region",
    "maker": "the company",
    "aircraft": "the type",
    "airline": "the airline",
    "airport": "the airport",
    "school": "the school",
    "hospital": "the hospital",
    "medschool": "the school",
    "institute": "the institute",
}


def _year(w: World, rel: str, src: Ent, dst: Ent, rng: random.Random) -> int:
    """One year per link, the same on both its pages: the subject's own year (a birth, a founding, a
    first flight) for its first relations, else a year after both ends began."""
    if rel in ("born", "in", "founded", "maker", "first_flight"):  # a birth, a founding, a first flight
        return int(src.facts["year"])
    key = f"y_{rel}"
    if key not in src.facts:
        lo = max(int(e.facts["year"]) + (24 if e.kind == "person" else 0) for e in (src, dst))
        # a post, a registrar's years or a directorship after qualifying; a chief test pilot after the wings
        lo = max(
            [lo] + [int(e.facts[k]) + 1 for e in (src, dst) for k in ("y_studied", "y_flying_school") if k in e.facts]
        )
        src.facts[key] = rng.randint(min(lo, 2022), 2023)
    return int(src.facts[key])


def _refs(e: Ent, first: bool, rng: random.Random) -> dict[str, str]:
    """How a page refers to its own entity: by name the first time, then by surname, a pronoun or a kind."""
    if e.kind == "person":
        he = "she" if e.facts["female"] else "he"
        him, his = ("her", "her") if e.facts["female"] else ("him", "his")
        name = e.title if first else rng.choice([e.title, e.title.split()[-1], he])
        obj = name if name != he else him
        return {"S": cap(name), "N": name, "n": he, "O": obj, "P": his, "P_cap": cap(his), "p_obj": him}
    word = KIND_WORD.get(e.kind, "it")
    name = e.title if first else rng.choice([e.title, word, "it"])
    poss = "its" if name in ("it", word) else f"{name}'s"
    obj = word if name == "it" else name  # "born in the town", not "born in it"
    return {"S": cap(name), "N": name, "n": "it", "O": obj, "P": poss, "P_cap": cap(poss), "p_obj": "it"}


def say(w: World, e: Ent, st: Statement, mode: str, first: bool, rng: random.Random) -> str:
    """One statement of a link on `e`'s page, in `mode` (third, first or kv) where the relation has it."""
    rel, way, other = st
    src, dst = (e, other) if way == "fwd" else (other, e)
    words = REL[rel]
    key = way if mode == "third" else f"{way}_{mode}"
    tpl = rng.choice(words.get(key) or words[way])
    r = _refs(e, first, rng)
    kw = dict(r, t=other.title, s=other.title, y=str(_year(w, rel, src, dst, rng)))
    kw.update(T=r["S"], TO=r["O"], TP=r["P"])
    said = tpl.format(**kw)
    return said if mode == "kv" else cap(said)


def statements(w: World, e: Ent) -> list[Statement]:
    """The links `e`'s page states: its own (fwd or both) and those into it meant for its page."""
    out: list[Statement] = []
    for rel in REL:
        dst = w.out(rel, e)
        if dst is not None:
            out.append((rel, "fwd", dst))
        out += [(rel, "back", src) for src in w.incoming(rel, e)]
    return out


def _lines(w: World, e: Ent, rng: random.Random, modes: tuple[int, int, int]) -> list[str]:
    """The page's statements; after one led by another person, the next names its subject again
    (a "he" or "she" there could be either of them)."""
    sts = statements(w, e)
    rng.shuffle(sts)
    out: list[str] = []
    for i, st in enumerate(sts):
        prev = sts[i - 1][2] if i else None
        other_led = prev is not None and prev.kind == "person" and out[-1].startswith(prev.title)
        out.append(say(w, e, st, rng.choices(["third", "first", "kv"], modes)[0], i == 0 or other_led, rng))
    return out


def plaque(w: World, e: Ent, rng: random.Random) -> str:
    body = " ".join(_lines(w, e, rng, (1, 0, 0)))
    n = rng.randint(1, 9)
    return (
        f"Gallery {n}, case {rng.randint(10, 60)}\n\n**{e.title}**\n\n{body}\n\n"
        "_Object on display. Please do not touch the glass._"
    )


def bulletin(w: World, e: Ent, rng: random.Random) -> str:
    lines = "\n".join(f"- {x}" for x in _lines(w, e, rng, (2, 0, 3)))
    code = f"SB-{rng.randint(100, 999)}-{rng.randint(10, 99)}"
    return (
        f"SERVICE BULLETIN {code}\nSubject: {e.title}\nCompliance: recommended\n\n1. BACKGROUND\n{lines}\n\n"
        "2. ACTION\nInspect the affected panels at the next scheduled check and record the result."
    )


def patent(w: World, e: Ent, rng: random.Random) -> str:
    body = " ".join(_lines(w, e, rng, (1, 0, 0)))
    return (
        f"Patent abstract, application no. {rng.randint(100000, 999999)}\nTitle: improvements relating to {e.title}\n\n"
        f"Abstract: {body}\n\nClaim 1. An arrangement substantially as described."
    )


def changelog(w: World, e: Ent, rng: random.Random) -> str:
    out = [f"Release notes: {e.title}"]
    for i, x in enumerate(_lines(w, e, rng, (3, 1, 1))):
        out.append(f"\n### v{i + 1}.{rng.randint(0, 9)}\n- {x}")
    out.append("\n### unreleased\n- Typo fixes.")
    return "\n".join(out)


def slides(w: World, e: Ent, rng: random.Random) -> str:
    out = [f"Slide 1: {e.title}, an overview"]
    for i, x in enumerate(_lines(w, e, rng, (2, 0, 2))):
        if i % 2 == 0:
            out.append(f"\nSlide {i // 2 + 2}")
        out.append(f"  • {x.rstrip('.')}")
    out.append("\nSlide last: questions?")
    return "\n".join(out)


def social(w: World, e: Ent, rng: random.Random) -> str:
    handle = "@" + "".join(c for c in e.title.lower() if c.isalnum())[:14]
    out = []
    for x in _lines(w, e, rng, (2, 3, 0)):
        out.append(f"{handle} · {rng.randint(1, 23)}h\n{x} #{rng.choice(['throwback', 'news', 'proud', 'history'])}")
        if rng.random() < 0.3:
            who = rng.choice(["plane_spotter", "localnews", "mags_k", "aviatrix"])
            out.append(f"  ↳ @{who}: {rng.choice(['Love this', 'Did not know that!', 'Source?'])}")
    return "\n\n".join(out)


def inquiry(w: World, e: Ent, rng: random.Random) -> str:
    who = e.title if e.kind == "person" else f"the chief executive, for {e.title}"
    out = [f"Record of the inquiry, day {rng.randint(2, 19)}. Witness: {who}."]
    for x in _lines(w, e, rng, (1, 3, 0)):
        out.append(
            f"Q. {rng.choice(['Go on.', 'Tell the panel about that.', 'And before that?', 'For the record?'])}\nA. {x}"
        )
    out.append("The witness withdrew.")
    return "\n\n".join(out)


def radio(w: World, e: Ent, rng: random.Random) -> str:
    out = [f"PRESENTER: This morning we're talking about {e.title}."]
    for x in _lines(w, e, rng, (1, 1, 0)):
        out.append(f"GUEST: {x}")
        out.append(f"PRESENTER: {rng.choice(['Really?', 'Go on.', 'I never knew that.', 'Fascinating.'])}")
    out.append("PRESENTER: We'll be right back after the travel.")
    return "\n".join(out)


def programme(w: World, e: Ent, rng: random.Random) -> str:
    hour = rng.randint(8, 15)
    body = "\n".join(f"  {x}" for x in _lines(w, e, rng, (2, 0, 1)))
    return (
        f"Conference programme, hall {rng.choice('ABCD')}\n\n{hour:02d}:30 Plenary: {e.title}\n{body}\n\n"
        f"{hour + 1:02d}:15 Coffee"
    )


def job(w: World, e: Ent, rng: random.Random) -> str:
    body = "\n".join(f"* {x}" for x in _lines(w, e, rng, (1, 2, 2)))
    return (
        f"Vacancy: {rng.choice(['duty manager', 'ward clerk', 'instructor', 'ground handler', 'porter'])}, "
        f"{e.title}\n\nAbout us\n{body}\n\nClosing date: end of the month. Apply online."
    )


def yearbook(w: World, e: Ent, rng: random.Random) -> str:
    body = "\n".join(_lines(w, e, rng, (1, 3, 2)))
    return f"Yearbook entry: {e.title}\nMost likely to: {rng.choice(['be early', 'fix it', 'sing', 'win'])}\n\n{body}"


def letter(w: World, e: Ent, rng: random.Random) -> str:
    body = " ".join(_lines(w, e, rng, (1, 0, 0)))
    return (
        f"To the appointments panel,\n\nI am writing in support of {e.title}. {body}\n\n"
        "I recommend this candidate without reservation.\n\nYours faithfully,\nThe dean"
    )


def newsletter(w: World, e: Ent, rng: random.Random) -> str:
    body = "\n\n".join(_lines(w, e, rng, (2, 1, 0)))
    issue = rng.randint(3, 90)
    return f"Ward Round, the staff newsletter, issue {issue}\n\nIn focus: {e.title}\n\n{body}\n\nWash your hands."


Style = Callable[[World, Ent, random.Random], str]
STYLES: dict[str, list[Style]] = {
    "aircraft": [plaque, bulletin, patent],
    "maker": [changelog, slides, patent, plaque, job],
    "airline": [social, job, changelog],
    "airport": [bulletin, social, radio, job],
    "school": [yearbook, job, slides],
    "pilot": [yearbook, inquiry, letter, radio],
    "surgeon": [letter, programme, yearbook, newsletter, inquiry],
    "founder": [plaque, radio, letter],
    "hospital": [newsletter, job, inquiry, slides],
    "medschool": [slides, programme, job],
    "institute": [patent, programme, changelog],
    "town": [radio, slides, social],
    "region": [slides, radio],
}


# a line for a page with little to state (no names, so it states no link)
FILLER = {
    "region": "Sheep country mostly, with a reservoir and two ruined abbeys.",
    "town": "Market day is Thursday; the bypass opened late.",
    "person": "Declines interviews; no photographs on file.",
    "aircraft": "Two examples survive.",
}


def render(w: World, e: Ent, rng: random.Random) -> str:
    styles = STYLES[e.domain or e.kind]
    style = styles[int(e.file.split("_")[-1].removesuffix(".md")) % len(styles)]  # each style in turn
    extra = f"\n{FILLER.get(e.kind, 'Records before 1950 were lost in a fire.')}\n" if len(statements(w, e)) < 2 else ""
    return f"# {e.title}\n\n{style(w, e, rng)}\n{extra}"
