"""Weak links from a page's small tables and labelled lists (#28, session 14): the fallback link
(`fallback.py`) for names that markdown structure, not a sentence, sets on the page.

`tables.structured` reads a column of names as one of what its caption says only under a caption
with a plural head ("Founders", "Ships launched"), and never by its column's header: a header
names what the cells are ("Name", "Entry"), and reading it as the relation turned the blind
corpus's registers into hubs. But a short table of names on a page ("| Town | Population |" on a
district's page, two rows) or a short list under a label line ("Fleet:" and two items) lists things
of the page's subject, and its header or label is the best word the page gives for how: the
subject `~<header>` each name, as weak as the fallback's links (`fallback.WEIGHT`, shared among the
rows) and only for at most `fallback.CROWD` rows, so a register or a directory gives nothing.

Guarded as `tables` guards its rules: a cell or item counts only when it is wholly one name
(`tables._Names`), a header or label only when it is plain words naming no one (`tables._label`),
no remark ("See also:", "Note:"), and no name a rule already relates to the subject. Linear: one
pass over the page's lines.
"""

from __future__ import annotations

import re

from gateway.knowledge_graph import fallback
from gateway.knowledge_graph.clauses import PHRASE, Span
from gateway.knowledge_graph.fallback import _REMARK, CROWD, WEIGHT
from gateway.knowledge_graph.tables import _ITEM, _LABEL_LINE, _QUALIFIER, _ROW, _RULE, _cells, _label, _lines, _Names

Relation = tuple[str, str, str, float]


_NUMERIC = re.compile(r"[\d][\d,. ]*")


def _counted(text: str, cells: list[tuple[int, int]]) -> bool:
    """Whether a row's other cells are all numbers ("| 38,900 |", "| 1,204 | 3 |")."""
    return bool(cells) and all(_NUMERIC.fullmatch(text[a:b]) for a, b in cells)


def _header(text: str, a: int, b: int, names: _Names) -> list[str]:
    """A header cell's or label's words, a closing bracketed note aside ("Population (1901)"), when
    they name what the rows are and no one ("| Town |", "Fleet:"; not "| Oslo |", "See also:")."""
    m = _QUALIFIER.search(text, a, b)
    if m and m.end() == b and m.start() > a:
        b = m.start()
    if names.is_name(a, b):
        return []
    words = _label(text[a:b])
    return [] if set(words) & _REMARK else words


def headed_links(
    text: str,
    spans: list[Span],
    keys: dict[int, str],
    subject: str | None,
    titles: frozenset[str],
    relations: list[Relation],
) -> list[Relation]:
    """Weak links subject `~<header>` name from the first column of each table of at most CROWD rows
    under a header row, and from each list of at most CROWD items under a "Label:" line, every cell
    or item wholly a name; `relations` the chunk's (a name they relate to the subject gets none)."""
    if not subject or not fallback.ENABLED or "\n" not in text:
        return []
    linked = {k for src, dst, kind, _ in relations if kind != "co_occurs" and subject in (src, dst) for k in (src, dst)}
    names = _Names(text, spans, keys, titles)
    lines = list(_lines(text))
    out: list[Relation] = []

    def add(label: list[str], found: list[str | None]) -> None:
        if not label or not found or len(found) > CROWD or not all(found):
            return
        fresh = [k for k in found if k and k not in linked and k != subject]
        out.extend((subject, k, PHRASE + " ".join(label), WEIGHT / len(found)) for k in fresh)

    i = 0
    while i < len(lines):
        start, line = lines[i]
        if _ROW.match(line):
            j, rows = i, []
            while j < len(lines) and (cells := _cells(*lines[j])) is not None:
                rows.append(cells)
                j += 1
            if len(rows) >= 3 and all(_RULE.fullmatch(text[a:b]) for a, b in rows[1]):  # a header, a rule
                body = rows[2:]
                # a lone capitalised word too when the rest of its row is numbers ("| Laitchford | 38,900 |"
                # before the town's page is in the store: a count of a named thing); beside words it is
                # as likely a value ("| Auto | Pick one automatically |")
                found = [
                    (names.cell(*row[0]) or (names.word(*row[0]) if _counted(text, row[1:]) else None)) if row else None
                    for row in body
                ]
                add(_header(text, *rows[0][0], names), found)
            i = j
        elif (label := _LABEL_LINE.match(line)) and i + 1 < len(lines) and _ITEM.match(lines[i + 1][1]):
            j, items = i + 1, []
            indent = _ITEM.match(lines[i + 1][1])
            while j < len(lines) and (m := _ITEM.match(lines[j][1])) and indent and m["indent"] == indent["indent"]:
                items.append(names.item(lines[j][0] + m.start(3), lines[j][0] + m.end(3)))
                j += 1
            add(_header(text, start + label.start(1), start + label.end(1), names), items)
            i = j
        else:
            i += 1
    return out
