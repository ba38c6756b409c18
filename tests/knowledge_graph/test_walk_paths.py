"""The walk's paths on hand-built graphs, in process (#28, session 12): a path never comes back to an
entity it passed (a cycle completed "steps" by going round, and the entity it came back to then
ranked as the chain's answer), and each hop extends the paths as they stood when it started (an
entity a path reached during a hop went on within that same hop, one hop more than the walk takes),
and a step is read from the path it extended (`Reached.prior`), not the one its entity ends with
(by `specific.py`, whose fan-out is what that path stepped to, and by `chunk_scores`);
an asked type the question places at a hop is no step of a path that has passed that hop; one
relation twice onward is two steps (the same relation from the other side, to a sibling, is not);
a three-hop chain's later words are no reason to step early, and two-hop plans are exempt from
both hop rules. A link is weak (`walk_step.weak`) when the fallback made it, not a rule.
"""

from __future__ import annotations

import asyncio

import numpy as np

from gateway.knowledge_graph import fallback
from gateway.knowledge_graph.extract import RuleExtractor
from gateway.knowledge_graph.hops import hop_plan
from gateway.knowledge_graph.index import build_file_graph
from gateway.knowledge_graph.patterns import cues
from gateway.knowledge_graph.phrases import PhraseVectors
from gateway.knowledge_graph.question import kind_nouns, relation_words
from gateway.knowledge_graph.specific import specific
from gateway.knowledge_graph.walk import Reached, chunk_scores, walk
from gateway.knowledge_graph.walk_step import weak
from storage.graph import Edge, MentionRow
from tests.support.toy_graph import Embed, ToyGraph, basis_embedder
from vectorstore.embedders import LocalEmbedder

SEED = Reached(1.0, 0, frozenset())


def _edge(source: str, target: str, kind: str) -> Edge:
    return Edge(source, target, kind, 1.0, ("f",))


def _walk(edges: list[Edge], asked: set[str], hops: int) -> dict[str, Reached]:
    return asyncio.run(walk(ToyGraph(edges), "st", {"S": SEED}, asked, hops=hops))  # type: ignore[arg-type]


def test_a_path_never_comes_back_to_an_entity_it_passed() -> None:
    """S -a-> X -b-> Y, and Y states relation c with X as well as with the answer Z: going back to X
    along c "completes" the three asked relations at X, the chain's first entity."""
    edges = [_edge("S", "X", "a"), _edge("X", "Y", "b"), _edge("Y", "X", "c"), _edge("Y", "Z", "c")]
    reached = _walk(edges, {"a", "b", "c"}, 3)
    assert reached["X"].hops == 1 and reached["X"].matched == {"a"}, reached["X"]
    assert reached["Z"].matched == {"a", "b", "c"}
    best = max(reached, key=lambda e: reached[e].potential())
    assert best == "Z"


def test_a_hop_extends_the_paths_as_they_stood_when_it_started() -> None:
    """A and B are both one hop out; A also leads to B by b. B's edge to C is read in the same hop
    as A's to B: C is two hops from S, by B's one-hop path, not three by the path B took mid-hop."""
    edges = [_edge("S", "A", "a"), _edge("S", "B", "a"), _edge("A", "B", "b"), _edge("B", "C", "c")]
    reached = _walk(edges, {"a", "b", "c"}, 2)
    assert reached["C"].hops == 2 and reached["C"].matched == {"a", "c"}, reached["C"]
    assert reached["B"].matched == {"a", "b"}  # B's own better path stands; the walk ends there
    assert all(r.hops <= 2 for r in reached.values())


# a question's hops, with a fake embedder: the phrases ~p1..~p3 are orthogonal unit vectors, the
# question is like each of them, and every other text (the question's words, the types' words) is
# orthogonal to all four
DIM = 64
BASIS = {"p1": 0, "p2": 1, "p3": 2}


_embed = basis_embedder(BASIS, DIM)


def _question_walk(
    question: str, edges: list[Edge], embed: Embed, axes: tuple[int, ...], hops: int, typed: bool = True
) -> dict[str, Reached]:
    """The walk over `edges` from S for `question` under the toy embedder `embed`, the question's
    vector a unit on each of `axes`; the question's cued types asked unless `typed` is False."""
    plan = hop_plan(question)
    vector = np.zeros(DIM)
    vector[list(axes)] = 1.0

    async def run() -> dict[str, Reached]:
        relate = PhraseVectors(embed).relate(
            vector.tolist(), relation_words(question), kind_nouns(question), lambda: (plan.words, plan.types)
        )
        asked = cues(question) if typed else set()
        return await walk(ToyGraph(edges), "st", {"S": SEED}, asked, hops=hops, relate=relate)  # type: ignore[arg-type]

    return asyncio.run(run())


def test_a_type_the_question_places_at_a_hop_is_no_step_after_the_path_passed_it() -> None:
    """ "Which county contains the town the chef of Dunmore Inn was born in?" places born_in at the
    second hop. The chain: the inn -p1-> its chef -born_in-> the town -p3-> the county. A path that
    took two other steps first (the inn -p1-> G -p2-> Z) and then a person born in Z is no chain of
    the question: it once tied the county, every step matched at the same weights."""
    question = "Which county contains the town the chef of Dunmore Inn was born in?"
    plan = hop_plan(question)
    assert plan.types == {"born_in": 1} and len(plan.words) == 3
    edges = [_edge("S", "C", "~p1"), _edge("C", "T", "born_in"), _edge("T", "K", "~p3")]
    edges += [_edge("S", "G", "~p1"), _edge("G", "Z", "~p2"), _edge("Q", "Z", "born_in")]
    reached = _question_walk(question, edges, _embed, (0, 1, 2, 3), hops=3)
    assert reached["K"].matched == {"~p1", "born_in", "~p3"}, reached["K"]
    assert "born_in" not in reached["Q"].matched, reached["Q"]
    assert reached["K"].potential() > reached["Q"].potential()


def _minilm_walk(question: str, edges: list[Edge]) -> dict[str, Reached]:
    """The walk over `edges` from S with the local MiniLM's likenesses, as the gateway runs it."""
    plan = hop_plan(question)
    embedder = LocalEmbedder()

    async def run() -> dict[str, Reached]:
        vector = (await embedder.embed([question]))[0]
        relate = PhraseVectors(embedder.embed).relate(
            vector, relation_words(question), kind_nouns(question), lambda: (plan.words, plan.types)
        )
        return await walk(ToyGraph(edges), "st", {"S": SEED}, cues(question), hops=3, relate=relate)  # type: ignore[arg-type]

    return asyncio.run(run())


def test_one_relation_twice_onward_is_two_steps_of_the_chain() -> None:
    """ "In which region is the town where the company that employs Ana Vell is located?" asks for
    located_in once, for a chain of three hops: the company is located in the town (located_in), the
    town "is situated in" the region (located_in again, in other words). Leaving the town as the
    source of the relation the path entered it as the target of is the chain going on, a step (it was
    "the same relation again", no step, and the region tied another company in the town)."""
    question = "In which region is the town where the company that employs Ana Vell is located?"
    assert cues(question) == {"located_in"} and len(hop_plan(question).words) == 3
    edges = [_edge("S", "C", "~works for"), _edge("C", "T", "located_in"), _edge("T", "R", "~is situated in")]
    edges += [_edge("B", "T", "~is based in")]  # another company in the town
    reached = _minilm_walk(question, edges)
    assert reached["R"].matched == {"~works for", "located_in", "~is situated in"}, reached["R"]
    assert reached["R"].potential() > 2 * reached["B"].potential()
    # both phrased ("is situated in" taken as located_in's step): "lies in" stands for located_in,
    # whose hop the path has passed, but is that relation again onward, no type after its hop
    edges = [_edge("S", "C", "~works for"), _edge("C", "T", "~is situated in"), _edge("T", "R", "~lies in")]
    edges += [_edge("B", "T", "~is based in")]
    reached = _minilm_walk(question, edges)
    assert reached["R"].matched == {"~works for", "located_in", "~lies in"}, reached["R"]


def test_the_same_relation_from_the_other_side_is_no_step_onward() -> None:
    """ "In which province is the town where the academy that trained Ana Vell stands?": "S was
    trained at A", then "A trained B" leaves the academy as the source of the relation the path
    entered it as the target of, but is the same relation stated from the other side (MiniLM: 0.85
    alike): another pupil, whose birthplace is no answer. It tied the province."""
    question = "In which province is the town where the academy that trained Ana Vell stands?"
    edges = [_edge("S", "A", "~was trained at"), _edge("A", "B", "~trained"), _edge("A", "T", "~stands in")]
    edges += [_edge("T", "R", "~lies in the province of"), _edge("B", "Z", "~was born in")]
    reached = _minilm_walk(question, edges)
    assert reached["R"].matched == {"~was trained at", "~stands in", "~lies in the province of"}, reached["R"]
    assert "~trained" not in reached["B"].matched, reached["B"]
    assert reached["R"].potential() > 2 * reached["Z"].potential()


# words with chosen likenesses to the phrases p1 (e0) and p9 (e6): "captain" 0.6 like p1, "harbour"
# 0.45 like p9 (under the 0.5 at which `hops.own` calls a relation plainly a later hop's)
WORDS = {"p9": {6: 1.0}, "captain": {0: 0.6, 5: 0.8}, "harbour": {6: 0.45, 7: 0.893}}


async def _embed_words(texts: list[str]) -> list[list[float]]:
    out = []
    for text, v in zip(texts, await _embed(texts), strict=True):
        if text.strip() in WORDS:
            v = [0.0] * DIM
            for i, x in WORDS[text.strip()].items():
                v[i] = x
        out.append(v)
    return out


def test_a_later_hops_words_are_no_reason_to_step_at_this_one() -> None:
    """ "Which harbour is home to the academy that trained the captain of the Orla Vey?": at the
    vessel, "p1" (like "captain", the first hop's word) is a step; "p9", like only "harbour" (the
    third hop's), is none there."""
    question = "Which harbour is home to the academy that trained the captain of the Orla Vey?"
    plan = hop_plan(question)
    assert plan.words[0] == ["captain"] and "harbour" in plan.words[2]
    edges = [_edge("S", "A", "~p1"), _edge("S", "W", "~p9")]
    reached = _question_walk(question, edges, _embed_words, (0,), hops=3, typed=False)
    assert reached["A"].matched == {"~p1"}, reached["A"]
    assert not reached["W"].matched, reached["W"]


def test_a_two_hop_plan_judges_its_first_relation_against_every_word() -> None:
    """ "Which harbour is home to the captain of the Orla Vey?" read as two hops: a relation only a
    little like the second hop's word ("p9", 0.45 like "harbour") is still a step at the first. Two-
    hop questions often name their first relation by a kind noun alone ("the area the place X was in
    belongs to"), and the second's words were its only likeness (masked lost six two-hop answers when
    two-hop plans were judged as three-hop ones are)."""
    question = "Which harbour is home to the captain of the Orla Vey?"
    plan = hop_plan(question)
    assert len(plan.words) == 2 and "harbour" in plan.words[1]
    reached = _question_walk(question, [_edge("S", "W", "~p9")], _embed_words, (0,), hops=2, typed=False)
    assert reached["W"].matched == {"~p9"}, reached["W"]


def test_a_two_hop_plan_holds_no_type_to_its_hop() -> None:
    """ "where is novelist ana vell's agent based?" is misread as two hops placing located_in at the
    first ("novelist ana vell" taken for the second hop's words): held to that hop, the agent's own
    located_in, the answer, was no step after the path matched "p1" (the agent). Only plans of three
    hops or more hold a type to its hop (`turns.trusted`)."""
    question = "where is novelist ana vell's agent based?"
    plan = hop_plan(question)
    assert plan.types == {"located_in": 0} and len(plan.words) == 2
    edges = [_edge("S", "A", "~p1"), _edge("A", "Z", "located_in")]
    reached = _question_walk(question, edges, _embed, (0, 1, 2, 3), hops=2)
    assert reached["Z"].matched == {"~p1", "located_in"}, reached["Z"]


async def _embed_born(texts: list[str]) -> list[list[float]]:
    """`_embed`, with "born in" (born_in's words) on an axis of its own and "q" ("came into the
    world in") mostly like it, a little like the question."""
    born = np.zeros(DIM)
    born[10] = 1.0
    q = 0.9 * born
    q[3] = 0.44
    out = []
    for text, v in zip(texts, await _embed(texts), strict=True):
        if text.strip() == "born in":
            v = born.tolist()
        elif text.strip() == "q":
            v = (q / np.linalg.norm(q)).tolist()
        out.append(v)
    return out


def test_a_phrase_standing_for_a_type_after_its_hop_is_no_step_either() -> None:
    """As `test_a_type_the_question_places_at_a_hop_is_no_step_after_the_path_passed_it`, with the
    third relation phrased ("Q came into the world in Z"): a phrase standing for born_in is held to
    born_in's hop as the type is (it was checked under its own words, never placed, and stepped)."""
    question = "Which county contains the town the chef of Dunmore Inn was born in?"
    edges = [_edge("S", "C", "~p1"), _edge("C", "T", "born_in"), _edge("T", "K", "~p3")]
    edges += [_edge("S", "G", "~p1"), _edge("G", "Z", "~p2"), _edge("Q", "Z", "~q")]
    reached = _question_walk(question, edges, _embed_born, (0, 1, 2, 3), hops=3)
    assert reached["K"].matched == {"~p1", "born_in", "~p3"}, reached["K"]
    assert "~q" not in reached["Q"].matched, reached["Q"]
    assert reached["K"].potential() > 4 * reached["Q"].potential()


def test_a_step_is_judged_by_the_path_it_extended_not_its_parents_later_one() -> None:
    """B is one hop out (S -c-> B); in the next hop A -c-> B gives B a better path (two steps), while
    B's one-hop path, as the hop started, leads on by ~p2 to C1 and C2 (two entities by one phrase), as
    D's leads to E alone. C1 and C2 extended B's one-hop path (`Reached.prior`), not the one B ends
    with: their phrase step to two is divided (`specific.py`) and ranks below E's step to one. Read
    through `via` (B's best path at the end, two hops like theirs), the step looked like no step of
    theirs: undivided, tied with E."""
    edges = [_edge("S", "A", "b"), _edge("S", "B", "c"), _edge("S", "D", "c"), _edge("A", "B", "c")]
    edges += [_edge("B", "C1", "~p2"), _edge("B", "C2", "~p2"), _edge("D", "E", "~p2")]
    question = np.zeros(DIM)
    question[BASIS["p2"]] = 1.0

    async def run() -> dict[str, Reached]:
        relate = PhraseVectors(_embed).relate(question.tolist())
        return await walk(ToyGraph(edges), "st", {"S": SEED}, {"b", "c"}, hops=2, relate=relate)  # type: ignore[arg-type]

    reached = asyncio.run(run())
    assert reached["B"].matched == {"b", "c"} and reached["B"].via == "A", reached["B"]  # B's better path
    assert reached["C1"].via == "B" and reached["C1"].prior is not None and reached["C1"].prior.matched == {"c"}
    assert reached["C1"].potential() == reached["E"].potential()  # the walk weighs the steps' kinds alone
    after = specific(reached, [[], []], 2)
    assert after["C1"].potential() == after["C2"].potential() < after["E"].potential()


def test_a_page_speaks_for_the_step_its_entity_took_not_its_later_path() -> None:
    """B ends with a better two-hop path ({a, b}, through A), while C (no page of its own) extended B's
    one-hop path ({a}) by c, and B's page names C: that page states C's step, so it scores as C does
    (`chunk_scores` reads the step from C's `prior`). Read through `reached[via]`, B's two-step path
    left C's step matching nothing new: the page scored as B's own."""
    b_one_hop = Reached(0.85, 1, frozenset({"a"}), "S", False, frozenset({"S"}), SEED)
    a = Reached(0.85, 1, frozenset({"x"}), "S", False, frozenset({"S"}), SEED)
    b = Reached(0.5, 2, frozenset({"a", "b"}), "A", False, frozenset({"S", "A"}), a)
    c = Reached(0.614, 2, frozenset({"a", "c"}), "B", False, frozenset({"S", "B"}), b_one_hop)
    reached = {"S": SEED, "A": a, "B": b, "C": c}
    rows = [MentionRow("B", "fB", "cB", 1, True), MentionRow("C", "fB", "cB", 1, False)]
    assert c.potential() > b.potential()
    scores = chunk_scores(rows, {}, reached, {"a", "b", "c"}, paged=frozenset({"B"}))
    assert scores["cB"] == c.potential()


def test_a_steps_fan_out_is_what_its_path_stepped_to_not_what_survives() -> None:
    """A's path leads by ~p1 to B and C; B later gets a better path (S -x-> Y -y-> W -a-> B). C's step
    is one of two whatever else the walk holds: with or without B's child D (reached in hop 3 from
    B's hop-2 path), C's factor is the same (`Reached.fan`, recorded as the steps are taken; counted
    over the paths the walk kept, D's prior alone kept B's stale path and with it B in the count)."""

    def factor(with_child: bool) -> float:
        edges = [_edge("S", "A", "a"), _edge("A", "B", "~p1"), _edge("A", "C", "~p1")]
        edges += [_edge("S", "Y", "x"), _edge("Y", "W", "y"), _edge("W", "B", "a")]
        edges += [_edge("B", "D", "~p2")] if with_child else []
        question = np.zeros(DIM)
        question[[BASIS["p1"], BASIS["p2"]]] = 1.0

        async def run() -> dict[str, Reached]:
            relate = PhraseVectors(_embed).relate(question.tolist())
            return await walk(ToyGraph(edges), "st", {"S": SEED}, {"a", "x", "y"}, hops=3, relate=relate)  # type: ignore[arg-type]

        reached = asyncio.run(run())
        assert reached["B"].via == "W" and reached["C"].via == "A", reached
        assert ("D" in reached) == with_child
        return specific(reached, [[], [], []], 3)["C"].potential() / reached["C"].potential()

    assert factor(False) == factor(True) < 1.0


def test_a_step_that_lost_its_entity_still_counts_in_its_paths_fan_out() -> None:
    """P and Q are one hop out; each leads by ~p1 to B, and on to C (from P) or D (from Q). B keeps
    P's path (the first of two equal ones), yet Q's path stepped to two entities by ~p1 as P's did:
    D's step is one of two, as C's is, not the one specific step Q's surviving children suggest."""
    edges = [_edge("S", "P", "a"), _edge("S", "Q", "a"), _edge("P", "B", "~p1"), _edge("P", "C", "~p1")]
    edges += [_edge("Q", "B", "~p1"), _edge("Q", "D", "~p1")]
    question = np.zeros(DIM)
    question[BASIS["p1"]] = 1.0

    async def run() -> dict[str, Reached]:
        relate = PhraseVectors(_embed).relate(question.tolist())
        return await walk(ToyGraph(edges), "st", {"S": SEED}, {"a"}, hops=2, relate=relate)  # type: ignore[arg-type]

    reached = asyncio.run(run())
    assert reached["B"].via == "P" and reached["D"].via == "Q", reached
    after = specific(reached, [[], []], 2)
    assert after["D"].potential() == after["C"].potential() < reached["D"].potential()


def test_a_link_is_weak_when_the_fallback_made_it_not_a_rule() -> None:
    """`walk_step.weak` tells the fallback's links from the rules' by weight alone: the fallback writes
    less than 1 per statement (`fallback.WEIGHT`, split among the names), a rule 1.0. Should either
    change, this fails rather than the walk silently holding rule-made links to the fallback's
    reading (or the reverse)."""
    assert fallback.WEIGHT < 1.0
    text = "# Pira Solde\n\nPira Solde is a fiddler. Travels: Dorn. Burial: Kessel, Ulm."
    graph = build_file_graph(RuleExtractor(), "s", "f", "pira.md", [("c", text)], [])
    links = {
        (r.type, r.target): weak(Edge(r.source, r.target, r.type, r.weight, ("f",)))
        for r in graph.relations
        if r.type != "co_occurs"
    }
    # a one-name key line is read by a rule; the two-name one only by the fallback
    assert links == {("~travels", "dorn"): False, ("~burial", "kessel"): True, ("~burial", "ulm"): True}, links
