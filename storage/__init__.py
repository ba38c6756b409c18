"""State storage: the store protocols and records every backend shares (here), the bundle of every
family (`storage.bundle.Stores`), and its two implementations, `storage.sqlite` and
`storage.postgres`."""

from storage.base import Page, StateStore

__all__ = ["Page", "StateStore"]
