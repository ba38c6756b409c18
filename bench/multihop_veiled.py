"""The veiled multi-hop corpus (#28): a second blind check of the `kg` ranker, never tuned on.

Written by a helper that read no code under gateway/knowledge_graph/ and never ran `kg` (or
`kg+2hop`) on it; it is calibrated with hybrid search, two-hop expansion and PPR only. Nobody
tuning a ranker is to read this file, bench/multihop_veiled_text.py, _questions.py or _traps.py.

A fictional maritime encyclopaedia generated from a fixed seed: ships and the yards that built them,
the lines that ran them, the masters who commanded them and the naval architects who drew them;
the people who founded the yards and lines, the academies where mariners trained and the older
mariners they served under, the towns they were born in and retired to, and the provinces those
towns lie in. Links are stated on the subject's page, the other end's page or both, in prose,
tables and lists (bench/multihop_veiled_text.py).

Questions (bench/multihop_veiled_questions.py) walk forward along functional links and are phrased
by relation: 36 one-hop controls, 90 two-hop and 45 three-hop; a multi-hop answer page shares no
content word with its question and does not name the chain's start, and no page off the chain
names both its ends. Traps (bench/multihop_veiled_traps.py): namesakes, ships named after towns,
later ships of a name, firms named after a town they are not in, a yard and a line on one stem,
registers, harbour logs and regatta tables naming many entities in passing, and notes sharing the
questions' relation words.
"""

from __future__ import annotations

import random
import re

from bench.corpus_world import FUNCTION_WORDS, Ent, Names, Recipe, World, side
from bench.multihop_veiled_questions import make_questions
from bench.multihop_veiled_text import GOODS, ROUTES, render
from bench.multihop_veiled_traps import add_traps

_ON = ["c", "f", "g", "h", "j", "m", "p", "qu", "sh", "ch", "th", "wr", "pl", "fr", "gr", "y", "z", "b", "v", "d"]
_NU = ["a", "e", "i", "o", "u", "ae", "ia", "oo", "ea", "ua"]
_CO = ["b", "d", "g", "m", "n", "p", "v", "z", "th", "ng", "mb", "sh", "ff", "lv", "rv", "x"]
_TAIL = ["ane", "ice", "ora", "olm", "ett", "uin", "ash", "iel", "wyn", "ard", "is", "o", "a", "ly"]
_SORT = ["fishing harbour", "river town", "estuary town", "deep-water haven", "ferry town", "whaling station"]
_KIND = ["cargo liner", "collier", "packet steamer", "barque", "schooner", "trawler", "ferry", "tanker", "clipper"]
_CAPTAIN = ["master mariner", "sea captain", "ship's master"]
_ARCHITECT = ["naval architect", "ship designer"]
_OWNER = ["shipowner", "merchant"]
_CHILD = ["fishing village", "busy roadstead", "town of rope walks", "place of boatbuilders"]


def _names(rng: random.Random) -> Names:
    """Fictional words, each used once unless a trap reuses one on purpose."""
    return Names(rng, (_ON, _NU, _CO, _TAIL), shortest=5)


def words(text: str) -> set[str]:
    """Content words of four letters or more (lower-cased): a multi-hop question and its answer share none."""
    return {t for t in re.findall(r"[a-z']{4,}", text.lower().replace("'s ", " ")) if t not in FUNCTION_WORDS}


def _people(rng: random.Random, nm: Names, w: World, ports: list[Ent], academies: list[Ent]) -> list[Ent]:
    people: list[Ent] = []
    roles = ["captain"] * 46 + ["architect"] * 24 + ["owner"] * 10
    shared = [nm.word() for _ in range(8)]  # eight surnames borne by two people each
    for i, role in enumerate(roles):
        born = 1820 + i % 46 + rng.randint(0, 14)
        sur = shared[i // 10] if i % 10 == 3 and i // 10 < 8 else nm.word()
        if i % 10 == 8 and i // 10 < 8:
            sur = shared[i // 10]
        p = w.add(Ent(f"person_{i:02d}.md", f"{nm.word()} {sur}", "person"))
        prof = {"captain": _CAPTAIN, "architect": _ARCHITECT, "owner": _OWNER}[role]
        p.facts = {
            "female": rng.random() < 0.4,
            "born": born,
            "died": born + rng.randint(58, 90),
            "prof": rng.choice(prof),
            "role": role,
            "childhood": rng.choice(_CHILD),
        }
        w.tie("born_in", p, rng.choice(ports), side(rng, 80, 12, 8))
        if role != "owner" and rng.random() < 0.88:
            w.tie("trained_at", p, rng.choice(academies), side(rng, 75, 15, 10))
        elders = [q for q in people if q.facts["role"] == role != "owner" and q.facts["born"] + 15 < born]
        if elders and rng.random() < 0.65:
            w.tie("mentor", p, rng.choice(elders), side(rng, 80, 12, 8))
        if role == "captain" and rng.random() < 0.55:
            w.tie("retired_to", p, rng.choice(ports), side(rng, 80, 10, 10))
        people.append(p)
    return people


def _populate(rng: random.Random, nm: Names) -> World:
    w = World()
    dirs = ["north", "south", "east", "west", "north-east", "south-west", "far west"]
    provinces = []
    for i, d in enumerate(dirs):
        facts = {"dir": d, "area": rng.randint(900, 9000), "year": rng.randint(1790, 1880)}
        facts["word"] = rng.choice(["province", "county", "district"])
        provinces.append(w.add(Ent(f"province_{i}.md", nm.word(), "province", facts=facts)))
    ports: list[Ent] = []
    for i in range(36):
        p = w.add(Ent(f"port_{i:02d}.md", nm.word(), "port"))
        p.facts = {"sort": rng.choice(_SORT), "pop": rng.randint(6, 600) * 100, "goods": rng.choice(GOODS)}
        w.tie("in_province", p, provinces[i % len(provinces)], side(rng, 70, 20, 10))
        ports.append(p)
    academies: list[Ent] = []
    for i in range(10):
        stem = ports[i * 3 + 1].title if i in (2, 5, 8) else nm.word()  # three named after a town they are not in
        title = f"{stem} {['Nautical College', 'Academy of Navigation', 'School of Seamanship'][i % 3]}"
        a = w.add(Ent(f"academy_{i}.md", title, "academy", facts={"year": rng.randint(1800, 1870)}))
        w.tie("located", a, rng.choice([p for p in ports if p.title != stem]), side(rng, 75, 15, 10))
        academies.append(a)
    people = _people(rng, nm, w, ports, academies)
    founders = iter(rng.sample([p for p in people if p.facts["role"] != "captain"], 26) + people[:2])
    stems = [nm.word() for _ in range(4)]  # a yard and a line on each of these stems
    firms: list[Ent] = []
    for i in range(28):
        is_yard = i % 2 == 0
        if i < 8:
            stem = stems[i // 2]
        elif i < 13:
            stem = ports[(i * 7) % 36].title  # named after a town it is not in
        else:
            stem = nm.word()
        if is_yard:
            title = f"{stem} {rng.choice(['Shipyard', 'Dockyard', 'Shipbuilding Company', 'Yard'])}"
        else:
            title = f"{stem} {rng.choice(['Line', 'Steam Navigation Company', 'Packet Company', 'Shipping'])}"
        founder = next(founders)
        facts = {"year": founder.facts["born"] + rng.randint(25, 45), "staff": rng.randint(40, 3000)}
        facts |= {"ways": rng.randint(2, 9), "route": rng.choice(ROUTES)}
        o = w.add(Ent(f"{'yard' if is_yard else 'line'}_{i:02d}.md", title, "yard" if is_yard else "line", facts=facts))
        w.tie("founded_by", o, founder, side(rng, 75, 15, 10))
        home = rng.choice([p for p in ports if p.title != stem])
        w.tie("yard_in" if is_yard else "home_port", o, home, side(rng, 80, 12, 8))
        firms.append(o)
    yards = [o for o in firms if o.kind == "yard"]
    lines = [o for o in firms if o.kind == "line"]
    captains = [p for p in people if p.facts["role"] == "captain"]
    architects = [p for p in people if p.facts["role"] == "architect"]
    for i in range(128):
        yd = rng.choice(yards)
        year = yd.facts["year"] + rng.randint(3, 50)
        prefix = rng.choice(["SS", "MV", "RMS", "PS", "SV"])
        facts = {
            "year": year,
            "type": rng.choice(_KIND),
            "tons": rng.randint(3, 160) * 100,
            "route": rng.choice(ROUTES),
        }
        s = w.add(Ent(f"ship_{i:03d}.md", f"{prefix} {nm.word()}", "ship", facts=facts))
        w.tie("built_at", s, yd, side(rng, 80, 12, 8))
        if rng.random() < 0.85:  # some ships' owners, and many designers, went unrecorded
            w.tie("operated_by", s, rng.choice(lines), side(rng, 80, 12, 8))
        alive = [c for c in captains if c.facts["born"] + 25 <= year <= c.facts["born"] + 65]
        w.tie("master", s, rng.choice(alive or captains), side(rng, 78, 12, 10))
        alive = [a for a in architects if a.facts["born"] + 22 <= year <= a.facts["died"]]
        if rng.random() < 0.55:
            w.tie("designed_by", s, rng.choice(alive or architects), side(rng, 78, 12, 10))
    return w


_RECIPE = Recipe(
    names=_names,
    populate=_populate,
    render=render,
    traps=add_traps,
    questions=lambda w, docs, rng: make_questions(w, docs, rng, words),
)

# The corpus: ~370 pages; 36 one-hop, 90 two-hop and 45 three-hop questions; the same for a seed.
build_veiled = _RECIPE.build
veiled_world = _RECIPE.world
veiled_chains = _RECIPE.chains
