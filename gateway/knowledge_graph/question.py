"""The grammar of a question for the `kg` ranker: how many relations its chain has, and the words it
names them by (#28). No relation word, template or domain is named here: only function words
(determiners, prepositions, auxiliaries, question words) and the shapes of the clauses they open.
"""

from __future__ import annotations

import re

from gateway.knowledge_graph.extract import _STOP
from gateway.knowledge_graph.patterns import CUES

_TOKEN = re.compile(r"[^\W_][\w\-\.']*[^\W_]|[^\W_]")

_LINKS = re.compile(r"\b(?:of|behind|that|who|whom|whose|whoever|which)\b", re.I)
_WH = re.compile(r"\b(?:what|who|whom|whose|which|where|when|how)\b", re.I)
# "of" between two capitalised words is inside a name ("School of Lettering", "Bank of England"), as
# the names of the text are found (`extract._CONNECTORS`): no link between two relations; but an
# all-capitals word before a lower-case "of" is an abbreviated title ("the CEO of Acme"), a relation
_NAME_OF = re.compile(r"\b([A-Z][\w\-\.'&]*)\s+of\s+(?=[A-Z0-9])")
# a copular question whose head noun is the relation ("What is the birthplace of ..."), not a passive
# one ("Which establishment was headed by ...", whose verb is its own relation)
_COPULA_HEAD = re.compile(
    r"^\s*(?:what|who|which\s+\w+)(?:\s+(?:is|are|was|were)|['\u2019]s)\b(?!\s+\w+(?:\s+(?:up|out))?\s+by\b)", re.I
)
# a possessive naming a relation of what it follows: "X's founder", "the Skiers' captain" (not "it's")
_POSSESSIVE = re.compile(r"\b(\w+)(?:['\u2019]s|s['\u2019])\s+(?=[a-z])")
_NO_OWNER = frozenset(
    {"it", "that", "what", "who", "there", "here", "he", "she", "let", "where", "how", "when", "why", "which"}
)
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
_ING_PREPOSITIONS = frozenset(
    "during including excluding regarding concerning considering following according pending barring "
    "respecting excepting notwithstanding touching".split()
)
# "whose" as the question's determiner, "Whose property produces X?": the possessor's relation to
# the noun is one, the noun's to X another
_WHOSE_NOUN = re.compile(r"^\W*whose\s+[a-z]", re.I)
# not when the noun is the object of an auxiliary's clause, "Whose research centre did X's adviser
# run?": its possessor is that clause's subject, no relation of its own
_WHOSE_OBJECT = re.compile(r"^\W*whose(?:\s+\w+){1,3}?\s+(?:do|does|did|is|are|was|were|has|have|had)\b", re.I)
# a relative "where" after a noun opens that noun's own clause: "the yard where X was built" is a
# relation of the yard's. Only after a determined noun phrase ("the yard", "its old yard"): not
# after a verb ("check where X writes", "happens where"), an auxiliary or a cleft ("Which town is
# where ..."); nor after "of", whose link already reaches the noun the clause only identifies ("the
# name of the town where X was born")
_DETERMINER = r"(?:the|a|an|this|that|these|those|its|their|his|her|our|your|my|each|every)"
_RELATIVE_WHERE = re.compile(rf"(?<!\bof\s){_DETERMINER}\s+(?:[a-z]\w*\s+)?([a-z]\w*)\s+where\b", re.I)
_AUXILIARY = frozenset(
    "is are was were be been being am get gets got has have had not never also first later once newly".split()
)


def _linked(word: str) -> bool:
    """Whether a capitalised word before "of" and a name heads a relation, not a name: a question
    word ("Which of Acme's founders") or an abbreviated title ("CEO", "CTO": all capitals, more
    than one letter; a name's words before "of" are capitalised only in their first letter)."""
    return bool(_WH.fullmatch(word)) or (len(word) > 1 and word.isupper())


def steps(query: str) -> int:
    """How many relations a question's chain has, from its grammar alone (no relation words): one
    per link between two relations ("the founder OF the company THAT makes X"), and one for the
    question's own relation, unless it is the head noun of a copular question that ends on a name
    ("What is the birthplace OF the person behind X?": the birthplace is that link's relation). Text
    with no question word asks for no relation of its own: its relations are the nouns its links
    join ("hometown of the founder of X": two; "control information of a PostgreSQL database
    cluster", a manual page's NAME line: one)."""
    words = _TOKEN.findall(query)
    wh = _WH.search(query)  # the question word opens the question's own relation: no link
    unnamed = _NAME_OF.sub(lambda m: m.group(0) if _linked(m.group(1)) else m.group(1) + " ", query)
    opens = _WH.search(unnamed)
    links = len(_LINKS.findall(unnamed[opens.end() :] if opens else unnamed))
    if wh is not None:
        # in a question, possessives and reduced relative clauses link two relations too:
        # "the institution headed by X's supervisor" is three relations (the question's own, the
        # heading, the supervision); text with no question word (a manual page's NAME line,
        # "files sorted by size") keeps its count
        links += sum(m.group(1).lower() not in _NO_OWNER for m in _POSSESSIVE.finditer(query))
        links += sum(
            m.group(1).lower() not in _AUXILIARY | _STOP and not _WH.fullmatch(m.group(1)) and m.start() >= wh.start()
            for m in _PARTICIPLE_BY.finditer(query)
        )
        links += sum(
            m.group(1) not in _AUXILIARY | _STOP and m.group(2).lower() not in _ING_PREPOSITIONS
            for m in _PARTICIPLE.finditer(query, wh.end())
        )
        links += bool(_WHOSE_NOUN.match(query)) and not _WHOSE_OBJECT.match(query)
        # a "how" question asks for a manner: its "where" clauses are conditions of the action ("How do
        # I set the timeout where the proxy is behind Nginx?"), no entity's relation
        if wh.group(0).lower() != "how":
            links += sum(
                m.group(1).lower() not in _AUXILIARY | _STOP for m in _RELATIVE_WHERE.finditer(query, wh.end())
            )
    ends_on_name = bool(words) and _name(words[-1])
    if not ends_on_name and (possessed := _POSSESSED_END.search(query)) is not None:
        # a chain of possessives ends on the name it starts from: "What is Acme's founder's birthplace?"
        root = possessed.group(1)
        for token in reversed(_TOKEN.findall(query[: possessed.start()])):
            if not _possessive(token):
                break
            root = token
        ends_on_name = _name(root)
    own = wh is not None and not (_COPULA_HEAD.match(query) and ends_on_name)
    return max(1, links + int(own))


# nouns that name a kind of thing, not a relation: the answer's after "which"/"what" ("In which town
# ...", "What river ...") or after an opening imperative ("Name the island ..."), and the head of a
# relative clause ("the physician who established X", "the vault where X is stored")
# (not a relation noun of what follows, "Which mentor of X ...", nor after an opening auxiliary,
# "Was the mentor of X ...", nor a verb before "where"/"who", "check where": a determined noun only)
_KIND_NOUNS = re.compile(
    r"\b(?i:which|what)\s+([a-z]\w*)\b(?!\s+of\b)"
    r"|^\W*(?!(?i:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|may|might|must)\b)"
    r"[A-Z]\w*\s+(?:the|a|an)\s+([a-z]\w*)"
    rf"|\b(?i:{_DETERMINER})\s+(?:[a-z]\w*\s+)?(?!(?:by|to|for|with|from|under)\b)([a-z]\w*)\s+"
    r"(?:(?:by|to|for|with|from|under)\s+whom|who|whom|that|which|where)\b"
)


def kind_nouns(query: str) -> set[str]:
    """The question's words that name the kind of an entity on its chain rather than a relation
    (see `_KIND_NOUNS`): "town" and "physician" in "In which town did the physician who
    established X grow up?", whose relations are "established" and "grow"."""
    out = set()
    for m in _KIND_NOUNS.finditer(query):
        word = next(g for g in m.groups() if g is not None).lower()
        if word not in _STOP and word not in _AUXILIARY and not _WH.fullmatch(word):
            out.add(word)
    return out


def cue_words(query: str) -> set[str]:
    """The question's words inside a phrase that asks for a pattern type ("grew" of "grew up",
    `patterns.CUES`): that type names their relation, they name none beyond it."""
    out: set[str] = set()
    for regex in CUES.values():
        for m in regex.finditer(query):
            out.update(t.lower() for t in _TOKEN.findall(m.group(0)))
    return out


def relation_words(query: str) -> list[str]:
    """The words a question names its relations by ("Where was the mentor of the Kvostbird
    Infirmary's founder raised?" -> mentor, founder, raised): its lower-case words that are no
    function word, auxiliary, question word or link, and not its opening word (an imperative,
    "Name the ..."). Names are entities, not relations."""
    tokens = _TOKEN.findall(query)
    out: list[str] = []
    for i, t in enumerate(tokens):
        w = t.lower().removesuffix("'s").removesuffix("\u2019s").strip("'\u2019")
        if i == 0 or _name(t) or len(w) < 3 or w in _STOP or w in _AUXILIARY or _WH.fullmatch(w):
            continue
        out.append(w)
    return list(dict.fromkeys(out))[:MAX_RELATION_WORDS]


def _name(token: str) -> bool:
    return token[:1].isupper() or any(ch.isdigit() for ch in token)


def _acronym(token: str) -> bool:
    return (len(token) >= 2 and token.isupper()) or any(ch.isdigit() for ch in token)


# ---- the chain's hops in the walk's order (#28): which relation words name which hop ----
_DETS = frozenset("the a an this these those its their his her our your my each every".split())
_PREPS = frozenset(
    "in at on to for from by with under into onto about after before through near across along upon within "
    "without toward towards against among between beside beneath off over".split()
)
_PARTICLES = frozenset("up out off down over away back".split())
_RELATIVES = frozenset("that who whom whose whoever which where".split())
_OF_LINKS = frozenset({"of", "behind"})
_PRONOUNS = frozenset("he she it they we you i".split())
_VERB_AUX = _AUXILIARY | frozenset("do does did can could will would should may might must".split())
# a verb with its particle and the particle's object before "of" ("drew up the plans of X"): the
# object is the phrasal verb's, one relation with it, no relation noun of its own
_PHRASAL_OBJECT = re.compile(
    rf"\b[a-z]\w*\s+(?:{'|'.join(sorted(_PARTICLES))})\s+{_DETERMINER}\s+(?:[a-z]\w*\s+){{1,2}}$", re.I
)


class _Frame:
    """One relation of the chain while the question is read: its words, and whether it still waits
    for the verb that closes its clause ("where the founder of X was BORN")."""

    __slots__ = ("mark", "optional", "pending", "possessed", "verb", "words")

    def __init__(
        self, words: list[str] | None = None, pending: bool = False, optional: bool = False, possessed: bool = False
    ) -> None:
        self.words: list[str] = words or []
        self.mark = len(self.words)  # where the noun phrase being read began
        self.pending = pending  # the clause has its own subject, its verb comes after it
        self.optional = optional  # a copula's clause ("In which town is X?"): it may end with no verb
        self.verb = False
        self.possessed = possessed  # a possessive's relation: "X's FOUNDER"

    def take_np(self) -> list[str]:
        np, self.words = self.words[self.mark :], self.words[: self.mark]
        self.mark = len(self.words)
        return np

    def waits(self) -> bool:
        return (self.pending or self.optional) and not self.verb


def _is_name(tokens: list[str], i: int) -> bool:
    return i > 0 and _name(tokens[i])


def _bare(token: str) -> str:
    return token.lower().removesuffix("'s").removesuffix("\u2019s").strip("'\u2019")


def _possessive(token: str) -> bool:
    return bool(re.search(r"(?:['\u2019]s|s['\u2019])$", token))


def _function(w: str) -> bool:
    return w in _DETS or w in _PREPS or w in _RELATIVES or w in _OF_LINKS or w in _VERB_AUX or bool(_WH.fullmatch(w))


def _verbs_after(tokens: list[str], start: int) -> int:
    """How many verbs close clauses from `start` on: lower-case words after a name, a verb or an
    auxiliary (not a determiner's or a possessive's noun)."""
    n = 0
    for j in range(start, len(tokens)):
        w = _bare(tokens[j])
        if _is_name(tokens, j) or _function(w) or w in _PARTICLES or w in _PRONOUNS:
            continue
        prev = tokens[j - 1]
        pw = _bare(prev)
        if (_is_name(tokens, j - 1) and not _possessive(prev)) or pw in _VERB_AUX or pw in _PARTICLES or pw in _PREPS:
            n += 1
    return n


def _parse(query: str) -> list[list[str]]:
    """The question's relations as groups of its words, innermost first, from a left-to-right read
    with a stack of open clauses: "of" opens the relation of the noun before it ("the founder OF
    X"), a relative word or a contact clause opens the relation of its verb, a possessive the
    relation of the noun after it; a verb after the named entity closes the innermost clause that
    waits for one. A clause is emitted when it closes, so the innermost comes first."""
    tokens = _TOKEN.findall(query)
    wh = next((i for i, t in enumerate(tokens) if _WH.fullmatch(t)), None)
    start = 0 if wh is None else wh + 1
    stack = [_Frame()]
    out: list[list[str]] = []
    # the class of the token before: open (the question word), whnoun, det, noun, name, poss, verb,
    # aux, prep, rel; `verbal`: a content word now is a verb (after a name, a verb, or the noun a
    # possessive names), with auxiliaries and stranded prepositions between ("was born", "retired to")
    prev, verbal = "open" if wh is not None else "det", False
    for i in range(start, len(tokens)):
        tok, w = tokens[i], _bare(tokens[i])
        cur = stack[-1]
        if _is_name(tokens, i):
            if prev == "noun" and _contact(tokens, i, stack):
                stack.append(_Frame(cur.take_np(), pending=True))
            if _possessive(tok):  # "X's founder": the noun after it is X's relation
                _possess(stack, out)
                prev, verbal = "poss", False
            else:
                prev, verbal = "name", True
            continue
        if w in _OF_LINKS:
            if not _PHRASAL_OBJECT.search(" ".join(tokens[max(0, i - 5) : i]) + " "):
                stack.append(_Frame(cur.take_np()))
            prev, verbal = "rel", False
            continue
        if w in _RELATIVES and prev in ("noun", "prep", "name"):
            head = cur.take_np() if prev == "noun" else []
            nxt = _bare(tokens[i + 1]) if i + 1 < len(tokens) else ""
            subject = nxt in _DETS or nxt in _PRONOUNS or (i + 1 < len(tokens) and _is_name(tokens, i + 1))
            stack.append(_Frame(head, pending=subject or w == "where"))
            prev, verbal = "rel", False
            continue
        if w in _DETS:
            if prev == "noun" and _contact(tokens, i, stack):
                stack.append(_Frame(cur.take_np(), pending=True))
            stack[-1].mark = len(stack[-1].words)
            prev, verbal = "det", False
            continue
        if w in _VERB_AUX:
            if prev in ("open", "whnoun"):  # "Where WAS the founder ... born", "Which town IS ..."
                nxt = _bare(tokens[i + 1]) if i + 1 < len(tokens) else ""
                if nxt in _DETS or nxt in _PRONOUNS or (i + 1 < len(tokens) and _is_name(tokens, i + 1)):
                    stack[0].pending = w not in ("is", "are", "was", "were")
                    stack[0].optional = True
            cur.mark = len(cur.words)
            prev = "aux"
            continue
        if _function(w) or w in _PARTICLES or w in _PRONOUNS:
            cur.mark = len(cur.words)
            prev = "prep"
            continue
        if verbal:  # a verb after its clause's subject
            _close_with_verb(stack, out, w)
            prev = "verb"
            continue
        if prev in ("open", "whnoun") or (prev == "rel" and not cur.pending):
            # the question's own verb ("Who FOUNDED X", "Which yard BUILT X"), a subject relative's
            # ("the company that MAKES X"); after "which"/"what", the first word is the kind noun
            if prev == "open" and tokens[start - 1].lower() in ("which", "what"):
                cur.words.append(w)
                prev = "whnoun"
                continue
            cur.words.append(w)
            cur.verb = True
            cur.mark = len(cur.words)
            prev, verbal = "verb", True
            continue
        cur.words.append(w)
        if _possessive(tok) and w not in _NO_OWNER:
            _possess(stack, out)
            prev, verbal = "poss", False
        elif prev == "poss":  # the noun a possessive names is whole: "X's designer RAISED"
            prev, verbal = "noun", True
        else:
            prev = "noun"
    while stack:
        out.append(stack.pop().words)
    return [g for g in out if g]


def _possess(stack: list[_Frame], out: list[list[str]]) -> None:
    """A possessive: the relation it opens is the noun after it; a possessive's relation before
    ("X's founder's birthplace": the founder) is whole, and inner."""
    if len(stack) > 1 and stack[-1].possessed:
        out.append(stack.pop().words)
    stack.append(_Frame(possessed=True))


def _close_with_verb(stack: list[_Frame], out: list[list[str]], word: str) -> None:
    """A verb after a clause's subject: it closes the innermost clause that waits for one, and the
    clauses opened inside that one are whole."""
    for k in range(len(stack) - 1, -1, -1):
        if stack[k].waits():
            while len(stack) > k + 1:
                out.append(stack.pop().words)
            stack[k].words.append(word)
            stack[k].verb = True
            return
    stack[-1].words.append(word)


def _contact(tokens: list[str], i: int, stack: list[_Frame]) -> bool:
    """Whether a noun followed by a noun phrase (at `i`) is a contact relative clause, "the yard
    the founder of X worked for": more verbs close clauses after it than the open clauses wait
    for (else the noun phrase is in apposition, "the trawler X", or the second object of a verb)."""
    waiting = sum(f.pending and not f.verb for f in stack)
    return _verbs_after(tokens, i) > waiting


def hop_words(query: str) -> list[list[str]]:
    """The question's relation words (`relation_words`) grouped by hop of its chain, in the order a
    walk takes them: the relation of the entity the question names first, the one whose target is
    the answer last ("In which province is the town where the founder of Acme Yard was born?" ->
    [founder], [town, born], [province]: a clause's head noun, "town", names its target's kind).
    One group per step (`steps`), [] when the question is no chain; a group may be empty when its
    relation is named only by words `relation_words` leaves out."""
    if _WH.search(query) is None and not _TOKEN.search(query):
        return []
    n = steps(query)
    allowed = set(relation_words(query)) if n else set()
    groups = [list(dict.fromkeys(w for w in g if w in allowed)) for g in _parse(query)]
    if len(groups) > n:  # the grammar read more clauses than `steps` counts: the outer ones are one
        groups = [*groups[: n - 1], list(dict.fromkeys(w for g in groups[n - 1 :] for w in g))]
    while len(groups) < n:
        groups.append([])
    return groups
