"""What the multi-hop corpora's contract tests read from a page: its title and whether it names an entity.
One copy, so each corpus's contract (blind, fresh, sealed, ...) checks its pages by the same rule."""

from __future__ import annotations

import re
from collections.abc import Iterable

from bench.multihop_corpus import Doc


class Pages:
    """A corpus's pages by name."""

    def __init__(self, docs: Iterable[Doc]) -> None:
        self.by_name = {d.name: d for d in docs}

    def title(self, name: str) -> str:
        """The page's first line, its `# ` heading."""
        return self.by_name[name].text.splitlines()[0].removeprefix("# ")


def names(text: str, name: str) -> bool:
    """Whether `text` names `name` as a whole (not as part of a longer word)."""
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None
