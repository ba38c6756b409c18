"""One list of schema versions for both backends.

Each version is a numbered SQL file, `NNNN_name.sql`, written once per dialect: SQLite's in
`storage/migrations/`, PostgreSQL's twin in `storage/postgres/migrations/`. The list is the SQLite
directory; a PostgreSQL file set that differs from it (a version added on one side only) is refused
at start-up, so the two backends never drift apart silently.
"""

from __future__ import annotations

from importlib import resources
from typing import Literal

Dialect = Literal["sqlite", "postgres"]
_PACKAGES: dict[str, str] = {"sqlite": "storage.migrations", "postgres": "storage.postgres.migrations"}


class SchemaMismatch(RuntimeError):
    """The dialects' migration files do not name the same versions."""


def _files(dialect: Dialect) -> dict[str, str]:
    return {
        entry.name: entry.read_text(encoding="utf-8")
        for entry in resources.files(_PACKAGES[dialect]).iterdir()
        if entry.name.endswith(".sql")
    }


def versions() -> list[str]:
    """The schema versions, in order (file names without `.sql`)."""
    return sorted(name.removesuffix(".sql") for name in _files("sqlite"))


def migrations(dialect: Dialect) -> list[tuple[int, str]]:
    """`(number, sql)` of every version for `dialect`, in order."""
    files = _files(dialect)
    expected = versions()
    got = sorted(name.removesuffix(".sql") for name in files)
    if got != expected:
        missing = sorted(set(expected) - set(got))
        extra = sorted(set(got) - set(expected))
        raise SchemaMismatch(
            f"{dialect} migrations differ from the version list: missing {missing}, extra {extra} "
            f"(every storage/migrations/NNNN_name.sql needs its twin in storage/postgres/migrations/)"
        )
    return [(int(name.split("_", 1)[0]), files[name + ".sql"]) for name in expected]


def statements(sql: str) -> list[str]:
    """The statements of a migration file (comments dropped first: they may contain ";")."""
    code = "\n".join(line.split("--", 1)[0] for line in sql.splitlines())
    return [s.strip() for s in code.split(";") if s.strip()]
