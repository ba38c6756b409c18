"""The hard multi-hop corpus (#28): a generated fictional encyclopaedia that tells a chain-following
ranker from one that is not.

Deterministic (a fixed seed): a few hundred short articles about people, companies, products,
settlements and universities, and questions phrased by relation. What makes it hard:

* **answers share no word with the question**: a chain ends on a settlement's or a university's
  article (or a person's), which names nothing the question names; the generator checks it and
  drops any question whose answer shares a content word with it;
* **relation types vary** (founded, made, born, headquartered, led, studied, parent company), and so
  do their phrasings in the text ("was set up by", "a native of", "its headquarters are in", "read
  chemistry at", "chief executive"), with the surname alone after the full name (coreference);
* **distractors** share the question's words but sit off the chain: press notes that name the
  company next to another person's founding and birthplace, or a product next to another maker;
* **colliding names**: two people with one name (only one of them founded the company), a company
  named after a settlement ("Varnholt Works" and Varnholt), two companies on one stem;
* **passing mentions**: directory tables listing companies and settlements side by side;
* **three hops** (product → maker → founder → birthplace) and one-hop controls.
"""

from __future__ import annotations

import random
import re

from bench.multihop_corpus import Doc, Question, _word

_ORG = ["Dynamics", "Works", "Systems", "Labs", "Industries", "Foundry", "Instruments", "Aerospace", "Optics"]
_PRODUCT_KIND = ["cargo drone", "harvester", "sonar buoy", "telescope mount", "loom controller", "pressure valve"]
_SUBJECT = ["chemistry", "mathematics", "law", "architecture", "geology", "music"]
_TRADE = ["fishing", "salt", "wool", "timber", "glass", "copper"]
_STOPWORDS = frozenset(
    """a an the of in on at by for to and or is was were who whom whose which what where when how did does
    do that this it its from with as be been has had have s""".split()
)


def _content(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOPWORDS}


def build_hard(n_companies: int = 60, seed: int = 28) -> tuple[list[Doc], list[Question]]:
    """(documents, questions); about 5 documents per company, questions of one, two and three hops."""
    rng = random.Random(seed)
    used: set[str] = set()

    def fresh(parts: int) -> str:
        while True:
            w = _word(rng, parts)
            if w.lower() not in used and len(w) >= 4:
                used.add(w.lower())
                return w

    docs: list[Doc] = []
    towns = [fresh(2) for _ in range(max(10, n_companies // 3))]
    regions = [fresh(2) for _ in range(4)]
    for t in towns:
        docs.append(
            Doc(
                f"place_{t.lower()}.md",
                f"# {t}\n\n{t} is a settlement on the {fresh(1)} estuary in the {rng.choice(regions)} region. "
                f"About {rng.randint(2, 90)},{rng.randint(100, 999)} people live there; its economy rests on "
                f"{rng.choice(_TRADE)} and a weekly market.",
            )
        )
    unis = [f"{fresh(2)} University" for _ in range(6)]
    for u in unis:
        docs.append(
            Doc(
                f"uni_{u.split()[0].lower()}.md",
                f"# {u}\n\n{u} is a public research institution with {rng.randint(4, 40)} faculties, "
                f"chartered in {rng.randint(1700, 1950)}. Its library holds rare maps.",
            )
        )
    questions: list[Question] = []
    companies: list[dict[str, str]] = []
    namesake_first = fresh(1)
    namesake = f"{namesake_first} {fresh(2)}"  # two different people share this name
    for i in range(n_companies):
        founder_name = namesake if i == 0 else f"{fresh(1)} {fresh(2)}"
        surname = founder_name.split()[-1]
        birthplace = rng.choice(towns)
        school = rng.choice(unis)
        # a company named after a settlement (the first few), or on a shared stem (pairs)
        if i % 10 == 1:
            stem = rng.choice(towns)
        elif i % 10 == 2 and companies:
            stem = companies[-1]["name"].split()[0]
        else:
            stem = fresh(2)
        name = f"{stem} {rng.choice([o for o in _ORG if f'{stem} {o}' not in {c['name'] for c in companies}])}"
        hq = rng.choice(towns)
        ceo = f"{fresh(1)} {fresh(2)}"
        parent = companies[rng.randrange(len(companies))] if companies and rng.random() < 0.35 else None
        pfile = f"person_{i:03d}.md"
        born = rng.choice(["was born in {t}", "is a native of {t}", "grew up in {t}", "hails from {t}"])
        docs.append(
            Doc(
                pfile,
                f"# {founder_name}\n\n{founder_name} is an engineer and entrepreneur. {surname} "
                + born.format(t=birthplace)
                + f" and studied {rng.choice(_SUBJECT)} at {school}. {surname} set up {name} in "
                f"{rng.randint(1960, 2015)}.",
            )
        )
        ceo_file = f"exec_{i:03d}.md"
        ceo_school = school if rng.random() < 0.5 else rng.choice(unis)
        docs.append(
            Doc(
                ceo_file,
                f"# {ceo}\n\n{ceo} is a manager. {ceo.split()[-1]} graduated from {ceo_school}"
                f" and {rng.choice(['was born in', 'grew up in'])} {rng.choice(towns)}.",
            )
        )
        cfile = f"company_{i:03d}.md"
        founded = rng.choice(
            [
                f"It was founded by {founder_name}",
                f"It was set up by {founder_name}",
                f"{founder_name} established it",
                f"It was started by {founder_name}",
            ]
        )
        located = rng.choice([f"headquartered in {hq}", f"based in {hq}"])
        text = (
            f"# {name}\n\n{name} is an industrial company {located}. {founded} in {rng.randint(1960, 2015)}. "
            f"Its chief executive is {ceo}."
        )
        if parent:
            text += f" Since {rng.randint(1990, 2020)} it has been a subsidiary of {parent['name']}."
        docs.append(Doc(cfile, text))
        company = {"name": name, "file": cfile, "founder": pfile, "born": birthplace, "hq": hq, "school": school}
        company["ceo_file"] = ceo_file
        companies.append(company)
        place = f"place_{birthplace.lower()}.md"
        hq_file = f"place_{hq.lower()}.md"
        uni_file = f"uni_{school.split()[0].lower()}.md"
        questions += [
            Question(f"Who founded {name}?", cfile, 1),
            Question(f"In which town was the founder of {name} born?", place, 2),
            Question(f"Where is {name} headquartered?", cfile, 1),
        ]
        if rng.random() < 0.5:
            questions.append(Question(f"Where did the person who established {name} study?", uni_file, 2))
        if parent:
            questions.append(Question(f"Who started the parent company of {name}?", parent["founder"], 2))
        for j in range(2):
            product = f"{fresh(1)} {rng.randint(2, 99)}"
            prod_file = f"product_{i:03d}_{j}.md"
            made = rng.choice([f"made by {name}", f"manufactured by {name}", f"produced by {name}"])
            docs.append(
                Doc(
                    prod_file,
                    f"# {product}\n\nThe {product} is a {rng.choice(_PRODUCT_KIND)} {made}. It weighs "
                    f"{rng.randint(2, 900)} kg.",
                )
            )
            if j == 0:
                questions.append(Question(f"Which company makes the {product}?", prod_file, 1))
                three = f"In which town was the founder of the maker of the {product} born?"
                questions.append(Question(three, place, 3))
            else:
                questions.append(Question(f"Where is the maker of the {product} headquartered?", hq_file, 2))
        # a distractor: shares the company's name and the question's relation words, off the chain
        other, other_town = f"{fresh(1)} {fresh(2)}", rng.choice([t for t in towns if t != birthplace])
        docs.append(
            Doc(
                f"press_{i:03d}.md",
                f"# Press note {i}\n\n{name} sponsored a regional fair this year. The fair's founder, "
                f"{other}, was born in {other_town}, a town that also hosts the university sports day.",
            )
        )
    # the namesake: another person with the founder of company 0's name, born elsewhere
    docs.append(
        Doc(
            "person_namesake.md",
            f"# {namesake}\n\n{namesake} is a painter. {namesake.split()[-1]} was born in "
            f"{next(t for t in towns if t != companies[0]['born'])} and exhibits landscapes.",
        )
    )
    # passing mentions: directory tables that list companies beside settlements
    for d in range(0, n_companies, 10):
        rows = "\n".join(f"| {c['name']} | {c['hq']} |" for c in companies[d : d + 10])
        table = f"| Company | Seat |\n|---|---|\n{rows}\n"
        docs.append(Doc(f"directory_{d:03d}.md", f"# Trade directory {d // 10}\n\n{table}"))
    by_name = {d.name: d for d in docs}
    kept = [q for q in questions if q.hops == 1 or not (_content(q.text) & _content(by_name[q.answer].text))]
    return docs, kept
