"""Links stated by a page's markdown structure rather than by a sentence: tables and lists (#28).

A page states facts about its subject in tables and lists as often as in prose, and no sentence
grammar reads them:

- a key-value row, a table of two columns whose first column is labels ("| Role | N |"): the
  page's subject -[the label]-> the name in the second cell;
- a field line, "Label: Name" opening a line or a sentence (a catalogue card's "Maker: N, 1877.",
  a gazetteer's "Engine shed: N."), is a key-value row written in prose: the same label and name
  rules;
- a row of a table whose first column is names, and an item of a list of names ("- Name",
  "- Name, words", "- Name (1901)"), under a caption (the heading or a label line ending on ":" right
  above it): the page's subject -[the caption's words]-> the row's or item's name. A column's
  header is no caption: it names what its cells are ("Name", "Entry", "Town"), not how they relate
  to the page's subject, and a table of names under no caption is a register or a directory.

Guarded so that the tables of real documents (option and flag tables of manual pages, settings,
exit codes) add nothing: a cell counts only when it is wholly one name the extractor already found
(a single word only when it is a title of the store: "None", "Auto" are values, not names); a
key-value table only when every label of its first column is plain words in sentence case (no code,
flag, number, upper-case identifier or lower-case value: "| push | Send Files |"), whatever its
header ("| Field | Value |"); a table or list of names
only when every row or item is one; a caption only when it is a few plain words naming no one and
ending on no function word ("See also:" names no relation).
Also, `extract` reads a table row's cells as sentences of their own, so that no prose rule links
two cells ("| -n | Dry Run |" was the page's subject `~n` Dry Run). Plain CPU work, linear in the
chunk. What one cell, item or label says (is it wholly a name, does it name a relation) is
`table_cells.py`'s, split out of here; this module finds the structure and states its relations.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gateway.knowledge_graph.lexicon import FUNCTION, PARTICIPLE, Span, normalise, typed
from gateway.knowledge_graph.lists import PLURAL, PLURAL_HEADING
from gateway.knowledge_graph.table_cells import (
    MAX_CAPTION_WORDS,
    PLAIN,
    PRONOUNS,
    ChunkNames,
    dated_cell,
    label_words,
    listed,
    unqualified,
)

Relation = tuple[str, str, str, float]

_ROW = re.compile(r"^[ \t]*\|(.*)\|[ \t]*$")
_BAR = re.compile(r"(?<!\\)\|")
_SENTENCE = re.compile(r"(?<=[.!?;:])\s+")  # within a line; a line break always ends a sentence
_LINE = re.compile(r"[^\n]+")
_RULE = re.compile(r"\s*:?-{2,}:?\s*")  # "|---|:--:|": the line under a table's header
# greedy, then back to the last non-space: a lazy group before "[ \t]*$" is quadratic on a run of spaces
_ITEM = re.compile(r"^(?P<indent>[ \t]*)(?P<mark>[-*+]|\d{1,3}[.)])[ \t]+(\S(?:.*\S)?)[ \t]*$")
_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]+(\S(?:.*\S)?)[ \t]*$")  # its closing "#"s are stripped after
_LABEL_LINE = re.compile(r"^[ \t]*([^|#\-*+\s][^:|]{0,60}):[ \t]*$")
# a field of a card or a record written as a line of prose: "Maker: N, 1877.", "Engine shed: N.", a
# label in sentence case opening the line or a sentence, then ":" and the value; or a list item's
# field, "- Maker: N", and in a list item only, a spaced dash for the colon, "- Maker — N" (a
# credit block's or a CV's record; in prose a spaced dash opens an aside, not a value)
_FIELD = re.compile(
    r"(?:^|(?<=[.!?;]\s))[ \t]*(?:(?P<item>[-*+])[ \t]+)?(?P<label>[A-Z][a-z\-]*(?: [a-z][a-z\-]*){0,5})"
    r"(?::|(?(item)[ \t]+[\u2013\u2014]|(?!)))[ \t]+(?=\S)",
    re.MULTILINE,
)
# a field's value that is a date, then a locative preposition and a name: "Born: 1938 in P", "Died: 4
# May 1901 at P" (a CV's or an infobox's); the preposition joins the label's words ("born in")
# The value opens on a date (day month year, month [day,] year, or a year alone; a month's name is a
# closed class of English), and the label is one past participle naming the event dated ("Born",
# "Died", "Founded"): "Suite 2000 at ...", "Population: 2021 in ...", "Version: 2023 in ..." are no date
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?"
    r"|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_DATED = re.compile(
    rf"(?:\d{{1,2}}[ \t]+{_MONTH}[ \t]+|{_MONTH}[ \t]+(?:\d{{1,2}},?[ \t]+)?)?"
    r"\d{4},?[ \t]+(in|at|near)[ \t]+(?=[A-Z])"
)
# a list item's one-word label: with a colon, a key by the key-value convention unless a judgement
# or an interjection (a closed class: "- Good: Python", "- Thanks: N") or an adjective by its suffix;
# with a dash (which joins an item to any gloss: "- Windows \u2014 Chocolatey", "- Supported \u2014
# Ubuntu"), only a role or an abstract noun by its suffix (an agent's "-er"/"-or"/"-ist"/"-ian"/
# "-ant"/"-ent"/"-ee", "-tion", "-ment", "-ship", ...); a longer label is in sentence case, its head
# in lower case, no name
_ROLE_NOUN = re.compile(
    r"[a-z](?:er|or|ist|ian|ant|ent|ee|ess|tion|sion|ment|ness|ity|ship|ance|ence|ure|hood|ery)s?$", re.IGNORECASE
)
_JUDGEMENT = frozenset(
    "good bad better best worse worst great nice fine ok okay yes no maybe pros cons thanks note tip warning "
    "caution important new old".split()
)
_ADJECTIVE = re.compile(r"[a-z](?:ful|less|ous|ive|able|ible)$", re.IGNORECASE)
_FIELD_END = re.compile(r"[.!?](?=\s|$)|$", re.MULTILINE)
_MIN_FIELDS = 2  # a record's fields: a lone "Label: Value" line is no record unless its label names a relation
_BLANK = re.compile(r"\n[ \t]*\n")
# a value opening on an "-ing" form reads as a clause, not a name ("Getting Started", "Using X")
_SENTENCE_VALUE = re.compile(r"[A-Z][a-z]+ing\b")


def sentences(text: str) -> list[tuple[int, str]]:
    """The sentences of a text with their offsets, as `extract` reads them: a table row (a line opening
    and closing on "|") is cut into its cells, split at each "|" not escaped as "\\|", so no prose rule
    links two cells; any other line at ". ", "; " and the like ("A founded B | C joined": one sentence)."""
    out: list[tuple[int, str]] = []
    for line in _LINE.finditer(text):
        p, cut = line.start(), _BAR if _ROW.fullmatch(line.group()) else _SENTENCE
        pos = 0
        for m in cut.finditer(line.group()):
            out.append((p + pos, line.group()[pos : m.start()]))
            pos = m.end()
        out.append((p + pos, line.group()[pos:]))
    return [(p, s) for p, s in out if s.strip()]


def _lines(text: str) -> Iterator[tuple[int, str]]:
    pos = 0
    for line in text.split("\n"):
        yield pos, line
        pos += len(line) + 1


def _cells(start: int, line: str) -> list[tuple[int, int]] | None:
    """The cells of a table row as (start, end) offsets in the text, stripped; None if no row."""
    m = _ROW.match(line)
    if not m:
        return None
    out: list[tuple[int, int]] = []
    pos = m.start(1)
    for cell in _BAR.split(m.group(1)):  # an escaped "\\|" is inside its cell
        lead = len(cell) - len(cell.lstrip())
        out.append((start + pos + lead, start + pos + len(cell.rstrip())))
        pos += len(cell) + 1
    return out


_SEQUENCE = frozenset("next previous prev see related back".split())  # a navigation label's first word


def _plural_head(caption: str) -> bool:
    """A caption headed by a plural noun: last ("Founders", "Notable pupils") or before a participle
    that modifies it ("Ships launched", "Works sold")."""
    words = caption.split()
    if PLURAL_HEADING.fullmatch(caption):
        return True
    return len(words) >= 2 and bool(
        PLURAL.fullmatch(words[-2]) and words[-1].islower() and PARTICIPLE.search(words[-1])
    )


def _caption(lines: list[tuple[int, str]], i: int, subject: str | None, names: ChunkNames) -> list[str]:
    """The words of the heading or label line right above line i (blank lines between allowed) when
    it names what the items are: a plural noun at its head ("Founders", "Notable pupils"), no name
    ("## Oslo"), no section heading of a document ("## Contact", "### Fixed", "## Related") and no
    phrase whose head is another noun ("Table of contents"); not the page's own title."""
    k = i - 1
    while k >= 0 and not lines[k][1].strip():
        k -= 1
    if k < 0:
        return []
    line = lines[k][1]
    m = _HEADING.match(line) or _LABEL_LINE.match(line)
    caption = m.group(1).rstrip("#").strip() if m else ""
    if not caption or (subject and normalise(caption) == subject):
        return []
    a = lines[k][0] + line.index(caption)
    if names.is_name(a, a + len(caption)) or not _plural_head(caption):
        return []
    if any(w in FUNCTION for w in normalise(caption).split()):  # "Table of contents": its head is "table"
        return []
    words = label_words(caption)
    return words if words and words[-1] not in FUNCTION else []  # "See also": ends on no noun


def _table(rows: list[list[tuple[int, int]]], caption: list[str], names: ChunkNames, subject: str) -> list[Relation]:
    """One table's relations (module doc). `rows` are its rows of cells, the header first ([]
    when the table has none)."""
    text = names.text
    header, body = rows[0], rows[1:]
    if not body:
        return []
    out: list[Relation] = []
    # key-value rows, whatever the header: two columns, every first cell a plain label in sentence case
    # ("Conductor", "Place of birth"; a lower-case first cell is a value: "| push | Send Files |"), a
    # name beside some; a header that is a pair itself ("| Maintainer | N |") is a row too
    pair = bool(header) and len(header) == 2 and names.cell(*header[1]) is not None
    if all(len(row) == 2 for row in body) and (not header or len(header) == 2):
        rows = [header, *body] if pair else body
        labels = [unqualified(text, *row[0]) for row in rows]
        plain = all(PLAIN.fullmatch(text[a:b]) and text[a].isupper() for a, b in labels)
        dated = [dated_cell(text, row) for row in rows]
        values = [listed(names, d.end() if d else row[1][0], row[1][1]) for row, d in zip(rows, dated, strict=True)]
        if plain and any(values):
            for row, (a, b), keys, d in zip(rows, labels, values, dated, strict=True):
                label = label_words(text[a:b], row=True) if not names.is_name(*row[0]) else []
                if label and d is not None and label[-1] != d.group(1):
                    label = [*label, d.group(1)]  # "Founded" and "1901, by N": `founded by`
                out += [rel for key in keys if label and (rel := typed(subject, key, label))]
            return out
    firsts = [names.cell(*row[0]) for row in body]
    if caption and all(firsts):  # a column of names: each row is one of what the caption says
        for key in firsts:
            if key and (rel := typed(subject, key, caption)):
                out.append(rel)
    return out


def _blocks(text: str, at: int) -> tuple[int, int]:
    """The block (lines with no blank line between) holding offset `at`: its start and end."""
    before = max((m.end() for m in _BLANK.finditer(text, 0, at)), default=0)
    after = _BLANK.search(text, at)
    return (before, after.start() if after else len(text))


def _fields(text: str, names: ChunkNames, subject: str) -> list[Relation]:
    """Field lines (module doc): a label in sentence case, ":", and a value that is wholly one name
    (a note naming no one after a comma or in brackets aside, as in a list's item) up to the
    sentence's end, or a date and a locative preposition before it ("Born: 1938 in P": `~born in`,
    which is `born_in`). The
    label names the relation as a key-value row's does; not a name ("Anna Jones: ..."), nor a label
    ending on a function word ("See also:") unless a participle's preposition ("Designed by:",
    "Attributed to:")."""
    out: list[Relation] = []
    fields = list(_FIELD.finditer(text))
    for m in fields:
        # a record lays out two fields or more in one block (no blank line between): one "Label:
        # Value" line alone is as often a note, a tip or a heading ("Note: See Appendix B.")
        block = _blocks(text, m.start())
        if sum(block[0] <= f.start() < block[1] for f in fields) < _MIN_FIELDS and not _names_relation(m["label"]):
            continue
        at, prep = m.end(), []
        dated = _DATED.match(text, at)
        if dated is not None and " " not in m.group("label") and PARTICIPLE.search(m.group("label")):
            at, prep = dated.end(), [dated.group(1)]  # "Born: 1938 in P": the date's place
        span = names.starting.get(at)
        if span is None:
            continue
        end = _FIELD_END.search(text, span.end)
        b = end.end() if end else len(text)
        key = names.item(at, b)
        # one value: no other name after it ("Entries: A; B; C." says nothing of one item alone)
        if key is None or names.is_name(*m.span("label")) or any(span.end < a < b for a in names.starting):
            continue
        if _SENTENCE_VALUE.match(span.text):
            continue  # a value opening on a verb form reads as a clause ("Next: Getting Started.")
        label = normalise(m.group("label")).split()
        if m.group("item") and len(label) == 1 and not prep and not _item_label(label[0], text[m.end("label")]):
            continue  # "- Windows \u2014 Chocolatey", "- Good: Python", "- Thanks \u2014 N"
        if len(label) > MAX_CAPTION_WORDS or PRONOUNS & set(label) or all(w in FUNCTION for w in label):
            continue
        if label[-1] in FUNCTION and not (len(label) > 1 and PARTICIPLE.search(label[-2])):
            continue
        if rel := typed(subject, key, label + prep):
            out.append(rel)
    return out


def _names_relation(label: str) -> bool:
    """Whether a field's label names a relation even on a line of its own: a participle ("Born",
    "Founded by", "Based in") or a noun phrase of two words or more in sentence case ("Head chef",
    "Place of birth"); a lone noun ("Note", "Tip", "Warning", "Update") heads a note as often."""
    words = label.split()
    if words[0].lower() in _SEQUENCE:
        return False  # a link to another page ("Next page: N", "See also: N"), no relation
    return len(words) >= 2 or bool(PARTICIPLE.search(words[0]) and words[0][1:].islower() and len(words[0]) > 3)


def _item_label(word: str, mark: str) -> bool:
    """Whether a list item's one-word label names a field (`_ROLE_NOUN`): after a colon any noun but
    a judgement, an interjection or an adjective; before a dash a role or an abstract noun only."""
    if mark == ":":
        return word not in _JUDGEMENT and not _ADJECTIVE.search(word)
    return bool(_ROLE_NOUN.search(word))


def structured(
    text: str, spans: list[Span], keys: dict[int, str], subject: str | None, titles: frozenset[str]
) -> list[Relation]:
    """The relations one chunk's tables and lists state about the page's subject (module doc);
    `titles` are the store's titles in lower case."""
    if not subject or ("\n" not in text and ": " not in text):
        return []  # one line with no field: no table, list or record (the common chunk, kept cheap)
    names = ChunkNames(text, spans, keys, titles)
    fielded = ": " in text or "\u2014 " in text or "\u2013 " in text
    out: list[Relation] = _fields(text, names, subject) if fielded else []
    if "\n" not in text:
        return out
    lines = list(_lines(text))
    i = 0
    while i < len(lines):
        line = lines[i][1]
        if _ROW.match(line):
            j, ruled = i, False
            rows: list[list[tuple[int, int]]] = []
            while j < len(lines) and (cells := _cells(*lines[j])) is not None:
                if all(_RULE.fullmatch(text[a:b]) for a, b in cells):
                    ruled = ruled or len(rows) == 1  # the line under the first row: a header
                else:
                    rows.append(cells)
                j += 1
            # a table opening the chunk with no rule under its first row is the rest of a table a
            # chunk boundary cut: its first row is a body row and its header is in an earlier chunk
            if not ruled and not any(line.strip() for _, line in lines[:i]):
                i = j
                continue
            if not ruled:
                rows = [[], *rows]  # no header: every row is one of the body
            out += _table(rows, _caption(lines, i, subject, names), names, subject)
            i = j
        elif _ITEM.match(line):
            # one list (CommonMark): items of one indentation and one kind of marker (a bulleted list
            # followed by a numbered one is two lists); a more indented item is a sub-item of the one
            # above, not one of the list's
            first = _ITEM.match(line)
            assert first is not None
            kind = (first["indent"], first["mark"].isdigit() or first["mark"][:-1].isdigit())
            j, items = i, []
            while j < len(lines) and (m := _ITEM.match(lines[j][1])):
                if len(m["indent"]) > len(kind[0]):
                    j += 1
                    continue
                if (m["indent"], m["mark"][:-1].isdigit()) != kind:
                    break
                items.append(names.item(lines[j][0] + m.start(3), lines[j][0] + m.end(3)))
                j += 1
            caption = _caption(lines, i, subject, names)
            if caption and all(items):
                out += [rel for key in items if key and (rel := typed(subject, key, caption))]
            i = j
        else:
            i += 1
    return out
