"""The grammar of a question for the `kg` ranker: how many relations its chain has, and the words it
names them by (#28). No relation word, template or domain is named here: only function words
(determiners, prepositions, auxiliaries, question words) and the shapes of the clauses they open.
"""

from __future__ import annotations

import functools
import re
from typing import TypeVar

from gateway.knowledge_graph.extract import _STOP
from gateway.knowledge_graph.patterns import CUES, cues
from gateway.knowledge_graph.question_parse import opens_clause, parse, phrases
from gateway.knowledge_graph.question_words import (
    AUXILIARY,
    BE,
    DETERMINER,
    ING_PREPOSITIONS,
    NO_OWNER,
    OF_LINKS,
    PREPS,
    PTOKEN,
    VERB_AUX,
    WH,
    bare,
    function_word,
    is_possessive,
    looks_like_name,
    plain_of,
)

T = TypeVar("T")

# the names ranker.py imports from here (its own module's names before question_parse held them)
_AUXILIARY = AUXILIARY
_name = looks_like_name

TOKEN = re.compile(r"[^\W_][\w\-\.']*[^\W_]|[^\W_]")  # a word of the question

_LINKS = re.compile(r"\b(?:of|behind|that|who|whom|whose|whoever|which)\b", re.I)
# "of" between two capitalised words is inside a name ("School of Lettering", "Bank of England"), as
# the names of the text are found (`extract._CONNECTORS`): no link between two relations; but an
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
_KIND_COPULA = re.compile(
    r"^\W*(?:which|what)\s+(?:(?:kind|kinds|type|types|sort|sorts|part|parts|form|forms|variety|varieties"
    r"|category|categories|class|classes|style|styles|genre|genres)\s+(of)\s+(?:the\s+)?[a-z]\w*"
    r"|(?!(?:is|are|was|were)\b)[a-z]\w*(?:\s+of\s+(?:the\s+)?[a-z]\w*)?)\s+(?:is|are|was|were)\s",
    re.I,
)
_PARTICLE_OF_END = re.compile(r"\s(?:out|off)\s+of\s*\??\s*$", re.I)
_STRANDED_END = re.compile(r"\s(?:in|from|at|on|to|for|with|under|by|near)\s*\?\s*$", re.I)
# a copula's complement that is a bare noun with "to": "Which harbour is home to ..."
_BARE_TO = re.compile(rf"\s+(?!{DETERMINER}\b)[a-z]\w*\s+to\b", re.I)
# a possessive naming a relation of what it follows: "X's founder", "the Skiers' captain" (not "it's")
_POSSESSIVE = re.compile(r"\b(\w+)(?:['\u2019]s|s['\u2019])\s+(?=[a-z])")
# a question ending on a name's possession ("What is Ada Kettle's birthplace?"): the possessed noun
# is the copular question's head, as in "What is the birthplace of Ada Kettle?"
_POSSESSED_END = re.compile(r"\b(\w+)(?:['\u2019]s|s['\u2019])\s+\w+(?:\s+\w+)?\W*$")
# a chain of three hops names a handful of relations: more words are no question (and each is embedded)
MAX_RELATION_WORDS = 12
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
# a request for a definite thing is a question: "Name the town where X was born.", "Tell me the
# founder of Y.", "I need the place that housed Z.", "Give X's founder's birthplace." ask what
# "What is the town where X was born?" asks. The request's verb opens the text (capitalised, not a
# name's word: a lower-case word follows it), or a first person asks ("I need", "I want"); an
# object pronoun may follow ("Tell me"); its object is definite ("the", or a name's possessive). An
# indefinite object asks for an action, not a thing ("Create an archive of files", "Send a message
# to a bus": manual pages' NAME lines), and text opening on a lower-case word is no request
_REQUEST = re.compile(
    r"^\W*(?:[A-Z][a-z]+|I\s+[a-z]+)(?:\s+(?:me|us))?\s+"
    r"(?=the\s+\w|(?:[A-Z0-9][\w\-\.]*\s+){0,4}[A-Z0-9][\w\-\.]*['\u2019]s\s+[a-z])"
)
# a copular question's head noun followed by a relative clause: the clause names the head's relation
# ("What is the town WHERE X stood?", "What is the place THAT housed Y?", and a contact clause,
# "What is the town X was born in?", "What is the person THE board put in charge"): no relation of
# its own, as with "of" ("What is the birthplace OF X?"). A name after the noun (group 1) opens a
# contact clause when the parser reads it so (`question_parse.opens_clause`): not a possessive
# apposition owning the next noun ("What is the river Ord's source?"), but a possessive whose noun
# phrase a verb group follows ("What is the company Ada Vell's brother works for?")
_HEAD_CLAUSE = re.compile(
    r"\s+(?:the|a|an)\s+(?:[a-z]\w*\s+)?[a-z]\w*\s+(?:"
    r"(?:that|who|whom|which|where)\b|(?:the|a|an|its|their|his|her)\s|([A-Z0-9]))"
)


# closed classes that open no request: function words (determiners, prepositions, subordinators,
# pronouns), auxiliaries and modals ("Does the gateway cache ...", "After the fall of ...", "If the
# founder of ...")
_NOT_A_REQUEST = (
    (_STOP - {"i"})
    | VERB_AUX
    | PREPS
    | ING_PREPOSITIONS
    | frozenset("unless whether whereas lest whenever wherever".split())
)


# a request's lead in the first person or as a search's gerund, in either case: "I'd like to know
# the ...", "I want to know ...", "(I'm) looking for the ...", and a lower-case imperative addressed
# to the reader ("show me the ...", "tell us ..."; a manual page's NAME line addresses nobody)
_REQUEST_LEAD = re.compile(
    r"^\W*(?:i(?:['\u2019]d|\s+would)\s+like\s+to\s+know|i\s+want\s+to\s+know"
    r"|(?:i['\u2019]m\s+|i\s+am\s+)?(?:looking|searching)\s+for|(?:tell|show|give|find|name|list|get)\s+(?:me|us))\s+",
    re.I,
)
# a definite noun phrase standing alone as the query, in either case, with or without "?": "The
# town the founder of X was born in", "the alma mater of the producer who set up Y?", "X's
# editor's birthplace" (a search box's phrasing of "What is ...?"): it opens on "the" and a
# lower-case word, or on a name's possessive owning a lower-case noun
_BARE_NP = re.compile(r"^\W*(?:the\s+[a-z0-9]|(?:[A-Z0-9][\w\-\.]*\s+){0,4}[\w\-\.]+['\u2019]s\s+[a-z])", re.I)


# a phrase alone has no clause punctuation, nor a question word after a comma ("The composer of X:
# which town?", "The founder of X, who was she?")
_CLAUSE_MARK = re.compile(r"[:;]|,\s*(?:what|which|who|whom|whose|where|when|how)\b", re.I)
# (not the perfect's "has": "What's been done", "Who's got the key", "who's taken it")
_WH_IS = re.compile(
    r"^(\W*(?:what|who|which|where|when|how))['\u2019]s\b(?!\s+(?:been|got|gotten|had|[a-z]+ed|taken|given|written"
    r"|chosen|done|gone|seen|known|driven|eaten|fallen|spoken|stolen|broken|forgotten|hidden|made|won|left|lost)\b)",
    re.I,
)


@functools.lru_cache(maxsize=256)
def as_question(query: str) -> str:
    """A request for a definite thing as the question it asks (`_REQUEST`): "Name the town where X
    was born." -> "What is the town where X was born?"; any other text as it is. Every count of the
    question's relations reads it so: a request's own relation is its object's, as a question's
    is, and its possessives, reduced and contact relative clauses link relations as a question's do
    (read as text with no question word, "Tell me the area the place X was in belongs to" counted
    one relation of two)."""
    if WH.match(query.lstrip()):
        # a question already; a question word's "'s" is "is" ("What's the town ...", "who's the
        # person who ..."), which every count reads as the copula it is
        return _WH_IS.sub(lambda m: m.group(1) + " is", query, count=1)
    if (lead := _REQUEST_LEAD.match(query)) is not None and _BARE_NP.match(query[lead.end() :]):
        if TOKEN.findall(lead.group(0))[0].lower() not in _NOT_A_REQUEST - {"i"}:
            return _np_question(query[lead.end() :])
    if _BARE_NP.match(query) is not None and _noun_phrase(query):
        return _np_question(query)
    if query.rstrip().endswith("?"):
        return query  # one put without its question word ("Does X ...?")
    m = _REQUEST.match(query)
    if m is None:
        return query
    opener = TOKEN.findall(m.group(0))
    # a closed-class word opens no request ("After the fall of Rome, ...", "If the founder ...")
    if opener[0].lower() in _NOT_A_REQUEST or (opener[0] == "I" and _content_clause(query[m.end() :])):
        return query
    return _np_question(query[m.end() :])


def _np_question(np: str) -> str:
    """ "What is <np>?", the phrase's capitalised opening article lowered ("The town ..." -> "What is
    the town ...?"), a title's kept ("The Last of X's editor")."""
    np = np.strip().rstrip("?.!").rstrip()
    if re.match(r"The\s+[a-z0-9]", np):
        np = "t" + np[1:]
    return "What is " + np + "?"


def _noun_phrase(text: str) -> bool:
    """Whether a text opening on a definite noun phrase (`_BARE_NP`) is a chain's noun phrase alone,
    not a statement, a headline or a plain phrase: no clause punctuation (`_CLAUSE_MARK`); its head
    (after "the", or a name's possessive) runs straight into a link (`_head_links`: "The kernel
    panics when ...", "the timeout setting", "John's car broke down" are no chain); read as the
    it holds two links at least (`_links`: a one-relation phrase reads the same as it is, "the troff
    processor of the groff ... system", "The user's guide"); after "the", it does not run into an
    auxiliary ("The founder of Acme was born in Leeds", `_content_clause`); before a possessive, no
    function word ("Under whom did X's ...", "I need X's ...") and a name's words only."""
    tokens = PTOKEN.findall(text)
    if not tokens or _CLAUSE_MARK.search(text):
        return False  # "The composer of X: which town?" asks its own question after the phrase
    if tokens[0].lower() == "the":
        return _head_links(tokens, 1) and not _content_clause(text) and _links(tokens, text) >= 2
    owner = next((i for i, t in enumerate(tokens) if is_possessive(t)), None)
    if owner is None:
        return False  # "-'s x": no word owns anything
    if any(function_word(bare(t)) or bare(t) in NO_OWNER for t in tokens[: owner + 1]):
        return False  # "Under whom did X's ...", "I need X's ...", "override a package's ..."
    # a name's words are capitalised; typed in lower case, a name of one word opens the text ("jenzo's
    # editor"): more lower-case words before a possessive are a verb and its object ("override
    # package's version")
    if not (owner == 0 or all(looks_like_name(t) for t in tokens[: owner + 1])):
        return False
    return _head_links(tokens, owner + 1) and _links(tokens, text) >= 2


def _links(tokens: list[str], text: str) -> int:
    """A noun phrase's links: "of", relative words and possessives, and its contact clauses, as a
    determiner after a content word opens one ("the town THE founder ... was born in"; not "of THE
    company") or as the parser reads them ("the school director N attended"), whichever is more."""
    words = [t.lower() for t in tokens]
    links = sum((t in _NP_LINKS and t not in _DETERMINERS) or is_possessive(t) for t in words)
    opened = sum(
        t in _DETERMINERS and not function_word(bare(words[i - 1])) and words[i - 1] not in _STOP
        for i, t in enumerate(words)
        if i
    )
    return links + max(opened, parse(_np_question(text))[1])


# a chain's links inside a noun phrase: "of", a relative word, a determiner opening a contact
# clause's subject ("the town THE founder ... was born in"), a possessive
_NP_LINKS = frozenset("of who whom whose that which where the a an".split())
_DETERMINERS = frozenset("the a an".split())
_MAX_HEAD = 3  # a head noun's words before its first link ("the alma mater of", "the home town the")


def _head_links(tokens: list[str], at: int) -> bool:
    """Whether the words from `at` are a head noun running into a link (`_NP_LINKS`, a possessive)
    within `_MAX_HEAD` words, with no closed-class word before it (a statement's verb's object or
    adverb: "when", "on", "I"); "The user's guide", "the timeout setting" have no link after it."""
    for head, t in enumerate(tokens[at:]):
        if t.lower() in _NP_LINKS or is_possessive(t):
            return head > 0 or at > 1 or is_possessive(t)
        if head >= _MAX_HEAD or function_word(bare(t.lower())) or t.lower() in _STOP:
            return False
    return False


def _content_clause(rest: str) -> bool:
    """Whether the object after "I <verb>" is a content clause's subject, not a thing asked for: its
    noun phrase (nouns and their "of" phrases) runs straight into an auxiliary or a modal ("I think
    the founder of Acme WAS born in Leeds"), where a request's object ends the text or takes a
    relative clause with its own subject ("I need the town Ada Vell was born in", "... who ...")."""
    tokens = [t.lower() for t in PTOKEN.findall(rest)]
    i = 1  # past "the"
    while i < len(tokens):
        if tokens[i] == "of":
            i += 2 if i + 1 < len(tokens) and tokens[i + 1] == "the" else 1
        elif tokens[i] in VERB_AUX:
            return True
        elif tokens[i] in _STOP or tokens[i].endswith(("'s", "\u2019s")):
            return False  # a relative word, a new subject's determiner, a possessive: a clause of its own
        i += 1
    return False


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
        # a "how" question asks for a manner: its "where" clauses are conditions of the action ("How do
        # I set the timeout where the proxy is behind Nginx?"), no entity's relation
        if wh.group(0).lower() != "how":
            links += sum(m.group(1).lower() not in AUXILIARY | _STOP for m in _RELATIVE_WHERE.finditer(query, wh.end()))
    ends_on_name = bool(words) and looks_like_name(words[-1])
    if not ends_on_name and (possessed := _POSSESSED_END.search(query)) is not None:
        # a chain of possessives ends on the name it starts from: "What is Acme's founder's birthplace?"
        root, before = possessed.group(1), ""
        for token in reversed(TOKEN.findall(query[: possessed.start()])):
            if not is_possessive(token):
                before = token
                break
            root = token
        # a possessive straight after the copula has no determiner: a name, typed in lower case too
        # ("what is jenzo's editor's birthplace?")
        ends_on_name = looks_like_name(root) or before.lower() in BE
    # a copular question's head noun is its relation when "of" links it to the rest ("What is the
    # birthplace OF ..."), or it ends on the name ("What is Ada Kettle's birthplace?"); a bare noun
    # with "to" is a relation of its own ("Which harbour is home TO the academy that ...")
    own = wh is not None
    kind = _KIND_COPULA.match(query)
    if kind is not None and kind.group(1) is not None:
        links -= 1  # "What part OF the country is ...": the kind's own "of"
    if kind is not None and _STRANDED_END.search(query):
        pass  # "Which region is the location of X in?": the preposition is the question's own relation
    elif (copula := _COPULA_HEAD.match(unnamed)) is not None:
        head = ends_on_name or _first_link_of(unnamed, copula.end()) or _clause_after(unnamed, copula.end())
        own = own and not (head and not _copular_relation(unnamed, copula.end()))
    if wh is not None and wh.group(0).lower() != "how":
        contacts = parse(query)[1]
        links += contacts
        # a stranded "of" after a particle ("the town X works OUT OF") is the contact clause's verb's
        # compound preposition: the clause counts the relation once (unread, as when its subject is
        # a name typed in lower case, the "of" counts it)
        links -= bool(contacts and _PARTICLE_OF_END.search(query))
    return max(1, links + int(own))


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


# nouns that name a kind of thing, not a relation: the answer's after "which"/"what" ("In which town
# ...", "What river ...") or after an opening imperative ("Name the island ..."), and the head of a
# relative clause ("the physician who established X", "the vault where X is stored")
# (not a relation noun of what follows, "Which mentor of X ...", nor after an opening auxiliary,
# "Was the mentor of X ...", nor a verb before "where"/"who", "check where": a determined noun only)
_KIND_NOUNS = re.compile(
    r"\b(?i:which|what)\s+([a-z]\w*)\b(?!\s+of\b)"
    r"|^\W*(?!(?i:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|may|might|must)\b)"
    r"[A-Z]\w*\s+(?:the|a|an)\s+([a-z]\w*)"
    rf"|\b(?i:{DETERMINER})\s+(?:[a-z]\w*\s+)?(?!(?:by|to|for|with|from|under)\b)([a-z]\w*)\s+"
    r"(?:(?:by|to|for|with|from|under)\s+whom|who|whom|that|which|where)\b"
)


def kind_nouns(query: str) -> set[str]:
    """The question's words that name the kind of an entity on its chain rather than a relation
    (see `_KIND_NOUNS`): "town" and "physician" in "In which town did the physician who
    established X grow up?", whose relations are "established" and "grow"."""
    out = set()
    for m in _KIND_NOUNS.finditer(query):
        word = next(g for g in m.groups() if g is not None).lower()
        if word not in _STOP and word not in AUXILIARY and not WH.fullmatch(word):
            out.add(word)
    return out


def cue_words(query: str) -> set[str]:
    """The question's words inside a phrase that asks for a pattern type ("grew" of "grew up",
    `patterns.CUES`): that type names their relation, they name none beyond it."""
    out: set[str] = set()
    for regex in CUES.values():
        for m in regex.finditer(query):
            out.update(t.lower() for t in TOKEN.findall(m.group(0)))
    return out


def relation_words(query: str) -> list[str]:
    """The words a question names its relations by ("Where was the mentor of the Kvostbird
    Infirmary's founder raised?" -> mentor, founder, raised): its lower-case words that are no
    function word, auxiliary, question word or link, and not its opening word (an imperative,
    "Name the ..."; a request's opening words, "I need the ...", `as_question`). Names are entities,
    not relations."""
    tokens = TOKEN.findall(as_question(query))
    out: list[str] = []
    for i, t in enumerate(tokens):
        w = t.lower().removesuffix("'s").removesuffix("\u2019s").strip("'\u2019")
        if i == 0 or looks_like_name(t) or len(w) < 3 or w in _STOP or w in AUXILIARY or WH.fullmatch(w):
            continue
        out.append(w)
    return list(dict.fromkeys(out))[:MAX_RELATION_WORDS]


def _acronym(token: str) -> bool:
    return (len(token) >= 2 and token.isupper()) or any(ch.isdigit() for ch in token)


def hop_words(query: str) -> list[list[str]]:
    """The question's relation words (`relation_words`) grouped by hop of its chain, in the order a
    walk takes them: the relation of the entity the question names first, the one whose target is
    the answer last ("In which province is the town where the founder of Acme Yard was born?" ->
    [founder], [town], [province]: the founding is read inside the clause whose verb, "born",
    closes it; a clause's head noun, "town", names its target's kind). The nesting is read by
    `question_parse`. One group per step (`steps`: when the two reads differ, the outer groups are
    merged or empty ones added), so always as many groups as `steps` counts (one empty group for
    text with no word); a group may be empty when its relation is named only by words
    `relation_words` leaves out ("born", "founded": `extract._STOP`)."""
    allowed = set(relation_words(query))
    return [[w for w in group if w in allowed] for group in hop_groups(query)]


def hop_groups(query: str) -> list[list[str]]:
    """The nesting read's (`question_parse`) content words as `steps` groups, innermost first (the
    outer clauses merged when the read finds more relations than `steps` counts, empty groups added
    when fewer): what `hop_words` filters to relation words, and what the hop plan places the asked
    types' cues in (`hops.hop_plan`)."""
    query = as_question(query)
    return [list(dict.fromkeys(w for g in step for w in g)) for step in _per_step(parse(query)[0], steps(query))]


def hop_cues(query: str) -> list[set[str]]:
    """The pattern types (`patterns.CUES`) each hop of `hop_words` asks for, from its own words with
    the particles and prepositions after them ("Where was the founder of Acme born?" ->
    {founded_by}, {born_in}): the words `relation_words` leaves out ("born", "set up") name their
    hop's type here. One set per step, aligned with `hop_words`."""
    query = as_question(query)
    groups = [cues(text) for text in phrases(query)]
    return [set().union(*step) for step in _per_step(groups, steps(query))]


def _per_step(groups: list[T], n: int) -> list[list[T]]:
    """The read's groups as `n` steps: when the nesting read finds more relations than `steps`
    counts, the outer ones are one step; when fewer, the missing outer steps have none."""
    out = [[g] for g in groups[: n - 1]] + ([groups[n - 1 :]] if len(groups) >= n else [])
    while len(out) < n:
        out.append([])
    return out
