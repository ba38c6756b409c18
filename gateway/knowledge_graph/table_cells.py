"""What the parts of a page's structured lines hold: whether a table's cell, a list's item or a field
line's value is wholly a name (`ChunkNames`, `listed`), and whether a label or caption names a
relation (`label_words`, `unqualified`, `dated_cell`). Split out of `tables.py`, which finds the
tables, lists and field lines of a chunk and turns them into relations with these readings (and
keeps under ~400 lines so): how the structure is laid out is its, what one cell says is this module's.

A cell counts as a name only when the extractor's spans cover it exactly (a lone word only when it
is a title of the store, or a part of a list of names the page also writes mid-sentence); a label
only when it is a few plain words in sentence case naming no one. Plain CPU work, linear in the cell.
"""

from __future__ import annotations

import re

from gateway.knowledge_graph.lexicon import FUNCTION, MAX_PHRASE_WORDS, PARTICIPLE, Span, normalise

# a label: plain words, the first perhaps capitalised ("Designer", "Place of birth", "Hulls built")
PLAIN = re.compile(r"[A-Za-z][a-z\-]*(?: [a-z][a-z\-]*){0,5}")
# what may follow an item's name: a description after a comma, a year or note in brackets
_ITEM_REST = re.compile(r"\s*(?:[,;\u2013\u2014:]\s*[^|]*|\([^()]*\)\s*)?\.?")
# a label or caption saying any of these names someone, no relation ("His works", "Our team")
PRONOUNS = frozenset("i you he she it we they his her its their my our your".split())
_SUBJECTS_OWN = frozenset({"its", "their"})
MAX_CAPTION_WORDS = 6  # a label or caption longer than this is a sentence, not a name for a relation
_QUALIFIER = re.compile(r"[ \t]+\([^()|]{1,30}\)")  # "Players (selected)": a label's bracketed note
_COORDINATION = re.compile(r",[ \t]+(?:and[ \t]+)?|[ \t]+and[ \t]+")  # "A, B and C", "A, B, and C"
# what may close a key-value row's value after its name: a bracketed year or note ("N (1883)", "N
# (b. 1950)") or a year after a comma ("Trouddstead, 1927"), when the row's fact happened or a
# person's dates; no other words ("N, Kelby" may be a place of N's, "N and more" a value)
_YEAR = r"(?<!\d)(?:1[0-9]{3}|20[0-9]{2})(?!\d)"  # a plausible year, four digits alone: not a port, a size
_CELL_NOTE = re.compile(rf"[ \t]*(?:\((?=[^()|]{{1,30}}\))[^()|\d]*{_YEAR}[^()|]*\)|,[ \t]*{_YEAR})[ \t]*")
# a key-value row's value opening on a year, then a preposition: "| Founded | 1901, by N |", "| Born |
# 1927 in P |" (the preposition joins the label's words, as a field line's date does: `tables._DATED`)
_CELL_DATED = re.compile(rf"{_YEAR},?[ \t]+(by|in|at|near)[ \t]+(?=[A-Z])")
_MID_SENTENCE = re.compile(r"\b[a-z]+[ \t]+([A-Z][a-z]+)\b")  # "moved to Kelby": a capitalised word mid-sentence


def label_words(text: str, row: bool = False) -> list[str]:
    """The words of a label or caption when it is plain words naming no one, else none. A label of
    a relation's participle and its preposition ("Based in", "Born", "Founded by") names the
    relation: only function words name none ("In", "Of the"). A key-value row's label (`row`) may
    say "its" or "their", the page's subject's ("Towns within its borders")."""
    words = text.strip()
    if not PLAIN.fullmatch(words) or len(words.split()) > MAX_CAPTION_WORDS:
        return []
    out = normalise(words).split()[:MAX_PHRASE_WORDS]
    if (PRONOUNS - (_SUBJECTS_OWN if row else frozenset())) & set(out) or all(w in FUNCTION for w in out):
        return []
    return out


class ChunkNames:
    """The names of a chunk by their span, so a cell or item is a name when one span is it exactly.
    A lone word only when it is a title of the store: capitalised single words in tables are as often
    values ("None", "Auto", "Always") as names, and nothing else in a cell tells them apart."""

    def __init__(self, text: str, spans: list[Span], keys: dict[int, str], titles: frozenset[str]) -> None:
        self.text = text
        self.at = {(s.start, s.end): keys[s.start] for s in spans if s.start in keys}
        self.starting = {s.start: s for s in spans if s.start in keys}
        self.keys = keys
        self.titles = titles
        self._in_prose: frozenset[str] | None = None

    def in_prose(self, word: str) -> bool:
        """Whether the page writes `word` capitalised after a lower-case word, in the middle of a
        sentence ("moved to Kelby"): a name's use; a value ("Fast", "Auto") is capitalised only as a
        cell's first word. Collected once per chunk (a table of thousands of rows asks for each)."""
        if self._in_prose is None:
            self._in_prose = frozenset(m.group(1) for m in _MID_SENTENCE.finditer(self.text))
        return word in self._in_prose

    def is_name(self, a: int, b: int) -> bool:
        """Whether text[a:b] is itself a name: a title of the store, or a name of two or more words the
        extractor found ("## Oslo", "| Anna Jones | ... |"); a lone capitalised word it found is as
        often a label's noun ("Founders", "Mayor")."""
        return self.text[a:b].strip().lower() in self.titles or self.cell(a, b) is not None

    def _named(self, name: str) -> bool:
        return " " in name.strip() or name.strip().lower() in self.titles

    def cell(self, a: int, b: int) -> str | None:
        """The key of the name that is the whole of text[a:b] (a trailing "." aside), else None."""
        if self.text[a:b].endswith("."):
            b -= 1
        key = self.at.get((a, b))
        return key if key is not None and self._named(self.text[a:b]) else None

    def word(self, a: int, b: int) -> str | None:
        """The key of a lone capitalised word the extractor found that is the whole of text[a:b]."""
        key = self.at.get((a, b))
        return key if key is not None and self.text[a:b].isalpha() and self.text[a].isupper() else None

    def item(self, a: int, b: int) -> str | None:
        """The key of the name an item opens with, when only a description or a note follows it."""
        span = self.starting.get(a)
        if span is None or not _ITEM_REST.fullmatch(self.text, span.end, b) or not self._named(span.text):
            return None
        return self.keys[a]


def unqualified(text: str, a: int, b: int) -> tuple[int, int]:
    """A label cell without the bracketed qualifier closing it ("Players (selected)", "Population
    (2021)"): the qualifier says which or when, the words before it what the row states."""
    m = _QUALIFIER.search(text, a, b)
    return (a, m.start()) if m and m.end() == b and m.start() > a else (a, b)


def listed(names: ChunkNames, a: int, b: int) -> list[str]:
    """The keys of the names a value cell holds: one name, or a coordination of names ("A and B",
    "A, B and C"), every part wholly a name (a cell with any other words in it is a value or a
    note: "Former students include A and B" is read as a sentence)."""
    key = names.cell(a, b)
    if key is None and (span := names.starting.get(a)) is not None and _CELL_NOTE.fullmatch(names.text, span.end, b):
        key = names.cell(a, span.end)  # "N (1883)", "N, 1927": a name and the year or note of the row's fact
    if key is not None:
        return [key]
    parts, pos = [], a
    for m in _COORDINATION.finditer(names.text, a, b):
        parts.append((pos, m.start()))
        pos = m.end()
    parts.append((pos, b))
    # in a list of two or more, a lone capitalised word the extractor found is a name too ("Prannport
    # and Veyrtton" before their pages are in the store) when the page also writes it in a sentence's
    # middle ("moved to Prannport") or another part is a name already: a value, "None" or "Auto",
    # stands alone, and a list of values ("Fast, Slow and Auto") is written nowhere else
    if len(parts) < 2:
        return []
    named = [names.cell(*part) for part in parts]
    lone = [names.word(*part) for part in parts]
    keys = [
        n or (w if w is not None and (any(named) or names.in_prose(names.text[p[0] : p[1]].strip())) else None)
        for n, w, p in zip(named, lone, parts, strict=True)
    ]
    return [k for k in keys if k is not None] if all(keys) else []


def dated_cell(text: str, row: list[tuple[int, int]]) -> re.Match[str] | None:
    """A key-value row's value opening on a year and a preposition ("| Founded | 1901, by N |"), as a
    field line's date (`tables._DATED`): only beside a participle label, alone or with that preposition
    ("Founded", "Born in"); "| Suite | 2000 at N |", "| Population | 2021 in P |" are no dates."""
    words = normalise(text[row[0][0] : row[0][1]]).split()
    d = _CELL_DATED.match(text, row[1][0], row[1][1])
    if d is None or not words or not PARTICIPLE.search(words[0]):
        return None
    return d if len(words) == 1 or (len(words) == 2 and words[1] == d.group(1)) else None
