"""Coreference within one file: a person's short forms resolved to the full name seen first.

"Ana Moravec is an engineer. Moravec was born in Fexgrom." -> one entity, `ana moravec`. A surname
resolves wherever it stands. A given name alone ("Ana was born in Fexgrom") resolves only where it
is what a sentence is about, because given names are also the names of places and things
("Florence Nightingale ... She was born in Florence", "Paris Hilton visited Paris"): it must open
its sentence (no preposition before it), not be typed a place, not stand in a sentence that also
names the person in full, and not be defined by the sentence ("Lincoln is the capital of N": a
copula and an article after it introduce something new, not the person the page is about).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from gateway.knowledge_graph.lexicon import _STOP, normalise

_BOUNDARY = re.compile(r"[.!?;:\n]")
_DEFINED = re.compile(r"\s+(?:is|was|are|were)\s+(?:a|an|the)\b", re.IGNORECASE)
_LOOK = 400  # characters read around a given name (a bound, so hostile text stays linear)


def opens_sentence(text: str, start: int) -> bool:
    """Whether the name at `start` is the first word of its sentence, a capitalised function word
    ("Then", "Later") aside."""
    lead = text[max(0, start - 40) : start]
    cut = max((m.end() for m in _BOUNDARY.finditer(lead)), default=-1)
    if cut < 0 and start > 40:
        return False
    lead = lead[cut:] if cut >= 0 else lead
    return not lead.strip() or lead.strip().lower() in _STOP


def _sentence_after(text: str, end: int) -> str:
    m = _BOUNDARY.search(text, end, end + _LOOK)
    return text[end : m.start() if m else end + _LOOK]


class _Titles(Protocol):
    @property
    def names(self) -> Sequence[str]:  # the store's titles (a `Gazetteer`)
        ...


class Coreference:
    """Short forms of a document's people, resolved to the full name seen first in the same document.

    Kept across a file's chunks (in order), so a surname in chunk 3 finds the name of chunk 1. A
    short form two names of the document share resolves to neither (a given name also opens the
    names of things: "Orla" in "Orla Vance" and "Orla Quartet"); one that is itself a title of the
    corpus (a place called "Moravec") is left alone.
    """

    def __init__(self, known: _Titles) -> None:
        self._known = {normalise(n) for n in known.names}
        self.short: dict[str, str | None] = {}  # surname key -> full name key (None: ambiguous)
        self._given: dict[str, str | None] = {}  # given name key -> full name key (None: ambiguous)
        self._opens: dict[str, str] = {}  # first word of a name of any kind -> that name

    def note(self, key: str, kind: str) -> None:
        words = key.split()
        if len(words) < 2:
            return
        first = words[0]
        if self._opens.setdefault(first, key) != key:  # two names open with one word: it is neither's
            self._given[first] = None
        elif kind == "person" and first not in self._known:
            self._given.setdefault(first, key)
        if kind != "person":
            return
        last = words[-1]
        if last in self._known:
            return
        if self.short.get(last, key) != key:
            self.short[last] = None
        else:
            self.short[last] = key

    def resolve(self, key: str, text: str = "", start: int = 0, end: int = 0, kind: str = "entity") -> str:
        """The full name `key` stands for, or `key`; a given name only as its sentence's subject
        (the mention is text[start:end]; no text: no given name resolves)."""
        if key in self.short:
            return self.short[key] or key
        full = self._given.get(key)
        if not full or not text or kind == "place" or not opens_sentence(text, start):
            return key
        rest = _sentence_after(text, end)
        if _DEFINED.match(rest) or full in normalise(rest):
            return key
        return full
