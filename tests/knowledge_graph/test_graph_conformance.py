"""One conformance suite for every knowledge-graph store (#12): the embedded SQLite store and the
PostgreSQL one (a real server, `postgres_url`) always, the Neo4j store when `GATEWAY_NEO4J_URI` names
a server (none can be installed here, so it is skipped with that message otherwise; the code path is
the one the gateway runs)."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from gateway.knowledge_graph.extract import RuleExtractor
from gateway.knowledge_graph.index import build_file_graph, title_of
from storage.graph import Entity, FileGraph, GraphStore, Mention, Relation
from tests.support.stores import built_stores

pytestmark = pytest.mark.asyncio

BACKENDS = ["sqlite", "postgres", "neo4j"]


@pytest.fixture(params=BACKENDS)
async def graph(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[GraphStore]:
    if request.param in ("sqlite", "postgres"):  # the store bootstrap builds, and its graph family
        bundle = await built_stores(request.param, tmp_path, request)
        try:
            yield bundle.graph
        finally:
            await bundle.close()
        return
    uri = os.environ.get("GATEWAY_NEO4J_URI")
    if not uri:
        pytest.skip("Neo4j graph store: set GATEWAY_NEO4J_URI (and GATEWAY_NEO4J_USER/PASSWORD) to run this suite")
    from gateway.knowledge_graph.neo4j_store import Neo4jGraphStore

    store = Neo4jGraphStore(
        uri, os.environ.get("GATEWAY_NEO4J_USER", "neo4j"), os.environ.get("GATEWAY_NEO4J_PASSWORD")
    )
    try:
        yield store
    finally:
        await store.close()


def _file(store: str, file_id: str, *, founder: str = "Ada Vell", chunk: str = "c0") -> FileGraph:
    return FileGraph(
        store_id=store,
        file_id=file_id,
        title="Orro Works",
        extractor="test",
        entities=[Entity("orro works", "Orro Works", "organization"), Entity(founder.lower(), founder, "person")],
        mentions=[
            Mention("orro works", f"{store}:{file_id}:{chunk}", 2, True),
            Mention(founder.lower(), f"{store}:{file_id}:{chunk}", 1),
        ],
        relations=[
            Relation("orro works", founder.lower(), "founded_by", 1.0, f"{store}:{file_id}:{chunk}"),
            Relation(founder.lower(), "orro works", "co_occurs", 0.5, f"{store}:{file_id}:{chunk}"),
        ],
    )


def _sid() -> str:
    return f"vs_{uuid.uuid4().hex[:10]}"


async def test_replace_read_and_delete(graph: GraphStore) -> None:
    sid = _sid()
    assert not await graph.has_file(sid, "f1")
    await graph.replace_file(_file(sid, "f1"))
    assert await graph.has_file(sid, "f1")
    assert await graph.titles(sid) == ["Orro Works"]
    found = await graph.entities(sid, ["orro works", "ada vell", "nobody"])
    assert set(found) == {"orro works", "ada vell"} and found["ada vell"].type == "person"
    edges = await graph.edges(sid, ["orro works"])
    assert {(e.source, e.target, e.type) for e in edges} == {
        ("orro works", "ada vell", "founded_by"),
        ("ada vell", "orro works", "co_occurs"),
    }
    mentions = await graph.mentions(sid, ["orro works"])
    assert [(m.file_id, m.subject, m.count) for m in mentions] == [("f1", True, 2)]
    chunk = f"{sid}:f1:c0"
    assert {m.entity for m in await graph.chunk_mentions(sid, [chunk])} == {"orro works", "ada vell"}
    assert await graph.chunk_relation_types(sid, [chunk]) == {chunk: {"founded_by"}}
    # the ranker's narrowed reads: the rows of the entities it reached, the relation types it asks for
    assert {m.entity for m in await graph.chunk_mentions(sid, [chunk], entities=["ada vell", "nobody"])} == {"ada vell"}
    assert await graph.chunk_mentions(sid, [chunk], entities=[]) == []
    many = ["orro works", *(f"nobody {i}" for i in range(700))]  # more than one statement's list
    assert {m.entity for m in await graph.chunk_mentions(sid, [chunk], entities=many)} == {"orro works"}
    assert await graph.chunk_relation_types(sid, [chunk], types={"founded_by", "born_in"}) == {chunk: {"founded_by"}}
    assert await graph.chunk_relation_types(sid, [chunk], types={"born_in", "co_occurs"}) == {}
    assert (await graph.file_times(sid, ["f1"]))["f1"][0] == "Orro Works"
    assert await graph.mention_counts(sid, ["orro works"]) == {"orro works": 1}
    hits = await graph.search_entities(sid, "vell", 10)
    assert [(e.name, n) for e, n in hits] == [("Ada Vell", 1)]
    # a second file stating the same relation: weights add up over files; deleting one keeps the other
    await graph.replace_file(_file(sid, "f2", chunk="c1"))
    (typed,) = [e for e in await graph.edges(sid, ["orro works"]) if e.type == "founded_by"]
    assert typed.weight == 2.0
    assert await graph.mention_counts(sid, ["orro works"]) == {"orro works": 2}
    await graph.delete_file(sid, "f1")
    (typed,) = [e for e in await graph.edges(sid, ["orro works"]) if e.type == "founded_by"]
    assert typed.weight == 1.0 and not await graph.has_file(sid, "f1")
    await graph.delete_file(sid, "f2")
    assert await graph.entities(sid, ["orro works", "ada vell"]) == {}  # nothing mentions them any more
    assert await graph.edges(sid, ["orro works"]) == [] and await graph.titles(sid) == []


async def test_combined_reads_are_the_single_reads(graph: GraphStore) -> None:
    """The reads a kg search makes together, in one round (#28): each returns what the single
    reads it stands for return, on every store."""
    sid = _sid()
    await graph.replace_file(_file(sid, "f1"))
    await graph.replace_file(_file(sid, "f2", founder="Bo Quell", chunk="c1"))
    await graph.replace_file(_file(sid, "f3", founder="Cy Dorn", chunk="c2"))
    c1, c2, c3 = f"{sid}:f1:c0", f"{sid}:f2:c1", f"{sid}:f3:c2"
    keys = ["orro works", "ada vell", "nobody"]
    known, counts = await graph.entity_counts(sid, keys)
    assert set(known) == {"orro works", "ada vell"} and known["ada vell"].name == "Ada Vell"
    assert counts == {"orro works": 3, "ada vell": 1}
    assert (known, counts) == (await graph.entities(sid, keys), await graph.mention_counts(sid, keys))
    # a walk's hop: the frontier's edges (at most `per_entity` per key and direction) and the
    # mention rows of the entities before it on the paths (none read for none)
    edges, rows = await graph.hop(sid, ["orro works"], 2, ["ada vell", "cy dorn"], 1)
    assert set(edges) == set(await graph.edges(sid, ["orro works"], per_entity=2))
    assert {e.type for e in edges} == {"founded_by", "co_occurs"} and len(edges) == 4
    assert len(rows) == 1 and rows == await graph.mentions(sid, ["ada vell", "cy dorn"], limit=1)
    edges, rows = await graph.hop(sid, ["bo quell", "nobody"], 40, [], 5)
    assert {(e.source, e.target) for e in edges} == {("orro works", "bo quell"), ("bo quell", "orro works")}
    assert rows == []
    # each key's own rows, in the keys' order (one LIMIT over them all lets one key use it up)
    each = await graph.mentions_each(sid, ["cy dorn", "orro works", "ada vell"], 2)
    assert [(m.entity, m.file_id) for m in each][:1] == [("cy dorn", "f3")] and each[-1].entity == "ada vell"
    assert [m.entity for m in each].count("orro works") == 2
    singles = [m for key in ["cy dorn", "orro works", "ada vell"] for m in await graph.mentions(sid, [key], 2)]
    assert {(m.entity, m.chunk_id) for m in each} == {(m.entity, m.chunk_id) for m in singles}
    assert await graph.mentions_each(sid, [], 2) == []
    # the ranker's candidates: its hits' chunks and files with the chunks the reached entities are named in
    signals = await graph.chunk_signals(
        sid, ["bo quell"], 10, chunk_ids=[c1], file_ids={"f1"}, entities=["ada vell", "bo quell"], types={"founded_by"}
    )
    assert [(m.entity, m.chunk_id) for m in signals.rows] == [("bo quell", c2)]
    assert {(m.entity, m.chunk_id) for m in signals.chunk_rows} == {("ada vell", c1), ("bo quell", c2)}
    assert signals.stated == {c1: {"founded_by"}, c2: {"founded_by"}}
    assert set(signals.times) == {"f1", "f2"} and signals.times["f2"][0] == "Orro Works"
    ids = [c1, c2]
    assert set(signals.chunk_rows) == set(await graph.chunk_mentions(sid, ids, entities=["ada vell", "bo quell"]))
    assert signals.stated == await graph.chunk_relation_types(sid, ids, types={"founded_by"})
    assert signals.times == await graph.file_times(sid, ["f1", "f2"])
    # no relation type asked: none read; no entity reached: no rows
    quiet = await graph.chunk_signals(sid, [], 10, chunk_ids=[c3], file_ids={"f3"}, entities=[], types=set())
    assert quiet.rows == [] and quiet.chunk_rows == [] and quiet.stated == {} and set(quiet.times) == {"f3"}


async def test_mention_rows_tied_on_subject_and_count_come_in_file_and_chunk_order(graph: GraphStore) -> None:
    """Rows tied on subject and count are ordered by file then chunk id, byte by byte, on every
    store (the one-phrase path reads a page's first subject row: SQLite and PostgreSQL agree on it;
    a locale's collation would put "fa" before "f-b", and insertion order "fa" first too)."""
    sid = _sid()
    await graph.replace_file(_file(sid, "fa"))
    await graph.replace_file(_file(sid, "f-b", chunk="c1"))
    rows = await graph.mentions(sid, ["orro works"])
    assert [m.file_id for m in rows] == ["f-b", "fa"]
    assert [m.file_id for m in await graph.mentions(sid, ["orro works"], limit=1)] == ["f-b"]


async def test_replace_is_idempotent_and_stores_are_separate(graph: GraphStore) -> None:
    sid, other = _sid(), _sid()
    await graph.replace_file(_file(sid, "f1"))
    await graph.replace_file(_file(sid, "f1"))  # a resumed job writes the file again: same rows, once
    assert [m.count for m in await graph.mentions(sid, ["orro works"])] == [2]
    await graph.replace_file(_file(sid, "f1", founder="Bo Quell"))  # re-ingested with other content
    assert set(await graph.entities(sid, ["ada vell", "bo quell"])) == {"bo quell"}
    await graph.replace_file(_file(other, "f1"))
    await graph.drop_store(other)
    assert await graph.entities(other, ["orro works"]) == {}
    assert set(await graph.entities(sid, ["orro works"])) == {"orro works"}


async def test_extracted_graph_round_trip(graph: GraphStore) -> None:
    sid = _sid()
    text = "# Velt Orbis 7\n\nThe Velt Orbis 7 is a cargo drone made by Quarn Dynamics. It was shown in Port Avel."
    assert title_of("velt.md", text) == "Velt Orbis 7"
    built = build_file_graph(RuleExtractor(), sid, "f", "velt.md", [(f"{sid}:f:0", text)], [])
    await graph.replace_file(built)
    (made,) = [e for e in await graph.edges(sid, ["velt orbis 7"]) if e.type == "made_by"]
    assert (made.source, made.target) == ("velt orbis 7", "quarn dynamics")
    found: dict[str, Any] = await graph.entities(sid, ["quarn dynamics", "port avel"])
    assert found["quarn dynamics"].type == "organization" and found["port avel"].type == "place"


async def test_entities_of_one_file(graph: GraphStore) -> None:
    """`search_entities(..., file_id=)`: what extraction found in one file, counted in that file (#28)."""
    sid = _sid()
    await graph.replace_file(_file(sid, "f1"))
    await graph.replace_file(_file(sid, "f2", founder="Bo Quell", chunk="c1"))
    in_f2 = await graph.search_entities(sid, "", 10, "f2")
    assert sorted((e.key, n) for e, n in in_f2) == [("bo quell", 1), ("orro works", 2)]
    assert [e.key for e, _ in await graph.search_entities(sid, "vell", 10, "f2")] == []
    assert [e.key for e, _ in await graph.search_entities(sid, "vell", 10, "f1")] == ["ada vell"]
    assert dict((e.key, n) for e, n in await graph.search_entities(sid, "orro", 10)) == {"orro works": 4}
    assert await graph.search_entities(sid, "", 10, "f3") == []


async def test_aliases_and_the_relation_aware_walk(graph: GraphStore) -> None:
    """A surname after the full name is the same person (its alias); the walk follows the relations a
    question asks for through three hops on every store, and a namesake in another file merges."""
    from gateway.knowledge_graph.walk import Reached, walk

    sid = _sid()
    texts = {
        "p": "# Kelso 4\n\nThe Kelso 4 is a harvester made by Tarrow Optics.",
        "c": "# Tarrow Optics\n\nTarrow Optics is based in Varnholt. It was set up by Ana Moravec in 1990.",
        "a": "# Ana Moravec\n\nAna Moravec is an engineer. Moravec was born in Keldholm and studied law at "
        "Sund University. Moravec set up Tarrow Optics.",
        "n": "# Ana Moravec\n\nAna Moravec is a painter. Moravec was born in Oslo.",  # a namesake
    }
    titles = [title_of(f"{k}.md", t) for k, t in texts.items()]
    for key, text in texts.items():
        await graph.replace_file(
            build_file_graph(RuleExtractor(), sid, key, f"{key}.md", [(f"{sid}:{key}:0", text)], titles)
        )
    ana = await graph.entities(sid, ["ana moravec", "moravec"])
    assert set(ana) == {"ana moravec"} and ana["ana moravec"].aliases == ("Moravec",)
    seeds = {"kelso 4": Reached(1.0, 0, frozenset())}
    reached = await walk(graph, sid, seeds, {"made_by", "founded_by", "born_in"})
    town = reached["keldholm"]
    assert town.hops == 3 and town.matched == {"made_by", "founded_by", "born_in"}
    best = max(reached, key=lambda e: reached[e].potential())
    assert best == "keldholm"
    # the namesake's birthplace completes the chain too, but no page of it names Tarrow Optics
    assert reached["oslo"].matched == town.matched and reached["oslo"].potential() < town.potential()
    # the relations the question does not ask for are walked too, but are worth much less
    assert reached["sund university"].potential() < town.potential() / 4


async def test_phrase_relations_and_the_walk_by_likeness(graph: GraphStore, tmp_path: Path) -> None:
    """Relations no pattern types are stored as their linking words (`~owes its existence to`) on
    every store, and the walk follows those standing for the relations a question asks for, by the
    local embedder's likeness (#28): "the town the founder of Pell Records was born in" reaches
    Keldholm through "owes its existence to" (most like "founded by") and "came into the world in"
    (most like "born in"), not the academy the same person attended nor the label's office city."""
    from gateway.config import load_settings
    from gateway.knowledge_graph.patterns import cues
    from gateway.knowledge_graph.phrases import PhraseVectors
    from gateway.knowledge_graph.walk import Reached, walk
    from vectorstore.embedders import build_embedder

    sid = _sid()
    texts = {
        "w": "# Miro Nights\n\nMiro Nights is a folk album issued on the Pell Records label in 1990.",
        "l": "# Pell Records\n\nPell Records owes its existence to Ivo Tarn. The firm keeps its offices in Sundby.",
        "p": "# Ivo Tarn\n\nIvo Tarn is a songwriter. Tarn came into the world in Keldholm, then took a degree at "
        "Varn Academy.",
    }
    titles = [title_of(f"{k}.md", t) for k, t in texts.items()]
    for key, text in texts.items():
        await graph.replace_file(
            build_file_graph(RuleExtractor(), sid, key, f"{key}.md", [(f"{sid}:{key}:0", text)], titles)
        )
    kinds = {(e.source, e.target, e.type) for e in await graph.edges(sid, ["pell records", "ivo tarn"])}
    assert ("pell records", "ivo tarn", "~owes its existence to") in kinds
    assert ("ivo tarn", "keldholm", "~came into the world in") in kinds
    assert ("ivo tarn", "varn academy", "~took a degree at") in kinds  # the opener, not Keldholm, took it
    embedder = build_embedder(load_settings({}, data_dir=tmp_path / "embed"))
    question = "In which town was the founder of Pell Records born?"
    (vector,) = await embedder.embed([question])
    relate = PhraseVectors(embedder.embed).relate(vector)
    reached = await walk(graph, sid, {"pell records": Reached(1.0, 0, frozenset())}, cues(question), 2, relate)
    town = reached["keldholm"]
    assert town.hops == 2 and len(town.matched) == 2, town
    assert town.potential() > reached["varn academy"].potential()
    assert town.potential() > reached["sundby"].potential()


async def test_pagerank_around_the_question_entities(graph: GraphStore) -> None:
    """The kg ranker's fallback (#28, `spread.py`) reads the subgraph around the seeds through the
    store interface on every store: the work of the theorist's pupil is two hops out, though the
    pupil's page names the theorist only beside him (a co-occurrence, no typed relation: checked
    first), and it comes first; the page of a pupil of another theorist, linked to nothing read,
    is never read."""
    from gateway.knowledge_graph.spread import spread

    sid = _sid()
    texts = {
        "v": "# Ventiv Lemdri\n\nVentiv Lemdri was a theorist and organist who wrote a treatise on fugue.",
        "h": "# Hensa Grethm\n\nHensa Grethm was a composer and oboe player. In 1890 Hensa Grethm and Ventiv Lemdri "
        "gave a recital.",
        "w": "# Nahan Tone Poem\n\nNahan Tone Poem is a piece in four movements by Hensa Grethm, first heard in 1901.",
        "o": "# Olaf Brinde\n\nOlaf Brinde was a violinist. Olaf studied under Marta Sool.",
    }
    titles = [title_of(f"{k}.md", t) for k, t in texts.items()]
    for key, text in texts.items():
        await graph.replace_file(
            build_file_graph(RuleExtractor(), sid, key, f"{key}.md", [(f"{sid}:{key}:0", text)], titles)
        )
    linked = {e.type for e in await graph.edges(sid, ["ventiv lemdri"]) if "hensa grethm" in (e.source, e.target)}
    assert linked == {"co_occurs"}, linked  # the premise: no typed relation joins pupil and theorist
    mass, rows = await spread(graph, sid, {"ventiv lemdri": 1.0}, hops=2)
    ranked = sorted(mass, key=lambda c: mass[c], reverse=True)
    assert ranked[0] == f"{sid}:w:0" and set(ranked[:3]) == {f"{sid}:w:0", f"{sid}:h:0", f"{sid}:v:0"}, ranked
    assert rows[ranked[0]].file_id == "w"
    assert f"{sid}:o:0" not in mass  # not linked to the theorist at all: never read


async def test_pagerank_reads_every_seed_and_each_link_once(graph: GraphStore) -> None:
    """The fallback's subgraph (#28 review): a seed named on every chunk of a long manual used to
    take the whole mentions budget of the first round, so the other seed's one page was never
    read; and a relation read twice (from its source as a seed, from its target as a frontier
    entity) weighed double. Each seed now has its own share, and a link counts once."""
    from gateway.knowledge_graph.spread import _Graph, spread

    sid = _sid()
    long = [Mention("manual", f"{sid}:long:{i}", 1, True) for i in range(300)]
    await graph.replace_file(FileGraph(sid, "long", "Manual", "t", [Entity("manual", "Manual", "x")], long, []))
    short = [Mention("tool", f"{sid}:short:0", 1, True)]
    await graph.replace_file(FileGraph(sid, "short", "Tool", "t", [Entity("tool", "Tool", "x")], short, []))
    mass, _rows = await spread(graph, sid, {"manual": 1.0, "tool": 1.0}, hops=2)
    assert f"{sid}:short:0" in mass and mass[f"{sid}:short:0"] > 0
    await graph.replace_file(
        FileGraph(
            sid,
            "fa",
            "A",
            "t",
            [Entity("a", "A", "x"), Entity("b", "B", "x")],
            [Mention("a", f"{sid}:fa:0", 1, True)],
            [Relation("a", "b", "made_by", 1.0, f"{sid}:fa:0")],
        )
    )
    g = _Graph()
    edges = await graph.edges(sid, ["a"])
    g.add_edges(edges)
    g.add_edges(await graph.edges(sid, ["b"]))  # the same relation, read from its other end
    assert sorted(g.weights.values()) == [1.0, 1.0], g.weights


async def test_two_hop_expansion_follows_the_names_of_pages(graph: GraphStore) -> None:
    """The kg ranker's two-hop expansion (#28, `expand.py`) through the store interface on every
    store: from the theorist's page to the pages about the names it mentions (the pupil's), then to
    those the pupil's page names (the work's), hop by hop, each page once and never the start; a
    page only naming the theorist (the review) is no page about a name the start mentions; the
    long manual's 300 chunks count as one page."""
    from gateway.knowledge_graph.expand import expand
    from storage.graph import MentionRow

    sid = _sid()
    texts = {
        "v": "# Ventiv Lemdri\n\nVentiv Lemdri was a theorist. In his last years Ventiv Lemdri tutored Hensa Grethm.",
        "h": "# Hensa Grethm\n\nHensa Grethm was an oboe player. Hensa Grethm penned the Nahan Tone Poem.",
        "w": "# Nahan Tone Poem\n\nNahan Tone Poem is a piece in four movements, first heard in 1901.",
        "r": "# Review of Lemdri\n\nA review of Ventiv Lemdri and his treatise.",
        "o": "# Olaf Brinde\n\nOlaf Brinde was a violinist. Marta Sool tutored Olaf Brinde.",
    }
    titles = [title_of(f"{k}.md", t) for k, t in texts.items()]
    for key, text in texts.items():
        await graph.replace_file(
            build_file_graph(RuleExtractor(), sid, key, f"{key}.md", [(f"{sid}:{key}:0", text)], titles)
        )
    rounds, about = await expand(graph, sid, MentionRow("", "v", f"{sid}:v:0", 0, True))
    assert [[m.file_id for m in pages] for pages in rounds] == [["h"], ["w"]], rounds
    assert about == {"ventiv lemdri"}
    assert rounds[0][0].chunk_id == f"{sid}:h:0" and rounds[0][0].subject
    long = [Mention("manual", f"{sid}:long:{i}", 1 + (i == 7), True) for i in range(300)]
    await graph.replace_file(FileGraph(sid, "long", "Manual", "t", [Entity("manual", "Manual", "x")], long, []))
    start = [Mention("tool", f"{sid}:tool:0", 1, True), Mention("manual", f"{sid}:tool:0", 3)]
    tool = [Entity("tool", "Tool", "x"), Entity("manual", "Manual", "x")]
    await graph.replace_file(FileGraph(sid, "tool", "Tool", "t", tool, start, []))
    rounds, _about = await expand(graph, sid, MentionRow("", "tool", f"{sid}:tool:0", 0, True))
    # one page, by its chunk naming the manual most
    assert [[(m.file_id, m.chunk_id) for m in pages] for pages in rounds] == [[("long", f"{sid}:long:7")]], rounds


async def test_two_hop_expansion_keeps_a_names_namesake_pages(graph: GraphStore) -> None:
    """Two pages about one name the start mentions (namesakes), the first of three chunks each
    carrying its title as subject: the expansion reaches both (it reads each name's share of a
    round's rows, not its first rows only, which the first page's chunks fill)."""
    from gateway.knowledge_graph.expand import expand
    from storage.graph import MentionRow

    sid = _sid()
    dorn = Entity("dorn", "Dorn", "x")
    start = [Mention("start", f"{sid}:s:0", 1, True), Mention("dorn", f"{sid}:s:0", 1)]
    await graph.replace_file(FileGraph(sid, "s", "Start", "t", [Entity("start", "Start", "x"), dorn], start, []))
    first = [Mention("dorn", f"{sid}:d1:{i}", 1, True) for i in range(3)]
    await graph.replace_file(FileGraph(sid, "d1", "Dorn", "t", [dorn], first, []))
    await graph.replace_file(FileGraph(sid, "d2", "Dorn", "t", [dorn], [Mention("dorn", f"{sid}:d2:0", 1, True)], []))
    rounds, _about = await expand(graph, sid, MentionRow("", "s", f"{sid}:s:0", 0, True))
    assert [m.file_id for m in rounds[0]] == ["d1", "d2"], rounds
