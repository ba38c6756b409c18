"""Entity and relation extraction: one `Extractor` interface, a default that needs no model weights.

An extractor only finds entity spans (`spans`); relations come from the same place for every
extractor (`extract`): a relation pattern between two mentions in one sentence ("X was founded by
Y"), with the document's subject (its title) standing in when the sentence opens with a pronoun
("It was founded by Y"), and co-occurrence within a chunk otherwise, weighted by how many entities
share it; relations in other word orders and phrase relations come from `clauses`. Everything here
is plain CPU work, run in a thread by the caller.

`RuleExtractor` (the default) finds proper-noun spans (capitalised words, joined by "of", "de",
"van", ...), model codes ("ZX-81", "Orbis 9X"), titles of works in quotes ('"The Quiet Harbour"'),
and the corpus's own titles wherever they appear, in any case. Within one file, a person's surname
after their full name is that person, and so is a given name opening a sentence (`coref`). A
capitalised word that only opens a sentence ("After", "Today") is not a name: a word-list and the
text's own lower-case uses tell it apart.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Protocol

from gateway.knowledge_graph.clauses import (
    _BY,
    _PASSIVE,
    _STOP,
    PARTICIPLE,
    Span,
    _head,
    _phrases,
    aside_head,
    fronted,
    normalise,
)
from gateway.knowledge_graph.clauses import PHRASE as PHRASE  # read here by the walk and the service
from gateway.knowledge_graph.coref import Coreference as Coreference  # read here by the index
from gateway.knowledge_graph.here import here_relations
from gateway.knowledge_graph.layouts import read_layouts
from gateway.knowledge_graph.lists import coordinated, enumerated, included, plural_subject, spread, unpaired
from gateway.knowledge_graph.patterns import PATTERNS
from gateway.knowledge_graph.tables import sentences as _sentences  # read here by gliner
from gateway.knowledge_graph.tables import structured

_WORD = re.compile(r"[^\W_][\w'\u2019\-\.&]*[^\W_]|[^\W_]", re.UNICODE)
_CODE = re.compile(r"^(?=[^\d]*\d)(?=.*[^\W\d_])[\w\-\.]+$")  # letters and digits: X7, ZX-81, A320neo
_CLAUSE = re.compile(r"\s(?:and|but|then|while)\s", re.IGNORECASE)  # a new clause: its subject is the sentence's
_QUOTED = re.compile(r"[\"\u201c]([A-Z0-9][^\"\u201d\n]{0,78}[^\s\"\u201d])[\"\u201d]")
_NO_OBJECT = re.compile(r"\s+(?:in|at|on|during|near|from)\s", re.IGNORECASE)  # after an active verb
_BY_NEXT = re.compile(r" by ", re.IGNORECASE)  # "Composed by X": after a lone opening participle
# a word of address: an opening word or two ("Sir", "Dear Sir") set off by a comma (a dash may follow)
# from a clause whose subject is "I", "we" or "you" ("Sir, — I write ...", "Friends, we ...",
# "Yesterday, I went"): the clause's subject is the speaker, not the word, which names no one the
# sentence relates. Not a parenthetical, an I/we/you clause a comma closes within three words
# ("Einstein, you may recall, was born ...", "Rome, I think, was founded ..."): the name is the subject
_ADDRESSED = re.compile(r"\s*,\s*(?:[\u2014\u2013]\s*|-{1,2}\s*)?(?:I|[Ww]e|[Yy]ou)\b(?!(?:\s+[\w'\u2019]+){0,3}\s*,)")
MAX_ADDRESS_WORDS = 2  # "Sir", "Dear Sir", "Dear Madam"
# a lower-case word ends names ("the Mivdrark line") once it ends this many titles of the store: one
# title ("Meeting notes") is no naming habit, and a verb-looking word ("notes", "failed") is none
MIN_HEAD_TITLES = 3
_VERBISH = re.compile(r"(?:[^s]s|ed|ing)$")
# (not a dummy "it" before its object complement: "makes it easy to branch", "keeps it safe")
_OBJECT_PRONOUN = re.compile(
    r"\s+(?:it|him|her|them)\b(?!\s+(?:easy|easier|hard|harder|difficult|possible|impossible|clear|simple|simpler"
    r"|necessary|useful|important|fun|safe|safer|sure|likely|unlikely|worth|better|worse|so|more|less|too)\b)",
    re.IGNORECASE,
)
_CONNECTORS = frozenset({"of", "de", "del", "della", "da", "di", "von", "van", "der", "den", "la", "le", "du", "&"})
_ORG_WORDS = frozenset(
    """inc corp corporation co company ltd llc gmbh ag sa group labs lab laboratories systems industries
    dynamics works foundry motors technologies technology tech holdings partners studio studios
    institute university college bank foundation agency society association council ministry
    press records media networks robotics aerospace electronics instruments devices software optics
    analytics energy pharma pharmaceuticals foods airlines shipping mining chemicals""".split()
)
_PLACE_WORDS = frozenset("city town village river lake mount island bay valley county province port".split())


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
    """The corpus's titles as entity names, found in any case as whole words.

    Built once per file from the store's titles (hundreds, growing with the store), so it is a plain
    lookup by a title's first two letters rather than one regular expression of every title, whose
    compilation cost tens of milliseconds a file. The same matches as that expression (whole words,
    any case, the longest title first); titles whose lower case changes length keep to that expression."""

    def __init__(self, titles: Sequence[str]) -> None:
        names = sorted({t.strip() for t in titles if 2 <= len(t.strip()) <= 80}, key=len, reverse=True)
        self.names = names
        self.lower = frozenset(n.lower() for n in names)  # titles as a set: is this word one?
        self._by_start: dict[str, list[str]] = {}
        for name in names:  # longest first under each key
            self._by_start.setdefault(name.lower()[:2], []).append(name.lower())
        self._odd = any(len(n.lower()) != len(n) for n in names)
        # lower-case last words of titles that are otherwise names ("Harrow line", "Kell station"): the
        # corpus names things with them, so "the Mivdrark line" is one name before its page is known
        ends = Counter(
            words[-1]
            for words in (n.split() for n in names)
            if len(words) >= 2
            and words[-1].isalpha()
            and words[-1].islower()
            and words[-1] not in _STOP
            and not _VERBISH.search(words[-1])
            and all(w[:1].isupper() for w in words[:-1])
        )
        self.heads = frozenset(w for w, n in ends.items() if n >= MIN_HEAD_TITLES)

    def find(self, text: str) -> list[tuple[int, int]]:
        if not self.names:
            return []
        low = text.lower()
        if self._odd or len(low) != len(text):
            return _slow_find(tuple(self.names), text)
        found: list[tuple[int, int]] = []
        after = 0
        for m in _START.finditer(text):
            i = m.start()
            if i < after:
                continue
            for name in self._by_start.get(low[i : i + 2], ()):
                e = i + len(name)
                if low.startswith(name, i) and not (e < len(text) and _wordchar(text[e])):
                    found.append((i, e))
                    after = e
                    break
        return found


_START = re.compile(r"(?<!\w)(?=\S)")  # where a whole-word title can begin


def _wordchar(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


@lru_cache(maxsize=8)
def _slow_find_regex(names: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, names)) + r")(?!\w)", re.IGNORECASE)


def _slow_find(names: tuple[str, ...], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _slow_find_regex(names).finditer(text)]


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
        taken = _Taken()
        for a, b in known.find(text):
            taken.add(Span(text[a:b], guess_type(text[a:b]), a, b))
        for m in _QUOTED.finditer(text):  # titles of works: 'wrote "The Quiet Harbour"'
            a, b = m.span(1)
            if not taken.overlaps(a, b):
                taken.add(Span(text[a:b], "work", a, b))
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
                if (  # "the Mivdrark line": a lower-case word that ends titles of the corpus ends this name too
                    j + 1 < len(tokens)
                    and tokens[j + 1].group() in known.heads
                    and body[tokens[j].end() : tokens[j + 1].start()] == " "
                ):
                    j += 1
                words = [t.group() for t in tokens[i : j + 1]]
                a = i
                # drop capitalised function words that open the span ("The Orbis", "After Quillon")
                while words and normalise(words[0]) in _STOP and not _CODE.match(words[0]):  # "It's"
                    words.pop(0)
                    a += 1
                # a lone opening word is no name when the text also writes it in lower case, or when it is
                # shaped like a participle and "by" follows it ("Composed by X", not "Berlin by night")
                if (a == 0 and len(words) == 1) and (
                    words[0].lower() in lower_words
                    or (PARTICIPLE.search(words[0]) and _BY_NEXT.match(body, tokens[a].end()))
                ):
                    words = []
                if a == 0 and len(words) <= MAX_ADDRESS_WORDS and _ADDRESSED.match(body, tokens[j].end()):
                    words = []  # a word of address ("Dear Sir, I was born at P")
                if a == 0 and (drop := plural_subject(words, body, tokens[j].end())):  # "Natives of P include"
                    words, a = words[drop:], a + drop
                if words:
                    s, e = start0 + tokens[a].start(), start0 + tokens[j].end()
                    # a known title inside a longer name is part of it ("Skaurdboen" in "Skaurdboen
                    # Observatory"): the longer name wins; any other overlap keeps the title
                    taken.drop_inside(s, e)
                    if not taken.overlaps(s, e):
                        name = text[s:e].rstrip(".")
                        before = body[max(0, tokens[a].start() - 24) : tokens[a].start()]  # "in ", "from "
                        taken.add(Span(name, guess_type(name, before), s, s + len(name)), e)
                i = j + 1
        return taken.spans


class _Taken:
    """The spans found so far, disjoint and kept in order of position, so that whether a new one
    overlaps them, or which lie inside it, is a binary search: a list scanned for every name made a
    document of thousands of names cost quadratic time."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []  # the end each span claims (a trailing "." it dropped included)
        self.spans: list[Span] = []

    def overlaps(self, s: int, e: int) -> bool:
        i = bisect_left(self.starts, e)  # spans starting before e; the last of them ends last
        return i > 0 and self.ends[i - 1] > s

    def drop_inside(self, s: int, e: int) -> None:
        """Drop the spans strictly inside [s, e) (not [s, e) itself)."""
        i, j = bisect_left(self.starts, s), bisect_left(self.starts, e)
        keep = [k for k in range(i, j) if self.ends[k] > e or (self.starts[k], self.ends[k]) == (s, e)]
        if j - i > len(keep):
            self.starts[i:j] = [self.starts[k] for k in keep]
            self.ends[i:j] = [self.ends[k] for k in keep]
            self.spans[i:j] = [self.spans[k] for k in keep]

    def add(self, span: Span, end: int | None = None) -> None:
        i = bisect_left(self.starts, span.start)
        self.starts.insert(i, span.start)
        self.ends.insert(i, span.end if end is None else end)
        self.spans.insert(i, span)


def _namelike(word: str) -> bool:
    return bool(word[:1].isupper() or _CODE.match(word)) and word.lower() not in {"i"}


MAX_SENTENCE = 1000  # characters read for relations at once: a longer "sentence" is a list or hostile text


def _windows(sentences: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Sentences cut into pieces of at most MAX_SENTENCE characters (at a space where there is one):
    relations are looked for between the mentions of one piece, in time quadratic in a piece's
    mentions, so a document of one endless sentence costs time linear in its length."""
    out: list[tuple[int, str]] = []
    for start, sentence in sentences:
        pos = 0
        while len(sentence) - pos > MAX_SENTENCE:
            cut = sentence.rfind(" ", pos + 1, pos + MAX_SENTENCE)
            cut = cut if cut > pos else pos + MAX_SENTENCE
            out.append((start + pos, sentence[pos:cut]))
            pos = cut
        out.append((start + pos, sentence[pos:]))
    return out


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
    text = read_layouts(text, subject)  # "Q: Where were you born? A: In P." as "<subject> was born in P"
    coref = coref or Coreference(known)
    if subject:
        coref.note(normalise(subject[0]), subject[1])
    spans = sorted((s for s in extractor.spans(text, known) if normalise(s.text)), key=lambda sp: sp.start)
    span_keys: dict[int, str] = {}
    for span in spans:
        key = normalise(span.text)
        coref.note(key, span.type)
        key = coref.resolve(key, text, span.start, span.end, span.type)
        span_keys[span.start] = key
        graph.counts[key] += 1
        if key not in graph.entities or graph.entities[key][1] in ("entity", "title"):
            graph.entities[key] = (span.text, span.type)
        if normalise(span.text) != key:
            graph.aliases.setdefault(key, set()).add(span.text)
    subject_key = normalise(subject[0]) if subject else None
    if subject and subject_key and subject_key not in graph.entities:
        graph.entities[subject_key] = subject
    first = 0  # the first span not before this sentence (sentences and spans are both in order)
    label: tuple[int, list[Span]] = (0, [])  # the sentence before: "Founders: A and B." reads it
    for start, sentence in _windows(_sentences(text)):
        end = start + len(sentence)
        while first < len(spans) and spans[first].start < start:
            first += 1
        last = first
        while last < len(spans) and spans[last].start < end:
            last += 1
        inside = spans[first:last]
        used: list[tuple[int, int]] = []  # "founded by" must not match "founded" again
        found: list[tuple[str, str, str, float]] = []
        for pattern in PATTERNS:
            for m in pattern.regex.finditer(sentence):
                a, b = start + m.start(), start + m.end()
                if any(a < ue and ua < b for ua, ue in used) or any(s.start < b and a < s.end for s in inside):
                    continue
                before = [s for s in inside if s.end <= a]
                after = [s for s in inside if s.start >= b]
                # no name before the phrase ("It was founded by ...", "Born in ..."): the document's subject
                left = span_keys[_head(text, before).start] if before else subject_key
                if before and (aside := aside_head(text, start, before, a, span_keys, subject_key)) is not None:
                    left = aside  # "The orchestra, founded in K, is directed by C": the orchestra is
                    if not aside:  # "Its rival, in P, is owned by O": not P; the phrase's opener decides
                        continue
                elif not before and len(after) > 1 and not text[start:a].strip():  # "Engineered by E, the L"
                    left = fronted(text, after[0], after[1], span_keys) or left
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
                if not forward and _NO_OBJECT.match(text, b):  # "founded in 1990": a participle, no object
                    continue
                if left and right and left != right:
                    used.append((a, b))  # words that named no relation stay free for a phrase
                    src, dst = (left, right) if forward else (right, left)
                    found.append((src, dst, pattern.type, 1.0))
        lists = coordinated(text, start, end, inside)  # "A, B and C"
        members, stretch = included(text, start, inside, span_keys, lists, subject_key)  # "Natives include A"
        if stretch:
            found += members
            used.append(stretch)
        found += _phrases(text, start, sentence, inside, span_keys, subject_key, used, lists)
        found += here_relations(text, start, end, inside, span_keys, subject)  # "N grew up here" on P's page
        found = unpaired(text, start, end, inside, span_keys, found)  # "..., respectively": no pairs
        graph.relations += found
        graph.relations += spread(text, start, inside, span_keys, found, lists)  # "N trained A, B and C": B, C too
        graph.relations += enumerated(
            text, label, start=start, end=end, inside=inside, lists=lists, keys=span_keys, subject=subject_key
        )
        label = (start, inside)
    graph.relations += structured(text, spans, span_keys, subject_key, known.lower)  # tables and lists of names
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
