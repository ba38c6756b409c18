"""Pages of the muffled multi-hop corpus (bench/multihop_muffled.py): people and restaurants.

A person's page is an obituary, a podcast transcript with speaker tags, a hall-of-fame label, a
forum thread, a fact sheet (a markdown table), a timeline or a chat log; a restaurant's page is a
review with a star rating, a menu with producer notes, a travel-guide snippet or a press release.
Clubs, organisations, towns and counties are written in bench/multihop_muffled_places.py. A
relation is worded in several ways (active, passive, an appositive, a table row, a heading, a
sentence fragment, "it is where ...") and stated on the subject's page, the other end's or both.
After the full name a person is the surname or a pronoun.
"""

from __future__ import annotations

import random

from bench.corpus_world import Ent, World, cap, join_and

DASH = "\u2014"
USERS = ["terrace_tom", "offside_trap", "forkandknife", "umami_ultra", "halfway_line", "saucier88"]
HOSTS = ["Jo Pennant", "Mal Okoro", "Viv Ashdown"]


def pron(e: Ent) -> tuple[str, str]:
    return ("she", "her") if e.facts.get("female") else ("he", "his")


def sur(e: Ent) -> str:
    return e.title.split(" (")[0].split()[-1]


def some(w: World, rel: str, e: Ent, most: int) -> list[Ent]:
    """The first `most` sources of `rel` into `e` that its page states: a page lists a few, not all."""
    return w.incoming(rel, e)[:most]


def titles(items: list[Ent]) -> str:
    return join_and([x.title for x in items])


def _died(e: Ent, rng: random.Random) -> int:
    if "died" not in e.facts:
        e.facts["died"] = min(2025, e.facts["born"] + rng.randint(66, 84))
    return int(e.facts["died"])


def _obituary(w: World, e: Ent, rng: random.Random, parts: dict[str, Ent | None], fed: dict[str, list[Ent]]) -> str:
    he, his = pron(e)
    sn, died = sur(e), _died(e, rng)
    born, club, acad = parts["born_in"], parts["plays_for"], parts["came_through"]
    job = "footballer" if e.facts["role"] == "player" else "mill owner and benefactor"
    s = [f"OBITUARY. {e.title}, {job}, {e.facts['born']}{DASH}{died}."]
    s.append(f"{e.title}, who has died aged {died - e.facts['born']}," + (f" was born in {born.title}" if born else ""))
    s[-1] += " and never lost the accent." if born else " kept no diary."
    if acad:
        s.append(f"A product of the {acad.title}, {he} was quick rather than strong.")
    if club:
        s.append(f"{cap(he)} played for {club.title} for eleven seasons and captained the side twice.")
    if fed.get("founded_by"):
        s.append(f"{sn} founded {titles(fed['founded_by'])}, putting up the money for the first pitch.")
    s.append(f"{cap(his)} funeral will be private.")
    return " ".join(s)


def _label(w: World, e: Ent, rng: random.Random, parts: dict[str, Ent | None], fed: dict[str, list[Ent]]) -> str:
    he, his = pron(e)
    born, club, acad = parts["born_in"], parts["plays_for"], parts["came_through"]
    end = f"{DASH}{_died(e, rng)}" if e.facts["role"] == "industrialist" or e.facts["born"] < 1950 else f"{DASH}"
    s = [f"HALL OF FAME {DASH} CASE {rng.randint(2, 40)}", f"{e.title.upper()} ({e.facts['born']}{end})"]
    if born:
        s.append(f"Born: {born.title}.")
    if acad:
        s.append(f"Came through the {acad.title}.")
    if club:
        s.append(f"Spent {his} playing days at {club.title}; the boots in this case are from {his} last season.")
    if fed.get("founded_by"):
        s.append(f"Founder of {titles(fed['founded_by'])}. The silver cup beside the portrait was {his} gift.")
    if len(s) == 2:
        s.append(f"{cap(he)} is remembered for the gift of the cup.")
    return "\n".join(s)


def _podcast(w: World, e: Ent, rng: random.Random, parts: dict[str, Ent | None], fed: dict[str, list[Ent]]) -> str:
    host, sn = rng.choice(HOSTS), sur(e)
    hs = host.split()[0].upper()
    g = sn.upper()
    ep = rng.randint(12, 240)
    s = [f"TRANSCRIPT {DASH} episode {ep}. Guest: {e.title}.", f"{hs}: Welcome. Let's start at the start."]
    if parts["born_in"]:
        s.append(f"{g}: I was born in {parts['born_in'].title} and grew up two streets from the market.")
    else:
        s.append(f"{g}: We moved around a lot when I was small.")
    if parts["came_through"]:
        s.append(f"{hs}: And the academy years? {g}: I came through {parts['came_through'].title}; joined at eleven.")
    if parts["plays_for"]:
        if e.facts["born"] >= 1988:
            s.append(f"{hs}: You play for {parts['plays_for'].title} these days. {g}: Signed for them at nineteen.")
        else:
            s.append(f"{hs}: You played for {parts['plays_for'].title} for years. {g}: Twelve seasons, no regrets.")
    if fed.get("coached_by"):
        s.append(
            f"{hs}: You're head coach at {titles(fed['coached_by'])} now. {g}: Coaching them is the best job I've had."
        )
    if parts["trained_at"]:
        s.append(
            f"{hs}: Where did you learn to cook? {g}: I trained at {parts['trained_at'].title}, two years of stocks."
        )
    if parts["apprenticed_under"]:
        m = parts["apprenticed_under"]
        s.append(f"{g}: Then I trained under {m.title}. {sur(m)} taught me everything about fish.")
    if fed.get("head_chef"):
        s.append(f"{hs}: And today? {g}: I'm head chef at {titles(fed['head_chef'])}.")
    if fed.get("apprenticed_under"):
        s.append(f"{g}: I've trained a few cooks myself: {titles(fed['apprenticed_under'])} all started under me.")
    if fed.get("founded_by"):
        s.append(f"{hs}: And the business side? {g}: I founded {titles(fed['founded_by'])} with a bank loan.")
    s.append(f"{hs}: Thanks for coming on.")
    return "\n".join(s)


def _forum(w: World, e: Ent, rng: random.Random, parts: dict[str, Ent | None], fed: dict[str, list[Ent]]) -> str:
    he, his = pron(e)
    sn = sur(e)
    u1, u2, u3 = rng.sample(USERS, 3)
    s = [f"Thread: {e.title} {DASH} what do we know?", f"{u1} wrote:\nAnyone know the background on {sn}?"]
    if parts["born_in"]:
        s.append(f"{u2} wrote:\nBorn in {parts['born_in'].title}; {his} dad still lives there.")
    if parts["came_through"]:
        s.append(f"{u3} wrote:\nCame up through the {parts['came_through'].title}, same as half the league.")
    if parts["plays_for"]:
        c = parts["plays_for"].title
        now = (
            f"'s a {c} player now, on a three-year deal" if e.facts["born"] >= 1988 else f" was a {c} player for years"
        )
        s.append(f"{u2} wrote:\n{cap(he)}{now}.")
    if fed.get("coached_by"):
        s.append(f"{u1} wrote:\nAnd {he} manages {titles(fed['coached_by'])}, so expect a back five.")
    if parts["trained_at"]:
        s.append(f"{u3} wrote:\nTrained at {parts['trained_at'].title}, I think.")
    if fed.get("head_chef"):
        s.append(f"{u1} wrote:\n{sn} is the head chef at {titles(fed['head_chef'])} these days.")
    s.append(f"{u1} wrote:\nCheers all.")
    return "\n\n".join(s)


def _sheet(w: World, e: Ent, rng: random.Random, parts: dict[str, Ent | None], fed: dict[str, list[Ent]]) -> str:
    rows = [("Name", e.title), ("Year of birth", str(e.facts["born"]))]
    for rel, head in (
        ("born_in", "Birthplace"),
        ("came_through", "Youth career"),
        ("plays_for", "Club"),
        ("trained_at", "Culinary training"),
        ("apprenticed_under", "Trained under"),
    ):
        if parts[rel]:
            rows.append((head, parts[rel].title))  # type: ignore[union-attr]
    for rel, head in (("coached_by", "Head coach of"), ("head_chef", "Head chef at"), ("founded_by", "Founder of")):
        if fed.get(rel):
            rows.append((head, titles(fed[rel])))
    return "FACT SHEET\n\n| Field | Value |\n|---|---|\n" + "\n".join(f"| {k} | {v} |" for k, v in rows)


def _timeline(w: World, e: Ent, rng: random.Random, parts: dict[str, Ent | None], fed: dict[str, list[Ent]]) -> str:
    b = e.facts["born"]
    s = ["TIMELINE"]
    s.append(f"{b} {DASH} " + (f"born in {parts['born_in'].title}" if parts["born_in"] else "born"))
    if parts["came_through"]:
        s.append(f"{b + 11} {DASH} joins the {parts['came_through'].title} as a schoolboy")
    if parts["trained_at"]:
        s.append(f"{b + 17} {DASH} enrols at {parts['trained_at'].title}; trains there for two years")
    if parts["apprenticed_under"]:
        s.append(f"{b + 19} {DASH} trains under {parts['apprenticed_under'].title} in a kitchen of eleven")
    if parts["plays_for"]:
        s.append(f"{b + 19} {DASH} signs for {parts['plays_for'].title}")
    if fed.get("coached_by"):
        s.append(f"2023 {DASH} appointed head coach of {titles(fed['coached_by'])}")
    for r in fed.get("head_chef", []):
        s.append(f"{r.facts['year']} {DASH} becomes head chef at {r.title} when it opens")
    for g in fed.get("founded_by", []):
        s.append(f"{g.facts['year']} {DASH} founds {g.title}")
    return "\n".join([s[0], *sorted(s[1:], key=lambda line: int(line[:4]))])


def _chat(w: World, e: Ent, rng: random.Random, parts: dict[str, Ent | None], fed: dict[str, list[Ent]]) -> str:
    he = pron(e)[0]
    sn = sur(e)
    u1, u2 = rng.sample(USERS, 2)
    t = rng.randint(18, 22)
    s = [f"[chat log #{rng.choice(['kitchen', 'dining', 'matchday'])}]", f"[{t}:01] <{u1}> who is {e.title} anyway"]
    k = 2
    if parts["born_in"]:
        s.append(f"[{t}:0{k}] <{u2}> {parts['born_in'].title} is where {he} was born, that much I know")
        k += 1
    if parts["trained_at"]:
        s.append(f"[{t}:0{k}] <{u2}> trained at {parts['trained_at'].title}")
        k += 1
    if parts["apprenticed_under"]:
        s.append(f"[{t}:0{k}] <{u1}> and trained under {parts['apprenticed_under'].title} after that")
        k += 1
    if fed.get("head_chef"):
        s.append(f"[{t}:0{k}] <{u2}> head chef at {titles(fed['head_chef'])} now")
        k += 1
    if fed.get("apprenticed_under"):
        s.append(f"[{t}:0{k}] <{u1}> {sn} trained {titles(fed['apprenticed_under'])} too")
        k += 1
    if fed.get("founded_by"):
        s.append(f"[{t}:0{k}] <{u2}> {he} founded {titles(fed['founded_by'])}")
        k += 1
    if fed.get("coached_by"):
        s.append(f"[{t}:0{k}] <{u2}> {he} coaches {titles(fed['coached_by'])}")
        k += 1
    s.append(f"[{t}:0{k}] <{u1}> ta")
    return "\n".join(s)


# which page forms suit which person
_FORMS = {
    "player": [_podcast, _forum, _sheet],
    "retired player": [_podcast, _forum, _sheet, _label],
    "old player": [_obituary, _label, _sheet],
    "coach": [_podcast, _forum, _sheet, _timeline, _chat],
    "chef": [_podcast, _sheet, _timeline, _chat],
    "industrialist": [_obituary, _label],
    "restaurateur": [_podcast, _timeline, _chat, _sheet],
}
_OUT = ("born_in", "came_through", "plays_for", "trained_at", "apprenticed_under")
_IN = {"coached_by": 3, "head_chef": 3, "apprenticed_under": 3, "founded_by": 3}


def person(w: World, e: Ent, rng: random.Random) -> str:
    parts = {r: w.out(r, e) for r in _OUT}
    fed = {r: some(w, r, e, n) for r, n in _IN.items()}
    role = e.facts["role"]
    key = role
    if role == "player" and e.facts["born"] < 1988:
        key = "old player" if e.facts["born"] < 1950 else "retired player"
    body = rng.choice(_FORMS[key])(w, e, rng, parts, fed)
    return f"# {e.title}\n\n{body}"


def _stars(n: int) -> str:
    return "\u2605" * n + "\u2606" * (5 - n)


def restaurant(w: World, e: Ent, rng: random.Random) -> str:
    here, chef, owner = w.out("based_in", e), w.out("head_chef", e), w.out("owned_by", e)
    farm, award = w.out("supplied_by", e), w.out("won", e)
    f, t = e.facts, e.title
    form = rng.randrange(4)
    dish = rng.choice(["hogget", "turbot", "guinea fowl", "celeriac", "hake", "pork belly", "mussels"])
    s: list[str] = []
    if form == 0:  # review with a rating
        s.append(f"REVIEW. Rating: {_stars(f['stars'])} ({f['stars']}/5)")
        s.append(
            f"{t}, open since {f['year']}, seats {f['seats']}."
            + (f" Address: Market Row, {here.title}." if here else "")
        )
        if chef:
            are = "are" if dish.endswith("s") else "is"  # "whose mussels are"
            s.append(f"The cooking is by {chef.title}, the head chef, whose {dish} {are} the reason to book.")
        if farm:
            s.append(f"The ingredients are supplied by {farm.title}, and the menu says so.")
        if owner:
            s.append(f"{t} is owned by {owner.title}, which shows in the wine list.")
        if award:
            s.append(f"It won the {award.title} in {f['won_year']}.")
        return f"# {t}\n\n" + "\n\n".join(s[:1]) + "\n\n" + " ".join(s[1:])
    if form == 1:  # menu with producer notes
        s.append(f"MENU {DASH} {t}" + (f", {here.title}" if here else ""))
        s.append(
            f"Starter: cured {dish}, pickled shallot*\n"
            f"Main: {rng.choice(['lamb', 'duck', 'bream'])}, greens*\nPudding: burnt cream"
        )
        if farm:
            s.append(f"* Producer note: our produce comes from {farm.title}.")
        if chef:
            s.append(f"Head chef: {chef.title}")
        if owner:
            s.append(f"One of the restaurants of {owner.title}.")
        if award:
            s.append(f"Holder of the {award.title}, {f['won_year']}.")
        return f"# {t}\n\n" + "\n\n".join(s)
    if form == 2:  # travel-guide snippet
        where = f"in the old quarter of {here.title}" if here else "off the main square"
        s.append(f"WHERE TO EAT. {t} ({f['stars']} stars) {DASH} {where}; book ahead.")
        if chef:
            s.append(f"{chef.title} runs the kitchen as head chef.")
        if farm:
            s.append(f"Its produce: from {farm.title}, delivered daily.")
        if owner:
            s.append(f"Part of {owner.title}.")
        if award:
            s.append(f"Winner of the {award.title}.")
        return f"# {t}\n\n" + " ".join(s)
    s.append(
        f"PRESS RELEASE {DASH} for immediate release, "
        f"{rng.randint(1, 28)} May {min(2025, f['year'] + rng.randint(1, 6))}"
    )
    s.append(f"{t} reopens after a refit" + (f" at its home in {here.title}." if here else "."))
    if chef:
        s.append(f"Head chef {chef.title} has rewritten the menu around {dish}.")
    if farm:
        s.append(f"All produce will continue to be supplied by {farm.title}.")
    if owner:
        s.append(f"{t} is a {owner.title} restaurant.")
    if award:
        s.append(f"The restaurant, winner of the {award.title}, seats {f['seats']}.")
    s.append("Ends.")
    return f"# {t}\n\n" + "\n".join(s[:1]) + "\n" + " ".join(s[1:])
