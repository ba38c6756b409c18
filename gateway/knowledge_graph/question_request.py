"""A request or a bare noun phrase read as the question it asks (#28): "Name the town where X was
born.", "I'd like to know the founder of Y", "The town the founder of X was born in" are read as "What
is the town ...?" before any count of the question's relations (`question_steps.steps`,
`question.relation_words`, the hop reads), so a request's possessives and relative clauses link
relations as a question's do. Split out of `question.py` to keep it under ~400 lines. Function words
and clause shapes only: no relation word, template or domain is named here."""

from __future__ import annotations

import functools
import re

from gateway.knowledge_graph.extract import _STOP
from gateway.knowledge_graph.question_parse import parse
from gateway.knowledge_graph.question_words import (
    ARTICLES,
    DETS,
    ING_PREPOSITIONS,
    NO_OWNER,
    PREPS,
    PTOKEN,
    TITLE_CONNECTORS,
    TOKEN,
    VERB_AUX,
    WH,
    bare,
    function_word,
    is_possessive,
    looks_like_name,
)

# a request for a definite thing is a question: "Name the town where X was born.", "Tell me the
# founder of Y.", "I need the place that housed Z.", "Give X's founder's birthplace." ask what
# "What is the town where X was born?" asks. The request's verb opens the text (capitalised, not a
# name's word: a lower-case word follows it), or a first person asks ("I need", "I want"); an
# object pronoun may follow ("Tell me"); its object is definite ("the", or a name's possessive). An
# indefinite object asks for an action, not a thing ("Create an archive of files", "Send a message
# to a bus": manual pages' NAME lines), and text opening on a lower-case word is no request
_REQUEST = re.compile(
    r"^\W*(?:[A-Z][a-z]+|I\s+[a-z]+)(?:\s+(?:me|us))?\s+"
    r"(?=the\s+\w|(?:[a-z]+\s+(?=[A-Z][\w\-\.]*\s+[A-Z]))?(?:[A-Z0-9][\w\-\.]*\s+){0,4}[A-Z0-9][\w\-\.]*['\u2019]s\s+[a-z])"
)  # (a kind's noun before a name of two words or more: "I need chef Ada Vell's teacher's school")
# after a first person's request lead (`_REQUEST_LEAD`'s: "I'd like to know", "I want to know", "I'm
# looking for"), a title's lower-case connector may join the possessed name's words: "I want to know
# Notes from Ely's editor" (after another verb, "I sent Ada to Bo's office", "I asked Bo for Ada's
# number", or an imperative, "Check Paris for Ada's files", the connector is the verb's preposition)
_I_REQUEST_TITLE = re.compile(
    r"^\W*(?:I(?:['\u2019]d|\s+would)\s+like\s+to\s+know|I\s+want\s+to\s+know|I(?:['\u2019]m|\s+am)\s+(?:looking|searching)\s+for)\s+"
    r"(?=(?:[A-Z0-9][\w\-\.]*\s+(?:(?:of|on|at|for|from|and|in|to|with|by|the|a|an)\s+(?=[A-Z0-9]))?){1,4}"
    r"[A-Z0-9][\w\-\.]*['\u2019]s\s+[a-z])"
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
# to the reader ("show me the ...", "tell us ..."; a manual page's NAME line addresses nobody), a
# first person's need ("i need the ...", "i want the ...") or a search's "find the ..." typed in
# lower case (capitalised, "I need X's ..." is `_REQUEST`'s, read with its own checks)
_REQUEST_LEAD = re.compile(
    r"^\W*(?:i(?:['\u2019]d|\s+would)\s+like\s+to\s+know|i\s+want\s+to\s+know"
    r"|(?:i['\u2019]m\s+|i\s+am\s+)?(?:looking|searching)\s+for|(?:tell|show|give|find|name|list|get)\s+(?:me|us)"
    r"|(?-i:i\s+(?:need|want)|find))\s+",
    re.I,
)
# an imperative phrasal verb of finding before a noun phrase ("look up the ...", "dig out the ...",
# "Track down X's ..."), bare or asked politely ("please look up ...", "can you look up ..."): a
# request to find the thing the phrase names, as `_REQUEST_LEAD`'s verbs with no particle are. A
# closed class of English (a finding verb with its particle: look up, dig out, track down, hunt up,
# seek out, find out, work out, pull up, ...): any verb with a particle read action commands as
# chains ("back up the database of the user's account" is no question). Read as one only when the
# phrase after it is a chain's noun phrase alone (`_noun_phrase`: it runs into a link and holds two,
# "the hometown of X's founder"; a possessive determiner owns no name's chain, "look up my mom's
# friend's number")
_PHRASAL_REQUEST = re.compile(
    r"^\W*(?:please\s+|(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
    r"(?:look\s+up|dig\s+(?:up|out)|track\s+down|hunt\s+(?:up|out|down)|(?:seek|search|find|figure|work"
    r"|fish|ferret)\s+out|pull\s+up)\s+(?=\w)",
    re.I,
)


# a request asked as a question of ability or knowledge ("Could you tell me the ...", "can you
# please show us ...", "do you know the ..."): a closed class of polite leads (a modal and "you"
# before `_REQUEST_LEAD`'s addressed verbs; "do you know" before a definite noun phrase), asking
# what the bare request or noun phrase asks. "do you know" is read only before a chain's noun
# phrase alone (`_noun_phrase`: "Do you know the founder of Acme was born in Leeds?" is a content
# clause, "do you know the way" a plain phrase)
_POLITE_LEAD = re.compile(
    r"^\W*(?:(?P<modal>(?:can|could|would|will)\s+you\s+(?:please\s+)?)(?=(?:tell|show|give|find|name|list|get)\s+(?:me|us)\s)"
    r"|(?P<know>do\s+you\s+know\s+))",
    re.I,
)
# a request's closing "please" ("..., please.", "... please?"), said to the reader: no word of the
# phrase asked for (read with it, a contact clause's stranded preposition no longer ends the text).
# Lower case only: a capitalised "Please" closing the text is a title's word ("the producer of the
# album Please", "the singer of Please Please Please")
_PLEASE_END = re.compile(r"(?:,\s*|\s)please\W*$")


# a definite noun phrase standing alone as the query, in either case, with or without "?": "The
# town the founder of X was born in", "the alma mater of the producer who set up Y?", "X's
# editor's birthplace" (a search box's phrasing of "What is ...?"): it opens on "the" and a
# lower-case word, or on a name's possessive owning a lower-case noun (a capitalised plural's too,
# "Brask Works'": in lower case a plural's apostrophe closes a quotation as often)
_BARE_NP = re.compile(
    r"^\W*(?:the\s+[a-z0-9]|(?:[A-Z0-9][\w\-\.]*\s+){0,4}(?:[\w\-\.]+['\u2019]s|(?-i:[A-Z0-9][\w\-\.]*s['\u2019]))\s+[a-z])",
    re.I,
)


# a phrase alone has no clause punctuation, nor a question word after a comma ("The composer of X:
# which town?", "The founder of X, who was she?")
_CLAUSE_MARK = re.compile(r"[:;]|,\s*(?:what|which|who|whom|whose|where|when|how)\b", re.I)
# (not the perfect's "has": "What's been done", "Who's got the key", "who's taken it")
_WH_IS = re.compile(
    r"^(\W*(?:what|who|which|where|when|how))['\u2019]s\b(?!\s+(?:been|got|gotten|had|[a-z]+ed|taken|given|written"
    r"|chosen|done|gone|seen|known|driven|eaten|fallen|spoken|stolen|broken|forgotten|hidden|made|won|left|lost)\b)",
    re.I,
)
# a bracketed qualifier between a name and its possessive ("Notes from Tarn (2005)'s author", "Acme
# (UK)'s founder": a year, an edition, a country telling namesakes apart) qualifies the name; the
# possessive is the name's, as in "Notes from Tarn's author". Only a short bracket after a word and a
# space, straight before "'s" ("f(x)'s value" keeps its brackets, as does any other bracket)
_WHOEVER = re.compile(r"\s*([Ww]ho)ever\b(?=\s+[a-z])")
_QUALIFIED_POSSESSIVE = re.compile(r"(?<=\w)\s+\([^()\n]{1,24}\)(?=['\u2019]s\b)")


# an indirect question ending on its copula: a short lead of one to four words (no question word),
# then "what"/"who"/"which" and a determined noun phrase, then the bare copula, in any case ("any
# idea what the employer of X is?", "Do you know who the founder of Y was?", "I wonder what the
# employer of X is.")
_INDIRECT_COPULA = re.compile(
    r"^\W*(?:(?!(?:what|who|which|where|when|how|whose|whom)\b)[a-z]+\s+){1,4}?(what|who|which)\s+"
    r"((?:the|a|an)\s+[^?.!]+?)\s+(is|are|was|were)\s*[?.]?\s*$",
    re.I,
)


@functools.lru_cache(maxsize=256)
def as_question(query: str) -> str:
    """A request for a definite thing as the question it asks (`_REQUEST`): "Name the town where X
    was born." -> "What is the town where X was born?"; any other text as it is. Every count of the
    question's relations reads it so: a request's own relation is its object's, as a question's
    is, and its possessives, reduced and contact relative clauses link relations as a question's do
    (read as text with no question word, "Tell me the area the place X was in belongs to" counted
    one relation of two). A bracketed qualifier before a possessive is dropped
    (`_QUALIFIED_POSSESSIVE`)."""
    query = _QUALIFIED_POSSESSIVE.sub("", query)
    if (fused := _WHOEVER.match(query)) is not None and query.rstrip().endswith("?"):
        # "Whoever set up the club X played for?" asks "Who set up ...?": the fused relative opens
        # the question as its question word would (and a contact clause inside it counts, as in one)
        query = fused.group(1) + query[fused.end() :]
    if (indirect := _INDIRECT_COPULA.match(query)) is not None:
        # an indirect question ending on its copula, "any idea what the employer of X is?", "do you
        # know who the founder of Y was?": the direct question it embeds, "What is the employer of
        # X?" (read as it stands, its lead's words were a relation and its copula one more)
        word = indirect.group(1).lower()
        # the direct question in the case the question was typed in ("Do you know who ..." -> "Who ...")
        word = word.capitalize() if query.lstrip()[:1].isupper() else word
        query = f"{word} {indirect.group(3).lower()} {indirect.group(2)}?"
    if (polite := _POLITE_LEAD.match(query)) is not None:
        rest = query[polite.end() :]
        if polite.group("modal") is not None:
            asked = as_question(rest)  # "Could you tell me the ..." asks what "tell me the ..." does
            if asked != rest:
                return asked
        elif _BARE_NP.match(rest) and _noun_phrase(rest):
            return _np_question(rest)
    if WH.match(query.lstrip()):
        # a question already; a question word's "'s" is "is" ("What's the town ...", "who's the
        # person who ..."), which every count reads as the copula it is
        return _WH_IS.sub(lambda m: m.group(1) + " is", query, count=1)
    if (lead := _REQUEST_LEAD.match(query) or _PHRASAL_REQUEST.match(query)) is not None and (
        who := _whoever_question(query[lead.end() :])
    ) is not None:
        return who  # "look up whoever set up the label X worked for": "Who set up the label ...?"
    if (lead := _REQUEST_LEAD.match(query)) is not None and _BARE_NP.match(query[lead.end() :]):
        # a possessive determiner's owner is the speaker's or one named elsewhere ("i need my mom's
        # friend's number"): no chain from a name
        opener = TOKEN.findall(query[lead.end() :])[0].lower()
        if TOKEN.findall(lead.group(0))[0].lower() not in _NOT_A_REQUEST - {"i"} and opener not in DETS - ARTICLES:
            return _np_question(query[lead.end() :])
    if _BARE_NP.match(query) is not None and _noun_phrase(query):
        return _np_question(query)
    if (verb := _PHRASAL_REQUEST.match(query)) is not None:
        rest = query[verb.end() :]
        if _BARE_NP.match(rest) and _noun_phrase(rest):
            return _np_question(rest)
    if query.rstrip().endswith("?"):
        return query  # one put without its question word ("Does X ...?")
    m = _REQUEST.match(query) or _I_REQUEST_TITLE.match(query)
    if m is None:
        return query
    opener = TOKEN.findall(m.group(0))
    # a closed-class word opens no request ("After the fall of Rome, ...", "If the founder ...")
    if opener[0].lower() in _NOT_A_REQUEST or (opener[0] == "I" and _content_clause(query[m.end() :])):
        return query
    return _np_question(query[m.end() :])


# a request's object that is a fused relative, "whoever" and its clause's verb ("tell me whoever
# edited X", "look up whoever first mapped the summit X serves"): the person the clause names
_WHOEVER_OBJECT = re.compile(r"\s*whoever\s+(?=[a-z])", re.I)


def _whoever_question(rest: str) -> str | None:
    """A request's "whoever" object as the question it asks ("whoever set up the label X worked
    for" -> "Who set up the label X worked for?": the fused relative's clause is the question's, as
    `_WHOEVER` reads a question opening on it), or None."""
    fused = _WHOEVER_OBJECT.match(rest)
    if fused is None:
        return None
    clause = _PLEASE_END.sub("", " " + rest[fused.end() :].strip()).rstrip("?.!").strip()
    return "Who " + clause + "?" if clause else None  # "find whoever please" asks nothing


def _np_question(np: str) -> str:
    """ "What is <np>?", the phrase's capitalised opening article lowered ("The town ..." -> "What is
    the town ...?"), a title's kept ("The Last of X's editor")."""
    np = _PLEASE_END.sub("", np.strip()).rstrip("?.!").rstrip()
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
    # a capitalised "The" before a capitalised word opens a title ("The Old Mill's owner's base?")
    title = tokens[0] == "The" and len(tokens) > 1 and tokens[1][:1].isupper()
    if tokens[0].lower() == "the" and not title:
        return _head_links(tokens, 1) and not _content_clause(text) and _links(tokens, text) >= 2
    owner = next((i for i, t in enumerate(tokens) if is_possessive(t)), None)
    if owner is None:
        return False  # "-'s x": no word owns anything
    if any(function_word(bare(t)) or bare(t) in NO_OWNER for t in tokens[int(title) : owner + 1]):
        return False  # "Under whom did X's ...", "I need X's ...", "override a package's ..."
    # a name's words are capitalised; typed in lower case, a name of one word opens the text ("jenzo's
    # editor"): more lower-case words before a possessive are a verb and its object ("override
    # package's version"), unless the text is a question ending on a chain of possession ("acme
    # press's owner's seat?"): after its last possessive the head noun's few content words alone (a
    # headline's or a command's verb and object follow theirs: "x's y's car was stolen", "delete x's
    # y's data", neither asked)
    chain = text.rstrip().endswith("?") and _chain_end(tokens)
    # a kind's noun before a name of two words or more ("chef Ada Vell's teacher's ...") is the
    # name's title, as "the chef Ada Vell's" would be
    kind = int(owner >= 2 and tokens[0].islower() and all(looks_like_name(t) for t in tokens[1 : owner + 1]))
    if not (owner == 0 or chain or all(looks_like_name(t) for t in tokens[kind : owner + 1])):
        return False
    return _head_links(tokens, owner + 1) and _links(tokens, text) >= 2


def _chain_end(tokens: list[str]) -> bool:
    """Whether one or two content words (no function word or auxiliary) follow a text's last
    possessive, a head noun's: "x's y's seat", "x's y's alma mater", not "x's y's car was stolen",
    "x's y's arrest sparks outrage" (a verb among three), "x's y's been arrested". (A chain's second
    possessive is what `_noun_phrase`'s two links ask for: no word before the first is a link.)"""
    last = max(i for i, t in enumerate(tokens) if is_possessive(t))
    tail = [bare(t) for t in tokens[last + 1 :]]
    return 0 < len(tail) < _MAX_HEAD and not any(map(function_word, tail))


def _links(tokens: list[str], text: str) -> int:
    """A noun phrase's links: "of", relative words and possessives, and its contact clauses, as a
    determiner after a content word opens one ("the town THE founder ... was born in"; not "of THE
    company") or as the parser reads them ("the school director N attended"), whichever is more."""
    words = [t.lower() for t in tokens]
    links = sum((t in _NP_LINKS and t not in ARTICLES) or is_possessive(t) for t in words)
    # a present participle straight after a determined noun, before its object: a reduced relative
    # clause ("the county CONTAINING the place ...", as `question_steps` counts it in a question);
    # not a noun spelt like one ("the timeout setting of X"), nor a preposition ("the war during ...")
    participles = {i for i, t in enumerate(words) if _participle(words, i)}
    links += len(participles)
    opened = sum(
        t in ARTICLES and not function_word(bare(words[i - 1])) and words[i - 1] not in _STOP
        for i, t in enumerate(words)
        if i and i - 1 not in participles
    )  # (a participle's determined object opens no contact clause: "the server handling THE requests")
    return links + max(opened, parse(_np_question(text))[1])


def _participle(words: list[str], i: int) -> bool:
    """Whether the lower-case word at `i` is a present participle after a determined noun ("the
    county containing"), with a determiner opening its object ("the place", "its maker"; the words
    are lower-cased, so a name straight after it is not seen)."""
    t = words[i]
    return (
        1 < i < len(words) - 1
        and t.endswith("ing")
        and len(t) > 5
        and t not in ING_PREPOSITIONS
        and words[i - 2] in ARTICLES
        and words[i + 1] in DETS
    )


# a chain's links inside a noun phrase: "of", a relative word, a determiner opening a contact
# clause's subject ("the town THE founder ... was born in"), a possessive
_NP_LINKS = frozenset("of behind who whom whose whoever that which where the a an".split())
_MAX_HEAD = 3  # a head noun's words before its first link ("the alma mater of", "the home town the")


def _head_links(tokens: list[str], at: int) -> bool:
    """Whether the words from `at` are a head noun running into a link (`_NP_LINKS`, a possessive)
    within `_MAX_HEAD` words, with no closed-class word before it (a statement's verb's object or
    adverb: "when", "on", "I"); "The user's guide", "the timeout setting" have no link after it."""
    for head, t in enumerate(tokens[at:]):
        k = at + head
        if t.lower() in _NP_LINKS or is_possessive(t):
            return head > 0 or at > 1 or is_possessive(t)
        if head >= _MAX_HEAD or (
            (function_word(bare(t.lower())) or t.lower() in _STOP) and not _connects_title(tokens, k)
        ):
            return False
    return False


def _connects_title(tokens: list[str], k: int) -> bool:
    """Whether the lower-case token at `k` joins two capitalised words of one title ("the place Salt
    FOR Ely's editor"): a name's, no closed-class word of the phrase."""
    return (
        0 < k < len(tokens) - 1
        and tokens[k] in TITLE_CONNECTORS
        and tokens[k - 1][:1].isupper()
        and tokens[k + 1][:1].isupper()
    )


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
