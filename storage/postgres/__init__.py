"""PostgreSQL stores: the same interfaces as the SQLite ones, for state shared by many replicas."""

from storage.postgres.db import Database
from storage.postgres.state import PostgresStore

__all__ = ["Database", "PostgresStore"]
