"""Start N processes on one fresh SQLite file at once, R times; print how many rounds failed.

Run as a module (`python -m tests.support.open_race --rounds 100`) so the forked processes start from a
clean interpreter: it reproduces both doors of `responses-gateway up` opening a new data dir.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import tempfile
from pathlib import Path
from typing import Any

from storage.sqlite.state import SQLiteStore


def _open_close(path: Path, results: Any) -> None:
    async def go() -> None:
        store = SQLiteStore(path)
        await store.open()
        await store.close()

    try:
        asyncio.run(go())
        results.put(None)
    except Exception as exc:
        results.put(repr(exc))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--processes", type=int, default=3)
    args = parser.parse_args()
    ctx = mp.get_context("fork")
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.rounds):
            path = Path(tmp) / f"round-{i}.db"
            results = ctx.Queue()
            procs = [ctx.Process(target=_open_close, args=(path, results)) for _ in range(args.processes)]
            for proc in procs:
                proc.start()
            for proc in procs:
                proc.join()
            errors = [e for e in (results.get() for _ in procs) if e]
            if errors:
                failed += 1
                print("error:", errors[0])
    print(f"failed {failed} of {args.rounds}")


if __name__ == "__main__":
    main()
