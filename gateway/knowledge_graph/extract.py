"""Entity and relation extraction: one `Extractor` interface, a default that needs no model weights.

An extractor only finds entity spans (`spans`); relations come from the same place for every
extractor (`extract`): a relation pattern between two mentions in one sentence ("X was founded by
Y"), with the document's subject (its title) standing in when the sentence opens with a pronoun
("It was founded by Y"), and co-occurrence within a chunk otherwise, weighted by how many entities
share it; relations in other word orders and phrase relations come from `clauses`, which name a
phrase is said of when not the one before it from `heads`, and the weak fallback links of names no
rule relates (`ChunkGraph.loose`) from `fallback`. Everything here is plain CPU work, run in a
thread by the caller.

`RuleExtractor` (the default) and `guess_type` are `names.py`'s, the corpus's titles (`Gazetteer`)
`gazetteer.py`'s, re-exported here.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

from gateway.knowledge_graph import fallback
from gateway.knowledge_graph.captions import read_captions
from gateway.knowledge_graph.clauses import _phrases
from gateway.knowledge_graph.coref import Coreference as Coreference  # read here by the index
from gateway.knowledge_graph.gazetteer import Gazetteer
from gateway.knowledge_graph.heads import aside_head, fronted, head_mention
from gateway.knowledge_graph.here import here_relations
from gateway.knowledge_graph.layouts import read_layouts
from gateway.knowledge_graph.lexicon import _STOP, Span, normalise
from gateway.knowledge_graph.lexicon import PHRASE as PHRASE  # read here by the walk and the service
from gateway.knowledge_graph.lists import coordinated, enumerated, included, spread, unpaired
from gateway.knowledge_graph.names import _CONNECTORS as _CONNECTORS  # read here by keys
from gateway.knowledge_graph.names import RuleExtractor as RuleExtractor  # read here by the service and benches
from gateway.knowledge_graph.names import guess_type as guess_type  # read here by the index and gliner
from gateway.knowledge_graph.patterns import PATTERNS
from gateway.knowledge_graph.tables import sentences as _sentences  # read here by gliner
from gateway.knowledge_graph.tables import structured

# an active pattern in the passive ("X was founded in 1881 by Y"): a be-form before it, "by" after it
_PASSIVE = re.compile(r"\b(?:is|are|was|were|been|be|being)\s+$", re.IGNORECASE)
_BY = re.compile(r"\bby\s*$", re.IGNORECASE)
_CLAUSE = re.compile(r"\s(?:and|but|then|while)\s", re.IGNORECASE)  # a new clause: its subject is the sentence's
_NO_OBJECT = re.compile(r"\s+(?:in|at|on|during|near|from)\s", re.IGNORECASE)  # after an active verb
# (not a dummy "it" before its object complement: "makes it easy to branch", "keeps it safe")
_OBJECT_PRONOUN = re.compile(
    r"\s+(?:it|him|her|them)\b(?!\s+(?:easy|easier|hard|harder|difficult|possible|impossible|clear|simple|simpler"
    r"|necessary|useful|important|fun|safe|safer|sure|likely|unlikely|worth|better|worse|so|more|less|too)\b)",
    re.IGNORECASE,
)


@dataclass(slots=True)
class ChunkGraph:
    """What one chunk says: entity names with their types and counts, and relations by name."""

    entities: dict[str, tuple[str, str]] = field(default_factory=dict)  # key -> (name, type)
    counts: Counter[str] = field(default_factory=Counter)
    relations: list[tuple[str, str, str, float]] = field(default_factory=list)  # (source, target, type, weight)
    # the fallback's weak links (`fallback.py`): the subject to names no rule relates; stored with the
    # relations by `index.build_file_graph`, kept apart here so what the rules state reads alone
    loose: list[tuple[str, str, str, float]] = field(default_factory=list)
    aliases: dict[str, set[str]] = field(default_factory=dict)  # key -> the short forms resolved to it


class Extractor(Protocol):
    """Finds entity spans in text; synchronous (CPU or model inference): callers run it in a thread."""

    name: str

    def spans(self, text: str, known: Gazetteer) -> list[Span]: ...


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
    text = read_captions(text, subject)  # "TITLE\nby N" as "TITLE\nWritten by N."
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
                left = span_keys[head_mention(text, before).start] if before else subject_key
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
    # names no rule relates to the subject or their sentence: subject ~<their clause's words> name
    graph.loose = fallback.fallback_links(
        text, _windows(_sentences(text)), spans, span_keys, subject_key, graph.relations, known.lower
    )
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
