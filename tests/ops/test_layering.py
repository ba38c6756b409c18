"""The module import graph has no cycle (#25, 10): what `make lint` checks, kept by the suite too."""

from __future__ import annotations

import grimp

from tests.support.no_cycles import cycles


def test_no_module_imports_itself_through_others() -> None:
    assert cycles() == []


def test_backends_import_no_engine() -> None:
    """The backends name no engine class (#25): they yield `gateway.inference.deltas` values, which the
    engine's `TurnAssembler` consumes. Imports inside functions count, `TYPE_CHECKING` ones too."""
    graph = grimp.build_graph("gateway", cache_dir=None)
    backends = {m for m in graph.modules if m == "gateway.inference" or m.startswith("gateway.inference.")}
    found = sorted(
        (importer, imported)
        for importer in backends
        for imported in graph.find_modules_directly_imported_by(importer)
        if imported == "gateway.engine" or imported.startswith("gateway.engine.")
    )
    assert found == []
