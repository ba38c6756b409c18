"""The closed word classes a question is read by (`question_parse`, `question`, `question_steps`,
`question_request`): determiners, prepositions, particles, relative and question words, pronouns,
auxiliaries and modals, the two ways of cutting it into words, and the tests on single tokens those
modules share (a name, a possessive, a compound's "of", a be-form with a stranded preposition).
Grammar only: no relation word, template or domain is named here."""

from __future__ import annotations

import re

WH = re.compile(r"\b(?:what|who|whom|whose|which|where|when|how)\b", re.I)
AUXILIARY = frozenset(
    "is are was were be been being am get gets got has have had not never also first later once newly".split()
)
NO_OWNER = frozenset(
    {"it", "that", "what", "who", "there", "here", "he", "she", "let", "where", "how", "when", "why", "which"}
)
ING_PREPOSITIONS = frozenset(
    "during including excluding regarding concerning considering following according pending barring "
    "respecting excepting notwithstanding touching".split()
)
DETERMINER = r"(?:the|a|an|this|that|these|those|its|their|his|her|our|your|my|each|every)"
DETS = frozenset("the a an this these those its their his her our your my each every".split())
PREPS = frozenset(
    "in at on to for from by with under into onto about after before through near across along upon within "
    "without toward towards against among between beside beneath".split()
)
PARTICLES = frozenset("up out off down over away back".split())
RELATIVES = frozenset("that who whom whose whoever which where".split())
OF_LINKS = frozenset({"of", "behind"})
PRONOUNS = frozenset("he she it they we you i".split())
# adverbs read as auxiliaries: between a subject and its verb ("X first served") they change nothing
ADVERBS = frozenset("not never also first later once newly".split())
VERB_AUX = AUXILIARY | frozenset("do does did can could will would should may might must".split())
PARTICIPLE_DETS = frozenset("the a an its their his her".split())
ARTICLES = frozenset("the a an".split())
BE = frozenset("is are was were".split())
# the short function words a title keeps in lower case between its capitalised words ("Notes from
# Tarn", "The House on Ash Lane", "Salt for Ely"): a name runs over one when a capitalised word
# follows straight after it
TITLE_CONNECTORS = frozenset("of on at for from and in to with by the a an".split())
TOKEN = re.compile(r"[^\W_][\w\-\.']*[^\W_]|[^\W_]")  # a word of the question
# a question's words as the parser reads them: a possessive's final apostrophe stays ("the Skiers'")
PTOKEN = re.compile(r"[^\W_][\w\-\.'\u2019]*[^\W_](?:['\u2019](?!\w))?|[^\W_]")


def looks_like_name(token: str) -> bool:
    """Whether a token reads as a name: capitalised, or with a digit in it."""
    return token[:1].isupper() or any(ch.isdigit() for ch in token)


def bare(token: str) -> str:
    return token.lower().removesuffix("'s").removesuffix("\u2019s").strip("'\u2019")


def is_possessive(token: str) -> bool:
    """Whether a token ends in a possessive's "'s" or (after a plural) "s'"."""
    return token.endswith(("'s", "\u2019s", "s'", "s\u2019"))


def function_word(w: str) -> bool:
    return (
        w in DETS
        or w in PREPS
        or w in PARTICLES
        or w in PRONOUNS
        or w in RELATIVES
        or w in OF_LINKS
        or w in VERB_AUX
        or bool(WH.fullmatch(w))
    )


def plain_of(tokens: list[str], i: int) -> bool:
    """Whether the "of" at `i` joins no two relations: before a possessive pronoun, whose owner the
    question named already ("put in charge OF ITS engines": no new entity to step to), or inside a
    compound noun, a bare lower-case noun with another "of" after it ("the place OF DEATH of X",
    "the head of state of France": the compound's own "of" names its entity). A bare noun with no
    "of" after it is an entity of its own ("the inventor of penicillin", "the author of numpy")."""
    if i + 1 >= len(tokens):  # a stranded "of" ("the province it is part of") joins nothing after it
        return False
    nxt = bare(tokens[i + 1])
    if nxt in ("its", "their", "his", "her"):
        return True
    after = bare(tokens[i + 2]) if i + 2 < len(tokens) else ""
    compound = not looks_like_name(tokens[i + 1]) and not function_word(nxt) and not is_possessive(tokens[i + 1])
    return after == "of" and compound


def be_stranded(tokens: list[str], i: int) -> bool:
    """Whether the be-form at `i` with a stranded preposition is a clause's verb: "the place X WAS
    IN belongs to", "the shed X was stabled WAS IN." (a contact clause's "be in", as "stood in"):
    the preposition ends the text or a verb follows it (a word before the end or a function word),
    not its object ("was in the army", "was in Rome")."""
    if bare(tokens[i]) not in BE or i + 1 >= len(tokens) or bare(tokens[i + 1]) not in PREPS:
        return False
    if i + 2 >= len(tokens):
        return True
    nxt = tokens[i + 2]
    return not looks_like_name(nxt) and not function_word(bare(nxt)) and stranded(tokens, i + 2)


def stranded(tokens: list[str], i: int) -> bool:
    """Whether the word at `i`, after a verb and a preposition, is a verb: the preposition is
    stranded ("the place X retired TO lie") when one word follows it before the end or a function
    word; a longer run is the preposition's object ("settle in old age")."""
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    return not nxt or function_word(bare(nxt)) or looks_like_name(nxt)
