"""PostgreSQL plan checks shared by the plan tests (`tests/storage/test_query_plans.py`,
`tests/usage/test_usage_plans.py`): each statement a workload sent is asked for its `EXPLAIN`, as
chosen and with sequential scans priced out."""

from __future__ import annotations

import re
from typing import Any


async def postgres_scans(
    c: Any, statements: dict[str, tuple[Any, ...]], tables: tuple[str, ...], allowed: Any
) -> list[str]:
    """The plan lines that read a whole table: a chosen `Seq Scan` on one of `tables`, or any `Seq
    Scan` left when `enable_seqscan` is off (no index could serve); statements containing a fragment
    of `allowed` are skipped."""
    bad: list[str] = []
    for sql, args in sorted(statements.items()):
        if any(fragment in sql for fragment in allowed):
            continue
        chosen = "\n".join(r[0] for r in await c.fetch("EXPLAIN " + sql, *args))
        bad += [
            f"{line.strip()}\n    in: {sql}"
            for line in chosen.splitlines()
            if re.search(rf"Seq Scan on ({'|'.join(tables)})\b", line)
        ]
        await c.execute("SET enable_seqscan = off")
        try:
            forced = "\n".join(r[0] for r in await c.fetch("EXPLAIN " + sql, *args))
        finally:
            await c.execute("RESET enable_seqscan")
        bad += [f"{ln.strip()} (no index)\n    in: {sql}" for ln in forced.splitlines() if "Seq Scan" in ln]
    return bad
