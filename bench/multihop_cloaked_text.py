"""Pages of the cloaked multi-hop corpus (bench/multihop_cloaked.py): the paperwork of a film world.

Films, the people who made them, the studios that produced them, the festivals and broadcasters
that showed them, the film schools people studied at, the towns everything is in and the provinces
the towns lie in. Each kind of page comes in several genres: a credit block, a review, a programme
note, a news-wire item with a dateline, a forum thread, a CV, an interview transcript (Q:/A:), an
FAQ page, a press release, a location guide. A relation is worded in several ways (active, passive,
a nominalisation, a relative clause, a credit or key-value line) and stated on the subject's page,
on the other end's page or on both (`World.tie`'s side). After the full name a person is the
surname, a pronoun, or "I" in an interview's answers.
"""

from __future__ import annotations

import random

from bench.corpus_world import Ent, World, article, cap, join_and

DASH = "\u2014"
GENRES = ["thriller", "comedy", "documentary", "melodrama", "road movie", "period drama", "western", "musical"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Sep", "Oct", "Nov"]
WIRE = ["Screenwire", "Reelnews", "Cinepress"]
ROLE = {"director": "director", "cinematographer": "cinematographer", "editor": "film editor", "producer": "producer"}


def _pron(e: Ent) -> tuple[str, str]:
    return ("she", "her") if e.facts.get("female") else ("he", "his")


def sur(e: Ent) -> str:
    return e.title.split(" (")[0].split()[-1]


def _date(rng: random.Random, year: int) -> str:
    return f"{rng.randint(1, 28)} {rng.choice(MONTHS)} {year}"


def _line(rng: random.Random, year: int, dateline: str) -> str:
    return f"{dateline.upper()}, {_date(rng, year)} ({rng.choice(WIRE)}) {DASH} "


def some(w: World, rel: str, e: Ent, most: int) -> list[Ent]:
    """The first `most` sources of `rel` into `e` that its page states: a page lists selected credits,
    notable alumni, a few natives, not every one."""
    return w.incoming(rel, e)[:most]


def _titles(items: list[Ent]) -> str:
    return join_and([x.title for x in items])


def _are(items: list[Ent]) -> str:
    """The titles and the verb that agrees with them: "X is", "X and Y are"."""
    return f"{_titles(items)} {'is' if len(items) == 1 else 'are'}"


def _was(items: list[Ent]) -> str:
    return f"{_titles(items)} {'was' if len(items) == 1 else 'were'}"


def film(w: World, e: Ent, rng: random.Random) -> str:
    d, dop, ed = w.out("directed_by", e), w.out("shot_by", e), w.out("edited_by", e)
    st, fest, tv = w.out("made_at", e), w.out("premiered_at", e), w.out("aired_by", e)
    f, t = e.facts, e.title
    form = rng.randrange(5)
    s: list[str] = []
    if form == 0:  # credit block
        s.append(f"{t} ({f['year']}), {f['genre']}, {f['minutes']} min.\n\nCREDITS")
        s += [f"- Director {DASH} {d.title}"] if d else []
        s += [f"- Director of photography {DASH} {dop.title}"] if dop else []
        s += [f"- Editor {DASH} {ed.title}"] if ed else []
        s += [f"- Production company {DASH} {st.title}"] if st else []
        s += [f"- World premiere {DASH} {fest.title}"] if fest else []
        s += [f"- Television rights {DASH} {tv.title}"] if tv else []
        return f"# {t}\n\n" + "\n".join(s)
    if form == 1:  # review, surnames after the first mention
        s.append(f"REVIEW. {t} runs {f['minutes']} minutes and never drags.")
        if d:
            s.append(f"Directed by {d.title}, this {f['genre']} is {sur(d)}'s most assured work.")
        if dop:
            s.append(f"The images, shot by {dop.title}, are cold and exact; {sur(dop)} lights faces like landscapes.")
        if ed:
            s.append(f"{ed.title}, who cut the picture, keeps scenes short.")
        if st:
            s.append(f"{st.title}, which produced it, has rarely backed anything so strange.")
        if fest:
            s.append(f"The film was first shown at {fest.title}.")
        s.append(f"Rating: {rng.randint(2, 5)}/5.")
    elif form == 2:  # programme note, nominalisations
        s.append(f"Programme note. {t} ({f['year']}) is a {f['genre']}.")
        if st:
            s.append(f"The production of {t} at {st.title} took two winters.")
        if d:
            s.append(f"The direction by {d.title} favours long takes.")
        if dop:
            s.append(f"The photography of {dop.title} was praised on release.")
        if ed:
            s.append(f"The editing by {ed.title} gives the last reel its pace.")
        if fest:
            s.append(f"Its premiere at {fest.title} divided the critics.")
        if tv:
            s.append(f"The broadcast of the picture by {tv.title} followed.")
    elif form == 3:  # news-wire item
        s.append(_line(rng, f["year"], f["dateline"]))
        who = f"{st.title} has completed {t}" if st else f"Shooting has ended on {t}"
        s[-1] += f"{who}, a {f['genre']}" + (f" directed by {d.title}." if d else ".")
        if d:
            s.append(f"It is the {rng.choice(['third', 'fourth', 'fifth'])} feature for {sur(d)}.")
        if dop:
            s.append(f"{dop.title} was behind the camera.")
        if ed:
            s.append(f"The cut was made by {ed.title}.")
        if fest:
            s.append(f"Organisers of {fest.title} said the picture will open there.")
        if tv:
            s.append(f"{tv.title} has bought it for television.")
    else:  # forum thread
        s.append(f"Thread: anyone seen {t}?\n\nPosted by reelhound_{rng.randint(10, 99)}: caught {t} last night.")
        if d:
            s.append(f"{d.title} made it and you can tell it's a {sur(d)} film.")
        if dop:
            s.append(f"Camera work by {dop.title}, gorgeous.")
        if ed:
            s.append(f"{ed.title} edited it.")
        if st:
            s.append(f"\n\nReply from cutaway_{rng.randint(10, 99)}: it was a {st.title} production.")
        if fest:
            s.append(f"It premiered at {fest.title} if I remember right.")
        if tv:
            s.append(f"{tv.title} showed it a while back.")
    return f"# {t}\n\n" + " ".join(s)


def person(w: World, e: Ent, rng: random.Random) -> str:
    born, school, boss = w.out("born_in", e), w.out("studied_at", e), w.out("assisted", e)
    directed, shot, cut = some(w, "directed_by", e, 3), some(w, "shot_by", e, 3), some(w, "edited_by", e, 3)
    founded, assistants = w.incoming("founded_by", e), some(w, "assisted", e, 2)
    f, t, sn = e.facts, e.title.split(" (")[0], sur(e)
    role = ROLE[f["role"]]
    he, his = _pron(e)
    form = rng.randrange(4)
    s: list[str] = []
    if form == 0:  # CV
        s.append(f"CURRICULUM VITAE: {t}, {role}\n")
        s.append(f"- Born: {f['born']}" + (f" in {born.title}" if born else ""))
        s += [f"- Education: {school.title}"] if school else []
        jobs = [(x.facts["year"], f"{x.title} (director)") for x in directed]
        jobs += [(x.facts["year"], f"{x.title} (cinematography)") for x in shot]
        jobs += [(x.facts["year"], f"{x.title} (editing)") for x in cut]
        jobs += [(x.facts["year"], f"founder, {x.title}") for x in founded]
        s += ["- Experience:"] if boss or jobs else []
        if boss:
            s.append(f"  - {f['born'] + 20}{DASH}{f['born'] + 23}: assistant to {boss.title}")
        s += [f"  - {year}: {job}" for year, job in sorted(jobs)]
        if assistants:
            s.append(f"- Former assistants: {_titles(assistants)}")
        return f"# {t}\n\n" + "\n".join(s)
    if form == 1:  # interview transcript
        s.append(f"{t}, {role}, in conversation. {cap(he)} spoke to us between shoots.\n")
        if born:
            s.append(f"Q: Where were you born?\nA: In {born.title}, a long time ago. My parents ran a cinema there.")
        if school:
            s.append(f"Q: Did you train formally?\nA: Yes, at {school.title}; I was a terrible student.")
        if boss:
            s.append(f"Q: Who gave you your first job?\nA: {boss.title}. I carried {sur(boss)}'s bags for three years.")
        if len(directed) > 1:
            s.append(f"Q: Which of the films you directed matters most?\nA: {_titles(directed)}, all of them.")
        elif directed:
            s.append(f"Q: You directed {directed[0].title}. Proud of it?\nA: Very; it took everything I had.")
        if len(shot) > 1:
            s.append(f"Q: You shot {_titles(shot)}. Any favourite?\nA: The last one; the light was perfect.")
        elif shot:
            s.append(f"Q: You shot {shot[0].title}. How was it?\nA: Cold, but the light was perfect.")
        if cut:
            s.append(f"Q: What was it like editing {_titles(cut)}?\nA: Long nights in the cutting room.")
        if founded:
            s.append(f"Q: And the company?\nA: I set up {_titles(founded)} with borrowed money.")
        if assistants:
            mine = "my assistant" if len(assistants) == 1 else "my assistants"
            s.append(f"Q: Who worked under you?\nA: {_titles(assistants)} started as {mine}.")
        return f"# {t}\n\n" + "\n".join(s)
    if form == 2:  # news-wire profile
        s.append(_line(rng, f["born"] + 40, rng.choice(f["datelines"])))
        s[-1] += f"{t}, the {role}" + (f" who was born in {born.title}," if born else ",")
        s[-1] += " is to receive a lifetime award."
        if school:
            s.append(f"{sn} graduated from {school.title}.")
        if boss:
            s.append(f"{cap(he)} began as assistant to {boss.title}.")
        if directed:
            s.append(f"{sn} directed {_titles(directed)}.")
        if shot:
            s.append(f"{cap(his)} credits as cinematographer include {_titles(shot)}.")
        if cut:
            s.append(f"{cap(he)} edited {_titles(cut)}.")
        if founded:
            s.append(f"{sn} founded {_titles(founded)}.")
        if assistants:
            s.append(f"{_titles(assistants)} began as {his} assistant{'' if len(assistants) == 1 else 's'}.")
    else:  # FAQ page
        s.append(f"Frequently asked questions about {t}, {role}.")
        if born:
            s.append(f"\n\nWhere was {sn} born? In {born.title}, where {he} also grew up.")
        if school:
            s.append(f"\n\nWhere did {sn} study? {cap(he)} is an alumnus of {school.title}.")
        if boss:
            s.append(f"\n\nWho was {his} mentor? {sn} was taken on as an assistant by {boss.title}.")
        if directed:
            s.append(f"\n\nWhich films did {sn} direct? {_titles(directed)}.")
        if shot:
            s.append(f"\n\nWhich films did {sn} photograph? {_titles(shot)}.")
        if cut:
            s.append(f"\n\nWhat has {sn} edited? {_titles(cut)}.")
        if founded:
            s.append(f"\n\nDoes {he} run a company? {sn} established {_titles(founded)}.")
        if assistants:
            s.append(f"\n\nWho assisted {sn}? {_titles(assistants)}.")
        return f"# {t}\n\n" + "".join(s)
    return f"# {t}\n\n" + " ".join(s)


Lists = list[tuple[list[str], list[Ent]]]  # (ways to introduce a list, its items)


def _org(w: World, e: Ent, rng: random.Random, here: Ent | None, what: str, lists: Lists) -> str:
    """A press release, FAQ or news item for a studio, school, festival or broadcaster."""
    f, t = e.facts, e.title
    held = what == "festival"  # a festival is held in its town; the others are based or located there
    form = rng.randrange(3)
    s: list[str] = []
    if form == 0:
        at = "held in" if held else "based in"
        s.append(f"PRESS RELEASE. {t}, the {what}" + (f" {at} {here.title}," if here else ",") + " announces")
        s[-1] += f" its {rng.choice(['spring', 'autumn'])} season."
        for leads, items in lists:
            if items:
                s.append(f"{rng.choice(leads)} {_titles(items)}.")
        s.append(f"{t} was established in {f['year']}.")
    elif form == 1:
        s.append(f"About us {DASH} FAQ.\n\nWhat is {t}? A {what} founded in {f['year']}.")
        if here:
            where = (
                f"Where is it held? In {here.title}, every year."
                if held
                else f"Where are you? Our offices are in {here.title}."
            )
            s.append(f"\n\n{where}")
        for leads, items in lists:
            if items:
                s.append(f"\n\n{rng.choice(leads)} {_titles(items)}.")
        return f"# {t}\n\n" + "".join(s)
    else:
        s.append(_line(rng, min(2025, f["year"] + rng.randint(10, 40)), f["dateline"]) + f"{t}")
        at = "held in" if held else "located in"
        s[-1] += f", the {what} {at} {here.title}, marked an anniversary." if here else " marked an anniversary."
        for leads, items in lists:
            if items:
                s.append(f"{rng.choice(leads)} {_titles(items)}.")
    return f"# {t}\n\n" + " ".join(s)


def studio(w: World, e: Ent, rng: random.Random) -> str:
    founder = w.out("founded_by", e)
    made = [
        "Films it has produced:",
        "Its productions include",
        "Among the pictures made there:",
        "Its slate has included",
    ]
    lists = [(["Its founder is", "It was set up by", "The company was founded by"], [founder] if founder else [])]
    lists.append((made, some(w, "made_at", e, 4)))
    return _org(w, e, rng, w.out("studio_in", e), "production company", lists)


def school(w: World, e: Ent, rng: random.Random) -> str:
    leads = ["Alumni:", "Its graduates include", "Former students:", "Among those who trained there:"]
    return _org(w, e, rng, w.out("school_in", e), "film school", [(leads, some(w, "studied_at", e, 4))])


def festival(w: World, e: Ent, rng: random.Random) -> str:
    leads = ["World premieres held there include", "Films first shown there:", "It launched"]
    lists = [(leads, some(w, "premiered_at", e, 4))]
    return _org(w, e, rng, w.out("festival_in", e), "festival", lists)


def caster(w: World, e: Ent, rng: random.Random) -> str:
    leads = ["Feature films in its archive:", "It has aired", "Films it has broadcast:", "Its viewers have seen"]
    lists = [(leads, some(w, "aired_by", e, 4))]
    return _org(w, e, rng, w.out("based_in", e), "broadcaster", lists)


def town(w: World, e: Ent, rng: random.Random) -> str:
    reg = w.out("in_region", e)
    natives = some(w, "born_in", e, 3)
    hosts = [x for rel in ("studio_in", "school_in", "festival_in", "based_in") for x in w.incoming(rel, e)]
    t, pop = e.title, e.facts["pop"]
    form = rng.randrange(3)
    if form == 0:  # location guide, key-value lines
        s = [f"LOCATION GUIDE: {t}", f"- Population: {pop:,}"]
        s += [f"- Province: {reg.title}"] if reg else []
        s += [f"- Film bodies based here: {_titles(hosts)}"] if hosts else []
        s += [f"- Natives of note: {_titles(natives)}"] if natives else []
        s.append(f"- Permits: apply to the municipal office {rng.randint(4, 12)} weeks ahead.")
        return f"# {t}\n\n" + "\n".join(s)
    s = []
    if form == 1:  # forum thread about shooting there
        s.append(f"Thread: shooting in {t}?\n\nPosted by locscout_{rng.randint(10, 99)}: any tips for {t}?")
        if reg:
            s.append(f"\n\nReply: {t} is in {reg.title}, permits are cheap there.")
        if hosts:
            s.append(f"\n\nReply: {_are(hosts)} based in {t} and can lend crew.")
        if natives:
            s.append(f"\n\nReply: {_was(natives)} born there.")
    else:  # short entry, relative clause
        s.append(f"{t}, a municipality of {pop:,} people" + (f" in {reg.title}," if reg else ",") + " has a harbour.")
        if hosts:
            s.append(f"\n\nIt is home to {_titles(hosts)}.")
        if natives:
            s.append(f"\n\n{_was(natives)} born in {t}.")
    return f"# {t}\n\n" + "".join(s)


def region(w: World, e: Ent, rng: random.Random) -> str:
    towns = w.incoming("in_region", e)
    t, f = e.title, e.facts
    s = [f"{t} is {article(f['land'])} province of some {f['seat_pop']:,} inhabitants."]
    if towns:
        s.append(rng.choice(["Its municipalities include", "It comprises", "Within its borders lie"]))
        s[-1] += f" {_titles(towns)}."
    s.append(f"Film crews value {rng.choice(['its light', 'its empty roads', 'its old harbours'])}.")
    return f"# {t}\n\n" + " ".join(s)


_RENDER = {
    "film": film,
    "person": person,
    "studio": studio,
    "school": school,
    "festival": festival,
    "caster": caster,
    "town": town,
    "region": region,
}


def render(w: World, e: Ent, rng: random.Random) -> str:
    return _RENDER[e.kind](w, e, rng)
