"""The store bundles are symmetric (#25): `build_stores` puts every family on the one database it
picked, each backend's own class, none half of each (the PostgreSQL state store of before #25
inherited the SQLite one and left two families' methods on the replica's local file)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gateway.bootstrap import build_stores
from gateway.config import Settings
from storage.bundle import Stores
from storage.graph import ComposedReads

# backend-neutral helpers a store may inherit: the graph's combined reads composed from its own
# single reads (PostgreSQL, Neo4j); they hold no state and reach no database of their own
NEUTRAL = (ComposedReads,)

FAMILIES = ("state", "files", "blobs", "vector_stores", "prompts", "connectors", "keys", "graph", "research", "usage")


def _homes(stores: Stores) -> dict[str, set[str]]:
    """Each family's store: the packages of its class and of every class it inherits (but the
    backend-neutral helpers)."""
    return {
        name: {
            c.__module__.rsplit(".", 1)[0]
            for c in type(getattr(stores, name)).__mro__
            if c is not object and c not in NEUTRAL
        }
        for name in FAMILIES
    }


def test_the_bundle_has_a_field_per_family() -> None:
    fields = [f.name for f in dataclasses.fields(Stores)]
    assert fields[: len(FAMILIES)] == list(FAMILIES)


@pytest.mark.parametrize(
    ("url", "home", "blobs"),
    [(None, "storage.sqlite", "storage"), ("postgresql://gw@localhost/gw", "storage.postgres", "storage.postgres")],
)
def test_every_family_is_on_the_chosen_database(tmp_path: Path, url: str | None, home: str, blobs: str) -> None:
    """Built, not opened: what production builds on each backend, family by family."""
    stores = build_stores(Settings(data_dir=tmp_path, database_url=url))
    expected = {name: {home} for name in FAMILIES} | {"blobs": {blobs}}  # SQLite's bytes: files in the data dir
    assert _homes(stores) == expected
    assert stores.local_sqlite == tmp_path / "gateway.db"
    assert stores.local_sqlite_unmanaged is (url is not None)  # no SQLite state store checkpoints it there
