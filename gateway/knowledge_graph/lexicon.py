"""What every extraction module shares about words: the key an entity is stored and looked up by
(`normalise`), a found name's place in the text (`Span`), the function words no name or relation is
made of (`STOP`, `FUNCTION`, `AUX`, `GOVERNED`, `BREAK`, `PARTICIPLE`), and how a relation's own
words become its type (`typed`: a pattern's type, else a phrase relation, `PHRASE`).

Split out of `clauses.py` (which keeps one sentence's phrase relations and the grammar that moves a
relation's words, and under ~400 lines so): the names, tables, lists, "here", fallback and
coreference modules read these too, and none of them needs a clause's grammar to do so. Pure
functions and constants; `normalise` keeps names (not longer text) in a per-process cache.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from gateway.knowledge_graph.patterns import PATTERNS

# Capitalised words that open sentences or headings and are no names.
STOP = frozenset(
    """a an the this that these those it its he she his her they their them we our you your i my
    in on at by for from to of with as and or but if when while after before during since until
    today yesterday later also however although though because so then there here what which who
    whom whose where why how all some many most each every no not one two three first second last
    new old other another such many much more founded born made based located built designed
    developed established started led owned part mr mrs ms dr st january february march april may
    june july august september october november december monday tuesday wednesday thursday friday
    saturday sunday is was are were be been has had have do does did will would can could should
    among between both either neither""".split()
)
_STOP = STOP  # the name other modules have read it by


def normalise(name: str) -> str:
    """The key an entity is stored and looked up by: case, accents, punctuation and spacing ignored.
    Names are kept per process (they recur in every question and chunk); longer text, such as a
    stretch of a sentence, is not, or the cache would hold megabytes of a tenant's text."""
    return _normalise_name(name) if len(name) <= _CACHED_UP_TO else _normalise(name)


_CACHED_UP_TO = 80


@lru_cache(maxsize=65536)
def _normalise_name(name: str) -> str:
    return _normalise(name)


def _normalise(name: str) -> str:
    text = unicodedata.normalize("NFKD", name)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    text = re.sub(r"[\u2019']s\b", "", text)
    text = re.sub(r"[^\w]+", " ", text)
    return " ".join(text.split())


@dataclass(frozen=True, slots=True)
class Span:
    text: str
    type: str
    start: int
    end: int


# the endings of English past participles ("composed", "written", "drawn", "built", "bought", "run",
# "made", "held"); "Einstein by all accounts", "Berlin by night" are names, and keep them
PARTICIPLE = re.compile(r"(?:ed|en|wn|rn|un|ung|und|ade|lt|pt|ght|eld|old|ot|id|et|ut|nt|one|uck)$", re.IGNORECASE)
PHRASE = "~"  # the type prefix of a relation named by its own words ("~came into the world in")
MAX_PHRASE_WORDS = 8
BREAK = re.compile(r",|\s(?:and|but|then|while)\s", re.IGNORECASE)
# Function words: a phrase made of nothing else names no relation. The participles of STOP
# ("built", "designed") are words of a relation here, not sentence openers.
FUNCTION = STOP - frozenset(
    "founded born made based located built designed developed established started led owned".split()
)
GOVERNED = re.compile(
    r"\b(?:in|at|on|from|of|with|by|near|to|for|under|about|into|over|after|before|since|than)\s+(?:the\s+)?$",
    re.IGNORECASE,
)
AUX = frozenset("is are was were has have had be been being will would can could does did do also".split())


def typed(src: str, dst: str, words: list[str]) -> tuple[str, str, str, float] | None:
    """`src words dst` as a relation: a pattern's type when the words are exactly one of its
    phrases (so "grew up in" is `born_in` however the sentence ordered it), else a phrase relation."""
    if not words or src == dst:
        return None
    phrase = " ".join(words)
    core = " ".join(words[next((i for i, w in enumerate(words) if w not in AUX), 0) :])  # "was born in"
    for pattern in PATTERNS:
        m = pattern.regex.search(core)
        if m and m.start() == 0 and m.end() == len(core):
            return (src, dst, pattern.type, 1.0) if pattern.forward else (dst, src, pattern.type, 1.0)
    return (src, dst, PHRASE + phrase, 1.0)
