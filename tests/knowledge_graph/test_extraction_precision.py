"""Extraction's precision on ordinary English (#28): every sentence of `bench/kg_precision_cases.py`
yields exactly the typed relations it states, no more (a list after an opening phrase, a given name
that is a place, a possessive description, an aside after an object, a one-title lower-case ending,
a name opening a sentence before "by"/"of"). The bench prints the same count as "false relations"."""

from __future__ import annotations

import pytest

from bench.kg_link_recall import stated
from bench.kg_precision_cases import CASES, Case


@pytest.mark.parametrize("case", CASES, ids=[c.text[:40] for c in CASES])
def test_an_ordinary_sentence_states_exactly_its_relations(case: Case) -> None:
    assert stated(case.text, case.subject, case.titles) == set(case.expected)
