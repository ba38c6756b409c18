"""The SQLite graph store's reads, as plain functions of a connection (`storage/sqlite/graph.py`).

Each runs on the reader thread. A read the `kg` ranker makes together with others is run with them
in one function (`GraphStore.entity_counts`, `hop`, `mentions_each`, `chunk_signals`): one hop to
the thread instead of one each, where each waited behind the one before (#28: a kg query made ~13
store calls against hybrid search's 3).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import orjson

from storage.graph import ChunkSignals, Edge, Entity, MentionRow, candidates

MAX_IN = 500  # keys per IN (...) list: well under SQLite's variable limit


def marks(n: int) -> str:
    return ",".join("?" * n)


def parts(items: Sequence[str]) -> list[Sequence[str]]:
    return [items[i : i + MAX_IN] for i in range(0, len(items), MAX_IN)] or [[]]


def entities(c: Any, store_id: str, keys: Sequence[str]) -> dict[str, Entity]:
    found: dict[str, Entity] = {}
    for part in parts(list(dict.fromkeys(keys))):
        if not part:
            continue
        for key, name, kind, aliases in c.execute(
            f"SELECT key, name, type, aliases FROM kg_entities WHERE store_id = ? AND key IN ({marks(len(part))})",
            (store_id, *part),
        ):
            found[key] = Entity(key, name, kind, tuple(orjson.loads(aliases)))
    return found


def mention_counts(c: Any, store_id: str, keys: Sequence[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for part in parts(list(dict.fromkeys(keys))):
        if part:
            counts.update(
                c.execute(
                    f"SELECT entity, COUNT(DISTINCT file_id) FROM kg_mentions WHERE store_id = ? "
                    f"AND entity IN ({marks(len(part))}) GROUP BY entity",
                    (store_id, *part),
                ).fetchall()
            )
    return counts


def edges(c: Any, store_id: str, keys: Sequence[str], per_entity: int) -> list[Edge]:
    out: list[Edge] = []
    for part in parts(list(dict.fromkeys(keys))):
        if not part:
            continue
        for end in ("source", "target"):
            # INDEXED BY: for `target IN (...)` the planner otherwise walks the source index
            # (the GROUP BY's order) over the whole store's relations, a full scan per hop
            rows = c.execute(
                f"SELECT source, target, type, w, files FROM (SELECT source, target, type, SUM(weight) AS w, "
                "group_concat(file_id, char(31)) AS files, "
                f"ROW_NUMBER() OVER (PARTITION BY {end} ORDER BY (type = 'co_occurs'), SUM(weight) DESC) AS rn "
                f"FROM kg_relations INDEXED BY kg_relations_{end} "
                f"WHERE store_id = ? AND {end} IN ({marks(len(part))}) "
                "GROUP BY source, target, type) WHERE rn <= ?",
                (store_id, *part, per_entity),
            )
            out.extend(Edge(s, t, kind, float(w), tuple(sorted(files.split("\x1f")))) for s, t, kind, w, files in rows)
    return list(dict.fromkeys(out))


def mentions(c: Any, store_id: str, keys: Sequence[str], limit: int) -> list[MentionRow]:
    out: list[MentionRow] = []
    for part in parts(list(dict.fromkeys(keys))):
        if part:
            out.extend(
                MentionRow(r[0], r[1], r[2], int(r[3]), bool(r[4]))
                for r in c.execute(
                    "SELECT entity, file_id, chunk_id, count, subject FROM kg_mentions WHERE store_id = ? "
                    f"AND entity IN ({marks(len(part))}) ORDER BY subject DESC, count DESC, file_id, chunk_id LIMIT ?",
                    (store_id, *part, limit),
                )
            )
    return out


def chunk_mentions(
    c: Any, store_id: str, chunk_ids: Sequence[str], entities: Collection[str] | None
) -> list[MentionRow]:
    wanted = None if entities is None else list(dict.fromkeys(entities))
    if wanted is not None and not wanted:
        return []
    # the entities go into the statement when they fit beside a part of the chunk ids (SQLite
    # before 3.32 allows 999 variables a statement), else the rows are filtered here
    in_sql = wanted is not None and len(wanted) <= MAX_IN // 2  # with a part's MAX_IN ids: < 999
    keep = None if wanted is None or in_sql else set(wanted)
    extra = f" AND entity IN ({marks(len(wanted))})" if in_sql and wanted else ""
    out: list[MentionRow] = []
    for part in parts(list(dict.fromkeys(chunk_ids))):
        if part:
            out.extend(
                MentionRow(r[0], r[1], r[2], int(r[3]), bool(r[4]))
                for r in c.execute(
                    "SELECT entity, file_id, chunk_id, count, subject FROM kg_mentions WHERE store_id = ? "
                    f"AND chunk_id IN ({marks(len(part))}){extra}",
                    (store_id, *part, *(wanted if in_sql and wanted else ())),
                )
                if keep is None or r[0] in keep
            )
    return out


def relation_types(wanted: Sequence[str] | None) -> str:
    """The condition on `type` of `chunk_relation_types` (None: any typed relation)."""
    return "type != 'co_occurs'" if wanted is None else f"type IN ({marks(len(wanted))})"


def chunk_relation_types(
    c: Any, store_id: str, chunk_ids: Sequence[str], types: Collection[str] | None
) -> dict[str, set[str]]:
    wanted = None if types is None else sorted(set(types) - {"co_occurs"})
    if wanted is not None and not wanted:
        return {}
    out: dict[str, set[str]] = {}
    for part in parts(list(dict.fromkeys(chunk_ids))):
        if part:
            for chunk_id, kind in c.execute(
                f"SELECT DISTINCT chunk_id, type FROM kg_relations WHERE store_id = ? AND {relation_types(wanted)} "
                f"AND chunk_id IN ({marks(len(part))})",
                (store_id, *(wanted or ()), *part),
            ):
                out.setdefault(chunk_id, set()).add(kind)
    return out


def file_times(c: Any, store_id: str, file_ids: Sequence[str]) -> dict[str, tuple[str, int]]:
    out: dict[str, tuple[str, int]] = {}
    for part in parts(list(dict.fromkeys(file_ids))):
        if part:
            for fid, title, at in c.execute(
                "SELECT file_id, title, extracted_at FROM kg_files WHERE store_id = ? "
                f"AND file_id IN ({marks(len(part))})",
                (store_id, *part),
            ):
                out[fid] = (title, int(at))
    return out


# -- the combined reads ------------------------------------------------------------------------------
def entity_counts(c: Any, store_id: str, keys: Sequence[str]) -> tuple[dict[str, Entity], dict[str, int]]:
    return entities(c, store_id, keys), mention_counts(c, store_id, keys)


def hop(
    c: Any, store_id: str, keys: Sequence[str], per_entity: int, parents: Sequence[str], parent_limit: int
) -> tuple[list[Edge], list[MentionRow]]:
    return edges(c, store_id, keys, per_entity), mentions(c, store_id, parents, parent_limit) if parents else []


def mentions_each(c: Any, store_id: str, keys: Sequence[str], limit: int) -> list[MentionRow]:
    return [m for key in keys for m in mentions(c, store_id, [key], limit)]


def chunk_signals(
    c: Any,
    store_id: str,
    keys: Sequence[str],
    limit: int,
    chunk_ids: Sequence[str],
    file_ids: Collection[str],
    entities: Collection[str],
    types: Collection[str],
) -> ChunkSignals:
    rows = mentions(c, store_id, keys, limit)
    ids, files = candidates(rows, chunk_ids, file_ids)
    return ChunkSignals(
        rows,
        chunk_mentions(c, store_id, ids, entities),
        chunk_relation_types(c, store_id, ids, types),
        file_times(c, store_id, files),
    )
