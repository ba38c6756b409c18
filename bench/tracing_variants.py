"""Probe trees for `bench.tracing_paired --off2-src DIR`: this checkout's code with one layer of
tracing's work cut out, so `off2 - off` prices the layers below it in the same blocks as `on - off` (#31).

    .venv/bin/python -m bench.tracing_variants DIR {noqueue,drop,native}
    .venv/bin/python -m bench.tracing_paired --no-streams --seconds 200 --restarts 3 --off2-src DIR

Variants (each one exact edit of a copy of `gateway extproc storage vectorstore`; the checkout is
never touched, and the copy fails loudly when the edited line has moved):
- ``noqueue``: every span is made, gets its attributes and ends, but its end queues nothing
  (`span_records.queue_span` returns at once): the call sites and the spans' own code, no record,
  no encoding, no export. With ``--off2-env OTEL_TRACES_SAMPLER=always_off`` instead (no tree) the
  call sites alone.
- ``drop``: spans are queued as records and the export thread takes its batches, then drops them
  (`Recorder.drain` does not call the exporter): everything but the encoding and the POST.
So on - off2 is, respectively, the queueing and the export path, and the export path alone.
- ``native``: not a layer cut out but another export path: spans go to fastotel's native processor
  (`bench.tracing_native.install` in `tracing_setup.install`'s place of `span_queue.from_env`;
  fastotel installed, http/protobuf), so on - off2 is ours against it (reversed: off2 - on is what
  it would save).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREES = ("gateway", "extproc", "storage", "vectorstore")
EDITS = {
    "noqueue": (
        "gateway/telemetry/span_records.py",
        "    attributes, events, recorder = span.attributes, span.events, span.recorder\n",
        "    return  # PROBE (bench.tracing_variants noqueue): made and ended, never queued\n",
    ),
    "native": (
        "gateway/telemetry/tracing_setup.py",
        "    recorder, exporter = span_queue.from_env(env, door, service_name, scope)\n",
        "    from bench.tracing_native import install as native  # PROBE (bench.tracing_variants native): fastotel's\n"
        "    recorder, exporter = native(env, door, service_name, scope)\n",
    ),
    "drop": (
        "gateway/telemetry/span_queue.py",
        "                self.export(batch)\n",
        "                pass  # PROBE (bench.tracing_variants drop): batches dropped, no encoding, no POST\n",
    ),
}


def make(dest: Path, variant: str) -> Path:
    """Copy this checkout's code to ``dest`` (emptied first) and apply ``variant``'s edit: the
    edited line is kept after the probe's, so only the probe's early exit changes behaviour."""
    if dest.exists():
        shutil.rmtree(dest)
    for name in TREES:
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    rel, anchor, probe = EDITS[variant]
    path = dest / rel
    text = path.read_text()
    if text.count(anchor) != 1:
        raise SystemExit(f"{rel}: {anchor.strip()!r} is not there exactly once: update bench/tracing_variants.py")
    path.write_text(text.replace(anchor, probe + anchor if variant == "noqueue" else probe))
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dest", type=Path, help="the directory to write the probe tree to (replaced)")
    ap.add_argument("variant", choices=sorted(EDITS))
    args = ap.parse_args(argv)
    print(make(args.dest, args.variant))
    return 0


if __name__ == "__main__":
    sys.exit(main())
