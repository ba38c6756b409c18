"""The rule of `specific.py` on hand-built walks, in process (#28): a phrase step one entity takes to
n others is worth 1 / (1 + ln n) to each, except typed steps, the hop's own word taken forward and
one-hop questions; only paths that matched the same number of steps are reordered; a step keeps the
factor of the path it extended (`prior`), not its parent's later one, and reading it ends; and the walk
keeps the same one of two equal paths whatever order the graph store returns its edges in.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import numpy as np

from gateway.knowledge_graph.phrases import PhraseVectors
from gateway.knowledge_graph.specific import share, specific
from gateway.knowledge_graph.walk import Reached, walk
from storage.graph import Edge
from tests.support.toy_graph import ToyGraph, basis_embedder

SEED = Reached(1.0, 0, frozenset())


Fan = dict[frozenset[str], set[str]]


def step(
    via: str,
    hops: int,
    *matched: str,
    base: float = 1.0,
    into: bool = True,
    prior: Reached | None = None,
    fan: Fan | None = None,
) -> Reached:
    return Reached(base, hops, frozenset(matched), via, into, prior=prior, fan=fan if fan is not None else {})


def linked(reached: dict[str, Reached]) -> dict[str, Reached]:
    """`reached` with each path's `prior` the path its `via` entity has here (as the walk gives it
    when no entity's path changed after a child took it), one hop fewer first, and as its `fan` the
    entities here each step from that path led to (as if no step the walk took from it lost)."""
    fans: dict[str, Fan] = {}
    for e, r in reached.items():
        if r.via is not None:
            fans.setdefault(r.via, {}).setdefault(r.matched - reached[r.via].matched, set()).add(e)
    out: dict[str, Reached] = {}
    for e in sorted(reached, key=lambda x: reached[x].hops):
        r = reached[e]
        if r.via is not None and r.prior is None:
            out[e] = replace(r, prior=out[r.via], fan=fans[r.via])
        else:
            out[e] = r
    return {e: out[e] for e in reached}


def potentials(reached: dict[str, Reached]) -> dict[str, float]:
    return {e: round(r.potential(), 6) for e, r in reached.items()}


def test_a_phrase_step_to_many_is_divided_by_its_fan_out_per_source() -> None:
    reached = linked(
        {
            "S": SEED,
            "T": SEED,
            "A": step("S", 1, "~p"),
            "B": step("S", 1, "~p"),
            "C": step("T", 1, "~p"),  # one step from another source by the same phrase: its own fan of 1
            "A2": step("A", 2, "~p", "~q"),
            "C2": step("C", 2, "~p", "~q"),
        }
    )
    before, after = potentials(reached), potentials(specific(reached, [[], []], 2))
    assert after["C"] == before["C"] and after["C2"] == before["C2"]
    assert after["A"] == after["B"] < before["A"]
    assert after["A2"] < after["C2"]  # the path through the two-way step ranks below the specific one
    assert share(1) == 1.0 and share(2) < 1.0


def test_typed_steps_are_never_divided() -> None:
    """A hospital's two founders (`founded_by`, a type the wording asked for) are both its founders."""
    reached = linked(
        {
            "H": SEED,
            "F1": step("H", 1, "founded_by"),
            "F2": step("H", 1, "founded_by"),
            "B1": step("F1", 2, "founded_by", "~was born in"),
            "B2": step("F2", 2, "founded_by", "~was born in"),
        }
    )
    assert potentials(specific(reached, [[], []], 2)) == potentials(reached)


def test_the_hops_own_word_taken_forward_is_not_divided() -> None:
    reached = linked({"M": SEED, "P1": step("M", 1, "~pupils"), "P2": step("M", 1, "~pupils")})
    own = potentials(specific(reached, [["pupil"], ["raised"]], 2))
    assert own == potentials(reached)
    # the same phrase at a hop whose words it does not share, or taken backwards, is divided
    assert potentials(specific(reached, [["raised"], ["pupil"]], 2))["P1"] < own["P1"]
    backwards = {e: replace(r, into=False) for e, r in reached.items()}
    assert potentials(specific(backwards, [["pupil"], ["raised"]], 2))["P1"] < own["P1"]


def test_one_hop_questions_and_empty_walks_are_unchanged() -> None:
    reached = linked(
        {"S": SEED, "R0": step("S", 1, "~p1"), "R1": step("S", 1, "~p1"), "W": step("S", 1, "~p2", base=0.95)}
    )
    assert specific(reached, [[]], 1) == reached  # two entities by the question's relation are both answers
    assert specific({}, [], 2) == {}
    assert specific({"S": SEED}, [[], []], 2) == {"S": SEED}


def test_a_completed_chain_stays_above_its_unfinished_prefix() -> None:
    # each phrase step's weight as the walk gives it (the weight of a likeness below 1): M 1.68, each Ai 2.40
    reached = linked(
        {"S": SEED, "M": step("S", 1, "~p1", base=0.56)}
        | {f"A{i}": step("M", 2, "~p1", "~p2", base=0.2666) for i in range(3)}
    )
    after = potentials(specific(reached, [[], []], 2))
    assert all(after[f"A{i}"] > after["M"] for i in range(3)), after
    assert after["A0"] < potentials(reached)["A0"]  # still divided above the prefix


def test_a_step_keeps_the_factor_of_the_path_it_extended() -> None:
    """A took P's one-hop path (S -~p1-> P, one of two by that phrase, with Z); the walk later gave P a
    longer one (through Z, one of two by ~p9): A's factor is its own path's (S's ~p1 to two), not the
    one P ends with, and reading it ends even when P's later path goes through A itself."""
    # each path's `fan`: the entities the path it extended stepped to, per step
    from_s: Fan = {frozenset({"~p1"}): {"P", "Z"}}
    from_z: Fan = {frozenset({"~p9"}): {"P", "P2"}}
    one_hop = step("S", 1, "~p1", prior=SEED, fan=from_s)
    z = step("S", 1, "~p1", prior=SEED, fan=from_s)
    reached = {
        "S": SEED,
        "Z": z,
        "P": step("Z", 2, "~p1", "~p9", prior=z, fan=from_z),
        "P2": step("Z", 2, "~p1", "~p9", prior=z, fan=from_z),
        # P had one hop when A took it
        "A": step("P", 2, "~p1", "~p2", prior=one_hop, fan={frozenset({"~p2"}): {"A"}}),
    }
    before, after = potentials(reached), potentials(specific(reached, [[], [], []], 3))
    assert after["Z"] < before["Z"]  # S's ~p1 led to two: Z, and P as A's step left it
    assert after["A"] < before["A"]  # that step's factor (its own step, to one, none)
    assert after["P"] == after["P2"] < before["P"]
    # A's path is divided once (S's ~p1), P's twice (and Z's ~p9): A's factor is not P's final one
    assert after["A"] / before["A"] > after["P"] / before["P"]
    # P's path replaced through A itself: reading the priors back still ends
    from_a: Fan = {frozenset({"~p3"}): {"P", "P3"}}
    looped = reached | {"P": step("A", 3, "~p1", "~p2", "~p3", prior=reached["A"], fan=from_a)}
    looped["P3"] = step("A", 3, "~p1", "~p2", "~p3", prior=reached["A"], fan=from_a)
    after = potentials(specific(looped, [[], [], []], 3))
    assert after["P"] == after["P3"] < potentials(looped)["P"]


def test_the_result_does_not_depend_on_the_walks_dict_order() -> None:
    reached = linked(
        {"S": SEED, "M": step("S", 1, "~p1"), "N": step("S", 1, "~p1")}
        | {f"A{i}": step("M", 2, "~p1", "~p2", base=1.0 - i / 10) for i in range(3)}
    )
    forward = potentials(specific(reached, [[], []], 2))
    backward = potentials(specific(dict(reversed(list(reached.items()))), [[], []], 2))
    assert forward == backward


# the walk itself on a toy graph: a fake embedder whose phrases p1, p2 are orthogonal unit vectors


DIM = 64
BASIS = {"p1": 0, "p2": 1}


_embed = basis_embedder(BASIS, DIM)


def test_equal_paths_keep_the_same_parent_in_either_edge_order() -> None:
    """V is reached at equal potential through X1 (one more step) or X2 (three): which one the walk
    keeps decides V's factor, and must not follow the store's row order."""

    def edge(source: str, target: str, phrase: str) -> Edge:
        return Edge(source, target, "~" + phrase, 1.0, ("f",))

    edges = [edge("S", "X1", "p1"), edge("S", "X2", "p1"), edge("X1", "V", "p2"), edge("X2", "V", "p2")]
    edges += [edge("X2", "W1", "p2"), edge("X2", "W2", "p2")]
    question = np.zeros(DIM)
    question[[0, 1]] = 1.0

    async def run(reverse: bool) -> tuple[dict[str, Reached], dict[str, float]]:
        relate = PhraseVectors(_embed).relate(question.tolist())
        reached = await walk(ToyGraph(edges, reverse), "st", {"S": SEED}, set(), hops=2, relate=relate)  # type: ignore[arg-type]
        return reached, potentials(specific(reached, [[], []], 2))

    (first, first_after), (second, second_after) = asyncio.run(run(False)), asyncio.run(run(True))
    assert {e: r.via for e, r in first.items()} == {e: r.via for e, r in second.items()}
    assert first_after == second_after
    assert first_after["V"] > first_after["W1"]  # the walk's paths do matter: V's is the specific one
