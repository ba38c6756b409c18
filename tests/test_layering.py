"""The module import graph has no cycle (#25, 10): what `make lint` checks, kept by the suite too."""

from __future__ import annotations

from tests.no_cycles import cycles


def test_no_module_imports_itself_through_others() -> None:
    assert cycles() == []
