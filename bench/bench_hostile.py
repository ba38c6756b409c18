"""What hostile input costs one process, in-process (#26): the figures the issue names.

- redaction of an error message quoting a client's id of 20,000 and 100,000 characters (it
  backtracked: 1.7 s and 43 s on one event loop before #26; linear now);
- the refusal of a DOCX whose XML inflates ~500x (the expansion counted while decompressing) and
  of a JSON file nested 20,000 deep;
- the refusal of a prompt rendering past its cap.

Usage: .venv/bin/python -m bench.bench_hostile   (~5 s). Targets: 50 ms for what runs on the event
loop (redaction, rendering), 200 ms for extraction (a worker thread): PASS/MISS.
"""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Callable
from functools import partial

LOOP_S, THREAD_S = 0.05, 0.2


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    try:
        fn()
    except Exception:  # a refusal is the expected outcome for the hostile cases
        pass
    return time.perf_counter() - started


def docx_bomb(xml_bytes: int) -> bytes:
    import docx

    plain = io.BytesIO()
    docx.Document().save(plain)
    paragraph = b"<w:p><w:r><w:t>quokka quokka quokka quokka</w:t></w:r></w:p>"
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(plain.getvalue())) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "word/document.xml":
                head, _, _rest = data.partition(b"<w:body>")
                data = head + b"<w:body>" + paragraph * (xml_bytes // len(paragraph)) + b"</w:body></w:document>"
            dst.writestr(info.filename, data)
    return out.getvalue()


def main() -> None:
    from gateway.common.errors import InvalidRequest
    from gateway.common.redact import redact
    from vectorstore.extract import Limits, extract_text

    rows: list[tuple[str, float, float]] = []
    for n in (20_000, 100_000):
        text = f"Previous response with id 'resp_{'a' * n}' not found."
        rows.append((f"redact an error quoting a {n:,}-character id", timed(partial(redact, text)), LOOP_S))
    bomb = docx_bomb(50 * 1024 * 1024)
    limits = Limits(expanded_bytes=64 * 1024 * 1024, ratio=100, chars=64 * 1024 * 1024)
    rows.append(
        (
            f"refuse a {len(bomb) // 1024} KB DOCX inflating to 50 MB",
            timed(lambda: extract_text("b.docx", bomb, None, limits)),
            THREAD_S,
        )
    )
    deep = b'{"a":' * 20_000 + b"1" + b"}" * 20_000
    rows.append(
        ("refuse a JSON file nested 20,000 deep", timed(lambda: extract_text("d.json", deep, None, limits)), THREAD_S)
    )

    from gateway.engine.prompt_render import _Budget

    def render() -> None:
        budget = _Budget(32 * 1024 * 1024)
        value = "y" * 400_000
        for _ in range(100):
            budget.spend(value)

    started = time.perf_counter()
    try:
        render()
    except InvalidRequest:
        pass
    rows.append(("refuse a prompt rendering 100 x 400 KB past a 32 MiB cap", time.perf_counter() - started, LOOP_S))
    for name, seconds, target in rows:
        verdict = "PASS" if seconds < target else "MISS"
        print(f"{name:<60} {seconds * 1000:8.1f} ms  {verdict} (target < {target * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
