"""Which hop of the question's chain a path is at, for the walk (#28, session 12): an asked type the
question places at a hop is no step of a path that has passed that hop.

`hops.own_type` keeps a later hop's type from being taken early; this is the other side: a type the
question's grammar places at hop k (`hops.hop_plan`) is the chain's (k+1)-th relation, so a path that
has matched more than k steps took another relation in its place, and the type is no step of it
("the county containing the town X's chef was born in": after "X part of Y" and "Z is home to Y", a
person born in Z is no third step; as a third step it completed the chain at as many steps as the
right one, on the spent corpora's three-hop questions). A path that matched fewer steps (one its
words did not match, walked at its low weight) may still take the type. Only a plan that can be
trusted so far holds a type to its hop: three relations or more, no two asked types in one hop (a
two-relation plan misread a lower-case name as a hop's words: "where is novelist x's agent based?"
placed "based" at the first hop, and draped lost two two-hop answers when it held). "Hop k" here
is counted in matched steps (`len(Reached.matched)`), not in hops walked.

A phrase taken by its words (not as an asked type's step) is held too when it stands for the
passed type: its likest type, more like the phrase than any open word of the question is. Not when
it is that relation again onward (the path used the type already, or goes on through the entity it
entered: "headquartered in T", "T lies in the canton of R"). Held by its likest type alone (any
phrase whose nearest type was the passed one, "learned the trade from" for made_by), blind's
three-hop questions fell 75.6 → 68.9 % (reviewer's run); held this way, none lost (MRR up).
"""

from __future__ import annotations

from gateway.knowledge_graph.phrases import Likeness


def passed(relate: Likeness | None, kind: str, hops_taken: int, steps_matched: int) -> bool:
    """Whether the asked type `kind` (or a phrase standing for it) belongs to a hop a path of
    `hops_taken` hops that matched `steps_matched` steps has passed."""
    if relate is None or hops_taken >= relate.hop_count:
        return False
    placed = relate.hop_types.get(kind)
    return placed is not None and placed < steps_matched and trusted(relate)


def trusted(relate: Likeness) -> bool:
    """Whether the question's hop plan holds its types to their hops: a chain of three relations or
    more placing no two asked types in one hop."""
    if relate.hop_count < 3:
        return False
    placed = list(relate.hop_types.values())
    return len(placed) == len(set(placed))
