"""A third, held-out multi-hop corpus (#28): written blind to the `kg` ranker, the independent check.

How it was written: on 2026-11-27, by a helper that did not read gateway/knowledge_graph/ (its
extraction, relation patterns, cue lists, walk or ranker) and never ran the `kg` ranker on this
corpus; only hybrid search and the bench-only baselines (bench/graph_baselines.py) were run on it, to
check it is hard for them. From the two earlier corpora (bench/multihop_hard.py, bench/multihop_unseen.py)
only the data contract was taken: `Doc`, `Question` and what a hop and an answer are. Nobody tuning
the ranker is to read this file or add a pattern for its wording: its figures measure how the method
generalises, and stop doing so the day someone does.

What differs from the other two, axis by axis:

* **domains**: scientists with doctoral advisers, observatories and laboratories, journals,
  discoveries (comets, minerals, mosses); architects, their masters and their buildings; physicians,
  their teachers, hospitals and the rivers they stand on; mountaineering expeditions, their leaders,
  doctors and peaks; rowing, hockey and curling clubs and their captains; isles, dales, boroughs and
  uplands as places. Its own syllables for names (not `_word`'s).
* **phrasings in the text**, several per relation, active and passive, relative clauses, the
  full name once and then the surname or a pronoun: "wrote her doctoral thesis under", "X supervised
  his doctorate", "spent his childhood on", "hails from", "has directed ... since", "Its director,
  the astronomer X, ...", "built to plans by", "served her apprenticeship in the office of", "owes
  its founding to", "travelled with it as physician", "is captained by", "joined from", "its editor
  since 1961 has been", "first described by", "The discovery of X is credited to".
* **question templates**: by relation ("Name the island where the architect of the X grew up."),
  paraphrased ("Whose research centre did X's doctoral adviser run?", "Which periodical does the
  thesis supervisor of X edit?", "Which place does the mentor of X's founder come from?"), and
  chains that walk an edge backwards (the journal names its editor, the hospital its founder, the
  pupil's page its teacher: "Beside which river stands the hospital set up by the pupil of X?"),
  some crossing domains (an expedition's doctor founded a hospital).
* **traps**: two people with one name (a namesake with another life and another home); institutions
  named after a place they are not in ("Skaldra Observatory", Skaldra being an isle elsewhere);
  two organisations on one stem (an observatory and an infirmary); distractor notes (prize
  citations, guidebooks, annual reports, dispatches, match reports) that name the question's entity
  and the question's relation words beside someone else's home; registers, tables and league lists
  that mention entities in passing; a members' list giving residences that are not homes.

Contract (as build_unseen): deterministic from the seed; a multi-hop question's answer document
shares no content word with the question (questions that would are dropped); one-hop controls ask
for the document that states the fact. `heldout_paths` also returns, per question, the files of its
chain (question's entity first, answer last, one file per hop), which the contract test walks.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from bench.multihop_corpus import Doc, Question

_ONSET = ["b", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w"]
_ONSET += ["sk", "st", "tr", "br", "gl", "sv", "dr", "hj", "kv", "fj", "sn", "ty"]
_NUCLEUS = ["a", "e", "i", "o", "u", "y", "ei", "au", "aa", "oe", "ia"]
_CODA = ["", "n", "r", "l", "s", "k", "rn", "ld", "ck", "sk", "st", "ng", "mb", "rd", "ft"]
_NOT_NAMES = frozenset(
    """band bank bend bird bold bond born bull burn dark deal dean dock dust fall fast find fold fork fund gift
    gold hand hold hunt kind land last lend lift link lock long lord lost mark mask mild mind mist most must
    pack park past pond port rank rest ring risk rock roll rust sand send silk sing sink sold song sort stay
    tank task tell test tong town trial wand ward warn wind wing wise wolf word work yard""".split()
)
_STOP = frozenset(
    """a an the of in on at by for to and or is was were who whom whose which what where when how did does
    do that this it its from with as be been has had have s his her their he she they""".split()
)
# where people grow up and what stands where; the noun a question uses for the kind, and the page's text,
# which avoids every word the questions use ("island", "valley", "grew", "raised", "stands", ...)
_PLACE_KINDS = {
    "isle": (
        "island",
        "{p} is an isle of {n} square kilometres in the outer skerries, a {m}-minute ferry crossing from the "
        "mainland. Its {pop} inhabitants cut peat, keep sheep and dry cod on wooden racks.",
    ),
    "dale": (
        "valley",
        "{p} is a glacial dale of scattered farms and {pop} inhabitants. Its slate quarries closed in {y}; "
        "the old drove road over the pass is now a footpath.",
    ),
    "borough": (
        "town",
        "{p} is a borough of {pop} inhabitants. Timber houses of the {c}th century line its square, "
        "and a cattle fair fills the streets each {season}.",
    ),
    "upland": (
        "region",
        "{p} is a sparsely settled upland of moors, tarns and birch scrub, {n} kilometres across. Reindeer "
        "herders move through it each {season}.",
    ),
}
_GREW = [
    "{s} grew up {on} {p}",
    "{s} spent {pos} childhood {on} {p}",
    "{s} hails from {p}",
    "{s} was raised {on} {p}",
    "{p} is where {s} grew up",
    "{S} is a native of {p}",
]


@dataclass(frozen=True)
class _Person:
    name: str
    she: str  # subject pronoun
    home: str  # the place's name
    file: str

    @property
    def surname(self) -> str:
        return self.name.split()[-1]

    @property
    def pos(self) -> str:
        return {"she": "her", "he": "his", "they": "their"}[self.she]


def _poss(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def content_words(text: str) -> set[str]:
    """The lower-cased words of `text` that are not function words."""
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP}


class _Builder:
    """The pages and questions so far, one seeded generator for every choice (so a seed is one corpus)."""

    def __init__(self, seed: int, n_places: int) -> None:
        self.rng = random.Random(seed)
        self.used: set[str] = set()
        self.docs: list[Doc] = []
        self.files: dict[str, str] = {}  # entity name -> its page (namesakes have pages of their own)
        self.rows: list[tuple[Question, list[str]]] = []
        self.places: dict[str, str] = {}  # name -> kind
        for i in range(n_places):
            kind = list(_PLACE_KINDS)[i % len(_PLACE_KINDS)]
            name = self.fresh(2)
            self.places[name] = kind
            self.page(f"place_{name.lower()}.md", name, self.place_text(name, kind))
        self.rivers = [self.fresh(2) for _ in range(max(6, n_places // 5))]
        for r in self.rivers:
            self.page(
                f"stream_{r.lower()}.md",
                r,
                f"The {r} drains {self.num(200, 3000)} square kilometres of moor and forest and meets the sea "
                f"after {self.num(40, 400)} kilometres. Salmon return to it every autumn.",
            )

    # -- names and pages
    def fresh(self, syllables: int) -> str:
        rng = self.rng
        while True:
            w = "".join(rng.choice(_ONSET) + rng.choice(_NUCLEUS) + rng.choice(_CODA) for _ in range(syllables))
            if len(w) >= 4 and w not in self.used and w not in _NOT_NAMES and w not in _STOP:
                self.used.add(w)
                return w.capitalize()

    def num(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def pick(self, options: list[str]) -> str:
        return self.rng.choice(options)

    def page(self, file: str, title: str, body: str) -> None:
        self.docs.append(Doc(file, f"# {title}\n\n{body}"))
        self.files.setdefault(title, file)

    def place_text(self, name: str, kind: str) -> str:
        return _PLACE_KINDS[kind][1].format(
            p=name,
            n=self.num(4, 300),
            m=self.num(15, 90),
            pop=f"{self.num(1, 40)},{self.num(100, 999)}",
            y=self.num(1890, 1975),
            c=self.num(15, 18),
            season=self.pick(["spring", "autumn", "winter"]),
        )

    def place(self, avoid: tuple[str, ...] = (), kinds: tuple[str, ...] = ("isle", "dale", "borough")) -> str:
        return self.pick([p for p, k in self.places.items() if k in kinds and p not in avoid])

    def person(self, avoid: tuple[str, ...] = ()) -> _Person:
        name = f"{self.fresh(1)} {self.fresh(2)}"
        return _Person(name, self.pick(["she", "he"]), self.place(avoid), f"person_{name.split()[1].lower()}.md")

    def grew(self, p: _Person) -> str:
        s = self.pick([p.surname, p.surname, p.she])
        on = "on" if self.places[p.home] == "isle" else "in"
        text = self.pick(_GREW).format(s=s, S=p.surname, p=p.home, pos=p.pos, on=on) + "."
        return text[0].upper() + text[1:]

    def bio(self, p: _Person, role: str, *sentences: str) -> None:
        article = "an" if role[0] in "aeiou" else "a"
        body = [f"{p.name} is {article} {role}.", *sentences]
        self.page(p.file, p.name, " ".join(s for s in body if s))

    def ask(self, text: str, *path: str) -> None:
        """A question whose chain runs through the pages `path`: the question's entity first, the answer last."""
        self.rows.append((Question(text, path[-1], max(1, len(path) - 1)), list(path)))

    def control(self, text: str, file: str) -> None:
        self.rows.append((Question(text, file, 1), [file]))

    def some(self, templates: Sequence[tuple[str, tuple[str, ...]]], k: int) -> None:
        for text, path in self.rng.sample(templates, min(k, len(templates))):
            self.ask(text, *path)

    def kind_noun(self, place: str) -> str:
        return _PLACE_KINDS[self.places[place]][0]

    def in_which(self, place: str) -> str:
        noun = self.kind_noun(place)
        return f"{'On' if noun == 'island' else 'In'} which {noun}"

    def origin(self, who: str) -> str:
        """'Where did <who> grow up?', in one of several wordings (the relation words vary)."""
        return self.pick(
            [
                f"Where did {who} grow up?",
                f"Where was {who} raised?",
                f"Where did {who} spend their childhood?",
                f"Which place does {who} come from?",
                f"What is the childhood home of {who}?",
            ]
        )


@dataclass
class _Memory:
    """What later groups link to: earlier organisations' stems, physicians, clubs, and who may get a namesake."""

    stems: list[str]
    hospitals: list[tuple[_Person, _Person, str]]  # (founder, the founder's teacher, the hospital's page)
    clubs: list[tuple[str, str]]  # (club, the place it trains at)
    namesakes: list[_Person]


_LAB = ["Observatory", "Laboratory", "Field Station", "Institute"]
_FIELD = {
    "Observatory": ("astronomer", "comet"),
    "Laboratory": ("chemist", "mineral"),
    "Field Station": ("botanist", "moss"),
    "Institute": ("geologist", "mineral"),
}
_JOURNAL = ["Quarterly", "Letters", "Bulletin", "Review"]


def _science(b: _Builder, i: int, mem: _Memory) -> None:
    adviser = b.person()
    student = b.person(avoid=(adviser.home,))
    site = b.place(avoid=(adviser.home, student.home), kinds=("isle", "dale", "upland"))
    if i % 3 == 0:  # an institution named after a place it is not in
        stem = b.place(avoid=(site,))
    elif i % 3 == 1 and mem.stems:  # two organisations on one stem
        stem = mem.stems[-1]
    else:
        stem = b.fresh(2)
    kind = _LAB[i % len(_LAB)]  # science groups are 5 apart: never the kind of the previous one
    lab = f"{stem} {kind}"
    mem.stems.append(stem)
    role, finding = _FIELD[kind]
    since = b.num(1950, 2010)
    directs = b.pick(
        [f"Since {since} {adviser.she} has directed the {lab}.", f"{adviser.surname} heads the {lab}.", ""]
    )
    b.bio(adviser, role, b.grew(adviser), directs, f"{adviser.she.capitalize()} lectures on {b.fresh(2)} sediments.")
    advised = b.pick(
        [
            f"{student.she.capitalize()} wrote {student.pos} doctoral thesis under {adviser.name}.",
            f"{adviser.name} supervised {student.pos} doctorate.",
            f"{student.surname} was a doctoral student of {adviser.name}.",
            f"{student.pos.capitalize()} doctoral work was guided by {adviser.name}.",
        ]
    )
    b.bio(student, b.pick(["research fellow", "lecturer", "curator"]), advised, b.grew(student))
    located = b.pick(
        [
            f"The {lab} stands on {site}.",
            f"The {lab} was built on {site} in {b.num(1890, 1970)}.",
            f"{site} has been the seat of the {lab} since {b.num(1890, 1970)}.",
            f"The {lab}, which occupies a ridge above {site}, opened in {b.num(1890, 1970)}.",
        ]
    )
    director = b.pick(
        [
            f"It is managed by {adviser.name}.",
            f"{adviser.name} has been its director since {since}.",
            f"Its director, the {role} {adviser.name}, took office in {since}.",
        ]
    )
    b.page(f"org_{i:03d}.md", lab, f"{located} {director} It employs {b.num(8, 240)} staff.")
    name = {"comet": f"Comet {b.fresh(2)}", "mineral": f"{b.fresh(2)}ite", "moss": f"{b.fresh(2)} moss"}[finding]
    found = b.num(1960, 2020)
    b.page(
        f"finding_{i:03d}.md",
        name,
        b.pick(
            [
                f"{name} is a {finding} first described by {student.name} in {found}.",
                f"{student.name} identified {name} in {found}.",
                f"The discovery of {name} is credited to {student.name} ({found}).",
                f"{name}, which {student.name} found in {found}, is a {finding} of some note.",
            ]
        ),
    )
    journal = f"{b.fresh(2)} {b.pick(_JOURNAL)}"
    b.page(
        f"serial_{i:03d}.md",
        journal,
        b.pick(
            [
                f"{journal} prints papers on {role}s' field work; its editor since {b.num(1950, 2015)} has been "
                f"{adviser.name}.",
                f"Edited by {adviser.name}, {journal} appears four times a year.",
                f"{adviser.name} edits {journal}, founded in {b.num(1880, 1990)}.",
            ]
        ),
    )
    lab_file, j_file, d_file = f"org_{i:03d}.md", f"serial_{i:03d}.md", f"finding_{i:03d}.md"
    b.control(f"Who supervised the doctorate of {student.name}?", student.file)
    b.control(f"Who first described {name}?", d_file)
    b.some(
        [
            (b.origin(f"the doctoral adviser of {student.name}"), (student.file, adviser.file, adviser.home)),
            (
                f"{b.pick(['Which journal', 'Which periodical'])} does the thesis supervisor of {student.name} edit?",
                (student.file, adviser.file, j_file),
            ),
            (
                b.pick(
                    [
                        f"Whose research centre did {_poss(student.name)} doctoral adviser run?",
                        f"Which establishment was headed by the doctoral adviser of {student.name}?",
                    ]
                ),
                (student.file, adviser.file, lab_file),
            ),
            (b.origin(f"the discoverer of {name}"), (d_file, student.file, student.home)),
        ],
        1 + i % 2,
    )
    b.some(
        [
            (
                f"{b.in_which(site)} does the institution headed by {_poss(student.name)} thesis supervisor stand?",
                (student.file, adviser.file, lab_file, site),
            ),
            (
                b.origin(f"the person who supervised the doctorate of the discoverer of {name}"),
                (d_file, student.file, adviser.file, adviser.home),
            ),
        ],
        1,
    )
    other, elsewhere = b.person(), b.place(avoid=(adviser.home, student.home))
    b.page(
        f"note_{i:03d}.md",
        f"Prize citation {i}",
        f"The {b.fresh(2)} Medal went to {student.name} this year. The runner-up, {other.name}, whose "
        f"doctoral adviser grew up on {elsewhere} and ran an institute there, edits a periodical of "
        f"{role}s' field work.",
    )
    mem.namesakes.append(adviser)


_BUILDING = ["Bridge", "Library", "Bathhouse", "Clock Tower", "Market Hall", "Lighthouse", "Concert Hall"]


def _building(b: _Builder, i: int, mem: _Memory) -> None:
    master = b.person()
    architect = b.person(avoid=(master.home,))
    town = b.place(avoid=(master.home, architect.home), kinds=("borough", "isle"))
    stem = b.place(avoid=(town, architect.home, master.home)) if i % 3 == 1 else b.fresh(2)
    building = f"{stem} {b.pick(_BUILDING)}"
    year = b.num(1880, 2005)
    designed = b.pick(
        [
            f"The {building} in {town} was designed by {architect.name} and completed in {year}.",
            f"{architect.name} drew the plans for the {building}, which opened in {town} in {year}.",
            f"The {building}, which {architect.name} designed in {year}, is the pride of {town}.",
            f"Built to plans by {architect.name}, the {building} has served {town} since {year}.",
        ]
    )
    b_file = f"work_{i:03d}.md"
    b.page(
        b_file,
        building,
        f"{designed} Its {b.pick(['granite', 'brick', 'larch', 'limestone'])} front was restored "
        f"in {b.num(1990, 2022)}.",
    )
    trained = b.pick(
        [
            f"{architect.she.capitalize()} served {architect.pos} apprenticeship in the office of {master.name}.",
            f"{architect.surname} trained under {master.name}.",
            f"{architect.surname} was taken on as a pupil by {master.name} in {b.num(1900, 1990)}.",
            f"{architect.surname} learned the trade from {master.name}.",
        ]
    )
    b.bio(architect, "architect", trained, b.grew(architect))
    b.bio(
        master,
        b.pick(["master builder", "architect of the old school"]),
        b.grew(master),
        f"{master.she.capitalize()} built {b.num(12, 90)} parish halls.",
    )
    b.control(f"Who designed the {building}?", b_file)
    b.some(
        [
            (
                f"Name the {b.kind_noun(architect.home)} where the architect of the {building} grew up.",
                (b_file, architect.file, architect.home),
            ),
            (
                f"Under whom did the designer of the {building} serve an apprenticeship?",
                (b_file, architect.file, master.file),
            ),
        ],
        1,
    )
    if i % 2 == 0:
        b.ask(
            b.origin(f"the mentor of the {_poss(building)} architect"), b_file, architect.file, master.file, master.home
        )
    other, elsewhere = b.person(), b.place(avoid=(architect.home, master.home))
    b.page(
        f"note_{i:03d}.md",
        f"Guidebook entry {i}",
        f"Visitors to the {building} often ask about its architect. The mentor of {other.name}, an architect who "
        f"grew up on {elsewhere}, called it the finest apprenticeship piece of its decade.",
    )
    mem.namesakes.append(architect)


_HOSPITAL = ["Infirmary", "Hospital", "Sanatorium", "Clinic"]


def _hospital(b: _Builder, i: int, mem: _Memory) -> None:
    stem = mem.stems[-1] if i % 2 == 0 and mem.stems else b.fresh(2)  # an infirmary on an observatory's stem
    teacher = b.person()
    founder = b.person(avoid=(teacher.home, stem))
    river = b.pick(b.rivers)
    hospital = f"{stem} {b.pick(_HOSPITAL)}"
    founded = b.pick(
        [
            f"The {hospital} was founded in {b.num(1850, 1990)} by {founder.name}.",
            f"{founder.name} established the {hospital} in {b.num(1850, 1990)}.",
            f"The {hospital} owes its founding to the physician {founder.name}.",
            f"The {hospital} opened at the initiative of {founder.name}.",
        ]
    )
    banks = b.pick(
        [f"It stands on the banks of the {river}.", f"It overlooks the {river}.", f"The {river} runs past its gardens."]
    )
    h_file = f"care_{i:03d}.md"
    b.page(h_file, hospital, f"{founded} {banks} It has {b.num(40, 900)} beds.")
    taught = b.pick(
        [
            f"{founder.she.capitalize()} was a house surgeon under {teacher.name}.",
            f"{teacher.name} taught {founder.surname} surgery.",
            f"{founder.surname} studied medicine with {teacher.name}.",
        ]
    )
    b.bio(founder, "physician", taught, b.grew(founder))
    b.bio(
        teacher,
        b.pick(["professor of anatomy", "surgeon"]),
        b.grew(teacher),
        f"{teacher.she.capitalize()} wrote a manual of field dressings.",
    )
    b.control(f"Who founded the {hospital}?", h_file)
    b.some(
        [
            (b.origin(f"the founder of the {hospital}"), (h_file, founder.file, founder.home)),
            (f"Who taught the physician who established the {hospital}?", (h_file, founder.file, teacher.file)),
        ],
        1,
    )
    b.some(
        [
            (
                b.origin(f"the mentor of the {_poss(hospital)} founder"),
                (h_file, founder.file, teacher.file, teacher.home),
            ),
            (
                f"Beside which river stands the hospital set up by the pupil of {teacher.name}?",
                (teacher.file, founder.file, h_file, f"stream_{river.lower()}.md"),
            ),
        ],
        1,
    )
    other, elsewhere = b.person(), b.place(avoid=(founder.home, teacher.home))
    b.page(
        f"note_{i:03d}.md",
        f"Annual report {i}",
        f"The {hospital} welcomed {other.name} this year, a physician who grew up in {elsewhere} and was taught by "
        f"the founder of a hospital on the {b.pick(b.rivers)}.",
    )
    mem.hospitals.append((founder, teacher, h_file))
    mem.namesakes.append(founder)


def _expedition(b: _Builder, i: int, mem: _Memory) -> None:
    leader = b.person()
    upland = b.place(avoid=(leader.home,), kinds=("upland", "dale"))
    peak = b.pick([f"Mount {b.fresh(2)}", f"{b.fresh(2)} Peak", f"the {b.fresh(1)}horn"])
    expedition = f"{b.fresh(2)} Expedition"
    doctor, teacher, h_file = mem.hospitals[-1] if mem.hospitals else (None, None, "")
    led = b.pick(
        [
            f"The {expedition} was led by {leader.name}",
            f"{leader.name} headed the {expedition}",
            f"The {expedition} set out under the command of {leader.name}",
        ]
    )
    aim = b.pick([f"attempted the north face of {peak}", f"reached the summit of {peak}", f"set out to climb {peak}"])
    e_file = f"venture_{i:03d}.md"
    text = f"{led} in {b.num(1890, 1990)} and {aim}."
    if doctor:
        text += " " + b.pick([f"Its doctor was {doctor.name}.", f"{doctor.name} travelled with it as physician."])
    b.page(e_file, expedition, text)
    pk = peak[4:] if peak.startswith("the ") else peak
    m_file = f"summit_{i:03d}.md"
    b.page(
        m_file,
        pk[0].upper() + pk[1:],
        f"{pk[0].upper() + pk[1:]} is a summit of {b.num(3000, 7800)} m in "
        f"{upland}. Its first winter ascent came in {b.num(1930, 2010)}.",
    )
    b.bio(leader, "mountaineer", b.grew(leader), f"{leader.surname} lost two toes to frostbite.")
    b.control(f"Who led the {expedition}?", e_file)
    two = [
        (b.origin(f"the leader of the {expedition}"), (e_file, leader.file, leader.home)),
        (f"{b.in_which(upland)} does the peak attempted by the {expedition} rise?", (e_file, m_file, upland)),
    ]
    if doctor and teacher:
        two.append(
            (f"Which medical institution did the doctor of the {expedition} found?", (e_file, doctor.file, h_file))
        )
        b.ask(
            b.origin(f"the teacher of the {_poss(expedition)} doctor"), e_file, doctor.file, teacher.file, teacher.home
        )
    b.some(two, 1)
    other, elsewhere = b.person(), b.place(avoid=(leader.home,))
    b.page(
        f"note_{i:03d}.md",
        f"Dispatch {i}",
        f"News reached the coast that the {expedition} had turned back. The leader of a rival party, {other.name}, "
        f"was raised on {elsewhere}; the peak they attempted rises above its doctor's old hospital.",
    )
    mem.namesakes.append(leader)


_CLUB = ["Oarsmen", "Hockey Club", "Harriers", "Curlers", "Skiers"]


def _team(b: _Builder, i: int, mem: _Memory) -> None:
    captain = b.person()
    ground = b.place(avoid=(captain.home, *(mem.clubs[-1][1:] if mem.clubs else ())))
    stem = (
        b.place(avoid=(ground, captain.home, *(mem.clubs[-1][1:] if mem.clubs else ()))) if i % 2 == 0 else b.fresh(2)
    )  # a club named after a place it is not in
    last = mem.clubs[-1][0].split(" ", 1)[1] if mem.clubs else ""
    club = f"{stem} {b.pick([c for c in _CLUB if c != last])}"
    c_file = f"side_{i:03d}.md"
    capt = b.pick(
        [
            f"{club} is captained by {captain.name}.",
            f"{captain.name} captains the side.",
            f"Its skipper, {captain.name}, joined in {b.num(2005, 2023)}.",
        ]
    )
    b.page(c_file, club, f"{club} trains at {ground}. {capt} It finished {b.num(2, 12)}th in the league.")
    before = mem.clubs[-1] if mem.clubs else None
    moved = ""
    if before:
        moved = b.pick(
            [
                f"{captain.surname} joined from {before[0]}.",
                f"{captain.she.capitalize()} spent {b.num(2, 9)} seasons with {before[0]} before moving.",
                f"{captain.surname} formerly played for {before[0]}.",
            ]
        )
    b.bio(captain, "athlete", b.grew(captain), moved)
    b.control(f"Who captains {club}?", c_file)
    b.ask(b.origin(f"the captain of {club}"), c_file, captain.file, captain.home)
    if before:
        b_file = b.files[before[0]]
        b.some(
            [
                (f"Which team did {_poss(club)} captain play for before?", (c_file, captain.file, b_file)),
                (
                    f"Where does the former side of the captain of {club} train?",
                    (c_file, captain.file, b_file, before[1]),
                ),
            ],
            1 + i % 2,
        )
    other, elsewhere = b.person(), b.place(avoid=(captain.home,))
    b.page(
        f"note_{i:03d}.md",
        f"Match report {i}",
        f"{club} lost narrowly on Saturday. The visitors' captain, {other.name}, who grew up in {elsewhere}, "
        f"played for a former side of the home team's captain.",
    )
    mem.clubs.append((club, ground))


def heldout_paths(n_groups: int = 75, seed: int = 4127) -> tuple[list[Doc], list[tuple[Question, list[str]]]]:
    """(documents, [(question, the files of its chain)]): the corpus with each question's path."""
    b = _Builder(seed, n_places=max(12, n_groups * 2 // 3))
    mem = _Memory([], [], [], [])
    kinds = [_science, _building, _hospital, _expedition, _team]
    for i in range(n_groups):
        kinds[i % len(kinds)](b, i, mem)
    # place pages are referred to by name in the chains: resolve them to files
    rows = [(q, [p if p.endswith(".md") else b.files[p] for p in path]) for q, path in b.rows]
    rows = [(Question(q.text, path[-1], q.hops), path) for q, path in rows]
    # namesakes: another person with the same name, another trade and another home
    for n, p in enumerate(mem.namesakes[::6]):
        elsewhere = b.place(avoid=(p.home,))
        b.docs.append(
            Doc(
                f"person_namesake_{n:02d}.md",
                f"# {p.name}\n\n{p.name} is a {b.pick(['glassblower', 'ferry pilot', 'beekeeper'])}. "
                f"{p.surname} grew up on {elsewhere} and was taught by a master of the craft.",
            )
        )
    _registers(b)
    by_name = {d.name: d for d in b.docs}
    kept = [
        (q, path)
        for q, path in rows
        if q.hops == 1 or not (content_words(q.text) & content_words(by_name[q.answer].text))
    ]
    return b.docs, kept


def _registers(b: _Builder) -> None:
    """Passing mentions: tables and lists naming many entities at once, each beside an unrelated fact."""

    def titles(prefix: str) -> list[str]:
        return [d.text.splitlines()[0][2:] for d in b.docs if d.name.startswith(prefix)]

    places = list(b.places)
    works = titles("work_")
    for n in range(0, len(works), 10):
        rows = "\n".join(f"| {w} | {b.pick(places)} | {b.num(1950, 2020)} |" for w in works[n : n + 10])
        b.docs.append(
            Doc(
                f"register_{n:03d}.md",
                f"# Register of listed structures {n // 10}\n\n"
                f"| structure | district office | listed |\n|---|---|---|\n{rows}\n",
            )
        )
    orgs = titles("org_") + titles("care_")
    for n in range(0, len(orgs), 10):
        rows = "\n".join(f"- {o}: {b.num(5, 900)} staff, audited {b.num(2001, 2024)}" for o in orgs[n : n + 10])
        b.docs.append(Doc(f"index_{n:03d}.md", f"# Index of institutions {n // 10}\n\n{rows}\n"))
    people = [d.text.splitlines()[0][2:] for d in b.docs if d.name.startswith("person_")]
    for n in range(0, len(people), 14):
        rows = "\n".join(f"- {p} (resident of {b.pick(places)})" for p in people[n : n + 14])
        b.docs.append(Doc(f"members_{n:03d}.md", f"# Members of the Learned Society, roll {n // 14}\n\n{rows}\n"))
    ventures = titles("venture_") + titles("side_")
    for n in range(0, len(ventures), 12):
        rows = "\n".join(f"{v}, season {b.num(1990, 2024)}, sponsor {b.fresh(2)}" for v in ventures[n : n + 12])
        b.docs.append(Doc(f"ledger_{n:03d}.md", f"# Sponsorship ledger {n // 12}\n\n{rows}\n"))


def build_heldout(n_groups: int = 75, seed: int = 4127) -> tuple[list[Doc], list[Question]]:
    """(documents, questions) of one, two and three hops; see the module docstring."""
    docs, rows = heldout_paths(n_groups, seed)
    return docs, [q for q, _path in rows]
