"""Entity and relation extraction: one `Extractor` interface, a default that needs no model weights.

An extractor only finds entity spans (`spans`); relations come from the same place for every
extractor (`extract`): a relation pattern between two mentions in one sentence ("X was founded by
Y"), with the document's subject (its title) standing in when the sentence opens with a pronoun
("It was founded by Y"), and co-occurrence within a chunk otherwise, weighted by how many entities
share it. Everything here is plain CPU work, run in a thread by the caller.

`RuleExtractor` (the default) finds proper-noun spans (capitalised words, joined by "of", "de",
"van", ...), model codes ("ZX-81", "Orbis 9X"), titles of works in quotes ('"The Quiet Harbour"'),
and the corpus's own titles wherever they appear, in any case. Within one file, a person's surname
after their full name is that person (`Coreference`). A capitalised word that only opens a sentence
("After", "Today") is not a name: a word-list and the text's own lower-case uses tell it apart.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Protocol

from gateway.knowledge_graph.patterns import PATTERNS

_WORD = re.compile(r"[^\W_][\w'\u2019\-\.&]*[^\W_]|[^\W_]", re.UNICODE)
_SENTENCE = re.compile(r"(?<=[.!?;:])\s+|\n+")
_CODE = re.compile(r"^(?=[^\d]*\d)(?=.*[^\W\d_])[\w\-\.]+$")  # letters and digits: X7, ZX-81, A320neo
_CLAUSE = re.compile(r"\s(?:and|but|then|while)\s", re.IGNORECASE)  # a new clause: its subject is the sentence's
_QUOTED = re.compile(r"[\"\u201c]([A-Z0-9][^\"\u201d\n]{0,78}[^\s\"\u201d])[\"\u201d]")
_OBJECT_PRONOUN = re.compile(r"\s+(?:it|him|her|them)\b", re.IGNORECASE)
_CONNECTORS = frozenset({"of", "de", "del", "della", "da", "di", "von", "van", "der", "den", "la", "le", "du", "&"})
# Capitalised words that open sentences or headings and are no names.
_STOP = frozenset(
    """a an the this that these those it its he she his her they their them we our you your i my
    in on at by for from to of with as and or but if when while after before during since until
    today yesterday later also however although though because so then there here what which who
    whom whose where why how all some many most each every no not one two three first second last
    new old other another such many much more founded born made based located built designed
    developed established started led owned part mr mrs ms dr st january february march april may
    june july august september october november december monday tuesday wednesday thursday friday
    saturday sunday is was are were be been has had have do does did will would can could should""".split()
)
_ORG_WORDS = frozenset(
    """inc corp corporation co company ltd llc gmbh ag sa group labs lab laboratories systems industries
    dynamics works foundry motors technologies technology tech holdings partners studio studios
    institute university college bank foundation agency society association council ministry
    press records media networks robotics aerospace electronics instruments devices software optics
    analytics energy pharma pharmaceuticals foods airlines shipping mining chemicals""".split()
)
_PLACE_WORDS = frozenset("city town village river lake mount island bay valley county province port".split())


@lru_cache(maxsize=65536)
def normalise(name: str) -> str:
    """The key an entity is stored and looked up by: case, accents, punctuation and spacing ignored.
    Kept per process: names and titles recur in every question and chunk."""
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


@dataclass(slots=True)
class ChunkGraph:
    """What one chunk says: entity names with their types and counts, and relations by name."""

    entities: dict[str, tuple[str, str]] = field(default_factory=dict)  # key -> (name, type)
    counts: Counter[str] = field(default_factory=Counter)
    relations: list[tuple[str, str, str, float]] = field(default_factory=list)  # (source, target, type, weight)
    aliases: dict[str, set[str]] = field(default_factory=dict)  # key -> the short forms resolved to it


class Extractor(Protocol):
    """Finds entity spans in text; synchronous (CPU or model inference): callers run it in a thread."""

    name: str

    def spans(self, text: str, known: Gazetteer) -> list[Span]: ...


class Gazetteer:
    """The corpus's titles as entity names, found in any case as whole words."""

    def __init__(self, titles: Sequence[str]) -> None:
        names = sorted({t.strip() for t in titles if 2 <= len(t.strip()) <= 80}, key=len, reverse=True)
        self.names = names
        self._regex = (
            re.compile(r"(?<!\w)(?:" + "|".join(map(_escape, names)) + r")(?!\w)", re.IGNORECASE) if names else None
        )

    def find(self, text: str) -> list[tuple[int, int]]:
        return [] if self._regex is None else [m.span() for m in self._regex.finditer(text)]


@lru_cache(maxsize=65536)
def _escape(name: str) -> str:
    """`re.escape`, kept per process: each file's gazetteer is the store's titles again, plus one."""
    return re.escape(name)


def guess_type(name: str, context: str = "") -> str:
    words = name.split()
    low = [w.lower().strip(".,") for w in words]
    if any(_CODE.match(w) for w in words):
        return "product"
    if low and (low[-1] in _ORG_WORDS or low[0] in _ORG_WORDS):
        return "organization"
    if low and (low[-1] in _PLACE_WORDS or low[0] in _PLACE_WORDS):
        return "place"
    if re.search(r"\b(?:in|at|near|from)\s*$", context, re.I) and len(words) <= 2:
        return "place"
    if 2 <= len(words) <= 3 and all(w[:1].isupper() and w[1:].islower() for w in words):
        return "person"
    return "entity"


class RuleExtractor:
    """Proper nouns, model codes and known titles; no model weights."""

    name = "rules"

    def spans(self, text: str, known: Gazetteer) -> list[Span]:
        found: list[Span] = [Span(text[a:b], guess_type(text[a:b]), a, b) for a, b in known.find(text)]
        taken = [(s.start, s.end) for s in found]
        for m in _QUOTED.finditer(text):  # titles of works: 'wrote "The Quiet Harbour"'
            a, b = m.span(1)
            if not any(a < te and ts < b for ts, te in taken):
                found.append(Span(text[a:b], "work", a, b))
                taken.append((a, b))
        lower_words = {w.lower() for w in _WORD.findall(text) if w[:1].islower()}
        for sentence in _sentences(text):
            start0, body = sentence
            tokens = list(_WORD.finditer(body))
            i = 0
            while i < len(tokens):
                if not _namelike(tokens[i].group()):
                    i += 1
                    continue
                j = i
                while j + 1 < len(tokens):
                    nxt = tokens[j + 1].group()
                    gap = body[tokens[j].end() : tokens[j + 1].start()]
                    if gap.strip() not in ("", "-"):
                        break
                    if _namelike(nxt):
                        j += 1
                    elif nxt.lower() in _CONNECTORS and j + 2 < len(tokens) and _namelike(tokens[j + 2].group()):
                        j += 2
                    else:
                        break
                words = [t.group() for t in tokens[i : j + 1]]
                a = i
                # drop capitalised function words that open the span ("The Orbis", "After Quillon")
                while words and words[0].lower() in _STOP and not _CODE.match(words[0]):
                    words.pop(0)
                    a += 1
                if words and not (a == 0 and len(words) == 1 and words[0].lower() in lower_words):
                    s, e = start0 + tokens[a].start(), start0 + tokens[j].end()
                    # a known title inside a longer name is part of it ("Skaurdboen" in "Skaurdboen
                    # Observatory"): the longer name wins; any other overlap keeps the title
                    inner = [k for k, (ts, te) in enumerate(taken) if s <= ts and te <= e and (ts, te) != (s, e)]
                    if inner and all(s <= ts and te <= e for ts, te in (taken[k] for k in inner)):
                        for k in sorted(inner, reverse=True):
                            del taken[k], found[k]
                    if not any(s < te and ts < e for ts, te in taken):
                        name = text[s:e].rstrip(".")
                        found.append(Span(name, guess_type(name, body[: tokens[a].start()]), s, s + len(name)))
                        taken.append((s, e))
                i = j + 1
        return sorted(found, key=lambda sp: sp.start)


def _namelike(word: str) -> bool:
    return bool(word[:1].isupper() or _CODE.match(word)) and word.lower() not in {"i"}


def _sentences(text: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    pos = 0
    for m in _SENTENCE.finditer(text):
        out.append((pos, text[pos : m.start()]))
        pos = m.end()
    out.append((pos, text[pos:]))
    return [(p, s) for p, s in out if s.strip()]


class Coreference:
    """Short forms of a document's people, resolved to the full name seen first in the same document:
    "Ana Moravec is an engineer. Moravec was born in Fexgrom." → one entity, `ana moravec`.

    Kept across a file's chunks (in order), so a surname in chunk 3 finds the name of chunk 1. A
    surname two people of the document share resolves to neither; a surname that is itself a title
    of the corpus (a place called "Moravec") is left alone.
    """

    def __init__(self, known: Gazetteer) -> None:
        self._known = {normalise(n) for n in known.names}
        self.short: dict[str, str | None] = {}  # surname key -> full name key (None: ambiguous)

    def note(self, key: str, kind: str) -> None:
        words = key.split()
        if kind != "person" or len(words) < 2:
            return
        last = words[-1]
        if last in self._known:
            return
        if self.short.get(last, key) != key:
            self.short[last] = None
        else:
            self.short[last] = key

    def resolve(self, key: str) -> str:
        return self.short.get(key) or key


def extract(
    extractor: Extractor,
    text: str,
    *,
    known: Gazetteer,
    subject: tuple[str, str] | None = None,
    coref: Coreference | None = None,
) -> ChunkGraph:
    """Entities and relations of one chunk. `subject` is (name, type) of what the document is about;
    `coref` carries the document's people from chunk to chunk (a new one per chunk if not given)."""
    graph = ChunkGraph()
    coref = coref or Coreference(known)
    if subject:
        coref.note(normalise(subject[0]), subject[1])
    spans = [s for s in extractor.spans(text, known) if normalise(s.text)]
    span_keys: dict[int, str] = {}
    for span in spans:
        key = normalise(span.text)
        coref.note(key, span.type)
        key = coref.resolve(key)
        span_keys[span.start] = key
        graph.counts[key] += 1
        if key not in graph.entities or graph.entities[key][1] in ("entity", "title"):
            graph.entities[key] = (span.text, span.type)
        if normalise(span.text) != key:
            graph.aliases.setdefault(key, set()).add(span.text)
    subject_key = normalise(subject[0]) if subject else None
    if subject and subject_key and subject_key not in graph.entities:
        graph.entities[subject_key] = subject
    for start, sentence in _sentences(text):
        end = start + len(sentence)
        inside = [s for s in spans if start <= s.start < end]
        used: list[tuple[int, int]] = []  # "founded by" must not match "founded" again
        for pattern in PATTERNS:
            for m in pattern.regex.finditer(sentence):
                a, b = start + m.start(), start + m.end()
                if any(a < ue and ua < b for ua, ue in used) or any(s.start < b and a < s.end for s in inside):
                    continue
                before = [s for s in inside if s.end <= a]
                after = [s for s in inside if s.start >= b]
                # no name before the phrase ("It was founded by ...", "Born in ..."): the document's subject
                left = span_keys[_head(text, before).start] if before else subject_key
                if before and _CLAUSE.search(text, before[-1].end, a):  # "X was born in Y and studied at Z"
                    opener = inside[0]
                    lead = text[start : opener.start].strip()
                    left = span_keys[opener.start] if not lead or lead.lower() in _STOP else subject_key
                right = span_keys[after[0].start] if after else None
                if right is None and _OBJECT_PRONOUN.match(sentence, b - start):  # "Y established it"
                    right = subject_key
                forward = pattern.forward or bool(  # "X was founded in 1881 by Y": the passive of "founded"
                    after and _PASSIVE.search(sentence, 0, m.start()) and _BY.search(text, b, after[0].start)
                )
                if left and right and left != right:
                    used.append((a, b))  # words that named no relation stay free for a phrase
                    src, dst = (left, right) if forward else (right, left)
                    graph.relations.append((src, dst, pattern.type, 1.0))
        graph.relations += _phrases(text, start, sentence, inside, span_keys, subject_key, used)
    keys = list(graph.counts)[:25]
    if subject_key and subject_key not in keys:
        keys.append(subject_key)
    if len(keys) > 1:
        weight = 1.0 / (len(keys) - 1)
        for i, x in enumerate(keys):
            for y in keys[i + 1 :]:
                src, dst = sorted((x, y))
                graph.relations.append((src, dst, "co_occurs", weight))
    return graph


PHRASE = "~"  # the type prefix of a relation named by its own words ("~came into the world in")
MAX_PHRASE_WORDS = 8
_BREAK = re.compile(r",|\s(?:and|but|then|while)\s", re.IGNORECASE)
# Function words: a phrase made of nothing else names no relation. The participles of _STOP
# ("built", "designed") are words of a relation here, not sentence openers.
_FUNCTION = _STOP - frozenset(
    "founded born made based located built designed developed established started led owned".split()
)
_PASSIVE = re.compile(r"\b(?:is|are|was|were|been|be|being)\s+$", re.IGNORECASE)
_BY = re.compile(r"\bby\s*$", re.IGNORECASE)
# "X in Y": a name after a preposition belongs to the name before it, which heads the phrase
_ATTACHED = re.compile(r"\s+(?:in|at|on|near|of|from|outside|off)\s+(?:the\s+)?", re.IGNORECASE)
# grammar that puts a relation's words elsewhere than between its two names
_RELATIVE = re.compile(r"\s*,?\s*(?:which|that|whom|who)\s+", re.IGNORECASE)  # "B, which N designed"
_CLEFT = re.compile(r"\s+(?:is|was|are|were)\s+where\s+", re.IGNORECASE)  # "P is where N grew up"
_CLEFT_PRONOUN = re.compile(r"\s+(?:is|was|are|were)\s+where\s+(?:he|she|it|they)\s+", re.IGNORECASE)
# "Its skipper, N, ...", "X's mentor, the botanist N": the possessor's role, named by the noun
_APPOSITIVE = re.compile(
    r"(?:^|[,;(]\s*)(?:(?P<own>its|his|her|their)\s+|[\u2019']s\s+)(?P<noun>[a-z][a-z\- ]{0,40}?)\s*,\s*"
    r"(?:the\s+[a-z][\w\-]*\s+)?$",
    re.IGNORECASE,
)
# a word that refers back to something named before: the document's subject when no name is left
_BACK = re.compile(r"\b(?:it|its|him|her|his|them|their|the)\b", re.IGNORECASE)
_AUX = frozenset("is are was were has have had be been being will would can could does did do also".split())


def _head(text: str, before: list[Span]) -> Span:
    """The mention a phrase after `before` belongs to: the last one, unless it only completes the
    one before it ("The Stoeljuk Bridge in Jyngbaar was designed by ...": the bridge was)."""
    k = len(before) - 1
    while k > 0 and _ATTACHED.fullmatch(text, before[k - 1].end, before[k].start):
        k -= 1
    return before[k]


def _words(text: str) -> list[str]:
    """A relation's words: normalised, no numbers ("designed in 1943" names the same relation as
    "designed"), no trailing function words, at most MAX_PHRASE_WORDS."""
    words = [w for w in normalise(text).split() if not w.isdigit()][:MAX_PHRASE_WORDS]
    while words and words[-1] in _FUNCTION:
        words.pop()
    return words if any(w not in _FUNCTION for w in words) else []


def _typed(src: str, dst: str, words: list[str]) -> tuple[str, str, str, float] | None:
    """`src words dst` as a relation: a pattern's type when the words are exactly one of its
    phrases (so "grew up in" is `born_in` however the sentence ordered it), else a phrase relation."""
    if not words or src == dst:
        return None
    phrase = " ".join(words)
    for pattern in PATTERNS:
        m = pattern.regex.search(phrase)
        if m and m.start() == 0 and m.end() == len(phrase):
            return (src, dst, pattern.type, 1.0) if pattern.forward else (dst, src, pattern.type, 1.0)
    return (src, dst, PHRASE + phrase, 1.0)


def _clause(text: str, pos: int, end: int) -> str:
    """The words from `pos` to the next clause break or `end`: a verb phrase's extent."""
    cut = _BREAK.search(text, pos, end)
    return text[pos : cut.start() if cut else end]


def _phrases(
    text: str,
    start: int,
    sentence: str,
    inside: list[Span],
    span_keys: dict[int, str],
    subject: str | None,
    used: list[tuple[int, int]],
) -> list[tuple[str, str, str, float]]:
    """Relations no pattern names, typed by the words that link two mentions of one sentence
    ("Moravec came into the world in Keldholm" -> `~came into the world in`): what the ranker
    compares with the question's meaning when its wording asks for no relation the patterns know.
    The left end is the mention the words follow (the head of "B in T"), the sentence's opener after
    a clause break ("..., then took a degree at S"), or the document's subject when no name precedes
    them ("The firm keeps its offices in C"); words a pattern matched are not a phrase again.

    Grammar that moves the words: a relative clause ("B, which N designed, ..." -> N designed B), a
    cleft ("P is where N grew up" -> N grew up in P), an appositive naming a role ("Its skipper, N,"
    -> subject ~skipper N), and words after the last name that refer back to the document's subject
    ("N captains the side", "N supervised her doctorate" -> N ~captains the side subject)."""
    out: list[tuple[str, str, str, float]] = []
    end = start + len(sentence)
    lead = text[start : inside[0].start].strip() if inside else ""
    opener = span_keys[inside[0].start] if inside and (not lead or lead.lower() in _STOP) else subject
    prev_end, left = start, subject

    def free(a: int, b: int) -> bool:
        return not any(a < ue and ua < b for ua, ue in used)

    for k, span in enumerate(inside):
        a, b = prev_end, span.start
        between = text[a:b]
        right = span_keys[span.start]
        head = span_keys[_head(text, inside[:k]).start] if k else None
        appositive = _APPOSITIVE.search(between)
        if appositive and free(a, b):  # "Its skipper, N," / "X's mentor, the botanist N,"
            owner = subject if appositive.group("own") else left
            if (rel := _typed(owner or "", right, _words(appositive.group("noun")))) and owner:
                out.append(rel)
        elif head and _RELATIVE.fullmatch(between) and free(span.end, end):  # "B, which N designed in 1943,"
            if rel := _typed(right, head, _words(_clause(text, span.end, end))):
                out.append(rel)
        elif head and _CLEFT.fullmatch(between):  # "P is where N grew up"
            if rel := _typed(right, head, [*_words(_clause(text, span.end, end)), "in"]):
                out.append(rel)
        elif left is not None and free(a, b):
            cut = list(_BREAK.finditer(between))
            src: str | None = head or left
            if cut:
                between, src = between[cut[-1].end() :], opener
            words = normalise(between).split()[-MAX_PHRASE_WORDS:]  # the verb and preposition end it
            if src and src != right and any(w not in _FUNCTION and not w.isdigit() for w in words):
                out.append((src, right, PHRASE + " ".join(words), 1.0))
        prev_end, left = span.end, right
    if inside and subject and free(prev_end, end):
        tail = _clause(text, prev_end, end)
        last = span_keys[_head(text, inside).start]
        cleft = _CLEFT_PRONOUN.match(tail)
        if cleft:  # "P is where she grew up"
            if rel := _typed(subject, last, [*_words(tail[cleft.end() :]), "in"]):
                out.append(rel)
        elif _BACK.search(tail):  # "N travelled with it as physician": N and the document's subject
            words = normalise(tail).split()
            while words and words[0] in _AUX:
                words.pop(0)
            opens = bool(words) and (words[0] not in _FUNCTION or _BACK.fullmatch(words[0]) is not None)
            if opens and (rel := _typed(last, subject, _words(" ".join(words)))):  # not "N ... in the hall"
                out.append(rel)
    return out
