"""A fourth fictional multi-hop corpus, sealed: do not read this file while tuning the ranker; run it only
to check a finished round.

Written (#28, helper 28c) blind to the knowledge-graph ranker: its author read no code under
gateway/knowledge_graph/, none of the other corpora (bench/multihop_hard.py, _unseen.py, _heldout.py)
nor the architecture's knowledge-graph section, and never ran the `kg` ranker on it. Only the `Doc` and
`Question` types and `_word` come from bench/multihop_corpus.py.

Three domains not used before, generated from a seed (so every run sees the same text):

* music: a work is composed by a composer (who studied under a teacher) and premiered by an orchestra,
  whose conductor was born in a town;
* railways: a station lies on a line, surveyed by an engineer (apprenticed to a mentor) and run by a
  company headquartered in a town;
* wine: a cuvée is made at an estate, owned by a vintner (trained by a master) in a village.

Relations are stated in varied surface forms (active, passive, appositions, "its"/"the firm"
back-references, "T is where ...", the link stated on either of its two pages) and questions are
phrased by relation and paraphrased, some edges walked backwards. A one-hop control's answer is the page
that states its link and names the question's entity (what plain search should find); a multi-hop
question's answer is the page of the chain's last entity, which names neither the question's entity nor
shares a content word with the question. Traps: namesakes (same name, another
profession and town), organisations named after a place they are not in, two entities on one stem,
distractor notes sharing the question's words, registers and timetables with passing mentions.
"""

from __future__ import annotations

import random

from bench.multihop_corpus import Doc, Question, _word

_FORMS = ["symphony", "string quartet", "oratorio", "piano concerto", "tone poem", "mass"]
_INSTR = ["viola", "oboe", "organ", "harp", "cello", "horn"]
_GRAPES = ["riesling", "syrah", "grenache", "chenin", "nebbiolo", "gamay"]
_SOIL = ["slate", "limestone", "granite", "clay", "schist", "chalk"]
_OTHER_JOB = ["cyclist", "botanist", "cartographer", "goalkeeper", "glassblower", "lexicographer"]


def _file(name: str) -> str:
    return name.lower().replace(" ", "_").replace("(", "").replace(")", "").replace("'", "").replace(",", "") + ".md"


class _Gen:
    """Holds the seed's random stream and the names used so far (no name is used twice by accident)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.used: set[str] = set()
        self.docs: list[Doc] = []
        self.questions: list[Question] = []
        self.chains: dict[str, list[str]] = {}  # question text -> the files its chain walks, answer last

    def word(self) -> str:
        while True:
            w = _word(self.rng, self.rng.choice([2, 2, 3]))
            if w.lower() not in self.used and len(w) > 4:
                self.used.add(w.lower())
                return w

    def person(self) -> str:
        return f"{self.word()} {self.word()}"

    def pick(self, *options: str) -> str:
        return self.rng.choice(options)

    def doc(self, title: str, body: str) -> str:
        name = _file(title)
        self.docs.append(Doc(name, f"# {title}\n\n{body}\n"))
        return name

    def ask(self, text: str, chain: list[str]) -> None:
        self.questions.append(Question(text, chain[-1], len(chain) - 1))
        self.chains[text] = chain


def _spa_town(g: _Gen) -> str:
    """A town with its own page that an organisation is named after but is not in (a trap)."""
    town = g.word()
    g.doc(town, f"{town} is a small spa town known for its {g.rng.choice(_SOIL)} springs.")
    return town


def _music(g: _Gen) -> None:
    r = g.rng
    work, comp, teacher, cond, town, base = (
        f"{g.word()} {r.choice(_FORMS).title()}",
        g.person(),
        g.person(),
        g.person(),
        g.word(),
        g.word(),
    )
    namesake_town = _spa_town(g)
    orch = f"{namesake_town} Philharmonic"  # named after a town it is not in
    year = r.randint(1850, 1960)
    f_work = g.doc(
        work,
        g.pick(
            f"{work} is a work in four movements by {comp}, written in {year}. It was first performed by the {orch}.",
            f"Composed by {comp} in {year}, {work} calls for a large {r.choice(_INSTR)} section. "
            f"The {orch} gave its premiere.",
            f"{comp} wrote {work} over two summers. The premiere, given by the {orch} in {year}, was poorly received.",
        ),
    )
    f_comp = g.doc(
        comp,
        g.pick(
            f"{comp} was a composer and {r.choice(_INSTR)} player. {comp.split()[0]} studied under {teacher}.",
            f"A pupil of {teacher}, {comp} wrote chamber music and songs.",
            f"{comp} took lessons in counterpoint; {teacher} taught {comp.split()[1]} harmony for six years.",
        ),
    )
    f_teacher = g.doc(teacher, f"{teacher} was a theorist and organist who wrote a treatise on fugue.")
    f_orch = g.doc(
        orch,
        g.pick(
            f"The {orch} is based in {base}, not in {namesake_town}. Its conductor, {cond}, took over in {year + 40}.",
            f"Despite its name the {orch} plays in {base}. {cond} has led the ensemble since {year + 35}.",
            f"The orchestra, founded in {base}, is directed by {cond}.",
        ),
    )
    born_on_town_page = r.random() < 0.5
    f_cond = g.doc(
        cond,
        f"{cond} is a conductor known for slow tempi."
        + ("" if born_on_town_page else f" {cond.split()[0]} was born in {town}."),
    )
    f_town = g.doc(
        town,
        (f"{town} is where {cond} was born. " if born_on_town_page else "")
        + f"{town} is a market town with a {r.choice(_SOIL)} quarry.",
    )
    g.doc(base, f"{base} is a river port. Its concert hall seats {r.randint(800, 2400)}.")
    for _ in range(2):  # other works the same orchestra premiered: passing mentions of it
        other = f"{g.word()} {r.choice(_FORMS).title()}"
        g.doc(other, f"{other} is a short work by {g.person()}, premiered by the {orch}.")
    g.doc(
        f"{cond} ({r.choice(_OTHER_JOB)})",
        f"{cond} is a namesake of the conductor; born in {g.word()}, this {cond} never led an orchestra.",
    )
    g.doc(
        f"Programme note on {work}",
        f"Critics of {work} asked who trained its composer, who conducted the first performance and where "
        f"that conductor was born; this note answers none of it and names no teacher or town.",
    )
    g.ask(g.pick(f"Which work did {comp} compose?", f"What piece was written by {comp}?"), [f_comp, f_work])
    g.ask(
        g.pick(
            f"Who taught the composer of {work}?",
            f"Under whom did the person who wrote {work} study?",
            f"Who was {work}'s composer's teacher?",
        ),
        [f_work, f_comp, f_teacher],
    )
    g.ask(
        g.pick(
            f"Who conducts the orchestra that premiered {work}?",
            f"Who leads the ensemble which first performed {work}?",
        ),
        [f_work, f_orch, f_cond],
    )
    g.ask(
        g.pick(
            f"Where was the conductor of the orchestra that premiered {work} born?",
            f"In which town was the music director of the ensemble that gave {work}'s premiere born?",
        ),
        [f_work, f_orch, f_cond, f_town],
    )
    g.ask(  # walked backwards: teacher -> pupil -> work
        g.pick(f"Which piece was written by a pupil of {teacher}?", f"What work did {teacher}'s student compose?"),
        [f_teacher, f_comp, f_work],
    )


def _rail(g: _Gen) -> None:
    r = g.rng
    station, line, eng, mentor, hq = (f"{g.word()} station", f"{g.word()} line", g.person(), g.person(), g.word())
    company = f"{_spa_town(g)} Railway Trust"  # named after a town it is not in
    extra = [f"{g.word()} station" for _ in range(3)]
    f_station = g.doc(
        station,
        g.pick(
            f"{station} is a halt on the {line}, opened in {r.randint(1840, 1910)}.",
            f"Trains of the {line} call at {station} twice an hour.",
            f"{station} has one platform; it is served by the {line}.",
        ),
    )
    f_line = g.doc(
        line,
        g.pick(
            f"The {line} was surveyed by {eng} and is operated by the {company}. Stops: {', '.join(extra)}.",
            f"{eng} laid out the {line}. The {company} runs it. It passes {', '.join(extra)}.",
            f"Engineered by {eng}, the {line} climbs {r.randint(80, 400)} metres; its operator is the {company}.",
        ),
    )
    f_eng = g.doc(
        eng,
        g.pick(
            f"{eng} was a civil engineer. {eng.split()[0]} was apprenticed to {mentor}.",
            f"Trained by {mentor}, {eng} built viaducts and tunnels.",
            f"{eng} learned surveying in the office of {mentor}.",
        ),
    )
    f_mentor = g.doc(mentor, f"{mentor} designed locks and canals before railways came.")
    f_company = g.doc(
        company,
        g.pick(
            f"The {company} has its head office in {hq}, far from the place it is named after.",
            f"The firm's seat is in {hq}.",
            f"Founded by shareholders from {hq}, the trust keeps its offices there.",
        ),
    )
    g.doc(hq, f"{hq} is a county town with a {r.choice(_SOIL)} cathedral.")
    for s in extra:
        g.doc(s, f"{s} is a request stop on the {line}.")
    g.doc(
        f"Timetable notes for {station}",
        f"Passengers at {station} often ask who surveyed the route, who trained that engineer and which "
        f"firm runs the trains; the timetable lists only departure times.",
    )
    g.ask(g.pick(f"Which line did {eng} survey?", f"What route was laid out by {eng}?"), [f_eng, f_line])
    g.ask(
        g.pick(
            f"Who surveyed the route serving {station}?",
            f"Which engineer laid out the tracks that stop at {station}?",
        ),
        [f_station, f_line, f_eng],
    )
    g.ask(
        g.pick(
            f"Who trained the engineer of the route that calls at {station}?",
            f"To whom was the surveyor of {station}'s route apprenticed?",
        ),
        [f_station, f_line, f_eng, f_mentor],
    )
    g.ask(
        g.pick(f"Which firm runs the trains stopping at {station}?", f"Who operates the route through {station}?"),
        [f_station, f_line, f_company],
    )
    g.ask(
        g.pick(
            f"Where is the operator of the route calling at {station} headquartered?",
            f"In which town does the firm running trains through {station} keep its offices?",
        ),
        [f_station, f_line, f_company, _file(hq)],
    )


def _wine(g: _Gen) -> None:
    r = g.rng
    stem = g.word()
    estate, cuvee, owner, master, village = (f"Domaine {stem}", f"Cuvée {g.word()}", g.person(), g.person(), g.word())
    f_cuvee = g.doc(
        cuvee,
        g.pick(
            f"{cuvee} is a {r.choice(_GRAPES)} made at {estate}.",
            f"{estate} bottles {cuvee} from old vines.",
            f"Made from {r.choice(_GRAPES)}, {cuvee} comes from {estate}.",
        ),
    )
    f_estate = g.doc(
        estate,
        g.pick(
            f"{estate} lies in {village} on {r.choice(_SOIL)}. It is owned by {owner}.",
            f"The estate, in {village}, belongs to {owner}.",
            f"{owner} bought {estate} in {r.randint(1950, 2010)}; its vineyards are in {village}.",
        ),
    )
    f_owner = g.doc(
        owner,
        g.pick(
            f"{owner} is a vintner who trained under {master}.",
            f"An apprentice of {master}, {owner} makes wine without oak.",
            f"{master} taught {owner} to blend.",
        ),
    )
    f_master = g.doc(master, f"{master} was a cellar master and wrote on fermentation.")
    f_village = g.doc(village, f"{village} is a hill village with a {r.choice(_SOIL)} church.")
    g.doc(
        f"{stem} Cellars",
        f"{stem} Cellars is a wine shop in {g.word()}, owned by {g.person()}; it has no link to any estate.",
    )
    g.doc(f"{owner} ({r.choice(_OTHER_JOB)})", f"{owner}, not the vintner, was born in {g.word()}.")
    other = f"Cuvée {g.word()}"
    g.doc(other, f"{other} is a blend made at {estate}.")
    g.doc(
        f"Tasting note on {cuvee}",
        f"Who owns the estate that makes {cuvee}, who trained its maker and in which village the grapes "
        f"grow: the note leaves all of it to the label.",
    )
    g.ask(g.pick(f"Which estate is owned by {owner}?", f"What property belongs to {owner}?"), [f_owner, f_estate])
    g.ask(
        g.pick(f"Who owns the estate that makes {cuvee}?", f"Whose property produces {cuvee}?"),
        [f_cuvee, f_estate, f_owner],
    )
    g.ask(
        g.pick(
            f"Who trained the owner of the estate producing {cuvee}?",
            f"Under which master did {cuvee}'s maker learn the trade?",
        ),
        [f_cuvee, f_estate, f_owner, f_master],
    )
    g.ask(
        g.pick(f"In which village are the grapes for {cuvee} grown?", f"Where do {cuvee}'s vines stand?"),
        [f_cuvee, f_estate, f_village],
    )
    g.ask(  # walked backwards: master -> apprentice -> estate
        g.pick(f"Which property belongs to the apprentice of {master}?", f"What estate does {master}'s pupil own?"),
        [f_master, f_owner, f_estate],
    )


def _build(n_groups: int, seed: int) -> _Gen:
    g = _Gen(seed)
    for i in range(n_groups):
        [_music, _rail, _wine][i % 3](g)
    # registers with passing mentions of many names; no answer page's name is in one, so a register
    # never names both ends of a chain
    answers = {q.answer for q in g.questions}
    answer_titles = tuple(d.text.splitlines()[0][2:] for d in g.docs if d.name in answers)
    pages = [d.text.splitlines()[0][2:] for d in g.docs]
    for k in range(0, len(pages), 50):
        titles = [t for t in pages[k : k + 50] if not t.startswith(answer_titles)]  # nor their namesakes
        g.doc(f"Register of names, part {k // 50 + 1}", "Entries: " + "; ".join(titles) + ".")
    return g


def build_sealed(n_groups: int = 36, seed: int = 28) -> tuple[list[Doc], list[Question]]:
    """The sealed corpus: documents and questions (one-hop controls, two- and three-hop)."""
    g = _build(n_groups, seed)
    return g.docs, g.questions


def sealed_chains(n_groups: int = 36, seed: int = 28) -> dict[str, list[str]]:
    """Each question's chain of files, first the page its named entity is on, the answer last (for the test)."""
    return _build(n_groups, seed).chains
