"""The pages of the fresh multi-hop corpus (bench/multihop_fresh.py, #28): one per entity, plus
registers (tables that name many entities in passing) and notes (the questions' relation words, off
every chain). Each link is written on its source's page or its target's page (never both), in one of
several surface forms. Kept apart from the world and the questions for size; blind to the ranker."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from bench.multihop_corpus import Doc

# sentences on the source's page: {s} the subject (pronoun or name), {d} the target
_OUT: dict[str, list[str]] = {
    "built_at": [
        "{S} was built at {d}.",
        "{S} came off the slipway of {d} in {year}.",
        "Her builder, {d}, launched her in {year}.",
    ],
    "skipper": [
        "Her skipper was {d}.",
        "{d} commanded her for most of her working life.",
        "She sailed under {d}, her captain.",
    ],
    "home_port": ["She was registered at {d}.", "Her home port was {d}, where she wintered."],
    "yard_founder": [
        "It was founded in {year} by {d}.",
        "{d} established the yard in {year}.",
        "Its founder, {d}, ran it for decades.",
    ],
    "yard_in": ["The yard stands on the quay at {d}.", "It lies in {d}, beside the fish market."],
    "author": ["{S} was written by {d}.", "{d} wrote it in {year}.", "Its author, {d}, revised it twice."],
    "premiered_by": ["It was first staged by {d} in {year}.", "{d} gave the premiere, to mixed notices."],
    "based_in": ["The company is based in {d}.", "It plays at the corn exchange in {d}, its home."],
    "patron": ["Its patron was {d}.", "{d} backed the company as patron for many seasons."],
    "designer": [
        "It was designed by {d}.",
        "{d}, who drew its plans, supervised the piers.",
        "The design is the work of {d}.",
    ],
    "spans": ["It crosses the {d}.", "The bridge spans the {d} in {n} arches."],
    "rises_in": ["{S} rises in {d}.", "Its source lies high in {d}."],
    "bank_founder": [
        "It was set up by {d} in {year}.",
        "Its founder was {d}.",
        "{d} established it after a failed harvest.",
    ],
    "bank_in": ["The vaults are cut into the hillside of {d}.", "It is housed in {d}."],
    "collector": [
        "It was collected by {d}.",
        "{d} gathered the first seed from a hedge bank.",
        "Its collector, {d}, named it.",
    ],
    "kept_at": ["Seed is held at {d}.", "The reference sample is stored at {d}."],
    "born_in": ["{S} was born in {d}.", "Born in {d}, {s} left young.", "{P} birthplace was {d}."],
    "grew_up_in": ["{S} grew up in {d}.", "{S} spent {p} childhood in {d}.", "{P} early years were passed in {d}."],
    "mentor": [
        "{S} trained under {d}.",
        "{S} was apprenticed to {d}.",
        "{P} mentor was {d}.",
        "{S} learned the trade from {d}.",
    ],
}
# sentences on the target's page: {s} the page's subject, {d} the source (one) or {ds} (a list)
_IN: dict[str, list[str]] = {
    "built_at": ["Vessels launched here include {ds}.", "The yard launched {ds}."],
    "skipper": ["{S} skippered {ds}.", "{S} was captain of {ds}."],
    "home_port": ["{ds} sailed out of its harbour.", "Its harbour was home to {ds}."],
    "yard_founder": ["{S} founded {ds}.", "{S} is remembered as the founder of {ds}."],
    "yard_in": ["{ds} stands on its quay.", "It is home to {ds}."],
    "author": ["{S} wrote {ds}.", "{P} plays include {ds}."],
    "premiered_by": ["The company premiered {ds}.", "Its first nights include {ds}."],
    "based_in": ["{ds} is based here.", "It is the home of {ds}."],
    "patron": ["{S} was patron of {ds}.", "{S} backed {ds} with money and a rehearsal hall."],
    "designer": ["{S} designed {ds}.", "{P} works include {ds}."],
    "spans": ["It is crossed by {ds}.", "Crossings: {ds}."],
    "rises_in": ["It is where {ds} rises.", "Springs here feed {ds}."],
    "bank_founder": ["{S} founded {ds}.", "{S} set up {ds}."],
    "bank_in": ["{ds} is housed here.", "The dale shelters {ds}."],
    "collector": ["{S} collected {ds}.", "Varieties gathered by {o}: {ds}."],
    "kept_at": ["Its holdings include {ds}.", "Accessions: {ds}."],
    "born_in": ["It is where {ds} was born.", "Natives include {ds}.", "{ds} came into the world here."],
    "grew_up_in": ["{ds} grew up here.", "It is where {ds} spent a childhood."],
    "mentor": ["{P} apprentices included {ds}.", "{S} trained {ds}.", "{ds} learned the trade in {p} workshop."],
}
_INTRO = {
    "town": ["{n} is a {a} settlement of some {k} souls.", "{n}, a {a} burgh, holds a market on Thursdays."],
    "dale": ["{n} is an upland dale of sheep walks and drystone walls.", "{n} is a long glacial dale."],
    "river": ["The {n} is a {a} stream of the lowlands.", "The {n} runs some {k} kilometres to the sea."],
    "person": ["{n} was a {a} of the coast country.", "{n} ({y1}-{y2}) was a {a}."],
    "yard": ["{n} is a shipyard founded in the age of sail.", "{n} builds wooden fishing boats and ferries."],
    "company": ["{n} is a touring theatre company.", "{n} is a repertory troupe."],
    "bank": ["{n} is a seed bank for upland crops.", "{n} keeps seed of old field varieties."],
    "ship": ["The {n} is a {a} of {k} tons.", "The {n} was a {a}, launched in {y1}."],
    "play": ["{n} is a play in {k} acts.", "{n} is a comedy in {k} scenes."],
    "bridge": ["{n} is a stone road bridge.", "{n} is an iron footbridge."],
    "variety": ["{n} is a landrace of {a}.", "{n} is an old {a} variety."],
}
_ADJ = {
    "town": ["coastal", "hill", "river", "market"],
    "river": ["slow", "peaty", "brisk"],
    "person": ["shipwright", "engineer", "botanist", "playwright", "merchant", "actor", "surveyor"],
    "ship": ["schooner", "ketch", "steam drifter", "brig"],
    "variety": ["barley", "flax", "rye", "spelt", "oats"],
}
_NOTES = [
    (
        "Shipyard founders",
        "Most yards on the coast were founded by a master shipwright and passed to a son. Skippers were "
        "often born within sight of the slipway.",
    ),
    (
        "Apprenticeship",
        "An apprentice trained under a master for seven years; the mentor signed the indenture. Engineers, "
        "botanists and shipwrights alike were apprenticed young.",
    ),
    (
        "Premieres and patrons",
        "A patron backed a troupe for a season; the company premiered new plays written by its own "
        "dramatist. Where a playwright grew up often shaped the plays.",
    ),
    (
        "River sources",
        "Rivers of the region rise in upland valleys; the bridges that cross them were designed by county engineers.",
    ),
    (
        "Seed collecting",
        "Botanists collected seed from hedge banks; the seed bank that holds a sample records who gathered "
        "it and where the collector was born.",
    ),
    (
        "Home ports",
        "A vessel's home port is the harbour she sailed from and wintered in; captains were registered with her.",
    ),
    (
        "Birthplaces",
        "Parish registers record where people were born; many grew up elsewhere, in a childhood home near work.",
    ),
    (
        "Bridge design",
        "The designer of a bridge was the engineer who signed its drawings; many were trained under one master.",
    ),
    ("Touring companies", "A company based in one town toured its plays; its benefactor was usually a local merchant."),
    ("Valleys and vaults", "Seed banks were housed in cold valleys; the vaults are stored deep in rock."),
]


def _list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def render(w: Any, rng: random.Random, file_of: Callable[[str], str], mention: Callable[[Any, str], str]) -> list[Doc]:
    """Every page of world `w`: entity pages, registers and notes, in a fixed order."""
    out_links: dict[str, list[tuple[str, str]]] = {n: [] for n in w.kind}
    in_links: dict[str, dict[str, list[str]]] = {n: {} for n in w.kind}
    for (src, rel), dst in w.links.items():
        if w.on_target[(src, rel)]:
            in_links[dst].setdefault(rel, []).append(src)
        else:
            out_links[src].append((rel, dst))
    docs: list[Doc] = []
    for name, kind in w.kind.items():
        female = w.female.get(name, kind == "ship")
        he, his = ("she", "her") if female else ("he", "his")
        if kind != "person" and kind != "ship":
            he, his = "it", "its"
        title = name
        fill: dict[str, object] = {
            "n": mention(w, name),
            "a": rng.choice(_ADJ.get(kind, ["fine"])),
            "k": rng.randint(2, 900),
        }
        fill |= {"y1": rng.randint(1780, 1860), "y2": rng.randint(1870, 1930)}
        intro = rng.choice(_INTRO[kind]).format(**fill)
        lines = [intro[0].upper() + intro[1:]]
        parts: list[tuple[str, Any, bool]] = [(rel, dst, True) for rel, dst in out_links[name]] + [
            (rel, srcs, False) for rel, srcs in in_links[name].items()
        ]
        rng.shuffle(parts)
        for i, (rel, other, outgoing) in enumerate(parts):
            subject = he if i or rng.random() < 0.5 else mention(w, name)
            fmt: dict[str, object] = {
                "s": subject,
                "S": subject[0].upper() + subject[1:],
                "p": his,
                "P": his.capitalize(),
            }
            fmt |= {"year": rng.randint(1800, 1900), "n": rng.randint(2, 9), "o": mention(w, name)}
            if outgoing:
                sentence = rng.choice(_OUT[rel]).format(d=mention(w, other), **fmt)
            else:
                sentence = rng.choice(_IN[rel]).format(ds=_list([mention(w, s) for s in other]), **fmt)
            lines.append(sentence[0].upper() + sentence[1:])
        if rng.random() < 0.3:  # a passing mention of an unrelated entity
            other = mention(w, rng.choice(list(w.kind)))
            lines.append(f"A portrait of {his} hangs beside one of {other}." if he != "it" else f"See also {other}.")
        docs.append(Doc(file_of(title), f"# {title}\n\n" + " ".join(lines)))
    for kind, heading, column in [
        ("ship", "Register of vessels", "tons"),
        ("bridge", "Gazetteer of bridges", "span (m)"),
        ("play", "Playbill archive", "acts"),
        ("variety", "Catalogue of field varieties", "lot"),
        ("town", "Census of settlements", "households"),
        ("person", "Roll of members of the Coastal Society", "year elected"),
    ]:
        members = sorted(rng.sample(w.of(kind), min(14, len(w.of(kind)))))
        rows = "\n".join(f"| {m} | {rng.randint(3, 400)} |" for m in members)
        docs.append(Doc(file_of(heading), f"# {heading}\n\n| name | {column} |\n|---|---|\n{rows}\n"))
    for heading, body in _NOTES:
        docs.append(Doc(file_of(f"Note on {heading}"), f"# Note on {heading.lower()}\n\n{body}"))
    return docs
