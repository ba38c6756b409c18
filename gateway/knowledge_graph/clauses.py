"""One sentence's phrase relations (`_phrases`: relations no pattern names, typed by the words that
link two mentions), and the grammar that puts a relation's words elsewhere than between its two
names: relative clauses, clefts, appositives, a place set off by commas, nominalised clauses, words
after the last name that refer back to the page's subject. Plain CPU work on one sentence at a time,
as `extract` calls it.

What it shares with the other extraction modules (`normalise`, `Span`, the function words, `typed`)
is `lexicon.py`'s, and which name a phrase is said of when it is not the one before it (the head of
"B in T", an aside's, a fronted phrase's) `heads.py`'s: both were split out of this module to keep
it under ~400 lines.
"""

from __future__ import annotations

import re

from gateway.knowledge_graph.heads import fronted, head_mention, set_off_from
from gateway.knowledge_graph.lexicon import (
    AUX,
    BREAK,
    FUNCTION,
    GOVERNED,
    MAX_PHRASE_WORDS,
    PHRASE,
    STOP,
    Span,
    normalise,
    typed,
)

# grammar that puts a relation's words elsewhere than between its two names
# "B, which N designed" (one \s* per run of spaces: a run shared by two is quadratic on a tenant's text)
_RELATIVE = re.compile(r"\s*(?:,\s*)?(?:which|that|whom|who)\s+", re.IGNORECASE)
_CLEFT = re.compile(r"\s+(?:is|was|are|were)\s+where\s+|\s*,\s*where\s+", re.IGNORECASE)  # "P is where N grew up"
_CLEFT_PRONOUN = re.compile(r"\s+(?:is|was|are|were)\s+where\s+(?:he|she|it|they)\s+", re.IGNORECASE)
# "N, who drew its plans, ...": after "who" (a person) "it"/"its" is not N; it is the page's subject
# when nothing but a verb group comes before it in the clause (no noun that could be what "it" is)
_WHO_IT = re.compile(
    r"\s*,\s*(?P<rel>who|which)\s+(?P<before>(?:[a-z]+\s+){0,3}?)(?P<it>it|its)\b(?P<rest>[^,;.()]{0,60}?)\s*(?:[,;.!?]|$)"
)
# the same with no relative word: the sentence's opening name, a verb group and "it" closing its
# clause ("N made it and you can tell", "N shot it."): N's relation to the page's subject
_SUBJECT_IT = re.compile(r"\s+(?P<before>(?:[a-z]+\s+){1,3}?)it\b(?=\s*[,;.!?]|\s+(?:and|but)\b|\s*$)")
# words that would give "it" an antecedent of its own inside the clause: a determiner opens a noun
# ("bought a house and sold it"), a coordinator a second verb with its own object
_DETERMINER = re.compile(r"\b(?:a|an|the|this|that|these|those|his|her|their|my|our|your)\b", re.IGNORECASE)
_NOT_VERB_GROUP = frozenset(
    "a an the this that these those his her their my our your some any each every no and or but".split()
)
# "Its skipper, N, ...", "X's mentor, the botanist N": the possessor's role, named by the noun
_APPOSITIVE = re.compile(
    r"(?:^|[,;(]\s*)(?:(?P<own>its|his|her|their)\s+|[\u2019']s\s+)(?P<noun>[a-z][a-z\- ]{0,40}?)\s*,\s*"
    r"(?:the\s+[a-z][\w\-]*\s+)?$",
    re.IGNORECASE,
)
# "N, its conductor since 1990, ...": the same role, named after the name
_APPOSITIVE_AFTER = re.compile(r"\s*,\s*(?:its|his|her|their)\s+(?P<noun>[^,;()]{1,60}?)\s*(?:[,;)]|$)", re.IGNORECASE)
# a word that refers back to something named before: the document's subject when no name is left
_BACK = re.compile(r"\b(?:it|its|him|her|his|them|their|the)\b", re.IGNORECASE)
_WHICH = re.compile(r"\s*(?:which|who|that)\s+", re.IGNORECASE)  # a subject relative: its antecedent acts
_SUBJECT_PRONOUNS = frozenset("he she it they".split())
# "The estate, in P, belongs to N": the aside's own "in P" says where what it is set off from
# (`heads.set_off_from`) is
_LOCATIVE_ASIDE = re.compile(r",\s*(?:in|at)\s+(?:the\s+)?", re.IGNORECASE)
_ASIDE_END = re.compile(r"\s*,")
# a sentence opening on a possessive ("Its rival", "His son") says nothing of the page's subject
_POSSESSED = re.compile(r"(?:its|his|her|their)\s+[a-z]", re.IGNORECASE)
# a nominalised clause: "the <noun> of A <preposition> B" states A's <noun> with B ("The foundation of
# W by N", "the apprenticeship of N under W", "The sale of B to C", "the schooling of N at S"): the
# noun names an act, a verb's noun by its suffix (-tion, -sion, -ment, -ship, -ance, -ence, -al,
# -age, -ure, -ing after a stem of four letters or more), the preposition its agent's, object's or
# place's: a locative ("at", "in", "on") places the act, so A's act there is a relation of A's.
# Not a noun naming a thing ("The statue of N at P", "The wife of H at C", "The church of A in B":
# B places the thing, which is no relation of A's), nor "of" itself (a name's own "of")
_NOMINAL_OF = re.compile(
    r"\b(?:the|a|an|his|her|its|their)\s+([a-z][a-z\-]{3,}(?:tion|sion|ment|ship|ance|ence|al|age|ure|ing))\s+of\s+"
    r"(?:the\s+)?$",
    re.IGNORECASE,
)
_NOMINAL_PREP = re.compile(r"\s+(by|to|under|with|from|at|in|on)\s+(?:the\s+)?", re.IGNORECASE)


def _modified_noun(text: str, words: list[str], span: Span, end: int) -> str | None:
    """The noun a name modifies after a copula and an article ("He was a N player for years", "X is
    an N restaurant", "She's a N player now"): the article is the noun's, the name its modifier, and
    the noun says how the two relate (the player's club, the restaurant's owner), which no word
    before the name did. The name in title case ("an HTTP connection", "a 64 bit long" are a
    technical term's and a number's uses); not a function word or an adverb after it ("a N and
    ...", "a N only")."""
    if not words or words[-1] not in ("a", "an") or any(w not in _COPULA for w in words[:-1]):
        return None
    if not _TITLE_CASE.fullmatch(span.text):
        return None
    m = _NOUN_AFTER.match(text, span.end, end)
    if m is None or m.group(1) in FUNCTION or m.group(1) in AUX or m.group(1).endswith("ly"):
        return None
    return m.group(1)


def _apposed_noun(text: str, span: Span, end: int) -> str | None:
    """The noun a name modifies in an appositive that closes after it ("X, the Kelby club, has ...":
    "club"; "Ada, a Kelby architect, designed ..."), the appositive's head saying how the two relate
    (the club's town, the architect's city). The name in title case, one noun, then the comma."""
    if not _TITLE_CASE.fullmatch(span.text):
        return None
    m = _APPOSED_NOUN.match(text, span.end, end)
    return m.group(1) if m and m.group(1) not in FUNCTION and m.group(1) not in AUX else None


def _entry_of(text: str, start: int, inside: list[Span], tail: str) -> bool:
    """Whether the sentence is a dated entry of the page's own timeline naming one name, its subject
    ("2023 — N appointed head coach", "1990 — N becomes sponsor"): a chronology's line is said
    of the page's subject, so the verb after the name relates the two as "it" would ("N joined it").
    The verb must have words after it: a lone verb says what befell the name itself ("2019 — Linux
    5.0 released" on another page: no relation to that page's subject)."""
    return (
        len(inside) == 1
        and len(_ALPHA_WORD.findall(tail)) >= 2
        and _DATED_ENTRY.fullmatch(text, start, inside[0].start) is not None
    )


def _opening(words: list[str]) -> list[str]:
    """Phrase words without the clause's own opening up to its subject pronoun ("since 1984 she has
    directed the" -> "has directed the"): the pronoun is the page's subject, the relation is the rest."""
    for i, w in enumerate(words):
        if w in _SUBJECT_PRONOUNS:
            return words[i + 1 :]
        if w not in FUNCTION and not w.isdigit():
            break
    return words


def _verb_group(words: str) -> bool:
    """Whether the words between "who" and "it" are a verb group only ("later rebuilt"), so that no
    noun of the clause could be what "it" stands for."""
    return all(w.isalpha() and w.islower() and w not in _NOT_VERB_GROUP for w in words.split())


# a stative location: a present be-form and "in"/"near" alone between two names ("P is in R"); a past
# one or "at" tells a visit or an event ("Smith was at Wembley"), a time phrase after the place a
# transient stay ("Alice is in London this week", "... on Monday", "... when ..."), and a name after
# a preposition is not the clause's subject ("Support for Wayland is in GNOME 45")
_BE = frozenset("is are".split())
_THE_ROLE = re.compile(r"\s*the\s+(?P<noun>[a-z][a-z\-]*(?: [a-z][a-z\-]*){0,2})\s*,\s*", re.IGNORECASE)
_APPOSED = re.compile(r"\s*,\s+(?:the|an?)\s+", re.IGNORECASE)  # "X, the " before a name
_APPOSED_NOUN = re.compile(r"[ \t]+([a-z]{3,})[ \t]*,")  # "... P club," closing the appositive
_DATED_ENTRY = re.compile(
    r"[ \t]*(?:[-*+][ \t]+)?\d{4}[ \t]*(?:[\u2014\u2013:]|--?)[ \t]*"
)  # "2023 \u2014 " opening a line
_ALPHA_WORD = re.compile(r"[^\W\d_]+")  # a word of letters ("5.0" is none)
_COPULA = frozenset("is are was were be been being s".split())  # "She's a N player": "s" is "is"
_TITLE_CASE = re.compile(r"[A-Z][a-z]+(?: (?:[A-Z][a-z]+|of|and|the|&))*")  # "Tourker Wanderers", "Bank of X"
_NOUN_AFTER = re.compile(r"[ \t]+([a-z]{3,})\b(?![\-'\u2019])")  # "... N player": the name's noun
_LOCATIVE = frozenset("in near".split())
_TRANSIENT = re.compile(
    r"\s*,?\s*(?:(?:this|last|next|that|every)\s+\w+|(?:on|until|till|through|during|since|by)\s+(?:"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|the\s+\w+|\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)"
    r"|for\s+(?:\d+|a|an|the|two|three|several|a\s+few)\s+(?:\w+\s+)?(?:minutes?|hours?|days?|weeks?|months?|years?)"
    r"|(?:when|while|whilst|until|before|after|today|tonight|tomorrow|now|currently|again|temporarily)\b)",
    re.IGNORECASE,
)
_PREP_BEFORE = frozenset("of for from with to by about in on at into over under between against".split())


def _after_preposition(text: str, start: int, at: int) -> bool:
    """Whether the word before `at` (within the sentence from `start`) is a preposition."""
    before = text[max(start, at - 40) : at].split()
    return bool(before) and before[-1].lower() in _PREP_BEFORE


def _words(text: str) -> list[str]:
    """A relation's words: normalised, no numbers ("designed in 1943" names the same relation as
    "designed"), no trailing function words, at most MAX_PHRASE_WORDS."""
    words = [w for w in normalise(text).split() if not w.isdigit()][:MAX_PHRASE_WORDS]
    while words and words[-1] in FUNCTION:
        words.pop()
    return words if any(w not in FUNCTION for w in words) else []


def _clause(text: str, pos: int, end: int) -> str:
    """The words from `pos` to the next clause break or `end`: a verb phrase's extent."""
    cut = BREAK.search(text, pos, end)
    return text[pos : cut.start() if cut else end]


def _phrases(
    text: str,
    start: int,
    sentence: str,
    inside: list[Span],
    span_keys: dict[int, str],
    subject: str | None,
    used: list[tuple[int, int]],
    lists: list[tuple[int, int]],
) -> list[tuple[str, str, str, float]]:
    """Relations no pattern names, typed by the words that link two mentions of one sentence
    ("Moravec came into the world in Keldholm" -> `~came into the world in`): what the ranker
    compares with the question's meaning when its wording asks for no relation the patterns know.
    The left end is the mention the words follow (the head of "B in T"), the sentence's opener after
    a clause break ("..., then took a degree at S"), or the document's subject when no name precedes
    them ("The firm keeps its offices in C"); words a pattern matched are not a phrase again.

    Grammar that moves the words: a relative clause ("B, which N designed, ..." -> N designed B), a
    cleft ("P is where N grew up" -> N grew up in P), an appositive naming a role ("Its skipper, N,"
    -> subject ~skipper N), and words after the last name that refer back to the document's subject
    ("N captains the side", "N supervised her doctorate" -> N ~captains the side subject)."""
    out: list[tuple[str, str, str, float]] = []
    end = start + len(sentence)
    lead = text[start : inside[0].start].strip() if inside else ""
    opener = span_keys[inside[0].start] if inside and (not lead or lead.lower() in STOP) else subject
    if opener == subject and _POSSESSED.match(lead):  # "His son, in P, ...": the son, not the page's subject
        opener = None
    prev_end, left = start, subject

    def free(a: int, b: int) -> bool:
        return not any(a < ue and ua < b for ua, ue in used)

    list_end = {k: j for i, j in lists for k in range(i, j + 1)}
    for k, span in enumerate(inside):
        a, b = prev_end, span.start
        between = text[a:b]
        right = span_keys[span.start]
        comma = text.rfind(",", a, b)
        if comma >= 0 and _LOCATIVE_ASIDE.fullmatch(text, comma, b) and _ASIDE_END.match(text, span.end, end):
            owner = set_off_from(text, start, inside[:k], comma, span_keys, subject)  # "The estate, in P,"
            # only the sentence's subject is located so ("A met B, in P, and ...": B only met A there)
            subject_of = not k or (head_mention(text, inside[:k]) is inside[0] and opener == span_keys[inside[0].start])
            if owner and owner != right and subject_of:
                out.append((owner, right, "located_in", 1.0))
        front = fronted(text, span, inside[1], span_keys) if k == 0 and len(inside) > 1 else None
        head = span_keys[head_mention(text, inside[:k]).start] if k else None
        owned = k > 0 and inside[k - 1].text.endswith(("'s", "\u2019s"))  # "Harrow Line's surveyor, N,"
        appositive = _APPOSITIVE.search("'s " + between.lstrip() if owned else between)
        # the sentence's subject a role of the page's subject, the name set off after it ("The head
        # coach, N, reported ...": the page's head coach; not "The next day, N went": no comma after N)
        role = _THE_ROLE.fullmatch(between) if not k and _ASIDE_END.match(text, span.end, end) else None
        if appositive and free(a, b):  # "Its skipper, N," / "X's mentor, the botanist N,"
            owner = subject if appositive.group("own") else left
            if (rel := typed(owner or "", right, _words(appositive.group("noun")))) and owner:
                out.append(rel)
        elif role and subject and free(a, b):
            if rel := typed(subject, right, _words(role.group("noun"))):
                out.append(rel)
        elif k and free(a, b) and _APPOSED.fullmatch(between) and (noun := _apposed_noun(text, span, end)):
            out.append((span_keys[inside[k - 1].start], right, PHRASE + noun, 1.0))  # "X, the P club,"
        elif head and _RELATIVE.fullmatch(between) and free(span.end, end):  # "B, which N designed in 1943,"
            if rel := typed(right, head, _words(_clause(text, span.end, end))):
                out.append(rel)
        elif head and _CLEFT.fullmatch(between):  # "P is where N grew up", "P is where A and B grew up"
            last_member = inside[list_end.get(k, k)]  # the words follow the list
            clause = _clause(text, last_member.end, end)
            used.append((last_member.end, last_member.end + len(clause)))  # said once
            words = _words(clause)
            for member in inside[k : list_end.get(k, k) + 1] if words else ():
                if rel := typed(span_keys[member.start], head, [*words, "in"]):
                    out.append(rel)
        elif (left is not None or front) and free(a, b):
            cut = list(BREAK.finditer(between))
            src: str | None = head or front or left  # "Composed by X in 1903, W ...": W was
            if cut:
                between, src = between[cut[-1].end() :], opener
                if cut[-1].group() == "," and (rel_subject := _WHICH.match(between)):  # "B, which opened in T"
                    between, src = between[rel_subject.end() :], head or left
            # the verb and preposition end it; a number names no relation ("has 5 slipways at", "in 1857 by")
            words = _opening([w for w in normalise(between).split() if not w.isdigit()][-MAX_PHRASE_WORDS:])
            # (or a present be-form and "in"/"near" alone: "P is in R" says that much, `_TRANSIENT`)
            located = (
                len(words) == 2
                and words[0] in _BE
                and words[1] in _LOCATIVE
                and src == left
                and k > 0
                and not _after_preposition(text, start, inside[k - 1].start)
                and not _TRANSIENT.match(text, span.end, end)
            )
            if src and src != right and (located or any(w not in FUNCTION and not w.isdigit() for w in words)):
                out.append((src, right, PHRASE + " ".join(words), 1.0))
            elif src and src != right and (noun := _modified_noun(text, words, span, end)):
                out.append((src, right, PHRASE + " ".join([*words, noun]), 1.0))  # "He was a N player"
        if k and free(a, b) and (prep := _NOMINAL_PREP.fullmatch(between)):
            nominal = _NOMINAL_OF.search(text, start, inside[k - 1].start)
            if nominal and nominal.group(1).lower() not in FUNCTION:  # "The foundation of W by N"
                if rel := typed(
                    span_keys[inside[k - 1].start], right, [nominal.group(1).lower(), prep.group(1).lower()]
                ):
                    out.append(rel)
        who = _WHO_IT.match(text, span.end, end)
        # no noun before N either ("The house was sold by N, who rebuilt it"): N opens the sentence
        alone = not k and not _DETERMINER.search(text, start, span.start)
        opens_it = alone and not text[start : span.start].strip()  # N is the sentence's first word
        if who and who["rel"] == "which" and (who["it"] != "it" or who["rest"].strip()):
            who = None  # "N, which makes it easy to ...": a dummy "it"; "which" takes "it" closing its clause only
        if who and subject and subject != right and alone and free(span.end, who.end()) and _verb_group(who["before"]):
            vp = _words(f"{who['before']}{who['it']}{who['rest']}")
            if rel := typed(right, subject, vp):  # "N, who drew its plans," -> N ~drew its plans
                out.append(rel)
        elif (own := _SUBJECT_IT.match(text, span.end, end)) and subject and subject != right and opens_it:
            if (
                free(span.end, own.end())
                and _verb_group(own["before"])
                and (rel := typed(right, subject, _words(own["before"])))
            ):
                out.append(rel)  # "N made it and ..." -> N ~made
        after = _APPOSITIVE_AFTER.match(text, span.end, end)
        if after and subject and free(span.end, after.end()) and (rel := typed(subject, right, _words(after["noun"]))):
            out.append(rel)  # "N, its conductor since 1990, ..."
        prev_end, left = span.end, right
    if inside and subject and free(prev_end, end):
        tail = _clause(text, prev_end, end)
        final = head_mention(text, inside)
        last = span_keys[final.start]
        cleft = _CLEFT_PRONOUN.match(tail)
        if cleft:  # "P is where she grew up"
            if rel := typed(subject, last, [*_words(tail[cleft.end() :]), "in"]):
                out.append(rel)
        elif (_BACK.search(tail) or _entry_of(text, start, inside, tail)) and not GOVERNED.search(
            text, start, final.start
        ):
            # "N travelled with it as physician": N and the document's subject (not "A traveller from N
            # describes the harbour": a name after a preposition is no verb's subject)
            words = normalise(tail).split()
            while words and words[0] in AUX:
                words.pop(0)
            opens = bool(words) and (words[0] not in FUNCTION or _BACK.fullmatch(words[0]) is not None)
            if opens and (rel := typed(last, subject, _words(" ".join(words)))):  # not "N ... in the hall"
                out.append(rel)
    return out
