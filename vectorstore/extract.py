"""Text out of uploaded files: plain text and code, Markdown, PDF, HTML, CSV/TSV, JSON/JSONL, DOCX.

Synchronous and pure (bytes in, text out) because it is CPU-bound: callers run it in a worker
thread. The file type comes from the extension first (what OpenAI's API keys on), then the
declared content type. Structured formats become text that embeds and chunks well: one CSV row or
JSON record per paragraph, as `key: value` lines, so a chunk boundary never splits a record's
fields from their names.
"""

from __future__ import annotations

import csv
import io
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any


class UnsupportedFileType(ValueError):
    """The file's type is not one we can extract text from (the API answers 400)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ExtractionError(ValueError):
    """The file claims a supported type but cannot be read (corrupt, encrypted, not that type)."""


TEXT_EXTENSIONS = frozenset(
    ".txt .text .md .markdown .rst .log .tex .org .adoc .ini .cfg .toml .yaml .yml .xml .sql .sh .bash .zsh .ps1 .bat "
    ".py .pyi .js .mjs .cjs .ts .tsx .jsx .java .kt .scala .c .h .cc .cpp .cxx .hpp .cs .go .rs .rb .php .pl .swift "
    ".r .lua .dart .css .scss .less .vue .svelte .proto .graphql .diff .patch".split()
)
_TYPES_BY_MIME = {
    "application/pdf": "pdf",
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/csv": "csv",
    "text/tab-separated-values": "tsv",
    "application/json": "json",
    "application/x-ndjson": "jsonl",
    "application/jsonl": "jsonl",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
}
_TYPES_BY_EXT = {
    ".pdf": "pdf",
    ".html": "html",
    ".htm": "html",
    ".csv": "csv",
    ".tsv": "tsv",
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".docx": "docx",
}


def file_kind(filename: str, content_type: str | None = None) -> str:
    """`text`, `pdf`, `html`, `csv`, `tsv`, `json`, `jsonl` or `docx`; UnsupportedFileType otherwise."""
    ext = PurePosixPath(filename.lower()).suffix
    if ext in _TYPES_BY_EXT:
        return _TYPES_BY_EXT[ext]
    if ext in TEXT_EXTENSIONS:
        return "text"
    mime = (content_type or "").split(";")[0].strip().lower()
    if mime in _TYPES_BY_MIME:
        return _TYPES_BY_MIME[mime]
    if mime.startswith("text/"):
        return "text"
    shown = ext or (f"content type {mime}" if mime else "no extension")
    raise UnsupportedFileType(
        f"unsupported file type for {filename!r} ({shown}); supported: text, code, Markdown, "
        "PDF, HTML, CSV, TSV, JSON, JSONL, DOCX"
    )


def decode_text(data: bytes) -> str:
    """UTF-8 (with or without BOM) or UTF-16 with BOM; cp1252 as the last resort. Binary is an error."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16")
    if b"\x00" in data[:8192]:
        raise ExtractionError("the file looks binary (NUL bytes), not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def _pdf(data: bytes) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise ExtractionError("the PDF is encrypted")
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError) as exc:
        if isinstance(exc, ExtractionError):
            raise
        raise ExtractionError(f"unreadable PDF: {exc}") from exc
    return "\n\n".join(p.strip() for p in pages if p.strip())


def _html(data: bytes) -> str:
    import trafilatura

    # trafilatura logs ERROR for fragments and pages without a "main content"; we handle those below.
    logging.getLogger("trafilatura").setLevel(logging.CRITICAL)
    html = decode_text(data)
    text = trafilatura.extract(html, include_tables=True, include_comments=False, favor_recall=True)
    return str(text).strip() if text else _visible_text(html)


def _visible_text(html: str) -> str:
    """All visible text of a fragment or a page too small for trafilatura's boilerplate removal."""
    from lxml import etree
    from lxml import html as lxml_html

    try:
        root = lxml_html.fromstring(html)
    except (etree.ParserError, ValueError):
        return ""
    for node in root.xpath("//script|//style|//noscript|//template"):
        node.drop_tree()
    return "\n".join(t.strip() for t in root.itertext() if t.strip())


def _table(data: bytes, delimiter: str | None) -> str:
    text = decode_text(data)
    if delimiter is None:
        try:
            delimiter = csv.Sniffer().sniff(text[:4096], delimiters=",;\t|").delimiter
        except csv.Error:
            delimiter = ","
    try:
        rows = [r for r in csv.reader(io.StringIO(text), delimiter=delimiter) if any(c.strip() for c in r)]
    except csv.Error as exc:
        raise ExtractionError(f"unreadable CSV: {exc}") from exc
    if not rows:
        return ""
    header = [h.strip() or f"column {i + 1}" for i, h in enumerate(rows[0])]
    records = []
    for row in rows[1:]:
        cells = [(header[i] if i < len(header) else f"column {i + 1}", c.strip()) for i, c in enumerate(row)]
        records.append("\n".join(f"{k}: {v}" for k, v in cells if v))
    return "\n\n".join(r for r in records if r) if records else ", ".join(header)


def _render(value: Any, indent: int = 0) -> list[str]:
    """JSON as indented `key: value` lines (reads like YAML; embeds better than braces and quotes)."""
    pad = "  " * indent
    if isinstance(value, dict):
        lines: list[str] = []
        for k, v in value.items():
            if isinstance(v, dict | list) and v:
                lines.append(f"{pad}{k}:")
                lines.extend(_render(v, indent + 1))
            else:
                lines.append(f"{pad}{k}: {_scalar(v)}")
        return lines
    if isinstance(value, list):
        out: list[str] = []
        for v in value:
            sub = _render(v, indent + 1)
            if sub:
                out.append(f"{pad}- {sub[0].strip()}")
                out.extend(sub[1:])
        return out
    return [f"{pad}{_scalar(value)}"]


def _scalar(v: Any) -> str:
    if v is None or isinstance(v, bool):
        return json.dumps(v)
    return "[]" if v == [] else "{}" if v == {} else str(v)


MAX_JSON_DEPTH = 64  # deeper than any record worth indexing; json.loads itself recursed past 1,000 (#26)


def _depth(text: str) -> int:
    """The deepest nesting of brackets outside strings: a linear scan before json.loads recurses."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _load_json(text: str, where: str = "") -> Any:
    if _depth(text) > MAX_JSON_DEPTH:
        raise ExtractionError(f"invalid JSON{where}: nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ExtractionError(f"invalid JSON{where}: {exc}") from exc


def _json(data: bytes) -> str:
    value = _load_json(decode_text(data))
    if isinstance(value, list):  # an array of records: one paragraph each
        return "\n\n".join("\n".join(_render(v)) for v in value)
    return "\n".join(_render(value))


def _jsonl(data: bytes) -> str:
    records = []
    for n, line in enumerate(decode_text(data).splitlines(), start=1):
        if line.strip():
            records.append("\n".join(_render(_load_json(line, f" on line {n}"))))
    return "\n\n".join(records)


def _docx(data: bytes) -> str:
    import zipfile

    import docx

    try:
        document = docx.Document(io.BytesIO(data))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise ExtractionError(f"unreadable DOCX: {exc}") from exc
    parts = [p.text for p in document.paragraphs if p.text.strip()]
    for table in document.tables:
        for row in table.rows:
            cells = [c.text.strip() for c in row.cells]
            if any(cells):
                parts.append(" | ".join(cells))
    return "\n\n".join(parts)


_EXTRACTORS: dict[str, Callable[[bytes], str]] = {
    "text": decode_text,
    "pdf": _pdf,
    "html": _html,
    "csv": lambda d: _table(d, None),
    "tsv": lambda d: _table(d, "\t"),
    "json": _json,
    "jsonl": _jsonl,
    "docx": _docx,
}


@dataclass(frozen=True)
class Limits:
    """What one file may grow into (#26): a 150 KB DOCX inflated to 51 MB of XML and 94 s of
    ingestion. `expanded_bytes` and `ratio` bound an archive's members as they are decompressed
    (before any parser sees them); `chars` bounds the extracted text."""

    expanded_bytes: int = 64 * 1024 * 1024
    ratio: float = 100.0
    chars: int = 64 * 1024 * 1024


def _check_archive(data: bytes, limits: Limits) -> None:
    """Decompress every member of a ZIP container (DOCX), counting, and stop at the first byte past
    the cap: the sizes a ZIP declares are the sender's word, so they are not trusted."""
    import zipfile

    cap = min(limits.expanded_bytes, int(limits.ratio * max(len(data), 1)))
    total = 0
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                with archive.open(info) as member:
                    while chunk := member.read(1 << 16):
                        total += len(chunk)
                        if total > cap:
                            raise ExtractionError(
                                f"the archive expands past {cap} bytes ({limits.ratio:g} times its size at most, "
                                f"and {limits.expanded_bytes} bytes at most)"
                            )
    except (zipfile.BadZipFile, zipfile.LargeZipFile, KeyError, ValueError, NotImplementedError, EOFError) as exc:
        if isinstance(exc, ExtractionError):
            raise
        raise ExtractionError(f"unreadable archive: {exc}") from exc


def extract_text(filename: str, data: bytes, content_type: str | None = None, limits: Limits | None = None) -> str:
    """The text of a file. May be empty (a scanned PDF has no text layer): callers decide what that means.

    Raises UnsupportedFileType for types we do not read, ExtractionError for corrupt files and for
    files past `limits` (an archive that expands too far, a text too long).
    """
    limits = limits or Limits()
    kind = file_kind(filename, content_type)
    if kind == "docx":
        _check_archive(data, limits)
    text = _EXTRACTORS[kind](data).replace("\r\n", "\n").strip()
    if len(text) > limits.chars:
        raise ExtractionError(f"the extracted text has {len(text)} characters; the limit is {limits.chars}")
    return text
