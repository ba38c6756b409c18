"""The traps of the blind multi-hop corpus (bench/multihop_blind.py): pages off every chain.

* namesakes: people sharing a chain person's full name (their page titled with their occupation) or
  surname, with a birthplace and a founding of their own;
* revivals: products named after an original ("X Nova", "X Intense", "X II"), by another designer
  and maker, sharing the original's name and kind;
* trade fairs and prizes: tables of entries and exhibitors, a winner and where the winner came from;
* registers: lists of firms (founding year, head office) and of products (year, maker);
* notes on the trades that use the questions' relation words (founder, birthplace, trained,
  apprenticeship, head office) and name no chain entity.
Every fact a trap states about a core entity is true of it; the traps only add company.
"""

from __future__ import annotations

import random

from bench.corpus_world import NameMaker, World, article
from bench.multihop_blind_text import DASH, KIND, MAKER, plural
from bench.multihop_corpus import Doc

_OCC = [
    "racing cyclist",
    "organist",
    "photographer",
    "glass painter",
    "botanist",
    "bookbinder",
    "chess player",
    "mayor",
    "cartographer",
    "mountain guide",
]
_CLUB = [
    "a cycling club",
    "a choir",
    "a camera society",
    "a botanical garden",
    "a chess circle",
    "a rowing club",
    "a museum",
]
_AWARDS = ["gold", "silver", "bronze", "mention", "none"]
_REVIVAL = {
    "type": ["Nova", "Neue", "Pro"],
    "scent": ["Intense", "Eau Fraîche", "Extrait"],
    "watch": ["II", "Heritage", "Reissue"],
}
_NOTES = [
    (
        "Note on apprenticeship in the watch trade",
        "An apprentice watchmaker traditionally served four years under a master before being admitted to a guild. "
        "Many were born in small towns and trained at a horological school before the apprenticeship; the founder "
        "of a workshop often took on the sons and daughters of former apprentices.",
    ),
    (
        "Note on how perfume houses are founded",
        "Most perfume houses were founded by a perfumer or by a chemist who had trained under one. A house's head "
        "office is usually in a town with a glassworks; the designer of the bottle is rarely credited.",
    ),
    (
        "Note on the naming of typefaces",
        "A typeface is often named after its designer's birthplace, a patron or a river. Foundries registered names "
        "with the trade association; who designed a face and which foundry issued it were recorded on the specimen.",
    ),
    (
        "Note on cantons and towns",
        "Each canton has a seat and an assembly. A town's canton decides its schools and markets; many founders of "
        "firms were born in one canton and set up their head office in another.",
    ),
    (
        "Note on trade schools",
        "The trade schools trained designers, perfumers and watchmakers. A school's alumni often founded firms of "
        "their own, and the school's town became the place where a trade was based.",
    ),
    (
        "Note on holding groups",
        "From the 1950s, holding groups bought many family firms. The group that owns a firm seldom changes its name, "
        "and the founder's family often keeps the head office in its home town.",
    ),
    (
        "Note on who designed a watch",
        "A watch is the work of many hands: the movement designer, the case maker and the dial painter. Which "
        "watchmaker makes a model and who designed its calibre are given in the maker's catalogue.",
    ),
    (
        "Note on a perfumer's training",
        "A perfumer, or nose, learns to tell some three thousand materials apart. Where a perfumer was born matters "
        "less than the school that trained them and the master who taught them the trade.",
    ),
    (
        "Note on type specimens",
        "A specimen book shows each typeface a foundry has released, the year it was cast and, sometimes, the "
        "designer who drew it. Specimens are a main source for the history of a foundry's founder and staff.",
    ),
    (
        "Note on birthplaces in biographies",
        "Biographies of craftsmen give the town where the subject was born, the school where they studied and the "
        "firm they set up; registers of births in the cantons are the usual source.",
    ),
    (
        "Note on the watch trade's head offices",
        "Watch companies kept their head office near their workshops. Where a firm is headquartered and who "
        "founded it are recorded in the cantonal trade register.",
    ),
    (
        "Note on fragrance launches",
        "A fragrance launch names the house that makes it and, more rarely, the perfumer who composed it; the nose "
        "behind a scent was long kept anonymous.",
    ),
]


def add_traps(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    people = [e for e in w.ents.values() if e.kind == "person"]
    towns = [e for e in w.ents.values() if e.kind == "town"]
    products = [e for e in w.ents.values() if e.kind == "product"]
    companies = [e for e in w.ents.values() if e.kind == "company"]
    docs: list[Doc] = []
    for i, p in enumerate(rng.sample(people, 26)):
        occ = rng.choice(_OCC)
        sur = p.title.split()[1]
        name = p.title if i < 9 else f"{nm.word()} {sur}"
        title = f"{name} ({occ})" if i < 9 else name
        she = rng.choice(["She", "He"])
        born, home = rng.randint(1850, 1960), rng.choice(towns).title
        club, died = rng.choice(_CLUB), born + rng.randint(50, 90)
        text = rng.choice(
            [
                f"{name} (born {born} in {home}) is {article(occ)}."
                f" {she} founded {club} in {born + rng.randint(20, 40)}.",
                f"{name} ({born}{DASH}{died}) was {article(occ)} from {home}. {sur} set up {club} there.",
                f"Born in {home} in {born}, {name} trained as {article(occ)} and founded {club}.",
            ]
        )
        if i < 9:
            text += f" {she} is not to be confused with the {p.facts['prof']} of the same name."
            p.facts["namesake"] = title  # a question naming `p` then says which of the two it means
        docs.append(Doc(f"namesake_{i:02d}.md", f"# {title}\n\n{text}"))
    for i, p in enumerate(rng.sample(products, 16)):
        maker = rng.choice([c for c in companies if c.domain == p.domain and w.link["made_by"][p.file] != c.file])
        designer = rng.choice([q for q in people if q.domain == p.domain and w.link["designed_by"][p.file] != q.file])
        title = f"{p.title} {rng.choice(_REVIVAL[p.domain])}"
        year, kind, by = p.facts["year"] + rng.randint(25, 70), KIND[p.domain], designer.title
        text = rng.choice(
            [
                f"{title} is a {kind} released by {maker.title} in {year}, a reworking of {p.title} by {by}.",
                f"{title}, designed by {designer.title} in {year}, revives {p.title} for {maker.title}.",
                f"In {year} {maker.title} brought out {title}, a new {kind} by {by} after the original {p.title}.",
            ]
        )
        text += f" It was designed without access to the first {kind}'s drawings, and differs in many details."
        docs.append(Doc(f"revival_{i:02d}.md", f"# {title}\n\n{text}"))
    for i in range(26):
        dom = ["type", "scent", "watch"][i % 3]
        host = rng.choice(towns).title
        year = rng.randint(1900, 1990)
        event = {
            "type": f"{host} Type Fair of {year}",
            "scent": f"{host} Perfume Prize of {year}",
            "watch": f"{host} Watch Fair of {year}",
        }[dom]
        entries = rng.sample([p for p in products if p.domain == dom], rng.randint(5, 8))
        rows = "\n".join(
            f"| {p.title} | {w.ents[w.link['made_by'][p.file]].title} | {rng.choice(_AWARDS)} |" for p in entries
        )
        winner = rng.choice([q for q in people if q.domain == dom])
        born_in = w.ents[w.link["born_in"][winner.file]].title
        text = (
            f"The {event.split(' of ')[0]} of {year} was held in {host} and drew {rng.randint(12, 80)} exhibitors. "
            f"The jury's prize went to {winner.title}, a {winner.facts['prof']} born in {born_in}.\n\n"
            f"| Entry | Exhibitor | Award |\n|---|---|---|\n{rows}"
        )
        docs.append(Doc(f"fair_{i:02d}.md", f"# {event}\n\n{text}"))
    for i, dom in enumerate(["type", "scent", "watch"]):
        firms = [c for c in companies if c.domain == dom]
        rows = "\n".join(f"| {c.title} | {c.facts['year']} | {w.ents[w.link['hq'][c.file]].title} |" for c in firms)
        docs.append(
            Doc(
                f"register_firms_{i}.md",
                f"# List of {plural(MAKER[dom])}\n\nThe {plural(MAKER[dom])} in the trade register, with the year "
                f"each was founded and the town of its head office.\n\n"
                f"| Firm | Founded | Head office |\n|---|---|---|\n{rows}",
            )
        )
        items = sorted((p for p in products if p.domain == dom), key=lambda p: p.facts["year"])
        for half, part in enumerate((items[: len(items) // 2], items[len(items) // 2 :])):
            rows = "\n".join(
                f"| {p.title} | {p.facts['year']} | {w.ents[w.link['made_by'][p.file]].title} |" for p in part
            )
            docs.append(
                Doc(
                    f"register_{dom}_{half}.md",
                    f"# List of {plural(KIND[dom])} ({part[0].facts['year']}{DASH}{part[-1].facts['year']})\n\n"
                    f"The {len(part)} {plural(KIND[dom])} of these years, with their makers.\n\n"
                    f"| Name | Year | Maker |\n|---|---|---|\n{rows}",
                )
            )
    for i, (title, text) in enumerate(_NOTES):
        docs.append(Doc(f"note_{i:02d}.md", f"# {title}\n\n{text}"))
    return docs


__all__ = ["add_traps"]
