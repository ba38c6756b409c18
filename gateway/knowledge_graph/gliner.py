"""The GLiNER extractor (`GATEWAY_KG_GLINER_MODEL`): entity spans from a GLiNER model, relations as for
every extractor (`extract.extract`).

GLiNER (the `gliner` package, over torch) labels spans with any label names it is given, so the
labels are a setting. Loading stays offline for a local directory: `local_files_only` is set, and a
directory saved by `save_pretrained` carries its tokenizer and a `gliner_config.json` whose
`encoder_config` is filled, which is what keeps `from_pretrained` from fetching the backbone from a
hub (GLiNER issues #108, #123, #249). A hub name works on a machine that can reach the hub.

The corpus's titles are found as for the rule extractor (the gazetteer) and win over an overlapping
model span. Long chunks are cut into windows of whole sentences under the model's length, and one
lock serialises inference (torch uses the cores itself; two threads would only contend).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from gateway.knowledge_graph.extract import Gazetteer, Span, _sentences, guess_type

WINDOW_WORDS = 200


class GlinerExtractor:
    name = "gliner"

    def __init__(self, model: str, *, labels: list[str], threshold: float) -> None:
        from gliner import GLiNER

        local = Path(model).is_dir()
        self.model: Any = GLiNER.from_pretrained(model, local_files_only=local, load_tokenizer=True)
        self.model.eval()
        self.labels = labels
        self.threshold = threshold
        self._lock = threading.Lock()

    def _windows(self, text: str) -> list[tuple[int, str]]:
        windows: list[tuple[int, str]] = []
        start, words = -1, 0
        end = 0
        for offset, sentence in _sentences(text):
            n = len(sentence.split())
            if start >= 0 and words + n > WINDOW_WORDS:
                windows.append((start, text[start:end]))
                start, words = -1, 0
            if start < 0:
                start = offset
            words += n
            end = offset + len(sentence)
        if start >= 0:
            windows.append((start, text[start:end]))
        return windows

    def spans(self, text: str, known: Gazetteer) -> list[Span]:
        found = [Span(text[a:b], guess_type(text[a:b]), a, b) for a, b in known.find(text)]
        taken = [(s.start, s.end) for s in found]
        for offset, window in self._windows(text):
            with self._lock:
                predicted = self.model.predict_entities(window, self.labels, threshold=self.threshold)
            for p in sorted(predicted, key=lambda p: -float(p.get("score", 0.0))):
                a, b = offset + int(p["start"]), offset + int(p["end"])
                name = text[a:b].strip()
                if not name or any(a < te and ts < b for ts, te in taken):
                    continue
                found.append(Span(name, str(p["label"]).lower(), a, a + len(name)))
                taken.append((a, b))
        return sorted(found, key=lambda s: s.start)
