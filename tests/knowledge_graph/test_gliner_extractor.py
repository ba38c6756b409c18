"""The GLiNER extractor (#12) on a tiny GLiNER built offline (tests/support/tiny_gliner.py): loading a local
directory with no network, inference, span offsets, labels, threshold; and a gateway configured with
`GATEWAY_KG_GLINER_MODEL` extracting its graph with it at ingestion."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from openai import OpenAI

from gateway.knowledge_graph.extract import Gazetteer, extract
from storage.sqlite.conn import sqlite3
from tests.support.procs import Backend, gateway
from tests.support.retrieval_helpers import retrieval_env, wait_ingested
from tests.support.tiny_gliner import build_tiny_gliner

TEXT = "Mirela Vantosh founded Quillon Dynamics in Tervanne. The Zorblax X7 is made by Quillon Dynamics."


@pytest.fixture(scope="module")
def tiny_gliner(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield build_tiny_gliner(tmp_path_factory.mktemp("gliner"))


def test_gliner_extractor_loads_offline_and_finds_spans(tiny_gliner: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gateway.knowledge_graph.gliner import GlinerExtractor

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert {p.name for p in tiny_gliner.iterdir()} >= {"gliner_config.json", "tokenizer.json"}
    extractor = GlinerExtractor(str(tiny_gliner), labels=["person", "organization"], threshold=0.3)
    spans = extractor.spans(TEXT, Gazetteer(["Zorblax X7"]))
    assert spans, "a threshold under the untrained heads' scores yields spans"
    for s in spans:
        assert TEXT[s.start : s.end] == s.text and s.type in {"person", "organization", "product"}
    assert any(s.text == "Zorblax X7" and s.type == "product" for s in spans)  # the corpus's titles win
    assert [(s.start, s.end) for s in spans] == sorted((s.start, s.end) for s in spans)
    strict = GlinerExtractor(str(tiny_gliner), labels=["person"], threshold=0.99)
    assert [s.text for s in strict.spans(TEXT, Gazetteer([]))] == []  # nothing scores 0.99 untrained
    graph = extract(extractor, TEXT, known=Gazetteer(["Zorblax X7"]), subject=("Zorblax X7", "product"))
    assert "zorblax x7" in graph.entities and graph.relations


@pytest.mark.slow
def test_gateway_ingests_with_gliner(backend: Backend, tiny_gliner: Path, tmp_path: Path) -> None:
    env = {
        **retrieval_env(backend.url),
        "GATEWAY_KG_GLINER_MODEL": str(tiny_gliner),
        "GATEWAY_KG_GLINER_THRESHOLD": "0.3",
    }
    with gateway(backend.url, tmp_path, **env) as gw:
        client = OpenAI(base_url=gw.url, api_key="k", max_retries=0)
        fid = client.files.create(
            file=("zorblax.md", io.BytesIO(f"# Zorblax X7\n\n{TEXT}".encode())), purpose="assistants"
        ).id
        store = client.vector_stores.create(name="gliner", file_ids=[fid])
        assert wait_ingested(client, store.id, timeout=60).file_counts.completed == 1
        page = client.vector_stores.search(
            store.id, query="Who makes the Zorblax X7?", ranking_options={"ranker": "kg"}
        )  # type: ignore[typeddict-item]
        assert page.data and page.data[0].file_id == fid
    with sqlite3.connect(tmp_path / "gateway.db") as db:
        assert db.execute("SELECT extractor FROM kg_files WHERE file_id = ?", (fid,)).fetchall() == [("gliner",)]
        assert db.execute("SELECT COUNT(*) FROM kg_entities WHERE store_id = ?", (store.id,)).fetchone()[0] >= 1
