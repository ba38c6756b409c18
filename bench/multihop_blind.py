"""The blind multi-hop corpus (#28): the lead's final check of the `kg` ranker, never tuned on.

Written by a helper that read no code under gateway/knowledge_graph/ or the retrieval rankers, none
of the other corpora's questions, and never ran `kg` on it; nobody tuning a ranker is to read this
file or bench/multihop_blind_text.py, and `kg` is run on it once, by the lead.

A fictional encyclopaedia, generated from a fixed seed: type foundries and their typefaces,
perfume houses and their fragrances, watchmakers and their watches; the people who designed them,
founded the firms, trained at the trade schools and served apprenticeships under each other; the
holding groups owning some firms; the towns and the cantons they lie in. Links are mostly stated on
the subject's page (a product names its maker and designer, a firm its founder and head office, a
person their birthplace), sometimes also or only on the other end's page (a firm listing its
products, a canton its towns, a school its alumni, a person the firm they set up).

Questions walk forward along functional links (one answer a step) and are phrased by relation
(possessives, relative clauses, passives, role nouns): 36 one-hop controls (their answer page states
the link and names the question's entity), 90 two-hop and 45 three-hop. A multi-hop answer page
shares no content word of four letters or more with its question, and no page names both ends of a
multi-hop chain. Traps: namesakes (one full name, or one surname, for two people), firms named after
a town they are not in, two firms on one stem, revivals named after an original, trade-fair pages and
registers naming many entities in passing, and notes sharing the questions' relation words.
"""

from __future__ import annotations

import random
import re

from bench.corpus_world import FUNCTION_WORDS, Ent, Names, Recipe, World
from bench.multihop_blind_questions import make_questions
from bench.multihop_blind_text import SIGHTS, STYLE, TRADES, render
from bench.multihop_blind_traps import add_traps

_ON = ["b", "d", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "sk", "st", "tr", "gl", "br", "dr", "kl"]
_NU = ["a", "e", "i", "o", "u", "ai", "ei", "oa", "y", "au"]
_CO = ["l", "n", "r", "s", "t", "m", "nd", "ll", "rr", "ss", "ck", "rn", "lt", "nt", "rd", "sk"]
_TAIL = ["a", "e", "o", "en", "er", "el", "in", "ow", "ey", "ith", "ard", "et"]
_PROF = {
    "type": ["type designer", "punchcutter", "letter designer"],
    "scent": ["perfumer", "chemist and perfumer"],
    "watch": ["watchmaker", "horologist"],
}
_SORT = ["market town", "mill town", "river port", "spa town", "cathedral town", "village", "hill town"]
_TYPE_SUFFIX = ["Sans", "Grotesk", "Antiqua", "Roman", "Script", "Mono", "Text", "Gothic"]
_SCENT_SUFFIX = ["Noir", "Absolu", "Rouge", "Blanc", "Intense", "d'Or"]
_WATCH_SUFFIX = ["Regulator", "Chronograph", "Calendar", "Diver", "Pilot", "Tourbillon", "Moonphase"]


def _names(rng: random.Random) -> Names:
    """Fictional words, each used once unless a trap reuses one on purpose."""
    return Names(rng, (_ON, _NU, _CO, _TAIL), shortest=4)


def words(text: str) -> set[str]:
    """The content words of four letters or more (lower-cased) a question and its answer must not share."""
    return {t for t in re.findall(r"[a-zà-ÿ]{4,}", text.lower()) if t not in FUNCTION_WORDS}


def _populate(rng: random.Random, nm: Names) -> World:
    w = World()
    cantons = [
        w.add(
            Ent(
                f"canton_{i:02d}.md",
                nm.word(),
                "canton",
                facts={"dir": d, "area": rng.randint(180, 1400), "year": rng.randint(1798, 1870)},
            )
        )
        for i, d in enumerate(["north", "south", "east", "west", "north-east", "south-west", "centre", "north-west"])
    ]
    towns: list[Ent] = []
    for i in range(36):
        t = w.add(Ent(f"town_{i:02d}.md", nm.word(), "town"))
        t.facts = {
            "sort": rng.choice(_SORT),
            "pop": rng.randint(8, 400) * 100,
            "trade": rng.choice(TRADES),
            "sight": rng.choice(SIGHTS),
        }
        k = cantons[i % len(cantons)]
        w.tie("in_canton", t, k, "both" if rng.random() < 0.35 else "fwd")
        k.facts.setdefault("seat", t.title)
        towns.append(t)
    for t in towns:
        if rng.random() < 0.25:
            t.facts["twin"] = rng.choice(towns).title if rng.random() < 0.5 else nm.word()
    domains = ["type", "scent", "watch"]
    schools: list[Ent] = []
    for i in range(12):
        dom = domains[i % 3]
        stem = rng.choice(towns).title if i in (1, 5, 9) else nm.word()  # three named after a town they are not in
        title = {
            "type": f"{stem} School of Lettering",
            "scent": f"{stem} Institute of Perfumery",
            "watch": f"{stem} Horological School",
        }[dom]
        sc = w.add(Ent(f"school_{i:02d}.md", title, "school", dom, {"year": rng.randint(1820, 1910)}))
        home = rng.choice([t for t in towns if t.title != stem])
        w.tie("located", sc, home, rng.choices(["fwd", "both", "back"], [70, 20, 10])[0])
        schools.append(sc)
    people: list[Ent] = []
    for i in range(72):
        dom = domains[i % 3]
        born = 1840 + i + rng.randint(0, 12)
        p = w.add(Ent(f"person_{i:02d}.md", f"{nm.word()} {nm.word()}", "person", dom))
        p.facts = {
            "female": rng.random() < 0.45,
            "born": born,
            "died": born + rng.randint(55, 92),
            "prof": rng.choice(_PROF[dom]),
        }
        w.tie("born_in", p, rng.choice(towns), "both" if rng.random() < 0.1 else "fwd")
        if rng.random() < 0.9:
            own = [s for s in schools if s.domain == dom]
            w.tie("trained_at", p, rng.choice(own), rng.choices(["fwd", "both", "back"], [75, 15, 10])[0])
        elders = [q for q in people if q.domain == dom and q.facts["born"] + 18 < born]
        if elders and rng.random() < 0.6:
            w.tie("apprenticed_to", p, rng.choice(elders), "both" if rng.random() < 0.15 else "fwd")
        if rng.random() < 0.35:
            p.facts["died_in"] = rng.choice(towns).title
        people.append(p)
    groups = []
    for i in range(4):
        g = w.add(
            Ent(
                f"group_{i}.md",
                f"{nm.word()} {rng.choice(['Holdings', 'Group', 'Consolidated'])}",
                "group",
                facts={"year": rng.randint(1950, 1990)},
            )
        )
        w.tie("hq", g, rng.choice(towns))
        groups.append(g)
    stems = [nm.word() for _ in range(5)]  # two firms (in two trades) on each of these stems
    companies: list[Ent] = []
    founders = iter(rng.sample(people, 33))
    for i in range(33):
        dom = domains[i % 3]
        if i < 10:
            stem = stems[i // 2]
        elif i < 14:
            stem = rng.choice(towns).title  # named after a town it is not in (its head office is elsewhere)
        else:
            stem = nm.word()
        title = {"type": f"{stem} Type Foundry", "scent": f"{stem} Parfums", "watch": f"{stem} Watch Company"}[dom]
        if dom == "type" and rng.random() < 0.4:
            title = f"{stem} & {rng.choice(['Sons', 'Daughters', 'Partners'])}"
        founder = next(founders)
        year = founder.facts["born"] + rng.randint(24, 45)
        c = w.add(Ent(f"company_{i:02d}.md", title, "company", dom, {"year": year, "staff": rng.randint(12, 900)}))
        w.tie("founded_by", c, founder, rng.choices(["fwd", "both", "back"], [70, 18, 12])[0])
        home = rng.choice([t for t in towns if t.title != stem])
        w.tie("hq", c, home, "both" if rng.random() < 0.15 else "fwd")
        if rng.random() < 0.4:
            w.tie("owned_by", c, rng.choice(groups), rng.choices(["fwd", "both", "back"], [60, 25, 15])[0])
        companies.append(c)
    n = 0
    for c in companies:
        for _j in range(4):
            dom = c.domain
            base = nm.word()
            suffix = {"type": _TYPE_SUFFIX, "scent": _SCENT_SUFFIX, "watch": _WATCH_SUFFIX}[dom]
            title = f"{base} {rng.choice(suffix)}" if dom == "watch" or rng.random() < 0.4 else base
            p = w.add(
                Ent(
                    f"product_{n:03d}.md",
                    title,
                    "product",
                    dom,
                    {"style": rng.choice(STYLE[dom]), "year": c.facts["year"] + rng.randint(2, 60), "base": base},
                )
            )
            n += 1
            w.tie("made_by", p, c, rng.choices(["fwd", "both", "back"], [72, 22, 6])[0])
            year = p.facts["year"]
            alive = [q for q in people if q.domain == dom and q.facts["born"] + 20 <= year <= q.facts["died"]]
            designer = rng.choice(alive or [q for q in people if q.domain == dom])
            w.tie("designed_by", p, designer, rng.choices(["fwd", "both", "back"], [72, 13, 15])[0])
    return w


_RECIPE = Recipe(
    names=_names,
    populate=_populate,
    render=render,
    traps=add_traps,
    questions=lambda w, docs, rng: make_questions(w, docs, rng, words),
)

# The corpus: ~390 pages and 36 one-hop, 90 two-hop and 45 three-hop questions, same for a seed.
build_blind = _RECIPE.build
blind_world = _RECIPE.world
blind_chains = _RECIPE.chains
