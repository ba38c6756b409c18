"""The traps of the cloaked multi-hop corpus (bench/multihop_cloaked.py): pages off every chain.

* namesakes: people sharing a film-maker's full name (their page titled with their own trade), from
  somewhere else, who worked on a picture of their own;
* remakes and sequels carrying a film's title, from another studio and another director;
* hub pages naming many entities in passing: retrospective line-ups (films and their directors), cinema
  programmes (films and show times), crew rosters of a studio's units, broadcast schedules, a
  directory of film schools and their towns;
* location-shoot notices naming a film and a town it has nothing else to do with;
* notes on film-making that use the questions' relation words and name no entity.
Every fact a trap states about a core entity is true of it; the traps only add company.
"""

from __future__ import annotations

import random

from bench.corpus_world import Ent, NameMaker, World
from bench.multihop_cloaked_text import DASH, sur
from bench.multihop_corpus import Doc

_TRADE = [
    "sound recordist",
    "stunt performer",
    "set painter",
    "film critic",
    "projectionist",
    "costume designer",
    "composer",
    "casting agent",
    "gaffer",
    "script supervisor",
]
_NOTES = [
    (
        "What does a cinematographer do?",
        "The cinematographer, or director of photography, lights and frames each "
        "shot; who shot a film is credited right after who directed it.",
    ),
    (
        "On editors",
        "An editor cuts the picture from the rushes. Many editors began as assistants and were trained "
        "at a film school before they cut a feature of their own.",
    ),
    (
        "On premieres",
        "A film premieres once, usually at a festival; the town that hosts the festival is rarely "
        "where the film was made or where its director was born.",
    ),
    (
        "On production companies",
        "A studio is founded by a producer, often with borrowed money, and is based "
        "wherever rents were cheap. The company that produced a film owns its negative.",
    ),
    (
        "On film schools",
        "Graduates of a film school often studied alongside the people they later hired. Where "
        "someone studied says more than where they come from.",
    ),
    (
        "On assistants",
        "Directors take on assistants who carry bags, keep notes and learn the trade; a mentor "
        "who gave someone a first job is thanked in every interview.",
    ),
    (
        "On broadcasters",
        "A broadcaster buys television rights after a cinema run; a channel's archive outlives "
        "the channel, and the network that aired a film may be based far from where it premiered.",
    ),
    (
        "On provinces",
        "Each province has its own film fund; a region with empty roads and old harbours attracts "
        "location shoots from studios based elsewhere.",
    ),
    (
        "On remakes",
        "A remake reuses a title and little else: another studio, another director, another "
        "cinematographer. Check the year before quoting the credits.",
    ),
    (
        "On festivals and their towns",
        "Festivals are named after whatever sounded grand; the festival held in a place is seldom named after it.",
    ),
    (
        "On credits",
        "Credit blocks list the director, the director of photography, the editor and the production "
        "company; the order is fixed by the guilds.",
    ),
    (
        "On birthplaces",
        "Press kits give the town a director was born in and little else; many film-makers grew up "
        "far from their hometown and never returned.",
    ),
    (
        "On studios named after places",
        "A studio named after a town is seldom located there; the name was chosen for its sound.",
    ),
    (
        "On mentors",
        "Who taught whom is the question interviewers like best; the mentor of a cinematographer is "
        "usually an older director who hired them as an assistant.",
    ),
    (
        "On who founded what",
        "Founders of film companies are producers more often than directors; the person "
        "who established a studio rarely directed its films.",
    ),
    (
        "On where films were shot",
        "A film made at a studio may be shot anywhere; location notices tell residents "
        "which streets are closed, not who made the picture.",
    ),
]


def _ents(w: World, kind: str) -> list[Ent]:
    return [e for e in w.ents.values() if e.kind == kind]


def _namesakes(w: World, rng: random.Random) -> list[Doc]:
    people = [e for e in _ents(w, "person") if e.facts["role"] != "producer"]
    towns, films = _ents(w, "town"), _ents(w, "film")
    docs = []
    for i, p in enumerate(rng.sample(people, 10)):
        p.facts["namesake"] = True
        trade = _TRADE[i % len(_TRADE)]
        home = rng.choice([t for t in towns if w.link["born_in"].get(p.file) != t.file])
        year = p.facts["born"] + rng.randint(-25, 25)
        film = rng.choice([f for f in films if f.facts["year"] >= year + 22] or films)  # worked on it as an adult
        text = (
            f"# {p.title} ({trade})\n\n{p.title} (b. {year}) is a {trade} from {home.title}. Not to be confused "
            f"with the {p.facts['role']} of the same name. {sur(p)} worked on {film.title} and teaches evening "
            "classes."
        )
        docs.append(Doc(f"namesake_{i:02d}.md", text))
    return docs


def _remakes(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    films, studios = _ents(w, "film"), _ents(w, "studio")
    docs = []
    for i, f in enumerate(rng.sample(films, 12)):
        st = rng.choice([s for s in studios if w.link["made_at"][f.file] != s.file])
        year = f.facts["year"] + rng.randint(8, max(8, min(30, 2025 - f.facts["year"])))  # none in the future
        if i % 2:
            f.facts["remade"] = True  # a question names this film with its year (bench/multihop_cloaked_questions.py)
            title, what = f"{f.title} ({year})", f"a remake of the {f.facts['year']} picture {f.title}"
        else:
            title, what = f"{f.title} II", f"a sequel to {f.title}"
        text = (
            f"# {title}\n\n{title} is {what}, produced by {st.title} in {year}. "
            f"It was directed by a newcomer, {nm.word()} {nm.word()}, and shares none of the original's crew."
        )
        docs.append(Doc(f"remake_{i:02d}.md", text))
    return docs


def _hubs(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    films, studios, casters = _ents(w, "film"), _ents(w, "studio"), _ents(w, "caster")
    docs, years = [], set()
    for i in range(8):  # retrospective line-ups: films and their directors, shown after they were made
        picks = rng.sample(films, 7)
        year = max(x.facts["year"] for x in picks) + rng.randint(1, 8)
        while year in years:  # one page a year
            year += 1
        years.add(year)
        lines = [f"- {x.title}, dir. {w.target('directed_by', x).title}" for x in picks]  # type: ignore[union-attr]
        text = f"# Retrospective line-up {year}\n\nShown this year:\n" + "\n".join(lines)
        docs.append(Doc(f"lineup_{i}.md", text))
    for i in range(8):  # cinema programmes: films and show times
        cinema = f"{nm.word()} {['Kino', 'Picture House', 'Cinematheque', 'Arthouse'][i % 4]}"
        times = sorted((rng.randint(14, 22), rng.choice(["00", "15", "30"])) for _ in range(8))
        lines = [f"- {h}:{m} {x.title}" for (h, m), x in zip(times, rng.sample(films, 8), strict=True)]
        docs.append(Doc(f"programme_{i}.md", f"# {cinema}: this week\n\n" + "\n".join(lines)))
    for i, st in enumerate(rng.sample(studios, 8)):  # crew rosters of a studio's units
        made = [f for f in films if w.link["made_at"][f.file] == st.file]
        crew = {w.link.get(r, {}).get(f.file) for f in made for r in ("directed_by", "shot_by", "edited_by")}
        names = sorted(w.ents[c].title for c in crew if c is not None)[:9]
        text = f"# Unit roster {i + 1}\n\nCrew on the books of {st.title}:\n" + "\n".join(f"- {n}" for n in names)
        docs.append(Doc(f"roster_{i}.md", text))
    for i, tv in enumerate(casters):  # broadcast schedules
        aired = [f for f in films if w.link.get("aired_by", {}).get(f.file) == tv.file][:6]
        slots = [f"- {19 + k}:00 {x.title}" for k, x in enumerate(aired)] or ["- 20:00 news"]
        docs.append(Doc(f"schedule_{i}.md", f"# Friday schedule, {tv.title}\n\n" + "\n".join(slots)))
    schools = _ents(w, "school")
    rows = [f"- {s.title}: {w.target('school_in', s).title}" for s in schools]  # type: ignore[union-attr]
    docs.append(Doc("directory_schools.md", "# Directory of film schools\n\n" + "\n".join(rows)))
    return docs


def _notices(w: World, rng: random.Random) -> list[Doc]:
    """Filming notices: a film and a town it has no other tie to (not its crew's, studio's or festival's)."""
    towns, films = _ents(w, "town"), _ents(w, "film")
    docs = []
    for i, f in enumerate(rng.sample(films, 24)):
        near = set()
        for r in ("directed_by", "shot_by", "edited_by", "made_at", "premiered_at", "aired_by"):
            mid = w.link.get(r, {}).get(f.file)
            for r2 in ("born_in", "studio_in", "festival_in", "based_in"):
                if mid and mid in w.link.get(r2, {}):
                    near.add(w.link[r2][mid])
        town = rng.choice([t for t in towns if t.file not in near])
        text = (
            f"# Filming notice {i + 1}\n\nResidents of {town.title}: the unit of {f.title} will be filming on "
            f"{rng.randint(1, 28)} May {DASH} expect closed streets between 6:00 and 18:00."
        )
        docs.append(Doc(f"notice_{i:02d}.md", text))
    return docs


def add_traps(w: World, nm: NameMaker, rng: random.Random) -> list[Doc]:
    notes = [Doc(f"note_{i:02d}.md", f"# {head}\n\n{body}") for i, (head, body) in enumerate(_NOTES)]
    return _namesakes(w, rng) + _remakes(w, nm, rng) + _hubs(w, nm, rng) + _notices(w, rng) + notes
