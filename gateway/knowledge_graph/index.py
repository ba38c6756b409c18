"""Building one file's graph at ingestion: its title, its chunks' entities and relations.

Runs after the ingestion worker has written the file's chunks and before it marks the file
`completed`, so extraction shares ingestion's resume: a file still `in_progress` after a crash is
ingested again, and `replace_file` swaps its graph rows in one transaction (never half a file, never
twice). Extraction is CPU work (or model inference, with GLiNER) and runs in a thread.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePath

from gateway.knowledge_graph.extract import Coreference, Extractor, Gazetteer, extract, guess_type, normalise
from storage.graph import Entity, FileGraph, Mention, Relation

_HEADING = re.compile(r"^\s*#{1,6}\s+(.+?)\s*#*\s*$")


def title_of(filename: str, text: str) -> str:
    """A document's title: its first heading, a short first line, or its file name made readable."""
    for line in text.splitlines()[:3]:
        heading = _HEADING.match(line)
        if heading:
            return heading.group(1).strip()
    first = text.strip().splitlines()[0].strip() if text.strip() else ""
    if 2 <= len(first) <= 60 and not first.endswith((".", ",", ";", ":")) and len(first.split()) <= 8:
        return first
    stem = PurePath(filename).stem
    return " ".join(w[:1].upper() + w[1:] for w in re.split(r"[_\-\s]+", stem) if w)


def build_file_graph(
    extractor: Extractor,
    store_id: str,
    file_id: str,
    filename: str,
    chunks: Sequence[tuple[str, str]],
    titles: Sequence[str],
) -> FileGraph:
    """The graph of one file from its chunks `(chunk_id, text)`; `titles` are the store's known titles."""
    title = title_of(filename, chunks[0][1] if chunks else "")
    subject = (title, guess_type(title))
    known = Gazetteer([*titles, title], document=[text for _, text in chunks])  # the file's words, for every chunk
    subject_key = normalise(title)
    entities: dict[str, Entity] = {}
    mentions: dict[tuple[str, str], Mention] = {}
    relations: dict[tuple[str, str, str], Relation] = {}
    coref = Coreference(known)  # one per file: "Moravec" in chunk 3 is the "Ana Moravec" of chunk 1
    for chunk_id, text in chunks:
        cg = extract(extractor, text, known=known, subject=subject if subject_key else None, coref=coref)
        for key, (name, kind) in cg.entities.items():
            if key not in entities or entities[key].type in ("entity", "title"):
                entities[key] = Entity(key, name, kind, entities[key].aliases if key in entities else ())
            for alias in sorted({name, *cg.aliases.get(key, ())}):
                old = entities[key]
                if alias != old.name and alias not in old.aliases and len(old.aliases) < 8:
                    entities[key] = Entity(key, old.name, old.type, (*old.aliases, alias))
        for key, count in cg.counts.items():
            mentions[(key, chunk_id)] = Mention(key, chunk_id, count, key == subject_key)
        if subject_key and (subject_key, chunk_id) not in mentions:  # the whole document is about its title
            mentions[(subject_key, chunk_id)] = Mention(subject_key, chunk_id, 0, True)
        for src, dst, kind, weight in [*cg.relations, *cg.loose]:  # the fallback's weak links too
            key3 = (src, dst, kind)
            found = relations.get(key3)
            relations[key3] = Relation(
                src, dst, kind, weight + (found.weight if found else 0.0), found.chunk_id if found else chunk_id
            )
    return FileGraph(
        store_id=store_id,
        file_id=file_id,
        title=title,
        extractor=extractor.name,
        entities=list(entities.values()),
        mentions=list(mentions.values()),
        relations=[r for r in relations.values() if r.source in entities and r.target in entities],
    )
