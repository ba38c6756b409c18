"""The grammar of a question for the `kg` ranker: the words it names its relations by, grouped per
hop of its chain, and the pattern types each hop asks for (#28). How many relations the chain has
is `question_steps.steps`; a request or a bare noun phrase is read as the question it asks
(`question_request.as_question`): both are imported from here too, as before the split. No
relation word, template or domain is named here: only function words (determiners, prepositions,
auxiliaries, question words) and the shapes of the clauses they open.
"""

from __future__ import annotations

import re
from typing import TypeVar

from gateway.knowledge_graph.extract import _STOP
from gateway.knowledge_graph.patterns import CUES, cues
from gateway.knowledge_graph.question_parse import parse, phrases
from gateway.knowledge_graph.question_request import as_question
from gateway.knowledge_graph.question_steps import steps
from gateway.knowledge_graph.question_words import AUXILIARY, DETERMINER, TOKEN, WH, looks_like_name

T = TypeVar("T")

# the names keys.py imports from here (the ranker's own names before question_parse held them)
_AUXILIARY = AUXILIARY
_name = looks_like_name

# the names the ranker, the hop plan, the service and the tests import from here
__all__ = [
    "MAX_RELATION_WORDS",
    "TOKEN",
    "as_question",
    "cue_words",
    "hop_cues",
    "hop_groups",
    "hop_words",
    "kind_nouns",
    "relation_words",
    "steps",
]

# a chain of three hops names a handful of relations: more words are no question (and each is embedded)
MAX_RELATION_WORDS = 12


# nouns that name a kind of thing, not a relation: the answer's after "which"/"what" ("In which town
# ...", "What river ...") or after an opening imperative ("Name the island ..."), and the head of a
# relative clause ("the physician who established X", "the vault where X is stored")
# (not a relation noun of what follows, "Which mentor of X ...", nor after an opening auxiliary,
# "Was the mentor of X ...", nor a verb before "where"/"who", "check where": a determined noun only)
_KIND_NOUNS = re.compile(
    r"\b(?i:which|what)\s+([a-z]\w*)\b(?!\s+of\b)"
    r"|^\W*(?!(?i:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|may|might|must)\b)"
    r"[A-Z]\w*\s+(?:the|a|an)\s+([a-z]\w*)"
    rf"|\b(?i:{DETERMINER})\s+(?:[a-z]\w*\s+)?(?!(?:by|to|for|with|from|under)\b)([a-z]\w*)\s+"
    r"(?:(?:by|to|for|with|from|under)\s+whom|who|whom|that|which|where)\b"
)


def kind_nouns(query: str) -> set[str]:
    """The question's words that name the kind of an entity on its chain rather than a relation
    (see `_KIND_NOUNS`): "town" and "physician" in "In which town did the physician who
    established X grow up?", whose relations are "established" and "grow"."""
    out = set()
    for m in _KIND_NOUNS.finditer(query):
        word = next(g for g in m.groups() if g is not None).lower()
        if word not in _STOP and word not in AUXILIARY and not WH.fullmatch(word):
            out.add(word)
    return out


def cue_words(query: str) -> set[str]:
    """The question's words inside a phrase that asks for a pattern type ("grew" of "grew up",
    `patterns.CUES`): that type names their relation, they name none beyond it."""
    out: set[str] = set()
    for regex in CUES.values():
        for m in regex.finditer(query):
            out.update(t.lower() for t in TOKEN.findall(m.group(0)))
    return out


def relation_words(query: str) -> list[str]:
    """The words a question names its relations by ("Where was the mentor of the Kvostbird
    Infirmary's founder raised?" -> mentor, founder, raised): its lower-case words that are no
    function word, auxiliary, question word or link, and not its opening word (an imperative,
    "Name the ..."; a request's opening words, "I need the ...", `as_question`). Names are entities,
    not relations."""
    tokens = TOKEN.findall(as_question(query))
    out: list[str] = []
    for i, t in enumerate(tokens):
        w = t.lower().removesuffix("'s").removesuffix("\u2019s").strip("'\u2019")
        if i == 0 or looks_like_name(t) or len(w) < 3 or w in _STOP or w in AUXILIARY or WH.fullmatch(w):
            continue
        out.append(w)
    return list(dict.fromkeys(out))[:MAX_RELATION_WORDS]


def _acronym(token: str) -> bool:
    return (len(token) >= 2 and token.isupper()) or any(ch.isdigit() for ch in token)


def hop_words(query: str) -> list[list[str]]:
    """The question's relation words (`relation_words`) grouped by hop of its chain, in the order a
    walk takes them: the relation of the entity the question names first, the one whose target is
    the answer last ("In which province is the town where the founder of Acme Yard was born?" ->
    [founder], [town], [province]: the founding is read inside the clause whose verb, "born",
    closes it; a clause's head noun, "town", names its target's kind). The nesting is read by
    `question_parse`. One group per step (`steps`: when the two reads differ, the outer groups are
    merged or empty ones added), so always as many groups as `steps` counts (one empty group for
    text with no word); a group may be empty when its relation is named only by words
    `relation_words` leaves out ("born", "founded": `extract._STOP`)."""
    allowed = set(relation_words(query))
    return [[w for w in group if w in allowed] for group in hop_groups(query)]


def hop_groups(query: str) -> list[list[str]]:
    """The nesting read's (`question_parse`) content words as `steps` groups, innermost first (the
    outer clauses merged when the read finds more relations than `steps` counts, empty groups added
    when fewer): what `hop_words` filters to relation words, and what the hop plan places the asked
    types' cues in (`hops.hop_plan`)."""
    query = as_question(query)
    return [list(dict.fromkeys(w for g in step for w in g)) for step in _per_step(parse(query)[0], steps(query))]


def hop_cues(query: str) -> list[set[str]]:
    """The pattern types (`patterns.CUES`) each hop of `hop_words` asks for, from its own words with
    the particles and prepositions after them ("Where was the founder of Acme born?" ->
    {founded_by}, {born_in}): the words `relation_words` leaves out ("born", "set up") name their
    hop's type here. One set per step, aligned with `hop_words`."""
    query = as_question(query)
    groups = [cues(text) for text in phrases(query)]
    return [set().union(*step) for step in _per_step(groups, steps(query))]


def _per_step(groups: list[T], n: int) -> list[list[T]]:
    """The read's groups as `n` steps: when the nesting read finds more relations than `steps`
    counts, the outer ones are one step; when fewer, the missing outer steps have none."""
    out = [[g] for g in groups[: n - 1]] + ([groups[n - 1 :]] if len(groups) >= n else [])
    while len(out) < n:
        out.append([])
    return out
