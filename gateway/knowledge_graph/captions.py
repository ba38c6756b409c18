"""Document layouts that state a relation on a line of their own (#28, the draped corpus's
diagnosis), rewritten as plain sentences before a chunk is read, as `layouts` does for fragment
answers and datelines.

A byline: a work's title on a line of its own, then "by <Name>" on the next (a book's cover, a
catalogue's entry, an article's head: "THE LIND LETTERS\\nby Ada Vell"). The line names the title's
author; it is read as "<title> written by <Name>." when the title line is the page's subject (in
capitals or not), the name two to four capitalised words. "By Train" (a heading), "by default", a
"by" line under any other line or on a person's page are no byline.

A caption naming its list's shared relation: a plural noun, a past participle and a preposition with
a name, a colon, then the names ("People born in Kelby: Ada Vell and Bo Lind."). The participle
phrase is a reduced relative clause on each listed name: the caption is followed by the clause it
reduces, "Ada Vell and Bo Lind born in Kelby." (the caption itself kept, as the lists' rules read
it). Only past participles ("-ed", or an irregular one of a closed list), a plural head ("People",
"Books", "Alumni"...), and every listed item a name (capitalised words): "Files stored in Docker:
see below", "Tickets sold in Paris: 2,000", "Note on Paris: ..." are no such caption.

A credit: a sentence that is only a past participle (perhaps two, "Acquired and edited", or with a
few words after, "Edited for this edition") and "by <Name>", the name ending the sentence: "Edited
for this edition by Ada Vell." credits the page's subject, its elided subject; read as "<subject>
edited for this edition by Ada Vell." (of two participles, "Printed and bound by N", the one next to
"by", which the other shares its agent with). A participle phrase fronting a sentence that goes on ("Directed
by Ada Vell, this film ...", read by the sentence rules), a name that owns more words ("Surrounded
by Ada Vell's friends.") or a one-word name ("Used by NASA.") are no credit.

A signature: a text written in the first person (a letter, a foreword, acknowledgments: "I", "my",
"me" more than once) whose last line is a dash and a name ("\u2014 Ada Vell") is signed by its
writer: read as "<subject> written by Ada Vell." on the page of what the text belongs to. Not on a
person's page (a letter to or about them), not a dash line followed by more text, not a text in the
third person (a quotation's attribution after a review: "'A triumph.' \u2014 Bo Sarn")."""

from __future__ import annotations

import re

from gateway.knowledge_graph.lists import PLURAL_HEADING

_NAME = r"[A-Z][\w'\u2019\-\.]*(?:[ \t]+[A-Z][\w'\u2019\-\.]*)"
# a title line, then "by" and a person's name (two to four capitalised words) alone on the next line
_BYLINE = re.compile(rf"^(?P<title>[^\n]+)\n[ \t]*by[ \t]+(?P<name>{_NAME}{{1,3}})[ \t]*+$", re.MULTILINE)

# irregular past participles (English's closed class) that head a reduced relative clause
_IRREGULAR_PARTICIPLES = (
    "born|made|built|written|drawn|taught|brought|bought|held|kept|known|grown|given|taken|shown|sold|told"
    "|found|led|run|set|put|won|sung|begun|chosen|driven|ridden|spoken|stolen|thrown|worn|done|seen|read"
)
_CAPTION = re.compile(
    r"^[ \t]*(?P<head>[A-Z][a-z\-]*(?:[ \t]+[a-z][a-z\-]*)?)[ \t]+"
    rf"(?P<participle>[a-z]+ed|{_IRREGULAR_PARTICIPLES})[ \t]+(?P<prep>in|at|by|from|on|for|to|with|near)[ \t]+"
    rf"(?P<place>{_NAME}{{0,4}}):[ \t]*"
    rf"(?P<items>{_NAME}{{0,4}}(?:[ \t]*,[ \t]*{_NAME}{{0,4}})*(?:,?[ \t]+and[ \t]+{_NAME}{{0,4}})?)"
    r"[ \t]*+(?:\.[ \t]*+)?$",
    re.MULTILINE,
)
_PERSON = "person"
_SIGNATURE = re.compile(rf"\n[ \t]*[\u2014\u2013][ \t]*(?P<name>{_NAME}{{1,3}})[ \t]*+\s*\Z")
_FIRST_PERSON = re.compile(r"\b(?:I|[Mm]y|me)\b")
_CREDIT = re.compile(
    rf"(?:^|(?<=[.!?])[ \t]+)(?P<part>[A-Z][a-z]+ed|(?:{_IRREGULAR_PARTICIPLES.title()}))"
    rf"(?:[ \t]+and[ \t]+(?P<last>[a-z]+ed|{_IRREGULAR_PARTICIPLES}))?"
    r"(?P<more>(?:[ \t]+(?!and\b)[a-z]+){0,3}?)[ \t]+by[ \t]+"
    rf"(?P<name>{_NAME}{{1,3}})(?=[ \t]*+(?:\.(?:[ \t]|$)|$))",  # possessive: linear on long runs of spaces
    re.MULTILINE,
)


def read_captions(text: str, subject: tuple[str, str] | None = None) -> str:
    """The chunk's text with its bylines and list captions written as sentences (module doc);
    `subject` is the page's (name, type): a byline names its author only under its own title."""
    if "by" in text and subject is not None and subject[1] != _PERSON:
        text = _BYLINE.sub(lambda m: _byline(m, subject[0]), text)
    if ":" in text:
        text = _CAPTION.sub(_caption, text)
    if " by " in text and subject is not None:
        text = _CREDIT.sub(lambda m: _credit(m, subject[0]), text)
    if subject is not None and subject[1] != _PERSON and ("\u2014" in text or "\u2013" in text):
        text = _signed(text, subject[0])
    return text


def _signed(text: str, subject: str) -> str:
    m = _SIGNATURE.search(text)
    if m is None or len(_FIRST_PERSON.findall(text, 0, m.start())) < 2:
        return text  # no closing signature, or a text in the third person (a quotation's attribution)
    return f"{text[: m.end('name')]}\n{subject} written by {m.group('name')}.{text[m.end('name') :]}"


def _credit(m: re.Match[str], subject: str) -> str:
    lead = m.group(0)[: m.start("part") - m.start()]
    # of two participles sharing the agent, the one next to it: "Acquired and edited by N" states
    # "edited by N" ("acquired" alone, a company's purchase, would be read as ownership)
    part = m.group("last") or m.group("part").lower()
    return f"{lead}{subject} {part}{m.group('more')} by {m.group('name')}"


def _byline(m: re.Match[str], title: str) -> str:
    above = m.group("title").strip().lstrip("#").strip()
    if above.casefold() != title.casefold():
        return m.group(0)  # a "by" line under some other line: a heading's or a credit's
    return f"{m.group('title')}\n{title} written by {m.group('name')}."


def _caption(m: re.Match[str]) -> str:
    if not PLURAL_HEADING.fullmatch(m.group("head")):
        return m.group(0)  # "Note on Paris: ...": no plural noun heads it
    items = m.group("items").rstrip(".")
    line = m.group(0).rstrip()
    end = "" if line.endswith(".") else "."
    return f"{line}{end} {items} {m.group('participle')} {m.group('prep')} {m.group('place')}."
