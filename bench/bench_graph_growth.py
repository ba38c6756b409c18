"""Every graph read a `kg` search makes, as the store's graph grows: flat per read, not linear in it (#28).

    .venv/bin/python -m bench.bench_graph_growth [--sizes 10000,100000,1000000] [--ops N]
        [--backend sqlite|postgres|both] [--explain]

The `kg` ranker (`gateway/knowledge_graph/ranker.py`) and its walk (`walk.py`) reach the store only
through `storage.graph.GraphStore`; per question they call, with the shapes their limits give:

* `entities` and `mention_counts` of the question's entities (3 keys);
* `edges` of the walk's frontier, once per hop (24 keys, 40 edges per key and direction: one
  statement for the relations whose source is a key, one for those whose target is);
* `mentions`, the entity -> chunk postings: of the reached entities (24 keys, at most 150 rows) and,
  in the walk, of the frontier's parents (8 keys, at most 500);
* `chunk_mentions` and `chunk_relation_types` of the candidate chunks (120 chunk ids);
* `file_times` of the candidates' files (40 file ids).

Each read must cost what its few keys' rows cost, whatever the store holds: the bench times each one
(through the store `gateway/bootstrap.py` builds: SQLite in a temporary data dir, PostgreSQL on a
throw-away embedded server) at 10^4, 10^5 and 10^6 relations, with 1 entity per 5 relations, 1 mention
per 2 relations, 1 file per 50 relations of 4 chunks each, all in one vector store (the worst case
for a plan that searches by the store id alone). The graph grows in place, not measured (SQLite:
`executemany` in one transaction; PostgreSQL: `COPY`, then `VACUUM ANALYZE`, as autovacuum would);
each growth step adds a component of its own, so an entity's degree (~10 relations, ~2.5
mentions) is the same at every size and a read's rows are too: only the store around them grows.
Keys are drawn at random over the whole graph at each size. Reported per read and size: p50 and p90
of the call, and the ratio of the largest size's p50 to the smallest's (index-bounded: ~1 to 2; a
scan of the store: ~100 from 10^4 to 10^6); and the work a call does, which the machine's load does
not move: SQLite's virtual-machine instructions, PostgreSQL's buffers touched (flat from 10^5 on:
at 10^4 a read's rows share pages). `--explain` prints each read's plan at the largest size.
The plans themselves are pinned by `tests/knowledge_graph/test_graph_query_plans.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from bench.measure import pct, timed_calls
from gateway.bootstrap import build_stores
from gateway.config import Settings
from storage.bundle import Stores

STORE = "vs_graph"
ENTITIES_PER = 5  # relations per entity
FILE_RELATIONS = 50  # relations per file
CHUNKS = 4  # chunks per file
TYPES = ["co_occurs", "co_occurs", "co_occurs", "founded_by", "born_in", "part_of", "located_in", "~made the"]
KINDS = ["person", "organization", "place", "product"]
WORK_CALLS = 20  # calls whose work is counted per read and size

# table -> columns, in the order the generators yield them
COLUMNS = {
    "kg_entities": ("store_id", "key", "name", "type", "aliases"),
    "kg_mentions": ("store_id", "file_id", "chunk_id", "entity", "count", "subject"),
    "kg_relations": ("store_id", "file_id", "source", "target", "type", "weight", "chunk_id"),
    "kg_files": ("store_id", "file_id", "title", "extracted_at", "extractor"),
}


def key(i: int) -> str:
    return f"entity {i:07d}"


def file_id(f: int) -> str:
    return f"file-{f:06d}"


def chunk_id(f: int, c: int) -> str:
    return f"{STORE}:{file_id(f)}:c{c}"


def _rows(table: str, start: int, stop: int) -> Iterator[tuple[Any, ...]]:
    """The rows of `table` for relations `start`..`stop` (a component of its own: its entities and
    files are numbered from those of `start`, and its relations join only them)."""
    e0, e1 = start // ENTITIES_PER, stop // ENTITIES_PER
    f0, f1 = start // FILE_RELATIONS, stop // FILE_RELATIONS
    rng = random.Random(f"{table}:{start}")
    now = int(time.time())
    if table == "kg_entities":
        for e in range(e0, e1):
            yield STORE, key(e), key(e).title(), KINDS[e % 4], b"[]"
    elif table == "kg_files":
        for f in range(f0, f1):
            yield STORE, file_id(f), f"Title {f}", now, "bench"
    elif table == "kg_mentions":
        for e in range(e0, e1):  # 2 or 3 chunks of distinct files each: 2.5 an entity, 1 per 2 relations
            for f in rng.sample(range(f0, f1), 2 + e % 2):
                chunk = chunk_id(f, rng.randrange(CHUNKS))
                yield STORE, file_id(f), chunk, key(e), rng.randint(1, 4), int(rng.random() < 0.05)
    else:
        for f in range(f0, f1):
            seen: set[tuple[int, int, str]] = set()
            while len(seen) < FILE_RELATIONS:
                s, t = rng.randrange(e0, e1), rng.randrange(e0, e1)
                kind = TYPES[rng.randrange(len(TYPES))]
                if s != t and (s, t, kind) not in seen:
                    seen.add((s, t, kind))
                    weight = round(rng.random() + 0.5, 3)
                    yield STORE, file_id(f), key(s), key(t), kind, weight, chunk_id(f, len(seen) % CHUNKS)


class Graph:
    """The bulk fill (outside the store's interface) and the reads (through it)."""

    def __init__(self, stores: Stores, kind: str) -> None:
        self.stores = stores
        self.graph: Any = stores.graph
        self.kind = kind

    async def fill(self, start: int, stop: int) -> None:
        state: Any = self.stores.state
        if self.kind == "sqlite":

            def write(c: Any) -> None:
                for table, cols in COLUMNS.items():
                    insert = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
                    c.executemany(insert, _rows(table, start, stop))

            await state.writer.transact(write)
            # the fill's aftermath is not the reads' cost: a WAL of a million new rows (the
            # checkpointer's PASSIVE pass copies it back within seconds) would be searched per page
            await state.writer.run(lambda c: c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone())
            return
        async with state.db.pool.acquire() as c:
            for table, cols in COLUMNS.items():
                await c.copy_records_to_table(table, records=_rows(table, start, stop), columns=list(cols))
            for table in COLUMNS:  # the fill's aftermath (statistics, visibility map) is not the reads' cost
                await c.execute(f"VACUUM ANALYZE {table}")

    async def work(self, op: Callable[[], Awaitable[Any]], n: int) -> float:
        """What a call does, whatever the machine's load: SQLite's virtual-machine instructions
        (counted by a progress handler on the reader, in steps of 100), PostgreSQL's buffers (shared
        hits and reads of `EXPLAIN (ANALYZE, BUFFERS)` of each statement the call sent); mean of `n`."""
        state: Any = self.stores.state
        if self.kind == "sqlite":
            steps = [0]

            def tick() -> int:
                steps[0] += 100
                return 0  # go on

            await state.reader.run(lambda c: c.set_progress_handler(tick, 100))
            try:
                for _ in range(n):
                    await op()
            finally:
                await state.reader.run(lambda c: c.set_progress_handler(None, 0))
            return steps[0] / n
        sent: list[tuple[str, tuple[Any, ...]]] = []

        def log(q: Any) -> None:
            sent.append((q.query, tuple(q.args or ())))

        async with state.db.pool.acquire() as c:  # the pool's one connection: the calls below run on it
            c.add_query_logger(log)
        for _ in range(n):
            await op()
        buffers = 0
        async with state.db.pool.acquire() as c:
            c.remove_query_logger(log)
            for sql, args in sent:
                plan = orjson.loads(await c.fetchval("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, *args))
                buffers += plan[0]["Plan"]["Shared Hit Blocks"] + plan[0]["Plan"]["Shared Read Blocks"]
        return buffers / n

    async def count(self) -> int:
        sql = "SELECT count(*) FROM kg_relations"
        state: Any = self.stores.state
        if self.kind == "sqlite":
            return int(await state.reader.run(lambda c: c.execute(sql).fetchone()[0]))
        return int(await state.db.pool.fetchval(sql))


def reads(g: Any, size: int, rng: random.Random) -> dict[str, Callable[[], Awaitable[Any]]]:
    """Each per-question read, with fresh random keys over the graph's `size` relations a call."""
    entities, files = size // ENTITIES_PER, size // FILE_RELATIONS

    def keys(n: int) -> list[str]:
        return [key(rng.randrange(entities)) for _ in range(n)]

    def chunks(n: int) -> list[str]:
        return [chunk_id(rng.randrange(files), rng.randrange(CHUNKS)) for _ in range(n)]

    def fids(n: int) -> list[str]:
        return [file_id(rng.randrange(files)) for _ in range(n)]

    return {
        "entities (3 keys)": lambda: g.entities(STORE, keys(3)),
        "mention_counts (3 keys)": lambda: g.mention_counts(STORE, keys(3)),
        "edges (24 keys, both ends)": lambda: g.edges(STORE, keys(24), per_entity=40),
        "mentions (24 keys, <=150)": lambda: g.mentions(STORE, keys(24), limit=150),
        "mentions (8 parents, <=500)": lambda: g.mentions(STORE, keys(8), limit=500),
        "chunk_mentions (120 chunks)": lambda: g.chunk_mentions(STORE, chunks(120)),
        "chunk_relation_types (120)": lambda: g.chunk_relation_types(STORE, chunks(120)),
        # the kg ranker's narrowed forms: the rows of the entities its walk reached (200: few enough
        # that SQLite puts them in the statement, whose plan is what this pins), the asked types
        "chunk_mentions (120, 200 entities)": lambda: g.chunk_mentions(STORE, chunks(120), entities=keys(200)),
        "chunk_relation_types (120, 2 types)": lambda: g.chunk_relation_types(
            STORE, chunks(120), types=["founded_by", "born_in"]
        ),
        "file_times (40 files)": lambda: g.file_times(STORE, fids(40)),
    }


async def explain(g: Graph, size: int) -> None:
    """Each read's statements and plans, as the store sends them (SQLite: the reader's trace;
    PostgreSQL: the pool's one connection's query logger, arguments bound, `EXPLAIN ANALYZE`)."""
    state: Any = g.stores.state
    rng = random.Random(7)
    if g.kind == "sqlite":
        seen: list[str] = []
        await state.reader.run(lambda c: c.set_trace_callback(seen.append))
        for op in reads(g.graph, size, rng).values():
            await op()
        await state.reader.run(lambda c: c.set_trace_callback(None))
        for sql in dict.fromkeys(seen):
            plan = await state.reader.run(lambda c, s=sql: c.execute("EXPLAIN QUERY PLAN " + s).fetchall())
            print(f"\n{sql[:160]}...\n" + "\n".join(f"    {r[-1]}" for r in plan))
        return
    logged: dict[str, tuple[Any, ...]] = {}

    def log(q: Any) -> None:
        logged.setdefault(q.query, tuple(q.args or ()))

    async with state.db.pool.acquire() as c:  # the pool's one connection: the reads below run on it
        c.add_query_logger(log)
    for op in reads(g.graph, size, rng).values():
        await op()
    async with state.db.pool.acquire() as c:
        c.remove_query_logger(log)
        for sql, args in logged.items():
            plan = await c.fetch("EXPLAIN (ANALYZE, BUFFERS) " + sql, *args)
            print(f"\n{sql[:160]}...\n" + "\n".join(f"    {r[0]}" for r in plan))


async def run(kind: str, sizes: list[int], ops: int, url: str | None, show_plans: bool) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-graph-") as tmp:
        settings = Settings(data_dir=Path(tmp), database_url=url, database_pool_size=1 if url else 4)
        stores = build_stores(settings)
        await stores.open()
        g = Graph(stores, kind)
        try:
            filled, p50s, works = 0, dict[str, list[float]](), dict[str, list[float]]()
            unit = "VM steps" if kind == "sqlite" else "buffers"
            print(f"\n{kind}: graph reads of one kg search, ms per call ({ops} calls per read and size)")
            print(f"{'relations':>10} {'read':>28} {'p50 ms':>8} {'p90 ms':>8} {unit + '/call':>14}  fill s")
            for size in sizes:
                began = time.perf_counter()
                await g.fill(filled, size)
                fill_s = time.perf_counter() - began
                filled = size
                assert await g.count() == size
                rng = random.Random(size)
                for name, op in reads(g.graph, size, rng).items():
                    await timed_calls(op, 5)  # the statement prepared, its first pages read
                    times = await timed_calls(op, ops)
                    p50 = statistics.median(times)
                    p50s.setdefault(name, []).append(p50)
                    done = await g.work(op, WORK_CALLS)
                    works.setdefault(name, []).append(done)
                    line = f"{size:>10,} {name:>28} {p50:>8.3f} {pct(times, 90):>8.3f} {done:>14,.0f}  {fill_s:6.1f}"
                    print(line)
            for name, values in p50s.items():
                work = works[name]
                grown = f"{sizes[-1]:,} / {sizes[0]:,} relations: p50 x {values[-1] / values[0]:.2f}"
                # the smallest graph's pages hold several of a read's rows each: from the next size on,
                # each row is a page of its own and the work stops growing (a scan's would not)
                since = f" ({work[-1] / work[-2]:.2f} from {sizes[-2]:,})" if len(sizes) > 2 else ""
                print(f"{kind}: {name:<28} at {grown}, {unit} x {work[-1] / work[0]:.2f}{since}")
            if show_plans:
                await explain(g, sizes[-1])
        finally:
            await stores.close()


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000,1000000", help="relations in the graph, growing")
    ap.add_argument("--ops", type=int, default=200, help="calls timed per read and size")
    ap.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    ap.add_argument("--explain", action="store_true", help="print each read's plan at the largest size")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    if a.backend in ("sqlite", "both"):
        await run("sqlite", sizes, a.ops, None, a.explain)
    if a.backend in ("postgres", "both"):
        from tests.support.pg import postgres_server

        with postgres_server() as url:
            await run("postgres", sizes, a.ops, url, a.explain)


if __name__ == "__main__":
    asyncio.run(main())
