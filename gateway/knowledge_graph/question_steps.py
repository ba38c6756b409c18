"""How many relations a question's chain has, from its grammar alone (#28): `steps`, asked by the
`kg` ranker, the hop reads (`question.hop_words`, `question.hop_cues`, `hops.hop_plan`) and the
benchmarks. Split out of `question.py` to keep it under ~400 lines. No relation word, template or
domain is named here: only function words and the shapes of the clauses they open."""

from __future__ import annotations

import functools
import re

from gateway.knowledge_graph.extract import _STOP
from gateway.knowledge_graph.question_parse import MAX_TOKENS, opens_clause, parse
from gateway.knowledge_graph.question_request import as_question
from gateway.knowledge_graph.question_words import (
    ARTICLES,
    AUXILIARY,
    BE,
    DETERMINER,
    DETS,
    ING_PREPOSITIONS,
    NO_OWNER,
    OF_LINKS,
    PRONOUNS,
    PTOKEN,
    RELATIVES,
    TOKEN,
    VERB_AUX,
    WH,
    bare,
    function_word,
    is_possessive,
    looks_like_name,
    plain_of,
)

# the words that link two relations of a chain (after the question word, which opens its own)
_LINKS = re.compile(r"\b(?:of|behind|that|who|whom|whose|whoever|which)\b", re.I)
# "of" between two capitalised words is inside a name ("School of Lettering", "Bank of England"), as
# the names of the text are found (`names._CONNECTORS`): no link between two relations; but an
# all-capitals word before a lower-case "of" is an abbreviated title ("the CEO of Acme"), a relation
_NAME_OF = re.compile(r"\b([A-Z][\w\-\.'&]*)\s+of\s+(?=[A-Z0-9])")
# a copular question whose head noun is the relation ("What is the birthplace of ..."), not a passive
# one ("Which establishment was headed by ...", whose verb is its own relation)
_COPULA_HEAD = re.compile(
    r"^\s*(?:what|who|which\s+\w+)(?:\s+(?:is|are|was|were)|['\u2019]s)\b(?!\s+\w+(?:\s+(?:up|out))?\s+by\b)", re.I
)
# a question asking for a kind ("which region", "what part of the country") with a copula whose
# subject ends on a stranded preposition: "Which region is the location of X IN?", "Which town is the
# director of Y FROM?" ask the subject's relation by that preposition, a step of its own (the head
# noun after the copula is the subject, not the relation asked). The "of" inside the kind's phrase
# ("What part OF the country is ...") joins no two relations of the chain when the kind is a
# classifier noun (a closed class of English: kind, type, sort, part, form, ...): group 1; "Which
# member OF the band is ..." keeps its "of"
_CLASSIFIERS = (
    r"(?:kind|kinds|type|types|sort|sorts|part|parts|form|forms|variety|varieties"
    r"|category|categories|class|classes|style|styles|genre|genres)"
)
_KIND_COPULA = re.compile(
    rf"^\W*(?:which|what)\s+(?:{_CLASSIFIERS}\s+(of)\s+(?:the\s+)?[a-z]\w*"
    r"|(?!(?:is|are|was|were)\b)[a-z]\w*(?:\s+of\s+(?:the\s+)?[a-z]\w*)?)\s+(?:is|are|was|were)\s",
    re.I,
)
# the same classifier phrase as a copular question's head noun before a contact clause ("What is the
# part OF the country the hometown of X lies in?", a request's "the part of the country the ..."
# read as one, `as_question`): the kind asked for, as "Which part of the country is ...?" asks it;
# its "of" joins no two relations, the clause's stranded preposition is the question's relation (a
# determined noun after it, as the parser reads such a clause: "the kind of region the ..." is left)
_KIND_HEAD = re.compile(
    rf"^\W*what\s+(?:is|are|was|were)\s+the\s+{_CLASSIFIERS}\s+of\s+the\s+[a-z]\w*\s+(?:the|a|an)\s", re.I
)
# a kind's copula question ending on a bare noun and a stranded "of" ("... part of?", "... a member of?")
_STRANDED_OF_END = re.compile(r"\s(?:an?\s+)?[a-z]\w*\s+of\s*\?\s*$")
_PARTICLE_OF_END = re.compile(r"\s(?:out|off)\s+of\s*(?:\?\s*)?$", re.I)
_COPULA_NOUN_OF_END = re.compile(r"\s(?:is|are|was|were)\s+(?:an?\s+)?[a-z]\w*\s+of\s*(?:\?\s*)?$", re.I)
_STRANDED_END = re.compile(r"\s(?:in|from|at|on|to|for|with|under|by|near)\s*\?\s*$", re.I)
# the same stranded preposition closing a contact clause, asked or requested ("... lies in"): the
# locative clause `_KIND_HEAD` reads; "the genre of the film the director of X made" asks the
# genre of the film, its "of" a relation
# (each optional "?" at the end written so that a long run of spaces before a last word is read
# once, not once for each way of splitting it between two `\s*`: quadratic on the event loop)
_STRANDED_CLAUSE_END = re.compile(r"\s(?:in|from|at|on|to|for|with|under|by|near)\s*(?:\?\s*)?$", re.I)
# a copula's complement that is a bare noun with "to": "Which harbour is home to ..."
_BARE_TO = re.compile(rf"\s+(?!{DETERMINER}\b)[a-z]\w*\s+to\b", re.I)
# a possessive naming a relation of what it follows: "X's founder", "the Skiers' captain" (not "it's")
_POSSESSIVE = re.compile(r"\b(\w+)(?:['\u2019]s|s['\u2019])\s+(?=[a-z])")
# a question ending on a name's possession ("What is Ada Kettle's birthplace?"): the possessed noun
# is the copular question's head, as in "What is the birthplace of Ada Kettle?"
# (a compound with a bare noun's "of" too, "What is Ada Kettle's place of birth?": `plain_of`)
_POSSESSED_END = re.compile(
    rf"\b(\w+)(?:['\u2019]s|s['\u2019])\s+\w+(?:\s+\w+)?(?P<compound>\s+of\s+(?!{DETERMINER}\b)[a-z]\w*)?\W*$"
)
# a participle after a noun, then "by": a reduced relative clause, "the peak attempted by X", "the
# hospital set up by Y" (after an auxiliary, "was headed by", it is the question's own verb)
_PARTICIPLE_BY = re.compile(r"\b(\w+)\s+(\w+)(?:\s+(?:up|out|off|down|over))?\s+by\b", re.I)
# a present participle after a determined noun: the noun's own relation to what follows, "the ship
# carrying X", "a film starring Y" (a reduced relative clause, as "the peak attempted by X"). Not a
# preposition after the noun ("the timeout for X", "the race at Y": the noun's modifier, one
# relation), nor a preposition spelt like a participle ("the war during the reign of X")
_PARTICIPLE = re.compile(r"\b(?:the|a|an|its|their|his|her)\s+(?!\w+ing\b)([a-z]\w+)\s+(\w{3,}ing)\b")
# "whose" as the question's determiner, "Whose property produces X?": the possessor's relation to
# the noun is one, the noun's to X another
_WHOSE_NOUN = re.compile(r"^\W*whose\s+[a-z]", re.I)
# not when the noun is the object of an auxiliary's clause, "Whose research centre did X's adviser
# run?": its possessor is that clause's subject, no relation of its own
_WHOSE_OBJECT = re.compile(r"^\W*whose(?:\s+\w+){1,3}?\s+(?:do|does|did|is|are|was|were|has|have|had)\b", re.I)
# a relative "where" after a noun opens that noun's own clause: "the yard where X was built" is a
# relation of the yard's. Only after a determined noun phrase ("the yard", "its old yard"): not
# after a verb ("check where X writes", "happens where"), an auxiliary or a cleft ("Which town is
# where ..."). After "of" too: "the founder of the yard where X was launched" is three relations;
# "What is the name of the town where X was born?" two, its "of" then carrying the copula's relation
_RELATIVE_WHERE = re.compile(rf"{DETERMINER}\s+(?:[a-z]\w*\s+)?([a-z]\w*)\s+where\b", re.I)
# a copular question's head noun followed by a relative clause: the clause names the head's relation
# ("What is the town WHERE X stood?", "What is the place THAT housed Y?", and a contact clause,
# "What is the town X was born in?", "What is the person THE board put in charge"): no relation of
# its own, as with "of" ("What is the birthplace OF X?"). A name after the noun (group 1) opens a
# contact clause when the parser reads it so (`question_parse.opens_clause`): not a possessive
# apposition owning the next noun ("What is the river Ord's source?"), but a possessive whose noun
# phrase a verb group follows ("What is the company Ada Vell's brother works for?")
_HEAD_CLAUSE = re.compile(
    r"\s+(?:the|a|an)\s+(?:[a-z]\w*\s+)?(?!(?:that|who|whom|which|where)\b)[a-z]\w*\s+(?:"
    r"(?:that|who|whom|which|where)\b|(?:the|a|an|its|their|his|her)\s|([A-Z0-9]))"
)


# a determined noun and "at" before a noun phrase, "the chef AT the restaurant X", "the coach at Acme":
# the noun's relation to what follows, as "the founder OF X" is one (a verb's "at" is its own relation's:
# "Who trained at X?"); "at" before a number or a bare word is a time or a manner ("the show at 8", "at
# night", "at once"), no relation; nor a participle's object ("the person running the kitchen at X":
# the participle's relation) or a participle for the noun ("the route calling at X"). Only where the noun
# phrase is no verb's object (`_subject_position`): after a verb, "at X" may say where the verb's
# action was ("Who won the race AT Monza?": one relation, the race's winner), as any prepositional
# modifier may; a subject's or an "of" phrase's "at" can only be the noun's
_NOUN_AT = re.compile(
    r"(?<!ing )\b(?i:the|an?|its|their|his|her|our|your|my)\s+(?:(?!\w+ing\b)[a-z]\w*\s+)?(?!\w+ing\b)([a-z]\w+)"
    rf"\s+at\s+(?=(?:(?i:{DETERMINER})\s+(?:[a-z]\w*\s+){{0,2}})?[A-Z])"
)


def _linked(word: str) -> bool:
    """Whether a capitalised word before "of" and a name heads a relation, not a name: a question
    word ("Which of Acme's founders") or an abbreviated title ("CEO", "CTO": all capitals, more
    than one letter; a name's words before "of" are capitalised only in their first letter)."""
    return bool(WH.fullmatch(word)) or (len(word) > 1 and word.isupper())


@functools.lru_cache(maxsize=256)  # asked by the ranker, hop_words, hop_cues and the hop plan
def steps(query: str) -> int:
    """How many relations a question's chain has, from its grammar alone (no relation words): one
    per link between two relations ("the founder OF the company THAT makes X"), and one for the
    question's own relation, unless it is the head noun of a copular question that ends on a name
    ("What is the birthplace OF the person behind X?": the birthplace is that link's relation). Text
    with no question word asks for no relation of its own: its relations are the nouns its links
    join ("hometown of the founder of X": two; "control information of a PostgreSQL database
    cluster", a manual page's NAME line: one). A question's clauses with no word to mark them count
    too: a contact relative clause ("the yard the founder of X worked for", `question_parse`), a
    copula's bare noun with "to" ("Which town is home to the yard that ..."). A request is read as
    the question it asks (`as_question`)."""
    lower_case = query == query.lower()  # typed in lower case: no name is capitalised
    query = as_question(query)
    words = TOKEN.findall(query)
    wh = WH.search(query)  # the question word opens the question's own relation: no link
    unnamed = _NAME_OF.sub(lambda m: m.group(0) if _linked(m.group(1)) else m.group(1) + " ", query)
    opens = WH.search(unnamed)
    counted = unnamed[opens.end() :] if opens else unnamed
    tokens = PTOKEN.findall(counted)
    # "of" before a possessive pronoun or a bare noun joins no two relations (`plain_of`)
    links = sum(not (t.lower() == "of" and plain_of(tokens, i)) for i, t in enumerate(tokens) if _LINKS.fullmatch(t))
    if wh is not None:
        # in a question, possessives and reduced relative clauses link two relations too:
        # "the institution headed by X's supervisor" is three relations (the question's own, the
        # heading, the supervision); text with no question word (a manual page's NAME line,
        # "files sorted by size") keeps its count
        links += sum(m.group(1).lower() not in NO_OWNER for m in _POSSESSIVE.finditer(query))
        links += sum(
            m.group(1).lower() not in AUXILIARY | _STOP and not WH.fullmatch(m.group(1)) and m.start() >= wh.start()
            for m in _PARTICIPLE_BY.finditer(query)
        )
        links += sum(
            m.group(1) not in AUXILIARY | _STOP and m.group(2).lower() not in ING_PREPOSITIONS
            for m in _PARTICIPLE.finditer(query, wh.end())
        )
        links += bool(_WHOSE_NOUN.match(query)) and not _WHOSE_OBJECT.match(query)
        links += sum(
            m.group(1).lower() not in AUXILIARY | _STOP and _subject_position(query, m.start())
            for m in _NOUN_AT.finditer(query, wh.end())
        )
        # a "how" question asks for a manner: its "where" clauses are conditions of the action ("How do
        # I set the timeout where the proxy is behind Nginx?"), no entity's relation
        if wh.group(0).lower() != "how":
            links += sum(m.group(1).lower() not in AUXILIARY | _STOP for m in _RELATIVE_WHERE.finditer(query, wh.end()))
    ends_on_name = bool(words) and looks_like_name(words[-1])
    if not ends_on_name and (possessed := _POSSESSED_END.search(query)) is not None:
        # a chain of possessives ends on the name it starts from: "What is Acme's founder's birthplace?"
        root, before = possessed.group(1), ""
        # the possessed compound's own "of" ("Ada Kettle's place OF birth") joins no two relations
        links -= possessed.group("compound") is not None and wh is not None and possessed.start() >= wh.end()
        before_tokens = PTOKEN.findall(query[: possessed.start()])  # a plural's "Letters'" too
        k = len(before_tokens) - 1
        while k >= 0:
            token = before_tokens[k]
            if not is_possessive(token):
                # a compound's modifier between two possessives, "Acme's parent company's seat": the
                # possessed noun's word, the chain goes on to the possessive before it
                if k > 0 and is_possessive(before_tokens[k - 1]) and token.islower() and bare(token) not in _STOP:
                    k -= 1
                    continue
                before = token
                # typed in lower case, a name's earlier words too ("what is acme press's owner's
                # seat?"): no function word between them and the copula
                while lower_case and k > 0 and not function_word(bare(before)) and bare(before) not in BE:
                    k -= 1
                    before = before_tokens[k]
                # and a determiner before two words or more, straight after the copula (read below), a
                # name with its title's noun ("what is the novelist ada brask's alma mater?": one
                # relation, as "the novelist Ada Brask's" is)
                if lower_case and 0 < k < len(before_tokens) - 2 and bare(before) in ARTICLES:
                    before = before_tokens[k - 1]
                break
            root = token
            k -= 1
        # a possessive straight after the copula has no determiner: a name, typed in lower case too
        # ("what is jenzo's editor's birthplace?")
        ends_on_name = looks_like_name(root) or before.lower() in BE
    # a copular question's head noun is its relation when "of" links it to the rest ("What is the
    # birthplace OF ..."), or it ends on the name ("What is Ada Kettle's birthplace?"); a bare noun
    # with "to" is a relation of its own ("Which harbour is home TO the academy that ...")
    own = wh is not None
    kind = _KIND_COPULA.match(query)
    lowered = _lower_contact(query) if lower_case and kind is None and wh is not None else None
    if kind is not None and kind.group(1) is not None:
        links -= 1  # "What part OF the country is ...": the kind's own "of"
    elif _KIND_HEAD.match(query) and _STRANDED_CLAUSE_END.search(query):
        links -= 1  # "What is the part OF the country the ... lies in?": the same "of"
    if kind is not None and _STRANDED_END.search(query):
        pass  # "Which region is the location of X in?": the preposition is the question's own relation
    elif kind is not None and _STRANDED_OF_END.search(query):
        # "Which region is the hometown of X part OF?", "Which band is Ada a member OF?": the noun and
        # its stranded "of" are the question's own relation, whose link that "of" already counts
        own = False
    elif (copula := _COPULA_HEAD.match(unnamed)) is not None:
        head = ends_on_name or _first_link_of(unnamed, copula.end()) or _clause_after(unnamed, copula.end())
        # typed in lower case, the head noun's contact clause is read by its shape (`_lower_contact`)
        head = head or lowered == len(PTOKEN.findall(unnamed[: copula.end()]))
        own = own and not (head and not _copular_relation(unnamed, copula.end()))
    if wh is not None and wh.group(0).lower() != "how":
        contacts = parse(query)[1] or int(lowered is not None)
        links += contacts
        # a stranded "of" after a particle ("the town X works OUT OF") is the contact clause's verb's
        # compound preposition: the clause counts the relation once (unread, as when its subject is
        # a name typed in lower case, the "of" counts it)
        links -= bool(contacts and _PARTICLE_OF_END.search(query))
        # so is a copula's bare noun and its stranded "of" ("the region the location of X is PART OF",
        # "the band Ada is a member of"): the clause's relation, once
        links -= bool(contacts and kind is None and _COPULA_NOUN_OF_END.search(query))
    return max(1, min(links + int(own), _MAX_STEPS))


_BEFORE_WINDOW = 40  # characters: longer than any auxiliary, relative or question word


def _subject_position(text: str, at: int) -> bool:
    """Whether the noun phrase opening at `at` follows an auxiliary, a relative word, "of" or a
    question word (a clause's subject, "Where did THE chef at X train", "where THE chef at X learned",
    "the hometown of THE chef at X"), not a verb whose object it would be."""
    # only the word just before matters: a window, not the whole prefix (a long question's every
    # "the X at" would tokenise all the text before it again: quadratic)
    before = TOKEN.findall(text[max(0, at - _BEFORE_WINDOW) : at])
    return bool(before) and (
        before[-1].lower() in VERB_AUX | RELATIVES | {"of"} or WH.fullmatch(before[-1]) is not None
    )


def _first_link_of(text: str, at: int) -> bool:
    first = _LINKS.search(text, at)
    return first is not None and first.group(0).lower() in OF_LINKS


def _clause_after(text: str, at: int) -> bool:
    """Whether a copular question's head noun (after "is", at `at`) is followed by a relative clause
    (`_HEAD_CLAUSE`), which names its relation."""
    m = _HEAD_CLAUSE.match(text, at)
    return m is not None and (m.start(1) < 0 or opens_clause(text[m.start(1) :]))


def _copular_relation(text: str, at: int) -> bool:
    """Whether a copular question's complement is a bare noun with "to", "Which harbour is home to
    the academy that trained X?", "Who is heir to the founder of X?": that noun and its
    preposition are the question's own relation, a step of their own."""
    return _BARE_TO.match(text, at) is not None


# no chain of relations is longer (a hostile text's hundreds of links plan no hundreds of hops)
_MAX_STEPS = 8

# the prepositions a contact clause's verb strands at the end of a lower-case question ("... the
# city acme trust operates FROM", "... the house ada belongs TO")
_STRANDED_PREPS = frozenset("in from at on to for with under near".split())


def _lower_contact(query: str) -> int | None:
    """Where a copular question typed in lower case ("what is the city acme trust operates from?", a
    request read as one) has a contact relative clause: the index of the determiner of the noun
    heading it, or None. The parser finds a contact clause's subject by its capitals
    (`question_parse`), which a lower-case question has none of; read by shape instead: the question
    ends on a verb and its stranded preposition, and before the verb a determined noun runs straight
    into the clause's subject, either a determined one carrying a link of its own ("the place THE
    person WHO ... trained at", "the town THE alma mater OF ... is in", "the city THE x trust'S owner
    operates from") or two words or more with no function word ("the city ACME TRUST operates from";
    "the flag used for" has none, a participle's phrase; an infinitive's "the place to go TO" ends on
    "to"). A determined subject with no link is a common noun's ("the file THE SERVER reads from":
    one relation, the file's), one word is as often a compound noun ("the port nginx listens on").
    Not when the last relative word before the verb takes its own subject ("the city that the acme
    trust board works from": that clause's preposition). A question longer than the parser reads
    (`MAX_TOKENS`) is not read."""
    if _COPULA_HEAD.match(query) is None:
        return None
    raw = PTOKEN.findall(query)
    if not 6 <= len(raw) <= MAX_TOKENS:
        return None
    tokens = [bare(t) for t in raw]
    if tokens[-1] not in _STRANDED_PREPS:
        return None
    verb = len(tokens) - 2  # the verb group's first word (auxiliaries before a participle too)
    while verb > 0 and tokens[verb - 1] in AUXILIARY:
        verb -= 1
    if function_word(tokens[-2]) and tokens[-2] not in BE:
        return None
    last_rel = max((i for i, t in enumerate(tokens[:verb]) if t in RELATIVES), default=-1)
    if 0 <= last_rel < verb - 1 and tokens[last_rel + 1] in DETS | PRONOUNS:
        return None  # "the city that THE acme trust board works from": the relative's own clause
    for j in range(verb - 2):
        if tokens[j] not in ARTICLES or function_word(tokens[j + 1]):
            continue
        start = j + 2  # the subject's first word, up to the verb
        if tokens[start] in ARTICLES:
            # a common noun's clause ends the search: a later determiner is inside its subject ("the
            # street THE OLD school building is on": no noun "old" heading "school building")
            subject = zip(tokens[start + 1 : verb], raw[start + 1 : verb], strict=True)
            linked = any(t in RELATIVES or t in OF_LINKS or is_possessive(r) for t, r in subject)
            return j if linked else None
        elif verb - start >= 2 and not any(function_word(t) for t in tokens[start:verb]):
            return j
    return None
