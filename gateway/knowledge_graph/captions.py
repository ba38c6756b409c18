"""Document layouts that state a relation on a line of their own (#28, the draped corpus's
diagnosis), rewritten as plain sentences before a chunk is read, as `layouts` does for fragment
answers and datelines.

A byline: a work's title on a line of its own, then "by <Name>" on the next (a book's cover, a
catalogue's entry, an article's head: "THE LIND LETTERS\\nby Ada Vell"). The line names the title's
author; it is read as "Written by <Name>." (its subject elided, the page's: the title's text is
never written into the sentence) when the title line is the page's subject (in capitals or not),
the name two to four capitalised words. "By Train" (a heading), "by default", a "by" line under any
other line or on a person's page are no byline.

A caption naming its list's shared relation: a plural noun, a past participle and a preposition with
a name, a colon, then the names ("People born in Kelby: Ada Vell and Bo Lind."). The participle
phrase is a reduced relative clause on each listed name: the caption is followed by the clause it
reduces, "Ada Vell and Bo Lind born in Kelby." (the caption itself kept, as the lists' rules read
it). Only past participles (a stem of three letters or more and "-ed", not "-eed": "Need", "Speed",
"Shed", "Embed" are none; or an irregular one of a closed list), a plural head ("People", "Books",
"Alumni"...), and every listed item a name (capitalised words): "Files stored in Docker: see below",
"Tickets sold in Paris: 2,000", "Note on Paris: ..." are no such caption.

A credit with two participles: a sentence that is only two past participles sharing "by <Name>",
the name ending it ("Founded and owned by Ada Vell.", "Written and illustrated by Ada Vell."), read
together gives only the participle next to "by" its relation; it is written as one sentence per
participle, "Founded by Ada Vell. Owned by Ada Vell.", each read as the same sentence alone is (its
subject elided: the page's). A participle phrase fronting a sentence that goes on ("Directed by Ada
Vell, this film ...", read by the sentence rules), a name that owns more words or a one-word name
("Founded and run by NASA.") are no such credit.

(A signature, "\u2014 N" closing a first-person text, was tried and dropped: quotations' attributions,
epigraphs and a chunk's end that is not the text's look the same.)"""

from __future__ import annotations

import re

from gateway.knowledge_graph.lists import PLURAL_HEADING

# a capitalised word of a name; a person's name is two to four of them (`_NAME`), a place's one to five
_WORD = r"[A-Z][\w'\u2019\-\.]*"
_NAME = rf"{_WORD}(?:[ \t]+{_WORD}){{1,3}}"
_PLACE = rf"{_WORD}(?:[ \t]+{_WORD}){{0,4}}"
# a title line, then "by" and a person's name alone on the next line
_BYLINE = re.compile(rf"^(?P<title>[^\n]+)\n[ \t]*by[ \t]+(?P<name>{_NAME})[ \t]*+$", re.MULTILINE)

# irregular past participles (English's closed class) that head a reduced relative clause
_IRREGULAR_PARTICIPLES = (
    "born|made|built|written|drawn|taught|brought|bought|held|kept|known|grown|given|taken|shown|sold|told"
    "|found|led|run|set|put|won|sung|begun|chosen|driven|ridden|spoken|stolen|thrown|worn|done|seen|read"
)
# a regular past participle: a stem of three letters or more and "-ed", not a word that merely ends
# so ("Need", "Seed", "Speed": "-eed"; "Shed", "Bed": a two-letter stem; "Embed", "Imbed")
_REGULAR = r"(?![Ee]mbed\b|[Ii]mbed\b)[A-Za-z][a-z]{2,}(?<!e)ed\b"
_CAPTION = re.compile(
    r"^[ \t]*(?P<head>[A-Z][a-z\-]*(?:[ \t]+[a-z][a-z\-]*)?)[ \t]+"
    rf"(?P<participle>(?=[a-z]){_REGULAR}|{_IRREGULAR_PARTICIPLES})"
    r"[ \t]+(?P<prep>in|at|by|from|on|for|to|with|near)[ \t]+"
    rf"(?P<place>{_PLACE}):[ \t]*"
    rf"(?P<items>{_PLACE}(?:[ \t]*,[ \t]*{_PLACE})*(?:,?[ \t]+and[ \t]+{_PLACE})?)"
    r"[ \t]*+(?:\.[ \t]*+)?$",
    re.MULTILINE,
)
_PERSON = "person"
# two participles sharing one agent, the sentence's whole: "Founded and owned by N."
_CREDIT = re.compile(
    rf"(?:^|(?<=[.!?])[ \t]+)(?P<part>(?=[A-Z]){_REGULAR}|(?:{_IRREGULAR_PARTICIPLES.title()}))"
    rf"[ \t]+and[ \t]+(?P<last>(?=[a-z]){_REGULAR}|{_IRREGULAR_PARTICIPLES})"
    r"(?P<more>(?:[ \t]+(?!and\b)[a-z]+){0,3}?)[ \t]+by[ \t]+"
    rf"(?P<name>{_NAME})(?=[ \t]*+(?:\.(?:[ \t]|$)|$))",  # possessive: linear on long runs of spaces
    re.MULTILINE,
)


def read_captions(text: str, subject: tuple[str, str] | None = None) -> str:
    """The chunk's text with its bylines, list captions and two-participle credits written as
    sentences (module doc); `subject` is the page's (name, type): a byline names its author only
    under its own title. The page's subject is never written in: a rewritten sentence leaves it
    elided, as the credit it rewrites did, and the extractor gives an elided subject the page's."""
    if "by" in text and subject is not None and subject[1] != _PERSON:
        text = _BYLINE.sub(lambda m: _byline(m, subject[0]), text)
    if ":" in text:
        text = _CAPTION.sub(_caption, text)
    if " and " in text and " by " in text and subject is not None:
        text = _CREDIT.sub(_credit, text)
    return text


def _credit(m: re.Match[str]) -> str:
    """One sentence per participle ("Founded by N. Owned by N."): read together, only the one next
    to "by" would be seen, and each states its own relation with the agent they share."""
    lead = m.group(0)[: m.start("part") - m.start()]
    first = m.group("part")[:1].upper() + m.group("part")[1:]
    last = m.group("last")[:1].upper() + m.group("last")[1:]
    name = m.group("name")
    return f"{lead}{first} by {name.rstrip('.')}. {last}{m.group('more')} by {name}"


def _byline(m: re.Match[str], title: str) -> str:
    """The by-line as a credit with its subject elided ("Written by N."): only under the page
    subject's own title line, whose work it names the author of (under another line, "by" belongs to
    a heading or a credit of something else)."""
    above = m.group("title").strip().lstrip("#").strip()
    if above.casefold() != title.casefold():
        return m.group(0)  # a "by" line under some other line: a heading's or a credit's
    return f"{m.group('title')}\nWritten by {m.group('name')}."


def _caption(m: re.Match[str]) -> str:
    """The caption followed by the clause it reduces ("A and B born in P."), so that each listed
    name gets the participle's relation; only under a plural noun (the listed things), the caption
    itself kept for the lists' rules."""
    if not PLURAL_HEADING.fullmatch(m.group("head")):
        return m.group(0)  # "Note on Paris: ...": no plural noun heads it
    items = m.group("items").rstrip(".")
    line = m.group(0).rstrip()
    end = "" if line.endswith(".") else "."
    return f"{line}{end} {items} {m.group('participle')} {m.group('prep')} {m.group('place')}."
