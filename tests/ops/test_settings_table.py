"""The README's settings table names every setting of `gateway.config.Settings`, and nothing else (#25).

A row's first cell names one or more variables: `GATEWAY_EMBEDDING_URL` / `_MODEL` / `_API_KEY`
is three (a suffix replaces the end of the full name before it)."""

from __future__ import annotations

import re
from pathlib import Path

from gateway.config import Settings

README = Path(__file__).resolve().parents[2] / "README.md"
NOT_SETTINGS = {"CONFIG"}  # GATEWAY_CONFIG names the YAML file the settings come from


def table_names() -> set[str]:
    known = {name.upper() for name in Settings.model_fields} | NOT_SETTINGS
    names: set[str] = set()
    for line in README.read_text().splitlines():
        if not line.startswith("| `GATEWAY_"):
            continue
        cell = line.split("|")[1]
        full = ""
        for token in re.findall(r"`([A-Z0-9_]+)`", cell):
            if token.startswith("GATEWAY_"):
                full = token.removeprefix("GATEWAY_")
                names.add(full)
                continue
            parts = full.split("_")
            candidates = ["_".join(parts[:cut]) + token for cut in range(len(parts) - 1, 0, -1)]
            names.add(next((c for c in candidates if c in known), candidates[0] if candidates else token))
    return names


def test_every_setting_has_a_row_and_every_row_a_setting() -> None:
    settings = {name.upper() for name in Settings.model_fields}
    rows = table_names()
    assert sorted(settings - rows) == [], "settings missing from the README's table"
    assert sorted(rows - settings - NOT_SETTINGS) == [], "rows in the README's table that name no setting"
