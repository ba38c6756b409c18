"""Of the chains a walk completes at the same weight, the one whose phrase steps single out one
entity ranks first (#28, `specific.py`), through the search endpoint.

"Where did the mentor of the Orrin Physic Garden's designer grow up?" asks for three relations:
the design (`made_by`), then two the text states in its own words ("trained under", "spent her
childhood in"). The garden had two designers; Mabel Quist trained under one teacher, Ilse Marrow
under three. Every path takes the same steps in the same words, so before this rule the four
childhood towns tied on the graph and the vector and keyword signals ordered them: the three towns
whose pages talk of mentors and designers growing up there came before Dunmere, whose page shares
no word with the question. A phrase step one entity takes to three others says less about each
(times 1 / (1 + ln 3)), so the path through the designer with one teacher ranks first; the other
towns all still follow. A how-to question about pruning keeps hybrid's first hit.
"""

from __future__ import annotations

from pathlib import Path

from openai import OpenAI

from tests.knowledge_graph.test_knowledge_graph import KG
from tests.support.procs import Backend, gateway
from tests.support.retrieval_helpers import upload_pages

TEACHERS = {"fenn.md": ("Ada Fenn", "Ulm"), "lorn.md": ("Bea Lorn", "Brest"), "mott.md": ("Cora Mott", "Kiel")}
PAGES = {
    "orrin.md": "# Orrin Physic Garden\n\nThe Orrin Physic Garden is a walled herb garden of four acres. "
    "It was designed by Mabel Quist in 1881. The Orrin Physic Garden was also designed by Ilse Marrow. "
    "To prune the herbs of the garden, cut them back after flowering.",
    "quist.md": "# Mabel Quist\n\nMabel Quist is a botanist and garden maker. Quist trained under Edda Harrow.",
    "harrow.md": "# Edda Harrow\n\nEdda Harrow is a plant collector. Harrow spent her childhood in Dunmere.",
    "dunmere.md": "# Dunmere\n\nDunmere is a hamlet of slate cottages at the head of a long lake.",
    "marrow.md": "# Ilse Marrow\n\nIlse Marrow is a landscape architect. "
    + " ".join(f"Marrow trained under {p}." for p, _t in TEACHERS.values()),
    **{f: f"# {p}\n\n{p} is a gardener. {p.split()[1]} spent her childhood in {t}." for f, (p, t) in TEACHERS.items()},
    **{
        f"{t.lower()}.md": f"# {t}\n\n{t} is a town where many a mentor of a garden designer grew up."
        for _f, (_p, t) in TEACHERS.items()
    },
    "pruning.md": "# Pruning herbs\n\nHow to prune the herbs of a physic garden: cut them back after flowering "
    "and clear the beds. A mentor of a garden designer grew up in every town.",
}

CHAIN = "Where did the mentor of the Orrin Physic Garden's designer grow up?"
HOW_TO = "How do I prune the herbs of a physic garden?"


def test_the_path_whose_phrase_steps_single_out_one_entity_ranks_first(backend: Backend, tmp_path: Path) -> None:
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store = upload_pages(own, "kg-specific", PAGES)

        def ranked(question: str, kg: bool) -> list[str]:
            options = {"ranking_options": KG} if kg else {}
            page = own.vector_stores.search(store.id, query=question, **options)  # type: ignore[arg-type]
            return store.ranked(page.data)

        towns = {"dunmere.md", "ulm.md", "brest.md", "kiel.md"}
        hybrid = ranked(CHAIN, False)
        assert "dunmere.md" not in hybrid[:3], hybrid  # the premise: its page shares no word with the question
        kg = ranked(CHAIN, True)
        placed = [name for name in kg if name in towns]
        assert placed[:1] == ["dunmere.md"], kg  # before: a town of Marrow's three teachers first
        assert set(placed) == towns, kg  # the towns the other paths reach all still follow
        # a how-to question about gardens (their pruning page): hybrid's first hit stays first
        assert ranked(HOW_TO, True)[0] == ranked(HOW_TO, False)[0] == "pruning.md"


HOSPITAL = {
    "aldric.md": "# St Aldric Infirmary\n\nSt Aldric Infirmary is a hospital of forty beds. "
    "It was founded by Nora Vell in 1902. St Aldric Infirmary was also founded by Piet Arun. "
    "St Aldric Infirmary was also founded by Ruth Emmet. St Aldric Infirmary was dreamed up by Lena Osk.",
    "vell.md": "# Nora Vell\n\nNora Vell is a surgeon. Vell was born in Tasker.",
    "arun.md": "# Piet Arun\n\nPiet Arun is a physician. Arun was born in Holm.",
    "emmet.md": "# Ruth Emmet\n\nRuth Emmet is a nurse. Emmet was born in Brack.",
    "brack.md": "# Brack\n\nBrack is a crossroads with an inn and a forge.",
    "osk.md": "# Lena Osk\n\nLena Osk is a banker. Osk was born in Farrow.",
    "tasker.md": "# Tasker\n\nTasker is a hamlet of slate cottages at the head of a long lake.",
    "holm.md": "# Holm\n\nHolm is a fishing village on a shingle spit.",
    "farrow.md": "# Farrow\n\nFarrow is a market town on a chalk river.",
}


def test_a_typed_step_to_several_entities_is_not_divided(backend: Backend, tmp_path: Path) -> None:
    """A hospital's three founders (`founded_by`, the type the question asks for) are all its
    founders: their birthplaces keep the walk's weight and rank above the town the one phrase
    "was dreamed up by" leads to (a step only like "founder"). Divided by three like a phrase
    step, the founders' towns fell below it (checked with typed steps divided too)."""
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store = upload_pages(own, "kg-specific-typed", HOSPITAL)
        question = "Where was the founder of St Aldric Infirmary born?"
        page = own.vector_stores.search(store.id, query=question, ranking_options=KG)  # type: ignore[arg-type]
        ranked = store.ranked(page.data)
        towns = [name for name in ranked if name in {"tasker.md", "holm.md", "brack.md", "farrow.md"}]
        assert set(towns[:3]) == {"tasker.md", "holm.md", "brack.md"}, ranked
