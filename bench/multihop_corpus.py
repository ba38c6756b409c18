"""A fictional corpus for multi-hop retrieval (no model has seen it): people, companies, products.

Generated from a fixed seed, so every run (and the test that uses a small slice of it) sees the same
documents and questions. Chains: a product's page names its maker; a company's page names its
founder and sometimes its parent company; a person's page names their home town. No page names the
next-but-one link, so a multi-hop question's answer page shares none of the question's names:

* one hop (controls): "Which company manufactures the Vel Orbis 7?" → the product's page;
* two hops: "What is the hometown of the founder of Quillon Dynamics?" → the founder's page;
* three hops: "What is the hometown of the person who started the firm behind the Vel Orbis 7?" →
  the founder's page, reached product → company → person.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

_ONSETS = ["br", "k", "v", "t", "m", "z", "qu", "dr", "s", "l", "n", "f", "gr", "th", "p", "r", "c", "h"]
_VOWELS = ["a", "e", "i", "o", "u", "ae", "io", "ou"]
_CODAS = ["n", "r", "l", "x", "s", "th", "nd", "rk", "m", "v", ""]
_ORG = ["Dynamics", "Works", "Systems", "Labs", "Industries", "Foundry", "Robotics", "Instruments", "Aerospace"]
_INDUSTRY = ["robotics", "marine engineering", "acoustics", "agricultural machinery", "optics", "textile machinery"]
_PRODUCT_KIND = ["cargo drone", "harvester", "sonar buoy", "telescope mount", "loom controller", "pressure valve"]
_PROFESSION = ["engineer", "chemist", "designer", "physicist", "inventor", "architect"]
_FIELD = ["metallurgy", "fluid dynamics", "control theory", "ceramics", "acoustics", "botany"]
_HOBBY = ["sailing", "chess", "beekeeping", "mountaineering", "violin", "pottery"]


def _word(rng: random.Random, parts: int = 2) -> str:
    return "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(parts)).capitalize()


@dataclass(frozen=True)
class Doc:
    name: str  # file name
    text: str


@dataclass(frozen=True)
class Question:
    text: str
    answer: str  # the file name of the answer document
    hops: int


def build(n_companies: int = 40, n_fillers: int = 40, seed: int = 12) -> tuple[list[Doc], list[Question]]:
    rng = random.Random(seed)
    used: set[str] = set()

    def unique(make: object) -> str:
        while True:
            name = make()  # type: ignore[operator]
            if name not in used and all(part.lower() not in {u.lower() for u in used} for part in name.split()):
                used.add(name)
                return name

    cities = [unique(lambda: _word(rng, 2)) for _ in range(max(8, n_companies // 2))]
    docs: list[Doc] = []
    questions: list[Question] = []
    companies: list[tuple[str, str, str]] = []  # (name, founder, file)
    for i in range(n_companies):
        person = unique(lambda: f"{_word(rng, 1)} {_word(rng, 2)}")
        town = rng.choice(cities)
        pronoun = rng.choice(["She", "He"])
        bio = f"person_{i:03d}.md"
        docs.append(
            Doc(
                bio,
                f"# {person}\n\n{person} is an {rng.choice(_PROFESSION)}. {pronoun} was born in {town} in "
                f"{rng.randint(1930, 1990)}. {pronoun} studied {rng.choice(_FIELD)} and later taught it for "
                f"{rng.randint(3, 20)} years. In spare hours {pronoun.lower()} enjoys {rng.choice(_HOBBY)}.",
            )
        )
        company = unique(lambda: f"{_word(rng, 2)} {rng.choice(_ORG)}")
        hq = rng.choice(cities)
        cfile = f"company_{i:03d}.md"
        parent = companies[rng.randrange(len(companies))] if companies and rng.random() < 0.3 else None
        text = (
            f"# {company}\n\n{company} is a {rng.choice(_INDUSTRY)} company headquartered in {hq}. "
            f"It was founded by {person} in {rng.randint(1950, 2015)}. "
            f"The firm employs {rng.randint(40, 4000)} people."
        )
        if parent:
            text += f" Since {rng.randint(1990, 2020)} it has been a subsidiary of {parent[0]}."
        docs.append(Doc(cfile, text))
        companies.append((company, person, cfile))
        questions.append(Question(f"Who founded {company}?", cfile, 1))
        questions.append(Question(f"What is the hometown of the founder of {company}?", bio, 2))
        for j in range(2):
            product = unique(lambda: f"{_word(rng, 1)} {_word(rng, 1)} {rng.randint(2, 99)}")
            pfile = f"product_{i:03d}_{j}.md"
            kind = rng.choice(_PRODUCT_KIND)
            docs.append(
                Doc(
                    pfile,
                    f"# {product}\n\nThe {product} is a {kind} made by {company}. It weighs "
                    f"{rng.randint(2, 900)} kg and reaches {rng.randint(10, 300)} units per hour in field trials.",
                )
            )
            if j == 0:
                questions.append(Question(f"Which company manufactures the {product}?", pfile, 1))
                questions.append(
                    Question(f"What is the hometown of the person who started the firm behind the {product}?", bio, 3)
                )
            elif parent:
                questions.append(
                    Question(f"Who established the parent of the company that makes the {product}?", parent[2], 3)
                )
    for i in range(n_fillers):
        town = rng.choice(cities)
        docs.append(
            Doc(
                f"note_{i:03d}.md",
                f"# Field note {i}\n\nA traveller from {town} describes the harbour, the weekly market and the "
                f"workshops where {rng.choice(_PRODUCT_KIND)}s are repaired. The founder of a local choir was "
                f"born nearby; the hometown festival takes place every {rng.choice(['spring', 'autumn'])}.",
            )
        )
    return docs, questions
