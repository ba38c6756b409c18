"""Fault injection (#11): break the SQLite writer and the event builder on purpose, one fault at a
time, and check that a test goes red for each. A fault no test notices is a test that cannot fail.

A fault that cannot change behaviour (blanking an added item's content while it is still empty,
say) is not listed: it would survive without saying anything about the tests.
Each fault is a one-line textual change applied to the working tree, the module's own fast tests
run, then the file is restored. Prints each fault with KILLED (a test failed) or SURVIVED.

    .venv/bin/python -m bench.fault_injection
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WRITER = "storage/sqlite/conn.py"
EVENTS = "gateway/engine/events.py"
WRITER_TESTS = ["tests/storage/test_sqlite_writer.py", "tests/storage/test_store_conformance.py", "-k", "not postgres"]
EVENT_TESTS = [
    "tests/engine/test_events.py",
    "tests/api/test_api_responses.py",
    "tests/engine/test_tool_loop.py",
    "-k",
    "not envoy",
]

# (file, what the fault changes, original text, faulty text)
FAULTS: list[tuple[str, str, str, str]] = [
    (
        WRITER,
        "a failing transaction is not rolled back",
        '    except BaseException:\n        conn.execute("ROLLBACK")\n        raise\n    conn.execute("COMMIT")',
        '    except BaseException:\n        conn.execute("COMMIT")\n        raise\n    conn.execute("COMMIT")',
    ),
    (WRITER, "a failing write's savepoint is not rolled back", '        conn.execute("ROLLBACK TO write")\n', ""),
    (
        WRITER,
        "a failing merged batch is not replayed write by write",
        "        if not ok:\n            for i in merged:",
        "        if False:\n            for i in merged:",
    ),
    (
        WRITER,
        "row writes run before the function writes queued ahead of them",
        "                    self._flush_rows(conn, batch, merged, outcomes)  # keep the batch's order\n",
        "",
    ),
    (
        WRITER,
        "a failed write reports success",
        "            future.set_exception(value)",
        "            future.set_result(None)",
    ),
    (
        WRITER,
        "only the first write of a batch is executed",
        "            for sql, params in batch[i][1][0]:",
        "            for sql, params in batch[i][1][0][:1]:",
    ),
    (
        WRITER,
        "a busy COMMIT is not reported to the waiting writes",
        "            outcomes = [(False, exc)] * len(batch)",
        "            pass",
    ),
    (EVENTS, "sequence numbers do not advance", "        self._seq += 1\n", ""),
    (
        EVENTS,
        "output_item.done is never emitted",
        '        self.emit("response.output_item.done", {"output_index": index, "item": item})\n\n\ndef _copy_item',
        "\n\ndef _copy_item",
    ),
    (
        EVENTS,
        "text deltas are lost from the final text",
        '        text = "".join(self.chunks)\n',
        '        text = "".join(self.chunks[:1])\n',
    ),
    (
        EVENTS,
        "a closed item keeps its in_progress status",
        '            item["status"] = status\n',
        "            pass\n",
    ),
    (EVENTS, "retract keeps the withdrawn events", "        self.events = kept\n", ""),
]


def run(tests: list[str]) -> bool:
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, timeout=600, check=False).returncode == 0


def main() -> None:
    killed = 0
    for path, what, original, faulty in FAULTS:
        file = ROOT / path
        text = file.read_text()
        if original not in text:
            print(f"SKIPPED  {path}: {what} (the code changed; update the fault)")
            continue
        file.write_text(text.replace(original, faulty, 1))
        started = time.monotonic()
        try:
            passed = run(WRITER_TESTS if path == WRITER else EVENT_TESTS)
        finally:
            file.write_text(text)
        killed += not passed
        print(f"{'SURVIVED' if passed else 'KILLED  '} {path}: {what} ({time.monotonic() - started:.0f} s)")
    print(f"{killed} of {len(FAULTS)} faults killed by a test")


if __name__ == "__main__":
    main()
