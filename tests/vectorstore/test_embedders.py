"""Embedders: the local numpy MiniLM (real vectors, equivalent to sentence-transformers) and the
OpenAI-compatible client against the scripted backend's /v1/embeddings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest

from gateway.config import Settings
from tests.support.scripted_backend import EMBED_DIM, ScriptedBackend
from tests.support.scripted_backend import embed as scripted_embed
from vectorstore.embedders import EmbeddingError, LocalEmbedder, OpenAICompatibleEmbedder, build_embedder

GOLDEN = json.loads((Path(__file__).parent.parent / "golden" / "minilm_golden.json").read_text(encoding="utf-8"))
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
async def local() -> AsyncIterator[LocalEmbedder]:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing here may reach a model hub
    embedder = build_embedder(Settings())
    assert isinstance(embedder, LocalEmbedder)
    await embedder.warmup()
    yield embedder
    await embedder.close()


async def test_local_vectors_are_real_and_normalised(local: LocalEmbedder) -> None:
    assert local.name == "local:all-MiniLM-L6-v2" and local.dimension == 384
    texts = ["The cat sleeps on the sofa.", "A kitten is napping on the couch.", "Quarterly revenue grew 12%."]
    vectors = np.array(await local.embed(texts))
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    sims = vectors @ vectors.T
    assert sims[0, 1] > 0.5 > sims[0, 2]  # paraphrase close, unrelated far
    assert await local.embed([]) == []


async def test_local_matches_sentence_transformers_golden(local: LocalEmbedder) -> None:
    """Golden vectors come from sentence-transformers + torch (tests/golden/make_minilm_golden.py)."""
    ours = np.array(await local.embed(GOLDEN["sentences"]))
    ref = np.array(GOLDEN["vectors"])
    cosines = np.sum(ours * ref, axis=1) / np.linalg.norm(ref, axis=1)
    assert cosines.min() >= 0.999, cosines


async def test_local_batching_keeps_order(local: LocalEmbedder) -> None:
    texts = [f"sentence number {i} " + "word " * (i % 7) for i in range(20)]  # query and bulk paths
    together = np.array(await local.embed(texts))
    alone = np.array([(await local.embed([t]))[0] for t in texts[:3]])
    assert np.allclose(together[:3], alone, atol=1e-5)


def test_count_tokens_uses_the_wordpiece_tokenizer() -> None:
    e = LocalEmbedder()
    assert e.count_tokens("") == 0
    assert e.count_tokens("hello world") == 2
    assert e.count_tokens("tokenization") == 2  # token ##ization
    assert e.count_tokens("word " * 1000) == 1000  # no 256-token truncation when counting


def test_import_is_light_and_offline() -> None:
    """Importing the embedders (and loading the model) must not pull torch or touch the network."""
    code = (
        "import sys, time; t = time.perf_counter(); import vectorstore.embedders as e; "
        "m = e.LocalEmbedder()._load(); "
        "assert 'torch' not in sys.modules and 'sentence_transformers' not in sys.modules; "
        "print(time.perf_counter() - t)"
    )
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "no_proxy": "*",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "HTTP_PROXY": "http://127.0.0.1:9",
    }
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert float(out.stdout.strip()) < 10.0


@pytest.fixture(scope="module")
async def scripted() -> AsyncIterator[ScriptedBackend]:
    b = ScriptedBackend("embed-model")
    await b.start()
    yield b
    await b.stop()


async def test_openai_compatible_embedder(scripted: ScriptedBackend) -> None:
    settings = Settings(embedding_url=scripted.url, embedding_model="embed-model", embedding_api_key="sk-test")
    embedder = build_embedder(settings)
    assert isinstance(embedder, OpenAICompatibleEmbedder)
    assert embedder.name == f"openai-compatible:embed-model@{scripted.url}"
    with pytest.raises(RuntimeError):
        _ = embedder.dimension
    await embedder.warmup()
    assert embedder.dimension == EMBED_DIM
    texts = [f"text number {i}" for i in range(150)]  # three requests of at most 64
    scripted.requests.clear()
    vectors = await embedder.embed(texts)
    assert np.allclose(vectors, [scripted_embed(t) for t in texts], atol=1e-6)
    bodies = [r["body"] for r in scripted.requests if r["path"] == "/v1/embeddings"]
    assert [len(b["input"]) for b in bodies] == [64, 64, 22]
    assert all(b["model"] == "embed-model" and b["encoding_format"] == "base64" for b in bodies)
    assert scripted.requests[-1]["headers"].get("Authorization") == "Bearer sk-test"
    assert embedder.count_tokens("hello world") == 2
    await embedder.close()


async def test_openai_compatible_errors(scripted: ScriptedBackend) -> None:
    missing = OpenAICompatibleEmbedder(scripted.url.replace("/v1", "/nope"), "m")
    with pytest.raises(EmbeddingError, match="HTTP 404"):
        await missing.embed(["x"])
    await missing.close()
    refused = OpenAICompatibleEmbedder("http://127.0.0.1:9/v1", "m", timeout=5)
    with pytest.raises(EmbeddingError):
        await refused.embed(["x"])
    await refused.close()
