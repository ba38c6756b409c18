"""State storage: the store interface the engine depends on and its SQLite implementation."""

from storage.base import Page, StateStore
from storage.sqlite import SQLiteStore

__all__ = ["Page", "SQLiteStore", "StateStore"]
