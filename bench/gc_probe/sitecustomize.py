"""A garbage-collector probe for benchmarks' door processes (`bench.tracing_paired --gc-probe`), #31.

Python imports `sitecustomize` at start-up from the path: a benchmark puts this directory first on
the doors' `PYTHONPATH` and names a directory in `BENCH_GC_PROBE`; each process then counts its
collections by generation and the CPU time (`time.thread_time`, the collecting thread's) spent in
them, through `gc.callbacks`, and a daemon thread writes the totals to `<dir>/<pid>.json` every
half second, with the thresholds in force (`gc.get_threshold`). Nothing happens without
`BENCH_GC_PROBE`, and nothing of the gateway is imported.

Why a probe in the door rather than in-process figures: how many objects outlive the young
collections (and so how often a full one comes) depends on the door's whole heap and traffic,
which `bench.tracing_micro` only imitates.
"""

from __future__ import annotations

import gc
import json
import os
import threading
import time

_DIR = os.environ.get("BENCH_GC_PROBE", "")


def _install(directory: str) -> None:
    counts = [0, 0, 0]
    spent = [0.0]
    started = threading.local()

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.at = time.thread_time()
        else:
            counts[info["generation"]] += 1
            spent[0] += time.thread_time() - getattr(started, "at", time.thread_time())

    def writer() -> None:
        path = os.path.join(directory, f"{os.getpid()}.json")
        last = None
        while True:
            now = (list(counts), spent[0], gc.get_threshold())
            if now != last:
                with open(path + ".tmp", "w") as fh:
                    json.dump({"collections": now[0], "seconds": now[1], "thresholds": now[2]}, fh)
                os.replace(path + ".tmp", path)
                last = now
            time.sleep(0.5)

    def start() -> None:
        threading.Thread(target=writer, name="gc-probe", daemon=True).start()

    def forked() -> None:  # (a door forking its workers: each child counts and writes its own)
        counts[:] = [0, 0, 0]
        spent[0] = 0.0
        start()

    gc.callbacks.append(callback)
    os.register_at_fork(after_in_child=forked)
    start()


if _DIR:
    _install(_DIR)
