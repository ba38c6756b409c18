"""Text extraction for every supported type (including a real PDF built here) and token chunking."""

from __future__ import annotations

import io
import itertools
import json

import pytest

from vectorstore.chunking import chunk_text
from vectorstore.extract import ExtractionError, UnsupportedFileType, extract_text, file_kind


def make_pdf(pages: list[str]) -> bytes:
    """A minimal, valid PDF (Helvetica text, one line per page) with a correct xref table."""
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    kids = []
    for text in pages:
        stream = f"BT /F1 14 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream")
        content_ref = len(objects)
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {content_ref} 0 R "
            "/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>".encode()
        )
        kids.append(f"{len(objects)} 0 R")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(pages)} >>".encode()
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{n} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for off in offsets:
        out.write(f"{off:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def test_text_and_markdown() -> None:
    assert extract_text("notes.txt", "héllo\r\nworld".encode()) == "héllo\nworld"
    assert extract_text("README.md", "\ufeff# Title\n\nBody".encode()) == "# Title\n\nBody"
    assert extract_text("main.py", b"print('x')") == "print('x')"
    assert extract_text("legacy.txt", "caf\xe9".encode("cp1252")) == "café"
    assert extract_text("utf16.txt", "wide text".encode("utf-16")) == "wide text"
    assert extract_text("noext", b"plain", "text/plain; charset=utf-8") == "plain"
    with pytest.raises(ExtractionError):
        extract_text("fake.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")


def test_pdf() -> None:
    data = make_pdf(["The first page talks about vector stores.", "Page two: hybrid search with BM25."])
    text = extract_text("report.pdf", data)
    assert "first page talks about vector stores" in text and "hybrid search with BM25" in text
    assert text.index("first page") < text.index("Page two")
    assert file_kind("blob", "application/pdf") == "pdf"
    with pytest.raises(ExtractionError):
        extract_text("broken.pdf", b"%PDF-1.4\nthis is not really a pdf")


def test_html_keeps_article_text() -> None:
    html = (
        "<html><head><title>t</title><script>var tracking = 1;</script></head><body>"
        "<nav>Home | About | Contact</nav><article><h1>Sourdough basics</h1>"
        + "".join(
            f"<p>Paragraph {i}: feed the starter with flour and water, then wait for it to rise.</p>" for i in range(6)
        )
        + "</article><footer>Copyright 2024</footer></body></html>"
    )
    text = extract_text("page.html", html.encode())
    assert "feed the starter with flour and water" in text
    assert "var tracking" not in text
    assert extract_text("tiny.htm", b"<p>Just one line.</p>") == "Just one line."


def test_csv_and_tsv_rows_become_records() -> None:
    text = extract_text("people.csv", b'name,city,age\nAnn,Paris,31\nBob,"Oslo, Norway",45\n')
    assert text == "name: Ann\ncity: Paris\nage: 31\n\nname: Bob\ncity: Oslo, Norway\nage: 45"
    assert extract_text("semi.csv", b"a;b\n1;2\n") == "a: 1\nb: 2"
    assert extract_text("t.tsv", b"k\tv\nx\ty\n") == "k: x\nv: y"


def test_json_and_jsonl() -> None:
    doc = {"title": "Guide", "tags": ["a", "b"], "author": {"name": "Ann", "active": True}, "empty": None}
    text = extract_text("doc.json", json.dumps(doc).encode())
    assert "title: Guide" in text and "name: Ann" in text and "active: true" in text and "- a" in text
    records = extract_text("r.json", json.dumps([{"id": 1}, {"id": 2}]).encode())
    assert records == "id: 1\n\nid: 2"
    assert extract_text("log.jsonl", b'{"msg": "started"}\n\n{"msg": "done", "code": 0}\n') == (
        "msg: started\n\nmsg: done\ncode: 0"
    )
    with pytest.raises(ExtractionError):
        extract_text("bad.json", b"{not json")
    with pytest.raises(ExtractionError, match="line 2"):
        extract_text("bad.jsonl", b'{"ok": 1}\n{broken\n')


def test_docx() -> None:
    import docx

    document = docx.Document()
    document.add_paragraph("Quarterly planning notes.")
    document.add_paragraph("Ship the vector store by Friday.")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "owner", "task"
    table.cell(1, 0).text, table.cell(1, 1).text = "Ann", "benchmarks"
    buf = io.BytesIO()
    document.save(buf)
    text = extract_text("plan.docx", buf.getvalue())
    assert "Quarterly planning notes." in text and "Ship the vector store by Friday." in text
    assert "Ann | benchmarks" in text
    with pytest.raises(ExtractionError):
        extract_text("broken.docx", b"PK\x03\x04 not a zip")


def test_unsupported_types() -> None:
    for name, ctype in [("photo.png", None), ("archive.zip", "application/zip"), ("noext", None), ("x.doc", None)]:
        with pytest.raises(UnsupportedFileType) as err:
            extract_text(name, b"\x00\x01", ctype)
        assert name in err.value.message


def words(text: str) -> int:
    """A stand-in tokenizer: one token per whitespace-separated word."""
    return len(text.split())


def test_chunking_limits_overlap_and_boundaries() -> None:
    paragraphs = [" ".join(f"p{p}s{s}w{w}" for w in range(10)) + "." for p in range(12) for s in range(1)]
    text = "\n\n".join(paragraphs)  # 12 paragraphs of 10 words
    chunks = chunk_text(text, words, max_tokens=35, overlap=10)
    assert all(words(c) <= 35 for c in chunks)
    assert all(c.strip() == c and c for c in chunks)
    assert all(c.startswith("p") and c.endswith(".") for c in chunks)  # cut at paragraph boundaries
    # every paragraph is in some chunk, and consecutive chunks share one paragraph (10 <= overlap)
    assert all(any(p in c for c in chunks) for p in paragraphs)
    for a, b in itertools.pairwise(chunks):
        assert a.split("\n\n")[-1] == b.split("\n\n")[0]


def test_chunking_long_sentences_and_words() -> None:
    sentence = "This sentence has exactly eight words in it. "
    text = sentence * 50  # one paragraph, 400 words
    chunks = chunk_text(text, words, max_tokens=20, overlap=0)
    assert all(words(c) <= 20 for c in chunks) and sum(words(c) for c in chunks) == 400
    assert all(c.endswith("it.") for c in chunks)  # sentence boundaries
    one_line = " ".join(f"w{i}" for i in range(95))  # no sentence ends: cut between words
    cut = chunk_text(one_line, words, max_tokens=10, overlap=4)
    assert all(words(c) <= 10 for c in cut) and cut[0].startswith("w0") and cut[-1].endswith("w94")
    blob = "x" * 10_000  # one "word": cut by characters
    assert "".join(chunk_text(blob, words, max_tokens=50, overlap=0)) == blob


def test_chunking_defaults_and_edge_cases() -> None:
    assert chunk_text("", words) == [] and chunk_text(" \n\n \t", words) == []
    assert chunk_text("short text", words) == ["short text"]
    long = "\n\n".join(f"Paragraph {i} " + "word " * 98 for i in range(20))  # 2000 words
    chunks = chunk_text(long, words)  # OpenAI's auto: 800 / 400
    assert all(words(c) <= 800 for c in chunks) and len(chunks) == 4
    with pytest.raises(ValueError):
        chunk_text("x", words, max_tokens=100, overlap=100)
