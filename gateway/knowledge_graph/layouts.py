"""Document layouts that state a sentence's relation across its punctuation (#28, the cloaked
corpus's diagnosis), rewritten before a chunk is read so that the sentence rules see plain sentences.

Answers given as fragments: an interview's or a FAQ's "Where ...?" question answered by a
prepositional phrase alone ("Q: Where were you born? A: In Loskdal, a long time ago."; "Where is it
held? In Kenzberg, every year.") states its relation only across the two: the question holds the
verb and its subject, the answer the place. Such an answer is written out as the statement it
abbreviates ("A: you were born in Loskdal, a long time ago."). Grammar only: the question word
"where", an auxiliary, the question's subject and its final verb (a lower-case word, with a
particle), and an answer opening on a locative preposition and a capitalised word. Not a
"how"/"why"/yes-no question ("How do I change it? In Settings, ..." is an instruction), nor an
answer that is a sentence of its own ("She studied at ...").

News-wire datelines: "LONDON, 5 May 1990 (Wire) \u2014 Acme Films, the studio based in P, ..." opens
its first sentence with the place and date the item was filed from, which the sentence rules took
for the sentence's subject ("LONDON ... based in P"). The dateline (a line opening on a word in
capitals, then a date after a comma or an agency in brackets, or both, then a dash) is blanked, so
the sentence opens on its real subject. A capitalised word and a dash alone ("NOTE \u2014 ...",
"USA \u2014 the country ...") are no dateline."""

from __future__ import annotations

import re

# "Where were you born?", "Q: Where did Ada Vell train?", "Where is it held?": the auxiliary, the
# subject (a pronoun or a name of at most six words, `_statement`), the final verb and its particle
_WHERE = re.compile(
    r"(?:^|(?<=[.!?\n]))[ \t]*(?:Q:[ \t]*)?Where[ \t]+(?P<aux>is|are|was|were|did|does|do)[ \t]+"
    r"(?P<subject>(?:[\w\u2019'\-]+[ \t]+){0,5}?[\w\u2019'\-]+)[ \t]+"
    r"(?P<verb>[a-z]+(?:[ \t]+(?:up|out|off|down|over))?)\?"
    r"(?P<gap>[ \t]*\n?[ \t]*(?:A:[ \t]*)?)(?P<prep>In|At|From|On|Near)[ \t]+(?=[A-Z])"
)
_DO = frozenset({"did", "does", "do"})
_PRONOUNS = frozenset("i you he she it we they".split())


# a dateline: a place in capitals opening a line, then ", <date>" or "(<agency>)" or both, then a dash
_DATELINE = re.compile(
    r"^[ \t]*[A-Z][A-Z\-\.']+(?:[ \t]+[A-Z][A-Z\-\.']+){0,3}"
    r"(?:(?:,[ \t]*[^(),\n\u2014\u2013]{1,40}?)(?:[ \t]*\([^()\n]{1,40}\))?|[ \t]*\([^()\n]{1,40}\))"
    r"[ \t]*(?:[\u2014\u2013]|--)[ \t]+",
    re.MULTILINE,
)


def read_layouts(text: str) -> str:
    """The chunk's text with its fragment answers written out and its datelines blanked (module doc)."""
    return undated(answered(text))


def undated(text: str) -> str:
    """The text with each news-wire dateline replaced by as many spaces (offsets kept)."""
    if "\u2014" not in text and "\u2013" not in text and "--" not in text:
        return text
    return _DATELINE.sub(lambda m: " " * len(m.group(0)), text)


def answered(text: str) -> str:
    """The text with each fragment answer to a "Where ...?" question written out as a statement
    (module doc); text with no question mark is returned as it is, unscanned."""
    if "?" not in text or "Where" not in text:
        return text
    return _WHERE.sub(_statement, text)


def _statement(m: re.Match[str]) -> str:
    subject = m.group("subject")
    # a pronoun or a name (every word capitalised): "Where do I set the proxy?" has no verb last
    if subject.lower() not in _PRONOUNS and not all(w[:1].isupper() for w in subject.split()):
        return m.group(0)
    aux = "" if m.group("aux") in _DO else m.group("aux") + " "
    return m.group(0)[: m.start("prep") - m.start()] + f"{subject} {aux}{m.group('verb')} {m.group('prep').lower()} "
