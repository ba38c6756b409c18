"""Document layouts that state a sentence's relation across its punctuation (#28, the cloaked
corpus's diagnosis), rewritten before a chunk is read so that the sentence rules see plain sentences.

Answers given as fragments: an interview's or a FAQ's "Where ...?" question answered by a
prepositional phrase alone ("Q: Where were you born? A: In Kelby, many years ago."; "Where is it
held? In Brask, each spring."; an e-mail's inline answer to a quoted line, "> where was he born?"
then "In Kelby.") states its relation only across the two: the question holds the
verb and its subject, the answer the place. Such an answer is written out as the statement it
abbreviates, with the subject named ("A: Ada Vell was born in Kelby, many years ago."). Grammar
only: the question word "where", an auxiliary, the question's subject and its final verb (a
lower-case word that is no adverb, "Where are they now?", with a particle), and an answer that is a
fragment: a locative preposition, a capitalised name, then the sentence's end or a comma before a
tail that is no clause (a relative word, a preposition, a time phrase: "In Paris, in 1990."; not
"In Berlin, the members run a bar.", nor "In London I got lost."). The subject is a name, or a
pronoun that can only be the page's subject: "you" (an interview), "he"/"she" on a person's page,
"it" on any other page; "I"/"we" are the asker, "they" a group, "it" on a person's page an event:
no statement. Not a "how"/"why"/yes-no question ("How do I change it? In Settings, ..." is an
instruction).

News-wire datelines: "LONDON, 5 May 1990 (Wire) \u2014 Acme Films, the studio based in P, ..." opens
its first sentence with the place and date the item was filed from, which the sentence rules took
for the sentence's subject ("LONDON ... based in P"). The dateline (a line opening on a word in
capitals, then after a comma a date, a month's name or digits in a date's shape, perhaps an agency
in brackets; or a single agency word in brackets alone; then a dash) is blanked, so the sentence
opens on its real subject. A capitalised word and a dash alone ("NOTE \u2014 ...", "USA \u2014 the
country ..."), a list of names ("IBM, Microsoft and Google \u2014 ...", "USA, Canada \u2014 ..."),
an apposition ("NATO, the alliance ... \u2014") or a bracket of several words ("HTTP (RFC 9110)
\u2014") are no dateline.

Chat logs: "[20:03] <ada_v> trained at N" prefixes each line with a time and the typist's handle,
which the sentence rules took for the line's subject ("ada_v trained at N"); the prefix is blanked,
so the line reads as the fragment it is, said of the page's subject."""

from __future__ import annotations

import re

# "Where were you born?", "Q: Where did Ada Vell train?", "Where is it held?", an e-mail's quoted
# question answered inline ("> where was he born?\nIn Kelby."): the auxiliary, the
# subject (a pronoun or a name of at most six words, `_statement`), the final verb and its particle;
# the answer's preposition and its name (every word capitalised) up to the sentence's end or a comma
_WHERE = re.compile(
    r"(?:^|(?<=[.!?\n]))[ \t]*(?:(?:Q:[ \t]*)?Where|(?P<quoted>>)[ \t]*[Ww]here)[ \t]+"
    r"(?P<aux>is|are|was|were|did|does|do)[ \t]+"
    r"(?P<subject>(?:[\w\u2019'\-]+[ \t]+){0,5}?[\w\u2019'\-]+)[ \t]+"
    r"(?P<verb>[a-z]+(?:[ \t]+(?:up|out|off|down|over))?)\?"
    r"(?P<gap>[ \t]*\n?[ \t]*(?:A:[ \t]*)?)(?P<prep>In|At|From|On|Near)[ \t]+"
    r"[A-Z][\w\-'\u2019&]*(?:[ \t]+(?:of[ \t]+|the[ \t]+|de[ \t]+)*[A-Z][\w\-'\u2019&]*)*"
    r"(?P<end>[ \t]*(?:[.!\n]|$)|[ \t]*,[ \t]*(?P<tail>[^.!?\n]*))"
)
_DO = frozenset({"did", "does", "do"})
# a tail after the answer's comma that is no clause: it opens on a relative word, a preposition or a
# time word, or ends on "ago" ("..., where she grew up", "..., in 1990", "..., every year", "..., long ago")
_FRAGMENT_TAIL = re.compile(
    r"(?:where|when|which|who|whose|in|at|on|near|from|since|during|for|with|by|after|before|until|every|each"
    r"|last|this|back|once|twice|always|mostly|mainly|then|now|of)\b|.*\bago\s*$",
    re.IGNORECASE,
)
# a question's last word that is an adverb, not its verb ("Where are they now?")
_ADVERB = frozenset("now then here there today tonight yesterday tomorrow again nowadays still already".split())
_PERSONAL = frozenset("you he she".split())
_HE_SHE = frozenset("he she".split())
_PERSON = re.compile(r"\b(?:he|she|his|her|him|hers)\b", re.IGNORECASE)
_ASKER = frozenset("i we they".split())


# a date: day month [year], month day [, year], month year, ISO or slashed digits, a year
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?"
    r"|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_DATE = (
    rf"(?:\d{{1,2}}[ \t]+{_MONTH}(?:,?[ \t]+\d{{4}})?|{_MONTH}[ \t]+\d{{1,2}}(?:,?[ \t]+\d{{4}})?|{_MONTH}[ \t]+\d{{4}}"
    r"|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4}|\d{4})"
)
# a dateline: a place in capitals opening a line, then ", <date>" perhaps with "(<agency>)", or
# "(<Agency>)" alone, one word; then a dash
_DATELINE = re.compile(
    r"^[ \t]*[A-Z][A-Z\-\.']+(?:[ \t]+[A-Z][A-Z\-\.']+){0,3}"
    rf"(?:,[ \t]*{_DATE}(?:[ \t]*\([^()\n]{{1,40}}\))?|[ \t]*\([A-Z][A-Za-z\-\.&]*\))"
    r"[ \t]*(?:[\u2014\u2013]|--)[ \t]+",
    re.MULTILINE,
)


# a chat log's line: a time in brackets and the speaker's handle in angle brackets ("[20:03] <ada_v> ")
_CHAT = re.compile(r"^[ \t]*\[\d{1,2}:\d{2}(?::\d{2})?\][ \t]*<[^<>\s]{1,40}>[ \t]+", re.MULTILINE)


def read_layouts(text: str, subject: tuple[str, str] | None = None) -> str:
    """The chunk's text with its fragment answers written out and its datelines and chat prefixes
    blanked (module doc); `subject` is the page's (name, type), whom a pronoun of the question may name."""
    return unprefixed(undated(answered(text, subject)))


def unprefixed(text: str) -> str:
    """The text with each chat log line's time and handle replaced by as many spaces (offsets kept):
    the handle ("<saucier88>") is who typed the line, not the subject of what it says ("trained at
    N" is said of the page's subject, as a caption's clause with its subject left out is)."""
    if "<" not in text:
        return text
    return _CHAT.sub(lambda m: " " * len(m.group(0)), text)


def undated(text: str) -> str:
    """The text with each news-wire dateline replaced by as many spaces (offsets kept)."""
    if "\u2014" not in text and "\u2013" not in text and "--" not in text:
        return text
    return _DATELINE.sub(lambda m: " " * len(m.group(0)), text)


def answered(text: str, subject: tuple[str, str] | None = None) -> str:
    """The text with each fragment answer to a "Where ...?" question written out as a statement
    (module doc); text with no question mark is returned as it is, unscanned."""
    if "?" not in text or ("Where" not in text and ">" not in text):
        return text
    # a page that speaks of a person ("he", "she", "his", "her") is a person's: "it" there is some
    # thing or event, not the page's subject; "you" is the interviewee, "he"/"she" a person's page's
    speaks = _PERSON.search(text) is not None
    return _WHERE.sub(lambda m: _statement(m, subject, speaks), text)


def _statement(m: re.Match[str], page: tuple[str, str] | None, speaks: bool) -> str:
    said, verb = m.group("subject"), m.group("verb")
    if (tail := m.group("tail")) is not None and tail.strip() and not _FRAGMENT_TAIL.match(tail.strip()):
        return m.group(0)  # "In Berlin, the members run a bar.": a sentence of its own
    if m.group("quoted") and (page is None or page[1] != "person"):
        # an e-mail's quoted question: its page's subject is the thread ("Re: bio for ..."), whose
        # "he" is whoever the thread is about; only a person's own page answers for its subject
        return m.group(0)
    if verb.split()[0] in _ADVERB or verb.endswith("ly"):
        return m.group(0)  # "Where are they now?": no verb
    pronoun, named = said.lower(), False
    if pronoun in _ASKER or pronoun in _PERSONAL or pronoun == "it":
        personal = page is not None and (page[1] == "person" or speaks)
        if page is None or pronoun in _ASKER or (pronoun in _HE_SHE and not personal) or (pronoun == "it" and speaks):
            return m.group(0)  # the asker, a group, or a pronoun that is not the page's subject
        said, named = page[0], True
        aux = {"were": "was", "are": "is"}.get(m.group("aux"), m.group("aux"))
    else:
        aux = m.group("aux")
    if not named and not all(w[:1].isupper() for w in said.split()):
        return m.group(0)  # a noun phrase's subject ("Where do I set the proxy?" has no verb last)
    aux = "" if aux in _DO else aux + " "
    head = m.group(0)[: m.start("prep") - m.start()]
    return head + f"{said} {aux}{verb} {m.group('prep').lower()} " + m.group(0)[m.end("prep") - m.start() + 1 :]
