"""Finding entity names in text: the default extractor's spans (`RuleExtractor`) and a name's guessed
type (`guess_type`). Split out of `extract.py` (which re-exports them, where their callers import
them) to keep it under ~400 lines; relations between the names found are `extract.extract`'s, for
every extractor. The store's titles it finds first, and the words a file writes capitalised
mid-sentence, are `gazetteer.py`'s (`Gazetteer`, `MidSentence`: split out of here in turn).

`RuleExtractor` (the default) finds proper-noun spans (capitalised words, joined by "of", "de",
"van", ...), model codes ("ZX-81", "Orbis 9X"), titles of works in quotes ('"The Quiet Harbour"'),
and the corpus's own titles wherever they appear, in any case. Within one file, a person's surname
after their full name is that person, and so is a given name opening a sentence (`coref`, as
`extract.extract` reads the spans). A capitalised word that only opens a sentence ("After",
"Today") is not a name: a word-list and the text's own lower-case uses tell it apart.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from gateway.knowledge_graph.gazetteer import Gazetteer, MidSentence
from gateway.knowledge_graph.lexicon import _STOP, PARTICIPLE, Span, normalise
from gateway.knowledge_graph.lists import plural_subject
from gateway.knowledge_graph.tables import sentences as _sentences

_WORD = re.compile(r"[^\W_][\w'\u2019\-\.&]*[^\W_]|[^\W_]", re.UNICODE)
# a capitalised "The" after a comma or a lower-case word inside a sentence is a title's own: "..., The X
# Y", "at The X Y", and after a verb, "He wrote The Broken Masque", "Its plays include The X Y" (only a
# title keeps a capital there; at a sentence's start it is as often the article)
_TITLE_THE = re.compile(r"(?:[,;]|\b[a-z][a-z'\u2019]*)\s+$")
_I_CONTRACTION = re.compile(r"['\u2019](?:m|ve|d|ll)$")
_CODE = re.compile(r"^(?=[^\d]*\d)(?=.*[^\W\d_])[\w\-\.]+$")  # letters and digits: X7, ZX-81, A320neo
# a model's number after its name, "the Semmeth 95", "Boeing 747", "Route 66": one to three digits, a
# word that is no date's (a month's or a weekday's short name before a day, "Oct 5", "Sun 25 Apr", is a
# date; a full name is a stop word)
_NUMBER = re.compile(r"\d{1,3}")
_DATED = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun".split()
)
# what may follow a name's number: the sentence's end, punctuation or markup ("95.", "95**", "95)") but
# not a figure, a range, a score or a sum ("95 %", "1/2", "1 - 4", "1\u20140", "0 -> 9", "1 + 1") nor a
# thousands group ("1,000"), a capitalised word, or a lower-case word (group 1), read by `_numbered`
_AFTER_NUMBER = re.compile(r"\s*(?:$|(?![%/\-\u2013\u2014+=<>]|,\d)[^\w\s]|(?=[A-Z])|([a-z][a-z'\u2019]*))")
# the lower-case words that may follow a name's number: function words, auxiliaries and particles
# ("was", "and", "of", "first", "up": "the Semmeth 95 was", "took the Vask 95 up"), not a title's
# abbreviation that is a unit too ("ms": "CPU 30 ms")
_AFTER_NAME = (_STOP - frozenset("mr mrs ms dr st".split())) | frozenset(
    "up down out off over into onto under near through across between against around via per back away".split()
)
_VERB_S = re.compile(r"[a-z]{2,}[^su\W]s$")  # a present verb's "-s": "supports", "runs"; not "ms", "class"
_QUOTED = re.compile(r"[\"\u201c]([A-Z0-9][^\"\u201d\n]{0,78}[^\s\"\u201d])[\"\u201d]")
_BY_NEXT = re.compile(r" by ", re.IGNORECASE)  # "Composed by X": after a lone opening participle
# a past participle opening the sentence, its preposition and a name, then the comma closing the phrase
# ("Trained at N, ...", "Situated in P, ..."): a participial phrase fronted before its subject
# "-ed" after one consonant after a vowel ("Trained", "Situated", "Based"), not after two consonants
# as in given names ("Alfred", "Ahmed", "Wilfred")
_ED_WORD = re.compile(r"[A-Z][a-z]*[aeiouy][b-df-hj-np-tv-z]ed")
# the closed class of English firm-name endings that an ampersand joins to the names before it ("Geithen
# & Co.", "Dombey & Son", "Lehman & Brothers", "Jones & Partners"); any other "&" coordinates two names
# ("Alice & Bob", "Linux & Windows", "HTML & CSS")
_FIRM_ENDS = frozenset("co co. company cie cie. son sons brothers bros bros. partners associates".split())
_FRONTED_PREP = re.compile(r" (?:at|in|on|near|from|under|with|for|to|into|as) (?:the )?[A-Z][^,.;:!?]*,")
# a word of address: an opening word or two ("Sir", "Dear Sir") set off by a comma (a dash may follow)
# from a clause whose subject is "I", "we" or "you" ("Sir, — I write ...", "Friends, we ...",
# "Yesterday, I went"): the clause's subject is the speaker, not the word, which names no one the
# sentence relates. Not a parenthetical, an I/we/you clause a comma closes within three words
# ("Einstein, you may recall, was born ...", "Rome, I think, was founded ..."): the name is the subject
_ADDRESSED = re.compile(r"\s*,\s*(?:[\u2014\u2013]\s*|-{1,2}\s*)?(?:I|[Ww]e|[Yy]ou)\b(?!(?:\s+[\w'\u2019]+){0,3}\s*,)")
# the subjectless clause's verb is a past form (a CV's, a caption's: "Spent", "Joined", "Came"): a
# regular "-ed" after two letters or more ("Fred" stays a name) or a closed list of English irregular
# past forms; an imperative ("Open the Settings page") or a name before a preposition ("Napoleon at the
# Battle of W", "Rome under the Caesars") is no such verb
_IRREGULAR_PAST = (
    "Came Went Spent Grew Made Took Left Won Led Ran Began Became Wrote Built Taught Brought Bought Held "
    "Saw Met Got Gave Found Fought Sold Kept Lost Rose Fell Sang Drove Rode Flew Stood Sat Told Said "
    "Thought Sent Spoke Chose Knew Drew Threw Wore Broke Stole Swam Struck Caught Dealt Felt Heard Meant "
    "Paid Slept Shot Lent Dug Fed Hung Rang Shook Sought Spun Stuck Swore Swept Tore Wept"
)
_PAST = re.compile(rf"(?:[a-z]{{2}}ed|^(?:{'|'.join(_IRREGULAR_PAST.split())}))$")
# before "of the" and a name, only an agent noun is a role with its subject left out ("Winner of the N
# Award", "Holder of the N Star", "Founder of ..."); "Crew of the Endeavour", "Museum of the Moving
# Image", "Rome of the Caesars" are names
_AGENT = re.compile(r"[a-z](?:er|or|ist|ant|ent)$")
# a participle's "-ing" straight before its object's determiner ("Winning the N Prize"); not before a
# preposition, where a place's "-ing" is as likely ("Reading in the 1990s", "Beijing at the Games")
_GERUND = re.compile(r"[a-z]{2}ing$")
_DETERMINED = re.compile(r" (?:the|a|an|his|her|their|its|my|our|your) ")


def _subjectless_verb(word: str, after: str) -> bool:
    """Whether a lone capitalised word opening a sentence, followed by `after` (`_VERB_OBJECT`'s
    match), is the verb of a clause whose subject is left out (`_PAST`, `_GERUND`) or, before "of the",
    a role's agent noun (`_AGENT`)."""
    if after.startswith(" of "):
        return _AGENT.search(word) is not None
    return _PAST.search(word) is not None or (_GERUND.search(word) is not None and _DETERMINED.match(after) is not None)


MAX_ADDRESS_WORDS = 2  # "Sir", "Dear Sir", "Dear Madam"
# after a lone capitalised word opening a sentence, a determiner or a possessive (perhaps after one or
# two particles or prepositions) is the object of a verb: the word is the verb of a clause whose
# subject is left out, as a CV, a caption or a post leaves it ("Spent his playing days at P", "Came up
# through the N", "Joined the firm in 1990", "Visit our shop"); a name is followed by its own verb, a
# comma or a connector, not by a determiner ("Paris is", "Ada, her sister", "Ada and her sister"). Not a
# word ending in a plural's "-s", a subject with its verb left out of a heading or a title ("Visitors
# to the N": a verb's "-s" form, "Prints the value", says the page's subject did it, and is left too).
# So is a noun before "of the" and a name: the page's subject's role, with the subject left out too
_PLURAL_S = re.compile(r"[^su]s$")  # "Visitors to the N", "Tickets through the N": a plural noun, the subject
_VERB_OBJECT = re.compile(
    r" (?:(?:up|down|out|off|back|away|through|over|into|onto|to|in|on|at|with|from|for|under|across) ){0,2}"
    r"(?:the|a|an|his|her|their|its|my|our|your) [A-Za-z]"
    r"| of (?:the|a|an) [A-Z]"  # a role's noun before a name: "Winner of the N Award", "Holder of the N Star"
)
_CONNECTORS = frozenset({"of", "de", "del", "della", "da", "di", "von", "van", "der", "den", "la", "le", "du", "&"})
_ORG_WORDS = frozenset(
    """inc corp corporation co company ltd llc gmbh ag sa group labs lab laboratories systems industries
    dynamics works foundry motors technologies technology tech holdings partners studio studios
    institute university college bank foundation agency society association council ministry
    press records media networks robotics aerospace electronics instruments devices software optics
    analytics energy pharma pharmaceuticals foods airlines shipping mining chemicals""".split()
)
_PLACE_WORDS = frozenset("city town village river lake mount island bay valley county province port".split())


def guess_type(name: str, context: str = "") -> str:
    words = name.split()
    low = [w.lower().strip(".,") for w in words]
    if any(_CODE.match(w) for w in words):
        return "product"
    if low and (low[-1] in _ORG_WORDS or low[0] in _ORG_WORDS):
        return "organization"
    if low and (low[-1] in _PLACE_WORDS or low[0] in _PLACE_WORDS):
        return "place"
    if re.search(r"\b(?:in|at|near|from)\s*$", context, re.I) and len(words) <= 2:
        return "place"
    if 2 <= len(words) <= 3 and all(w[:1].isupper() and w[1:].islower() for w in words):
        return "person"
    return "entity"


class RuleExtractor:
    """Proper nouns, model codes and known titles; no model weights."""

    name = "rules"

    def spans(self, text: str, known: Gazetteer) -> list[Span]:
        taken = _Taken()
        for a, b in known.find(text):
            taken.add(Span(text[a:b], guess_type(text[a:b]), a, b))
        for m in _QUOTED.finditer(text):  # titles of works: 'wrote "The Quiet Harbour"'
            a, b = m.span(1)
            if not taken.overlaps(a, b):
                taken.add(Span(text[a:b], "work", a, b))
        lower_words = {w.lower() for w in _WORD.findall(text) if w[:1].islower()}
        mid = (MidSentence(text), known.document)
        for sentence in _sentences(text):
            start0, body = sentence
            tokens = list(_WORD.finditer(body))
            i = 0
            while i < len(tokens):
                if not _namelike(tokens[i].group()):
                    i += 1
                    continue
                j = i
                while j + 1 < len(tokens):
                    nxt = tokens[j + 1].group()
                    gap = body[tokens[j].end() : tokens[j + 1].start()]
                    if gap.strip() == "&" and nxt[:1].isupper() and nxt.lower() in _FIRM_ENDS:
                        # an ampersand before a firm-name ending joins it to the name ("Geithen &
                        # Co.", "Dombey & Sons"); any other "&" coordinates ("Alice & Bob")
                        j += 1
                        continue
                    if gap.strip() not in ("", "-"):
                        break
                    if _namelike(nxt):
                        j += 1
                    elif nxt.lower() in _CONNECTORS and j + 2 < len(tokens) and _namelike(tokens[j + 2].group()):
                        j += 2
                    else:
                        break
                if (  # "the Mivdrark line": a lower-case word that ends titles of the corpus ends this name too
                    j + 1 < len(tokens)
                    and tokens[j + 1].group() in known.heads
                    and body[tokens[j].end() : tokens[j + 1].start()] == " "
                ):
                    j += 1
                if _numbered(tokens, i, j, body):  # "the Semmeth 95": the number is the name's own
                    j += 1
                words = [t.group() for t in tokens[i : j + 1]]
                a = i
                # drop capitalised function words that open the span ("The Orbis", "After Quillon")
                # but not a capitalised "The" inside a sentence before two capitalised words or more: a
                # title's own ("home to Kinda Farm, The Boundis Guide and ..."; at a sentence's start it
                # is as often the article: "The Orbis was ...")
                title_the = (
                    i > 0
                    and words[0] == "The"
                    and len(words) >= 3
                    and _TITLE_THE.search(body[max(0, tokens[i].start() - 12) : tokens[i].start()])
                    and " ".join(words[1:]).lower() not in known.lower  # "The Hague Court" of a title "Hague Court"
                )
                while words and not title_the and normalise(words[0]) in _STOP and not _CODE.match(words[0]):  # "It's"
                    words.pop(0)
                    a += 1
                # a lone opening word is no name when the text also writes it in lower case, or when it is
                # shaped like a participle and "by" follows it ("Composed by X", not "Berlin by night")
                if (a == 0 and len(words) == 1) and (
                    words[0].lower() in lower_words
                    or (PARTICIPLE.search(words[0]) and _BY_NEXT.match(body, tokens[a].end()))
                    or _opening_participle(words[0], body, tokens[a].end(), mid)
                ):
                    words = []
                if (
                    a == 0
                    and len(words) == 1
                    and not _PLURAL_S.search(words[0])
                    and (m_vo := _VERB_OBJECT.match(body, tokens[j].end())) is not None
                    and _subjectless_verb(words[0], m_vo.group(0))
                ):
                    words = []  # a subjectless clause's verb: "Spent his days at P", "Came up through the N"
                if a == 0 and len(words) <= MAX_ADDRESS_WORDS and _ADDRESSED.match(body, tokens[j].end()):
                    words = []  # a word of address ("Dear Sir, I was born at P")
                if a == 0 and (drop := plural_subject(words, body, tokens[j].end())):  # "Natives of P include"
                    words, a = words[drop:], a + drop
                if words:
                    s, e = start0 + tokens[a].start(), start0 + tokens[j].end()
                    # a known title inside a longer name is part of it ("Skaurdboen" in "Skaurdboen
                    # Observatory"): the longer name wins; any other overlap keeps the title
                    taken.drop_inside(s, e)
                    if not taken.overlaps(s, e):
                        name = text[s:e].rstrip(".")
                        before = body[max(0, tokens[a].start() - 24) : tokens[a].start()]  # "in ", "from "
                        taken.add(Span(name, guess_type(name, before), s, s + len(name)), e)
                i = j + 1
        return taken.spans


class _Taken:
    """The spans found so far, disjoint and kept in order of position, so that whether a new one
    overlaps them, or which lie inside it, is a binary search: a list scanned for every name made a
    document of thousands of names cost quadratic time."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []  # the end each span claims (a trailing "." it dropped included)
        self.spans: list[Span] = []

    def overlaps(self, s: int, e: int) -> bool:
        i = bisect_left(self.starts, e)  # spans starting before e; the last of them ends last
        return i > 0 and self.ends[i - 1] > s

    def drop_inside(self, s: int, e: int) -> None:
        """Drop the spans strictly inside [s, e) (not [s, e) itself)."""
        i, j = bisect_left(self.starts, s), bisect_left(self.starts, e)
        keep = [k for k in range(i, j) if self.ends[k] > e or (self.starts[k], self.ends[k]) == (s, e)]
        if j - i > len(keep):
            self.starts[i:j] = [self.starts[k] for k in keep]
            self.ends[i:j] = [self.ends[k] for k in keep]
            self.spans[i:j] = [self.spans[k] for k in keep]

    def add(self, span: Span, end: int | None = None) -> None:
        i = bisect_left(self.starts, span.start)
        self.starts.insert(i, span.start)
        self.ends.insert(i, span.end if end is None else end)
        self.spans.insert(i, span)


def _opening_participle(word: str, body: str, end: int, mid: tuple[MidSentence, MidSentence]) -> bool:
    """Whether a lone capitalised word opening the sentence is a past participle heading a fronted
    phrase ("Trained at N, D designed ...", "Situated in P, the club ..."), not a name: "-ed" in
    form (`_ED_WORD`), a preposition, a capitalised word and a comma after it, and the text never
    writes it capitalised after a lower-case word (a name is capitalised mid-sentence too: "Jared in
    Paris, ... met Jared"): neither this chunk nor any chunk of its file (`mid`)."""
    return bool(_ED_WORD.fullmatch(word) and _FRONTED_PREP.match(body, end) and not any(word in m for m in mid))


def _namelike(word: str) -> bool:
    # "I" and its contractions ("I'm", "I've", "I'd", "I'll") are the pronoun, no name
    return bool(word[:1].isupper() or _CODE.match(word)) and _I_CONTRACTION.sub("", word.lower()) != "i"


def _numbered(tokens: list[re.Match[str]], i: int, j: int, body: str) -> bool:
    """Whether the one-to-three-digit number straight after the name `tokens[i..j]` is the name's own
    ("the Semmeth 95", "Boeing 747", "GCC 12"): a title named before its page is known must be found
    whole, or its link is stored under "semmeth" and never meets the title's page. Not a date's day
    ("Oct 5", "Sun 25 Apr"), not after a function word, and only when what follows the number ends
    the name: the sentence's end, punctuation or markup but a figure's, a range's or a score's
    ("95 %", "1\u20140"), a capitalised word, or a function word, auxiliary or particle ("the Semmeth
    95 was ...", "Windows 10 and 11", "took the Vask 95 up"). Any other lower-case word makes the
    number a count or a measure ("Kelby 12 times", "Rome 3 km", "Paris 1 day", "CPU 30 ms"), except
    a verb's present or past form when the name opens its sentence, the verb's subject ("Python 3
    supports type hints", "The Semmeth 95 came out of ..."). A score ("Leeds 2, Hull 1") or an age ("John
    Smith 42, a teacher") reads as a model's number: grammar alone does not tell them from a list of
    models ("Windows 10, Windows 11") or an apposition ("the Boeing 747, a wide-body jet")."""
    if not (
        j + 1 < len(tokens)
        and _NUMBER.fullmatch(tokens[j + 1].group())
        and body[tokens[j].end() : tokens[j + 1].start()] == " "
        and tokens[j].group().lower() not in _DATED
        and normalise(tokens[j].group()) not in _STOP
    ):
        return False
    after = _AFTER_NUMBER.match(body, tokens[j + 1].end())
    if after is None:
        return False
    word = after.group(1)
    opens = i == 0 or (i == 1 and tokens[0].group() in ("the", "a", "an"))  # "* the Semmeth 95 carries ..."
    return (
        word is None
        or word in _AFTER_NAME
        or (opens and (_VERB_S.search(word) is not None or _PAST.search(word.capitalize()) is not None))
    )
