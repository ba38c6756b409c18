"""The nesting read's looks ahead (#28): what the words after a point of a question are, for
`question_parse`'s reader to decide what the word at that point opens or closes.

Split out of `question_parse.py` to keep it small: the reader holds the state of a left-to-right
read (the stack of open clauses, the class of the word before), and these tests hold none. Each is
a function of the question's tokens and a position only, so it can be asked from anywhere, at any
point of the read, and `question_parse.opens_clause` asks one without reading at all.

No relation word, template or domain is named here: only function words and the shapes of clauses.
"""

from __future__ import annotations

from gateway.knowledge_graph.question_words import (
    ADVERBS,
    DETS,
    PARTICLES,
    PREPS,
    PRONOUNS,
    PTOKEN,
    RELATIVES,
    TITLE_CONNECTORS,
    VERB_AUX,
    WH,
    bare,
    be_stranded,
    function_word,
    is_possessive,
    looks_like_name,
    stranded,
)

MAX_TOKENS = 80


def question_tokens(query: str) -> list[str]:
    """The question's tokens, the first `MAX_TOKENS` only: a chain of three hops is a short sentence,
    and a longer text is read no further (the read looks ahead from some words, so its cost would
    grow with the square of the length)."""
    return [m.group(0) for m, _ in zip(PTOKEN.finditer(query), range(MAX_TOKENS), strict=False)]


def is_name(tokens: list[str], i: int) -> bool:
    """Whether the token at `i` is a name: capitalised, and not the text's first word (a sentence's)."""
    return i > 0 and looks_like_name(tokens[i])


def starts_np(tokens: list[str], i: int) -> bool:
    """Whether a noun phrase starts at `i`: a determiner, a pronoun, "whoever" or a name."""
    if i >= len(tokens):
        return False
    w = bare(tokens[i])
    return w in DETS or w in PRONOUNS or w == "whoever" or is_name(tokens, i)


def possessive_name(tokens: list[str], i: int) -> bool:
    """Whether the name starting at `i` ends in a possessive ("the singer Ada Vell's real
    name"): after a noun it is an apposition that owns what follows, no contact clause's
    subject (the owned noun phrase's words would be read as that clause's verbs). Unless a verb
    group follows what it owns, an auxiliary or a verb before a stranded preposition: "the
    yard Ada Vell's tutor was apprenticed to", "the firm Ada Vell's tutor trained at" (the
    possessive's noun phrase is that clause's subject). A title's lower-case connector between
    two capitalised words is the name's ("the novel The House on Ash Lane's editor")."""
    j = i
    while j + 1 < len(tokens) and not is_possessive(tokens[j]):
        if is_name(tokens, j + 1):
            j += 1
        elif j + 2 < len(tokens) and tokens[j + 1] in TITLE_CONNECTORS and is_name(tokens, j + 2):
            j += 2
        else:
            break
    return is_possessive(tokens[j]) and not verb_group_after(tokens, j + 1)


def verb_group_after(tokens: list[str], start: int) -> bool:
    """Whether a verb group (an auxiliary, or a verb before a stranded preposition) follows `start`
    before a relative word, a question word or a name does."""
    for k in range(start, len(tokens)):
        w = bare(tokens[k])
        if w in RELATIVES or WH.fullmatch(w) or is_name(tokens, k):
            return False
        if w in VERB_AUX and w not in ADVERBS:
            return True
        nxt = bare(tokens[k + 1]) if k + 1 < len(tokens) else ""
        if k > start and w in PREPS and (not nxt or nxt in PREPS or nxt in RELATIVES):
            return True  # "... trained AT" (the end), "... worked at IN 1900" is no such
    return False


def verbs_after(tokens: list[str], start: int) -> int:
    """How many verbs close clauses from `start` on: content words read as `verbal` (as the reader
    reads them: after a name, a verb or a possessive's noun, auxiliaries and a stranded preposition
    between)."""
    n, verbal, poss, after_prep, owned = 0, False, False, False, False
    for j in range(start, len(tokens)):
        tok, w = tokens[j], bare(tokens[j])
        nxt = bare(tokens[j + 1]) if j + 1 < len(tokens) else ""
        if owned and not function_word(w) and nxt in VERB_AUX and nxt not in ADVERBS:
            owned = False  # "X's youth ACADEMY is based in": the owned compound's head, no verb
            continue
        owned = False
        if is_name(tokens, j):
            verbal, poss, after_prep = not is_possessive(tok), is_possessive(tok), False
        elif verbal and not after_prep and be_stranded(tokens, j):
            n += 1
        elif w in ADVERBS or w in VERB_AUX or w in PARTICLES:
            continue
        elif w in PREPS and j > start and is_name(tokens, j - 1) and not is_possessive(tokens[j - 1]):
            verbal = after_prep = False  # "the restaurant X TO cook": no verb between, an infinitive's
        elif w in PREPS:
            after_prep = verbal
        elif function_word(w):
            verbal = poss = after_prep = False
        elif verbal and (not after_prep or stranded(tokens, j)):
            n, after_prep = n + 1, False
        else:
            verbal, poss, after_prep, owned = poss, False, False, poss
    return n


def run(tokens: list[str], i: int) -> int:
    """How many content words follow from `i` on, without a function word or a name between."""
    n = 0
    for tok in tokens[i:]:
        if looks_like_name(tok) or function_word(bare(tok)):
            break
        n += 1
    return n
