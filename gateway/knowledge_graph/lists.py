"""Coordinated lists of names in one sentence ("A, B and C") and the relations they share (#28).

The grammar of `clauses` links a relation's words to the name beside them: "N trained A, B and C"
gives N ~trained A, "A, B and C grew up here" gives C. A coordinated list shares its role, so each
relation one member has is given to every member. Plain CPU work on one sentence, linear in its
mentions but for the copies themselves.
"""

from __future__ import annotations

import re
from itertools import pairwise

from gateway.knowledge_graph.lexicon import GOVERNED, MAX_PHRASE_WORDS, PARTICIPLE, STOP, Span, normalise, typed

# "A, B and C", "A and the B", "A or B": names joined by commas and a last "and"/"or" (a comma alone,
# "Paris, France", joins no list)
_JOIN = re.compile(r"\s*,\s*(?:the\s+)?", re.IGNORECASE)
_LAST_JOIN = re.compile(r"\s*,?\s+(?:and|or)\s+(?:the\s+)?", re.IGNORECASE)
_SENTENCE_END = re.compile(r"\s*[.!?;:)\]\"\u201d']*\s*")

# a subordinate clause's opening word: a list right after it is that clause's subject ("P is where A
# and B grew up")
_OPENS_CLAUSE = re.compile(
    r"\b(?:where|when|while|who|whom|which|that|because|after|before|since|until|once|if|as)\s+$", re.IGNORECASE
)
# "A and B were born in P and Q, respectively": each to its own, so no member shares another's role
_RESPECTIVELY = re.compile(r"\brespectively\b", re.IGNORECASE)
# a label that heads an enumeration: a plural noun, perhaps after lower-case words ("Founders:",
# "Notable residents:"); not a name ("Anna Jones:"), a clause or a word naming no role ("Note:", "See also:")
# (a plural in "-s", or one of a closed list of English's irregular plurals of people: "Alumni:",
# "Notable people:", "Chairmen:"; a singular in "-i"/"-men" is no plural: "Delhi:", "Yemen:", "Specimen:")
_IRREGULAR = (
    r"alumni|alumnae|children|people|women|gentlemen|chairmen|chairwomen|spokesmen|statesmen|businessmen"
    r"|businesswomen|congressmen|countrymen|craftsmen|firemen|fishermen|horsemen|noblemen|policemen|sportsmen"
    r"|sportswomen|tradesmen|workmen|clergymen|aldermen|freshmen|kinsmen|frontmen|linemen"
)
_PLURAL_WORD = rf"[a-z\-]*[a-z](?<![su]s)(?<!is)s|(?i:{_IRREGULAR})"
PLURAL_HEADING = re.compile(
    rf"\s*(?:[A-Za-z](?:[a-z\-]*[a-z](?<![su]s)(?<!is)s)|(?i:{_IRREGULAR})"
    rf"|[A-Za-z][a-z\-]*(?:\s+[a-z][a-z\-]*){{0,2}}?\s+(?:{_PLURAL_WORD}))\s*"
)
PLURAL = re.compile(r"[A-Za-z][a-z\-]*[a-z](?<![su]s)(?<!is)s")
# "Natives of P include A and B", "The works of N included A": a plural noun of a name, then "include"
_INCLUDED_LEAD = re.compile(r"\s*(?:the\s+)?(?P<noun>[A-Za-z][a-z\-]*)\s+of\s+(?:the\s+)?", re.IGNORECASE)
# "Former students include A", "His plays include A": the plural noun of the page's subject
_INCLUDED_OWN = re.compile(
    r"\s*(?:(?:its|his|her|their|the)\s+)?(?P<noun>[A-Za-z][a-z\-]*(?:\s+[a-z][a-z\-]*){0,3}?)"
    r"\s+include[sd]?\s+(?:the\s+)?",
    re.IGNORECASE,
)
_INCLUDE = re.compile(r"\s+include[sd]?\s+(?:the\s+)?", re.IGNORECASE)
# what follows a name opening a sentence when the name is a plural noun's ("Natives of P include")
_INCLUDE_NEXT = re.compile(r"(?P<rest>(?:\s+[a-z][a-z\-]*){0,3})\s+include[sd]?\b")
_PRONOUNS = frozenset("i you he she it we they".split())
Relation = tuple[str, str, str, float]


def _subject_list(text: str, start: int, inside: list[Span], i: int) -> bool:
    """Whether a list from inside[i] opens its sentence (nothing but function words and numbers
    before it, no preposition: "In 1990, A and B ...", not "The war between A and B") or a clause
    ("... is where A and B grew up")."""
    if i:
        return _OPENS_CLAUSE.search(text, inside[i - 1].end, inside[i].start) is not None
    lead = text[start : inside[0].start]
    return all(w in STOP or w.isdigit() for w in normalise(lead).split()) and not GOVERNED.search(lead)


# after an object list, a prepositional phrase naming no one ("N names A and B among those who played
# for it", "N trained A and B in 1990"): the list is still the verb's object; a verb after it opens a
# clause of its own ("Anna founded Acme and Bob Lee joined it")
_TAIL_PHRASE = re.compile(r"\s+(?:among|in|at|for|from|with|as|during|since|until|over|under)\s", re.IGNORECASE)


def coordinated(text: str, start: int, end: int, inside: list[Span]) -> list[tuple[int, int]]:
    """The coordinated lists of one sentence's mentions, as index ranges (first, last) of `inside`:
    a list that opens the sentence or a clause (its subject: "A, B and C grew up in P", "P is where A
    and B grew up") or ends the sentence's names (an object: "N trained A, B and C.", "N names A and
    B among its players", `_TAIL_PHRASE`). Not one in
    mid-sentence ("Anna founded Acme and Bob Lee joined it": "Bob Lee" opens a clause of its own),
    which could be either."""
    out: list[tuple[int, int]] = []
    if _RESPECTIVELY.search(text, start, end):  # each member to its own: no shared role
        return out
    i = 0
    while i < len(inside):
        j = i
        while j + 1 < len(inside) and _JOIN.fullmatch(text, inside[j].end, inside[j + 1].start):
            j += 1
        if j + 1 < len(inside) and _LAST_JOIN.fullmatch(text, inside[j].end, inside[j + 1].start):
            j += 1
            opens = _subject_list(text, start, inside, i)
            last = j == len(inside) - 1
            ends = _SENTENCE_END.fullmatch(text, inside[j].end, end) or _TAIL_PHRASE.match(text, inside[j].end, end)
            if opens or (last and ends):
                out.append((i, j))
        i = j + 1
    return out


def _joined(text: str, inside: list[Span], keys: dict[int, str]) -> set[str]:
    """The names of a sentence that stand in any run joined as a list ("A and B", "P, Q and R"),
    wherever it stands: a relation with one of them may be "respectively" and is never shared."""
    out: set[str] = set()
    for a, b in pairwise(inside):
        if _JOIN.fullmatch(text, a.end, b.start) or _LAST_JOIN.fullmatch(text, a.end, b.start):
            out |= {keys[a.start], keys[b.start]}
    return out


def unpaired(
    text: str, start: int, end: int, inside: list[Span], keys: dict[int, str], relations: list[Relation]
) -> list[Relation]:
    """A sentence's relations without those between two members of lists when it says
    "respectively" ("A, B and C were born in P, Q and R, respectively": the grammar pairs C with P,
    which the sentence does not): the pairing is by position, which no rule here reads."""
    if not _RESPECTIVELY.search(text, start, end):
        return relations
    listed = _joined(text, inside, keys)
    return [r for r in relations if not (r[0] in listed and r[1] in listed)]


def spread(
    text: str,
    start: int,
    inside: list[Span],
    keys: dict[int, str],
    relations: list[Relation],
    lists: list[tuple[int, int]],
) -> list[Relation]:
    """One sentence's relations with each one of a list member has given to every member: the
    grammar above links the words to the member beside them ("N trained A, B and C" -> N ~trained
    A), and a list shares its role (B and C were trained too). A subject list shares the relations
    to what follows it or to the page's subject, an object list ending the sentence every relation
    (nothing follows it); never a relation between two lists ("A and B were born in P and Q":
    perhaps respectively), nor one already there."""
    if not lists:
        return []
    have = {(s, d, t) for s, d, t, _ in relations}
    listed = _joined(text, inside, keys)  # "A and B were born in P and Q (in 1950)": not shared
    named = {keys[s.start] for s in inside}
    out: list[Relation] = []
    for i, j in lists:
        members = list(dict.fromkeys(keys[inside[k].start] for k in range(i, j + 1)))
        is_member = set(members)
        if _subject_list(text, start, inside, i):  # a subject: what follows it
            allowed = {keys[s.start] for s in inside[j + 1 :]} - listed
        else:
            allowed = {keys[s.start] for s in inside[:i]} - listed
        for src, dst, kind, weight in relations:
            for member, other, forward in ((src, dst, True), (dst, src, False)):
                if member not in is_member or other in listed or (other not in allowed and other in named):
                    continue
                for m in members:
                    row = (m, other, kind) if forward else (other, m, kind)
                    if m != other and row not in have:
                        have.add(row)
                        out.append((*row, weight))
    return out


def _label(words: str) -> list[str]:
    """A label's words, its last preposition kept ("gathered by"), numbers left out; none if only
    function words."""
    out = [w for w in normalise(words).split() if not w.isdigit()][-MAX_PHRASE_WORDS:]
    return out if any(w not in STOP for w in out) else []


def _postmodifier(lead: str) -> list[str]:
    """The participle and preposition of a label "<plural noun> <participle> <preposition>" that
    ends before a name ("Books written by", "works criticised by", "Shells found near"), lower-case
    but for the label's first word; none for a clause ("He thanked", "criticised the work of")."""
    tokens = lead.split()
    if len(tokens) < 3 or not GOVERNED.search(lead) or tokens[-1].lower() == "the":
        return []
    noun, participle, preposition = tokens[-3:]
    if not (participle.islower() and PARTICIPLE.search(participle) and preposition.islower()):
        return []
    if not (noun.islower() or len(tokens) == 3) or not PLURAL.fullmatch(noun):
        return []
    return [participle, preposition]


def enumerated(
    text: str,
    label: tuple[int, list[Span]],
    *,
    start: int,
    end: int,
    inside: list[Span],
    lists: list[tuple[int, int]],
    keys: dict[int, str],
    subject: str | None,
) -> list[Relation]:
    """The relations of an enumeration after a colon ("Books written by N: A and B." -> A ~written
    by N, B too; "Founders: A and B." -> the page's subject ~founders A, B): a sentence that is
    nothing but names, after a `label` (its start and mentions) ending on a colon, is what the label
    describes (not one ended by a semicolon: the first item of "A; B; C" is no more the label's
    than the rest); `typed` gives a pattern's type to a pattern's words ("Written by: A" -> written_by)."""
    if not inside or text[start : inside[0].start].strip() or not _SENTENCE_END.fullmatch(text, inside[-1].end, end):
        return []
    if ";" in text[inside[-1].end : end]:  # "Entries: A; B; C": one item of a longer enumeration, not all
        return []
    if len(inside) > 1 and lists != [(0, len(inside) - 1)]:
        return []
    label_start, named = label
    colon = text.rfind(":", label_start, start)
    if colon < 0 or text[colon + 1 : start].strip():
        return []
    last = named[-1] if named and not text[named[-1].end : colon].strip() else None
    if last is not None and text[label_start : last.start].strip():  # "Books written by N:" -> each item ~written by N
        words = _postmodifier(text[label_start : last.start])
        if not words:  # "He thanked N:", "Anna Jones criticised the work of N:": a clause, no heading
            return []
        owner, forward = keys[last.start], False
    elif (
        PLURAL_HEADING.fullmatch(text, label_start, colon)
        and subject
        and not _PRONOUNS & set(normalise(text[label_start:colon]).split())
    ):  # "Founders:": of the page's subject
        owner, forward, words = subject, True, _label(text[label_start:colon])
    else:  # a clause ("Anna Jones had two children:"), a name ("Anna Jones:"), a note ("Warning:")
        return []
    out: list[Relation] = []
    for span in inside:
        item = keys[span.start]
        rel = typed(owner, item, words) if forward else typed(item, owner, words)
        if rel:
            out.append(rel)
    return out


def included(
    text: str,
    start: int,
    inside: list[Span],
    keys: dict[int, str],
    lists: list[tuple[int, int]],
    subject: str | None,
) -> tuple[list[Relation], tuple[int, int] | None]:
    """A subject "<plural noun> of A include B and C" opening the sentence: A -[the noun]-> B, C
    ("Natives of P include A and B" -> P ~natives A, B); with no "of A", the page's subject's
    ("Former students include A", "His plays include A" -> subject ~former students A; "Players
    past and present include A": a plural and the words that qualify it); a noun
    that is a pattern's is typed so. Returns the relations and the stretch of the subject and
    "include" the phrase relations must leave alone (B is no "~include" of A), or ([], None)."""
    if not inside:
        return [], None
    own = _INCLUDED_OWN.fullmatch(text, start, inside[0].start)
    noun = own["noun"].split() if own else []
    if own and subject and (PLURAL.fullmatch(noun[-1]) or (len(noun) > 3 and PLURAL.fullmatch(noun[0]))):
        owner, first, words = subject, 0, normalise(own["noun"]).split()
        stretch = (start, inside[0].start)
    else:
        lead = _INCLUDED_LEAD.fullmatch(text, start, inside[0].start) if len(inside) > 1 else None
        if not lead or not PLURAL.fullmatch(lead["noun"]):
            return [], None
        if not _INCLUDE.fullmatch(text, inside[0].end, inside[1].start):
            return [], None
        owner, first, words = keys[inside[0].start], 1, [lead["noun"].lower()]
        stretch = (start, inside[1].start)  # nor is A a "~critics of" of the page's subject
    last = next((j for i, j in lists if i == first), first)
    out = [rel for k in range(first, last + 1) if (rel := typed(owner, keys[inside[k].start], words))]
    return out, stretch


def plural_subject(words: list[str], body: str, end: int) -> int:
    """How many of the words of a name opening a sentence (ending at `end` of `body`) are a plural
    noun's before "include": 2 for "Natives of P include" (P is the name), all for "Natives include",
    "Former students include" or "Players past and present include" (a noun and its modifiers, no
    name), else 0."""
    inc = _INCLUDE_NEXT.match(body, end)
    if not inc or not words:
        return 0
    if len(words) > 2 and words[1] == "of" and PLURAL.fullmatch(words[0]):
        return 2
    rest = inc["rest"].split()
    if len(words) == 1 and (PLURAL.fullmatch([*words, *rest][-1]) or (len(rest) > 2 and PLURAL.fullmatch(words[0]))):
        return 1  # "Former students include", "Players past and present include"
    return 0
