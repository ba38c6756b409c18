"""The doors never import each other, and the engine imports neither door.

A static check over the source (ast, no imports executed): `extproc/` must not import
`gateway.http`, `gateway/http/` must not import `extproc`, and the engine-level packages and the
stores must import neither door. Both doors start from `gateway.bootstrap`.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOORS = ("gateway.http", "extproc")
ENGINE_DIRS = ("gateway/engine", "gateway/backends", "gateway/tools", "gateway/retrieval", "storage", "vectorstore")


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def _offenders(folder: str, forbidden: tuple[str, ...]) -> list[str]:
    bad = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        if "/pb/" in str(path):
            continue
        for name in _imports(path):
            if any(name == f or name.startswith(f + ".") for f in forbidden):
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    return bad


def test_extproc_does_not_import_the_http_door() -> None:
    assert _offenders("extproc", ("gateway.http",)) == []


def test_http_door_does_not_import_extproc() -> None:
    assert _offenders("gateway/http", ("extproc",)) == []


def test_engine_and_stores_import_no_door() -> None:
    bad = [b for folder in ENGINE_DIRS for b in _offenders(folder, DOORS)]
    assert bad == []


def test_the_check_sees_a_door_import(tmp_path: Path) -> None:
    """The checker itself can fail: a file importing the other door is reported."""
    probe = tmp_path / "probe.py"
    probe.write_text("from gateway.http.common import json_response\nimport extproc.server\n")
    assert _imports(probe) == {"gateway.http.common", "extproc.server"}
