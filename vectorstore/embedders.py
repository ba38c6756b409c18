"""Embedders: the local all-MiniLM-L6-v2 (default, offline) and an OpenAI-compatible /v1/embeddings.

The local model runs on worker threads (numpy's BLAS releases the GIL), loads lazily, and can be
loaded ahead with `warmup()` in the background at start-up, so neither the ExtProc's start nor the
first request pays for it. Two workers: one for queries (a few texts) and one for bulk ingestion,
so a search never waits behind a 500-chunk file being embedded.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import aiohttp
import numpy as np

from vectorstore.base import Embedder
from vectorstore.minilm import MODEL_NAME, MiniLM, load_tokenizer, model_dir


@functools.cache
def _tokenizer() -> Any:
    return load_tokenizer(model_dir(), None)


def count_minilm_tokens(text: str) -> int:
    """WordPiece tokens of all-MiniLM-L6-v2's tokenizer, without special tokens or truncation
    (chunk sizes are counted with it whichever embedder is in use)."""
    return len(_tokenizer().encode(text, add_special_tokens=False).ids)


QUERY_TEXTS = 8  # requests this small go to the query worker
BULK_BATCH = 64  # bulk requests are cut into pieces this size (bounded memory, progress)


class EmbeddingError(RuntimeError):
    """The embedding service failed or answered something unusable."""


class LocalEmbedder:
    """all-MiniLM-L6-v2 in numpy (vectorstore/minilm.py): 384-d, unit length, 256-token window."""

    dimension = 384

    def __init__(self) -> None:
        self.name = f"local:{MODEL_NAME}"
        self._model: MiniLM | None = None
        self._lock = threading.Lock()
        self._query = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed-query")
        self._bulk = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed-bulk")

    def _load(self) -> MiniLM:
        with self._lock:
            if self._model is None:
                model = MiniLM()
                if model.dimension != self.dimension:
                    raise RuntimeError(f"{model.path} is {model.dimension}-d, expected {self.dimension}")
                model.encode(["warm up"])  # first BLAS call allocates its buffers
                self._model = model
            return self._model

    async def warmup(self) -> None:
        """Load the model (≈0.3 s) on the bulk worker; safe to call more than once."""
        await asyncio.get_running_loop().run_in_executor(self._bulk, self._load)

    def _encode(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = self._load().encode(texts).tolist()
        return vectors

    async def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        loop = asyncio.get_running_loop()
        if len(texts) <= QUERY_TEXTS:
            return await loop.run_in_executor(self._query, self._encode, texts)
        out: list[list[float]] = []
        for start in range(0, len(texts), BULK_BATCH):
            out.extend(await loop.run_in_executor(self._bulk, self._encode, texts[start : start + BULK_BATCH]))
        return out

    def count_tokens(self, text: str) -> int:
        return count_minilm_tokens(text)

    async def close(self) -> None:
        self._query.shutdown(wait=False)
        self._bulk.shutdown(wait=False)


class OpenAICompatibleEmbedder:
    """POST {base}/embeddings as vLLM (`--task embed`) and TEI serve it.

    The dimension is learned from the first answer (`warmup()` asks once). Token counting uses the
    local MiniLM tokenizer: the remote model's tokenizer is not available offline, and WordPiece
    counts are within a few percent of typical BPE counts for English, which is what chunk sizes need.
    """

    def __init__(
        self,
        base_url: str,
        model: str | None,
        api_key: str | None = None,
        *,
        batch_size: int = 64,
        timeout: float = 60.0,
        dimension: int | None = None,
    ) -> None:
        self.base = base_url.rstrip("/")
        self.model = model
        self.name = f"openai-compatible:{model or 'default'}@{self.base}"
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._batch = batch_size
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._dimension = dimension
        self._session: aiohttp.ClientSession | None = None

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            raise RuntimeError(f"{self.name}: dimension unknown until the first embedding; await warmup() first")
        return self._dimension

    @dimension.setter
    def dimension(self, value: int) -> None:
        self._dimension = value

    async def warmup(self) -> None:
        if self._dimension is None:
            await self.embed(["dimension probe"])

    async def _post(self, texts: list[str]) -> list[list[float]]:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(timeout=self._timeout)
        body: dict[str, Any] = {"input": texts, "encoding_format": "base64"}
        if self.model:
            body["model"] = self.model
        try:
            async with self._session.post(f"{self.base}/embeddings", json=body, headers=self._headers) as resp:
                if resp.status != 200:
                    detail = (await resp.text())[:500]
                    raise EmbeddingError(f"{self.base}/embeddings: HTTP {resp.status}: {detail}")
                payload = await resp.json(content_type=None)
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            raise EmbeddingError(f"{self.base}/embeddings: {exc}") from exc
        data = sorted(payload.get("data") or [], key=lambda d: d.get("index", 0))
        if len(data) != len(texts):
            raise EmbeddingError(f"{self.base}/embeddings: {len(data)} vectors for {len(texts)} inputs")
        return [_decode(d.get("embedding")) for d in data]

    async def embed(self, texts: list[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for start in range(0, len(texts), self._batch):
            out.extend(await self._post(texts[start : start + self._batch]))
        for v in out:
            if self._dimension is None:
                self._dimension = len(v)
            elif len(v) != self._dimension:
                raise EmbeddingError(f"{self.name}: got a {len(v)}-d vector, expected {self._dimension}")
        return out

    def count_tokens(self, text: str) -> int:
        return count_minilm_tokens(text)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()


def _decode(embedding: Any) -> list[float]:
    """A vector sent as a float list, or as base64 little-endian float32 (what we ask for: 4x smaller)."""
    if isinstance(embedding, str):
        return np.frombuffer(base64.b64decode(embedding), dtype="<f4").astype(float).tolist()
    if isinstance(embedding, list):
        return [float(x) for x in embedding]
    raise EmbeddingError(f"unexpected embedding payload: {type(embedding).__name__}")


def build_embedder(settings: Any) -> Embedder:
    """The embedder for these settings: local MiniLM unless `embedding_url` is set."""
    if settings.embedding_url:
        return OpenAICompatibleEmbedder(settings.embedding_url, settings.embedding_model, settings.embedding_api_key)
    return LocalEmbedder()
