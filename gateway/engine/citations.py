"""Citations: sources that server-side tools hand to the model, and the filter that turns the
model's `[n]` markers into annotations.

A tool registers each source it shows the model (a file chunk, a web page) and labels it with the
marker `[n]` in the tool output. When the model writes `[n]` in its answer, the marker is removed
from the text deltas and becomes a `file_citation` (at the marker's position) or a `url_citation`
(spanning the sentence that used the source), emitted as `response.output_text.annotation.added`.
A marker split across two deltas is held back until it is complete, so no raw marker ever leaks.
"""

from __future__ import annotations

import re
from typing import Any

_MARKER = re.compile(r"\[(\d{1,4})\]")
_HOLD = re.compile(r"\[\d{0,4}$")  # a marker that may still be completed by the next delta


class CitationSources:
    def __init__(self) -> None:
        self._sources: dict[int, dict[str, Any]] = {}

    def add(self, source: dict[str, Any]) -> int:
        """Register a source (`{"type": "file_citation", "file_id", "filename"}` or
        `{"type": "url_citation", "url", "title"}`) and return its marker number."""
        number = len(self._sources) + 1
        self._sources[number] = source
        return number

    def get(self, number: int) -> dict[str, Any] | None:
        return self._sources.get(number)

    def __bool__(self) -> bool:
        return bool(self._sources)


class CitationFilter:
    def __init__(self, sources: CitationSources) -> None:
        self.sources = sources
        self.text = ""  # clean text emitted so far
        self._pending = ""

    def feed(self, delta: str) -> tuple[str, list[dict[str, Any]]]:
        buf = self._pending + delta
        hold = _HOLD.search(buf)
        cut = hold.start() if hold else len(buf)
        while cut > 0 and buf[cut - 1] == " ":  # a space may turn out to precede a marker
            cut -= 1
        self._pending = buf[cut:]
        return self._process(buf[:cut])

    def flush(self) -> tuple[str, list[dict[str, Any]]]:
        buf, self._pending = self._pending, ""
        return self._process(buf)

    def _process(self, segment: str) -> tuple[str, list[dict[str, Any]]]:
        out: list[str] = []
        annotations: list[dict[str, Any]] = []
        pos = 0
        for match in _MARKER.finditer(segment):
            source = self.sources.get(int(match.group(1)))
            if source is None:
                continue  # not a marker we issued: ordinary text such as "[0]"
            piece = segment[pos : match.start()]
            out.append(
                piece.rstrip(" ") if segment[match.end() : match.end() + 1] in (".", ",", ";", ":", "") else piece
            )
            pos = match.end()
            index = len(self.text) + sum(len(p) for p in out)
            annotations.append(self._annotation(source, index, self.text + "".join(out)))
        out.append(segment[pos:])
        clean = "".join(out)
        self.text += clean
        return clean, annotations

    @staticmethod
    def _annotation(source: dict[str, Any], index: int, before: str) -> dict[str, Any]:
        if source["type"] == "url_citation":
            dot = before.rfind(". ", 0, index)  # -1 (no earlier sentence) must give 0, not 1
            start = max(dot + 2 if dot >= 0 else 0, before.rfind("\n", 0, index) + 1)
            if start >= index:
                start = 0
            return {
                "type": "url_citation",
                "url": source["url"],
                "title": source.get("title", ""),
                "start_index": start,
                "end_index": index,
            }
        return {**source, "index": index}
