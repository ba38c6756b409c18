""" "Here" and "It is where" on a place's page: the place the page is about (#28, as reviewed).

"N grew up here", "Here, N grew up", "It was here that N grew up", "It's where N grew up": N and
the page's subject, by the clause's verb group. Not on a page of a kind that is no place (a
product, a concept, a work: "It is where Python looks for modules"), and only where the clause says
it plainly: not negated or modal ("was never here", "could have died here": no fact), not with a
new subject or a noun in between ("before she came here", "the decision made here": "here" may be
another's), not for a name after a preposition or a possessor ("a visitor from N stayed here", "N's
son grew up here"). "Here" is "in" the place only when "<verb> in" is one of the patterns'
phrases, all of them locative ("grew up in", "settled in"); any other verb keeps its "here"
(`~came here`, `~left here`: a verb of motion is no "in"), one ending on a preposition its own
("drove from here" -> `~drove from`). Plain CPU work on one sentence.
"""

from __future__ import annotations

import re

from gateway.knowledge_graph.lexicon import AUX, BREAK, FUNCTION, GOVERNED, PHRASE, Span, normalise, typed

Relation = tuple[str, str, str, float]

_HERE = re.compile(r"\bhere\b", re.IGNORECASE)
# "here" before its clause's subject: fronted ("Here, N grew up") or clefted ("It was here that N ...")
_HERE_FIRST = re.compile(r"\s*(?:here\s*,?|it\s+(?:is|was)\s+here\s+that)\s+", re.IGNORECASE)
# "It is where N grew up", "It's where ...", "That was where ...": the pronoun is the page's place
_WHERE_FIRST = re.compile(r"\s*(?:it|this|that)(?:\s+(?:is|was)|\s*[\u2019']s)\s+where\s+", re.IGNORECASE)
# a list of names: "A, B and C", "A and B"
_JOINED = re.compile(r"\s*,?\s*(?:(?:and|or)\s+)?", re.IGNORECASE)
# words that keep a clause from stating where N is: negation and modals (no fact), a pronoun (a new
# subject: "before she came here"), a determiner (a noun "here" may belong to: "the decision made here")
_NOT_PLAIN = frozenset(
    """not never no nor cannot can could may might must shall should will would i you he she it we
    they a an the this that these those his her its their my our your""".split()
)
_MAX_VERB_WORDS = 6
_NO_PLACE = frozenset({"product", "concept", "work"})  # page kinds "here" and "where" cannot be


def _verb_group(text: str) -> list[str] | None:
    """The verb group of a clause's words (auxiliaries dropped), or None when the clause does not
    plainly state it (above), breaks ("," "and" "but") or is only "be" ("N is here")."""
    if not text.strip() or BREAK.search(text) or text.lstrip().startswith(("'s", "\u2019s")):
        return None
    words = normalise(text.replace("n't", " not").replace("n\u2019t", " not")).split()
    if not words or len(words) > _MAX_VERB_WORDS or any(w in _NOT_PLAIN or w.isdigit() for w in words):
        return None
    while words and words[0] in AUX:
        words.pop(0)
    return words if any(w not in FUNCTION for w in words) else None


def _relation(name: str, place: str, words: list[str], where: bool) -> Relation | None:
    """N <words> here/where, as a relation to the place: "in" only where that makes a pattern's phrase."""
    if words[-1] in FUNCTION:  # "drove from here": its own preposition
        return typed(name, place, words)
    rel = typed(name, place, [*words, "in"])
    if rel is None or where or not rel[2].startswith(PHRASE):  # "where" is "in which", as "P is where N ..."
        return rel
    return (name, place, PHRASE + " ".join([*words, "here"]), 1.0)


def here_relations(
    text: str, start: int, end: int, inside: list[Span], keys: dict[int, str], subject: tuple[str, str] | None
) -> list[Relation]:
    """The relations "here" (and "It is where") give one sentence on the page of a place (module doc)."""
    if not subject or subject[1] in _NO_PLACE or not inside:
        return []
    place = normalise(subject[0])
    out: list[Relation] = []
    first = inside[0]
    fronted = _HERE_FIRST.fullmatch(text, start, first.start)
    cleft = None if fronted else _WHERE_FIRST.fullmatch(text, start, first.start)
    if fronted or cleft:  # "Here, A and B grew up.", "It is where A grew up."
        k = 0
        while k + 1 < len(inside) and _JOINED.fullmatch(text, inside[k].end, inside[k + 1].start):
            k += 1
        cut = BREAK.search(text, inside[k].end, end)  # "Here, N grew up, and later ..."
        stop = cut.start() if cut else end
        clause = text[inside[k].end : stop].rstrip(" .!?;:")
        named = k + 1 < len(inside) and inside[k + 1].start < stop  # "Here, N met B": B's, not the place's
        if not named and (words := _verb_group(clause)) and not _HERE.search(clause):
            for span in inside[: k + 1]:
                if rel := _relation(keys[span.start], place, words, cleft is not None):
                    out.append(rel)
        return out
    for m in _HERE.finditer(text, start, end):  # "N grew up here (in the 1950s), but ..."
        before = [s for s in inside if s.end <= m.start()]
        if not before or GOVERNED.search(text, start, before[-1].start) or before[-1].text.endswith(("'s", "\u2019s")):
            continue
        name = before[-1]
        if (words := _verb_group(text[name.end : m.start()])) and (
            rel := _relation(keys[name.start], place, words, False)
        ):
            out.append(rel)
    return out
