"""Which name a relation's words are said of when it is not the name straight before them: the head
of "B in T" (`head_mention`: B, which "in T" only completes), the name or description an aside set
off by commas belongs to (`aside_head`, `set_off_from`: "The orchestra, founded in K, is directed by
C" is said of the orchestra, not K), and the subject after the comma of a phrase opening the
sentence (`fronted`: "Engineered by E, the L climbs" is said of L, not the page's subject).

Split out of `clauses.py`, which keeps what the words between and around names say (and under ~400
lines so): both `extract` (for a pattern's relation) and `clauses` (for a phrase relation) ask these
questions before they type the words. Plain CPU work on one sentence, as `extract` calls it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from gateway.knowledge_graph.lexicon import STOP, Span

# "X in Y": a name after a preposition belongs to the name before it, which heads the phrase
_ATTACHED = re.compile(r"\s+(?:in|at|on|near|of|from|outside|off)\s+(?:the\s+)?", re.IGNORECASE)
# "The estate, in P, belongs to N": a name set off by commas is an aside, and what follows the closing
# comma is said of what it is set off from
_ASIDE_CLOSE = re.compile(r"\s*,\s*(?:(?:is|are|was|were|has|have|had)\s+)?", re.IGNORECASE)
# "The estate" / "This mill": a description of the page's subject only when its noun is the page's
# kind (a word of its title, or of an "is a N" in the page); never a possessive ("Its rival", "His son"
# are someone else, `clauses`) and never any other noun ("The next year, in P, ...")
_DESCRIPTION = re.compile(r"\s*(?:the|this)\s+(?:[a-z][a-z\-]*\s+)?([a-z][a-z\-]*)\s*", re.IGNORECASE)
_KIND = re.compile(r"\b(?:is|was)\s+(?:a|an)\s+((?:[a-z][a-z\-]*\s*){1,3})", re.IGNORECASE)
# "Composed by X in 1903, W calls for ...": a phrase opening the sentence is said of the name after its
# comma when the subject's verb follows it (case-sensitive: no name), not a coordinator ("Written by A,
# B and C": a list, no subject)
_VERB_NEXT = re.compile(r" (?!(?:and|or|nor)\b)[a-z]")
_FRONTED_GAP = re.compile(r"[^,.;:!?]{0,40},\s*(?:the\s+)?", re.IGNORECASE)


def set_off_from(
    text: str, start: int, before: list[Span], comma: int, keys: dict[int, str], subject: str | None
) -> str | None:
    """What an aside opening at `comma` is set off from: the name just before the comma ("Domaine X,
    in P, ..."), or the page's subject when a description with no name opens the sentence ("The
    estate, in P, ..." when "estate" names the page's kind); "" when it is set off from something the
    sentence does not name ("Its rival, in P, ..."); None otherwise (a list, "A, B, C", sets nothing off)."""
    if before:
        last = before[-1]
        return keys[head_mention(text, before).start] if text[last.end : comma].strip() == "" else None
    described = _DESCRIPTION.fullmatch(text, start, comma)
    if subject and described and described.group(1).lower() in _kinds(text, subject):
        return subject
    return ""  # "Its rival, in P, ...", "The next year, in P, ...": set off from something unnamed


@lru_cache(maxsize=8)
def _kinds(text: str, subject: str) -> frozenset[str]:
    """The nouns that name the page's kind of thing: its title's words ("Sela Mill": mill) and the
    words of an "is a N" in the page ("X is a water mill"); cached, as one chunk asks for each aside."""
    words = set(subject.split())
    for m in _KIND.finditer(text):
        words.update(w for w in m.group(1).lower().split() if w not in STOP)
    return frozenset(words)


def aside_head(
    text: str, start: int, before: list[Span], at: int, keys: dict[int, str], subject: str | None
) -> str | None:
    """The head a verb at `at` belongs to when the name before it is set off by commas ("The orchestra,
    founded in K, is directed by C": the orchestra is; "" for something unnamed, "Its rival, in P, is
    owned by O": not P), else None."""
    last = before[-1]
    if not _ASIDE_CLOSE.fullmatch(text, last.end, at):
        return None
    prev_end = before[-2].end if len(before) > 1 else start
    comma = text.rfind(",", prev_end, last.start)
    if comma < 0 or not any(ch.isalpha() for ch in text[comma : last.start]):  # "A, B, made by": a list
        return None
    return set_off_from(text, start, before[:-1], comma, keys, subject)


def fronted(text: str, first: Span, nxt: Span, keys: dict[int, str]) -> str | None:
    """The name a phrase opening the sentence is said of ("Engineered by E, the L climbs": L, not the
    page's subject), when `nxt` follows the comma that closes the phrase after `first`; else None."""
    if _FRONTED_GAP.fullmatch(text, first.end, nxt.start) and _VERB_NEXT.match(text, nxt.end):
        return keys[nxt.start]
    return None  # "Written by A, B and C": a list, no subject after the comma


def head_mention(text: str, before: list[Span]) -> Span:
    """The mention a phrase after `before` belongs to: the last one, unless it only completes the
    one before it ("The Stoeljuk Bridge in Jyngbaar was designed by ...": the bridge was)."""
    k = len(before) - 1
    while k > 0 and _ATTACHED.fullmatch(text, before[k - 1].end, before[k].start):
        k -= 1
    return before[k]
