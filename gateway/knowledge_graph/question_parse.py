"""The nesting of a question's relations for the `kg` walk (#28): which words name which hop, and in
which order the walk takes them.

English nests a chain two ways. Nouns linked by "of" read from the outside in ("the birthplace OF
the founder OF X": the founder is the inner relation); possessives from the inside out ("X's
founder's birthplace"); and a clause whose subject comes before its verb closes only after that
subject ("the town where [the founder of X] was BORN": the founding is inner, the birth outer). So
the question is read left to right with a stack of open clauses, and each relation is emitted when
its clause closes: the innermost comes first, the one whose target is the answer last.

The reader here holds the read's state (the stack, the class of the word before); the tests that
look ahead of it over the tokens alone are `question_lookahead`'s.

No relation word, template or domain is named here: only function words (determiners,
prepositions, auxiliaries, relative and question words) and the shapes of the clauses they open.
"""

from __future__ import annotations

import functools

from gateway.knowledge_graph.extract import _STOP
from gateway.knowledge_graph.question_lookahead import MAX_TOKENS as MAX_TOKENS  # `question_steps` imports it from here
from gateway.knowledge_graph.question_lookahead import (
    is_name,
    possessive_name,
    question_tokens,
    run,
    starts_np,
    verbs_after,
)
from gateway.knowledge_graph.question_words import (
    ADVERBS,
    AUXILIARY,
    BE,
    DETS,
    ING_PREPOSITIONS,
    NO_OWNER,
    OF_LINKS,
    PARTICIPLE_DETS,
    PARTICLES,
    PREPS,
    RELATIVES,
    VERB_AUX,
    WH,
    bare,
    be_stranded,
    function_word,
    is_possessive,
    looks_like_name,
    plain_of,
    stranded,
)

_AT_DETS = frozenset("the a an its their his her our your my".split())  # not "that": a relative


class _Frame:
    """One relation of the chain while the question is read: its words, and whether its clause
    still waits for the verb that closes it ("where the founder of X was BORN")."""

    __slots__ = ("mark", "optional", "pending", "possessed", "verb", "words")

    def __init__(
        self,
        words: list[tuple[str, int]] | None = None,
        *,
        pending: bool = False,
        optional: bool = False,
        possessed: bool = False,
        verb: bool = False,
    ) -> None:
        self.words: list[tuple[str, int]] = words or []  # (word, its token's index)
        self.mark = len(self.words)  # where the noun phrase being read began
        self.pending = pending  # the clause has its own subject: its verb comes after it
        self.optional = optional  # a copula's ("In which town is X?"): it may close with no verb
        self.possessed = possessed  # a possessive's relation: "X's FOUNDER"
        self.verb = verb

    def take_np(self) -> list[tuple[str, int]]:
        np, self.words = self.words[self.mark :], self.words[: self.mark]
        self.mark = len(self.words)
        return np

    def waits(self, strict: bool = True) -> bool:
        return (self.pending or (strict and self.optional)) and not self.verb


class _Reader:
    """A left-to-right read of one question (see the module's docstring)."""

    def __init__(self, query: str) -> None:
        self.tokens = question_tokens(query)  # the first MAX_TOKENS only
        # the question word opens the question, after prepositions only ("Under WHOM did ..."); a
        # later one is a relative ("Name the town WHERE ...")
        lead = next((i for i, t in enumerate(self.tokens) if t.lower() not in PREPS), None)
        self.wh = lead if lead is not None and WH.fullmatch(self.tokens[lead]) else None
        self.stack = [_Frame()]
        self.out: list[list[tuple[str, int]]] = []
        self.contacts = 0
        # the class of the token before: open (the question word), whnoun, det, noun, name, poss,
        # verb, aux, prep, rel; `verbal`: a content word now is a verb closing a clause (after a
        # name, a verb or a possessive's noun, auxiliaries and a stranded preposition between)
        self.prev = "open" if self.wh is not None else "det"
        self.verbal = False
        self.after_prep = False
        self.second = False

    def noun_at(self, i: int) -> bool:
        """Whether "at" at `i` follows a determined noun and comes before a noun phrase or a name ("the
        chef at the restaurant X", "the coach at Acme"): the noun's relation, as `question_steps`
        counts it (not a verb's "at", "trained at X", nor a participle's object or a participle, "the
        person running the kitchen at X", "the route calling at X", nor "at" before a time, "at 8"),
        where the noun phrase is a clause's subject or an "of" phrase's, no verb's object."""
        cur = self.stack[-1]
        np = len(cur.words) - cur.mark
        if self.prev != "noun" or not 1 <= np <= 2 or i + 1 >= len(self.tokens):
            return False
        det = i - 1 - np
        if det < 0 or bare(self.tokens[det]) not in _AT_DETS or any(t.endswith("ing") for t in self.tokens[det:i]):
            return False
        if det > 0 and not (
            bare(self.tokens[det - 1]) in VERB_AUX | RELATIVES | {"of"} or WH.fullmatch(self.tokens[det - 1])
        ):
            return False  # a verb's object: "at X" may be the verb's ("Who won the race at Monza?")
        nxt = self.tokens[i + 1]
        return nxt[:1].isupper() or (bare(nxt) in DETS and any(t[:1].isupper() for t in self.tokens[i + 2 : i + 5]))

    def nominal(self, i: int) -> bool:
        """Whether a content word after a name or a possessive's noun is a noun, not a verb: an
        auxiliary follows it, or more content words follow than open clauses wait for verbs."""
        nxt = bare(self.tokens[i + 1]) if i + 1 < len(self.tokens) else ""
        if nxt in VERB_AUX and nxt not in ADVERBS:
            return True
        return run(self.tokens, i) > sum(f.waits() for f in self.stack)

    def contact(self, i: int, strict: bool) -> bool:
        """Whether the noun before `i` heads a contact relative clause whose subject starts at `i`
        ("the yard the founder of X worked for", "the place X retired to"): more verbs close
        clauses after it than the open clauses wait for. Else `i` starts an apposition ("the
        trawler X") or a verb's second object. After a name (`strict`) a copula's clause waits
        too ("In which town was the captain of the barque X born?")."""
        return verbs_after(self.tokens, i) > sum(f.waits(strict) for f in self.stack)

    def open_contact(self) -> None:
        self.stack.append(_Frame(self.stack[-1].take_np(), pending=True))
        self.contacts += 1

    def possess(self) -> None:
        """A possessive: the relation it opens is the noun after it; a possessive's relation just
        before ("X's founder's birthplace": the founder) is whole, and inner."""
        if len(self.stack) > 1 and self.stack[-1].possessed:
            self.out.append(self.stack.pop().words)
        self.stack.append(_Frame(possessed=True))

    def close(self, word: tuple[str, int]) -> None:
        """A verb after its clause's subject closes the innermost clause that waits for one; the
        clauses opened inside that one are whole."""
        stack = self.stack
        for k in range(len(stack) - 1, -1, -1):
            if stack[k].waits():
                while len(stack) > k + 1:
                    self.out.append(stack.pop().words)
                stack[k].words.append(word)
                stack[k].verb = True
                return
        stack[-1].words.append(word)

    def read(self) -> tuple[list[list[tuple[str, int]]], int]:
        start = 0 if self.wh is None else self.wh + 1
        for i in range(start, len(self.tokens)):
            self.step(i, start)
        while self.stack:
            self.out.append(self.stack.pop().words)
        # contact clauses are counted in a question only (text opening with no question word, a
        # manual page's line or a statement, reads capitalised keywords as names)
        return [g for g in self.out if g], self.contacts if self.wh is not None else 0

    def step(self, i: int, start: int) -> None:
        tok, w = self.tokens[i], bare(self.tokens[i])
        cur = self.stack[-1]
        if is_name(self.tokens, i):
            np = len(cur.words) - cur.mark
            if self.prev == "noun" and np == 1 and bare(self.tokens[i - 2]) in RELATIVES:
                cur.take_np()  # "where chef X learned": a title before the name, the name's kind
            elif self.prev == "noun" and i - 1 - np >= 0 and bare(self.tokens[i - 1 - np]) in VERB_AUX:
                cur.take_np()  # "Who does footballer X play for?": a bare title after an auxiliary, the name's kind
            elif self.prev == "noun" and not possessive_name(self.tokens, i) and self.contact(i, strict=True):
                self.open_contact()
            elif self.prev == "noun" and bare(self.tokens[i - 1 - (len(cur.words) - cur.mark)]) in DETS:
                cur.take_np()  # an apposition, "the trawler X": the name's kind, no relation
            if is_possessive(tok):  # "X's founder": the noun after it is X's relation
                self.possess()
                self.prev, self.verbal = "poss", False
            else:
                self.prev, self.verbal = "name", True
            self.after_prep = False
        elif w == "of" and plain_of(self.tokens, i):
            return  # "in charge of its engines", "the place of death": one noun phrase goes on
        elif w in OF_LINKS:
            # "behind" is its own relation word ("the firm behind X"); "of" names none
            self.stack.append(_Frame(cur.take_np() + ([(w, i)] if w != "of" else [])))
            self.prev, self.verbal = "rel", False
        elif w == "at" and self.noun_at(i):
            # "the chef AT the restaurant X": the noun's relation to what follows, as with "of"
            self.stack.append(_Frame(cur.take_np()))
            self.prev, self.verbal = "rel", False
        elif w == "whoever" or (w in RELATIVES and self.prev in ("noun", "prep", "name")):
            head = cur.take_np() if self.prev in ("noun", "prep") else []
            self.stack.append(_Frame(head, pending=starts_np(self.tokens, i + 1) or w == "where"))
            self.prev, self.verbal = "rel", False
        elif w in DETS:
            if self.prev == "noun" and self.contact(i, strict=False):
                self.open_contact()
            # a second object after a name, "who taught X THE trade": after its noun, a verb
            self.second = self.prev in ("name", "have")
            self.stack[-1].mark = len(self.stack[-1].words)
            self.prev, self.verbal = "det", False
        elif w in ADVERBS:
            return
        elif w in ("have", "has", "had") and self.verbal and starts_np(self.tokens, i + 1):
            self.close((w, i))  # "have" as a verb after its subject: "Where does X HAVE its office?"
            self.prev, self.verbal = "have", False
        elif self.verbal and not self.after_prep and be_stranded(self.tokens, i):
            self.close((w, i))  # "the place X WAS IN belongs to": the contact clause's verb
            self.prev, self.after_prep = "verb", False
        elif w in VERB_AUX:
            pronoun = self.prev == "open" and self.tokens[start - 1].lower() in ("what", "who")
            if self.prev in ("open", "whnoun") and starts_np(self.tokens, i + 1) and not (pronoun and w in BE):
                # "Where WAS the founder of X born", "In which town DID ... grow up": the subject
                # follows, the verb closes the question; a copula's may close with none. (In "What
                # IS the birthplace of X", the question word is the copula's complement: no verb)
                self.stack[0].pending = w not in BE
                self.stack[0].optional = True
            cur.mark = len(cur.words)
            self.prev = "aux"
        elif w == "by" and self.prev == "noun" and len(cur.words) - cur.mark >= 2:
            # a reduced relative clause, "the hospital set up BY X": the participle is its verb
            self.stack.append(_Frame(cur.take_np(), verb=True))
            self.prev, self.verbal = "rel", False
        elif w in PARTICLES:
            return
        elif function_word(w):
            if not (w in PREPS and i + 1 < len(self.tokens) and bare(self.tokens[i + 1]) in RELATIVES):
                cur.mark = len(cur.words)  # (the harbour from which ...: the noun heads the clause)
            self.after_prep = self.verbal and w in PREPS
            self.verbal = self.after_prep
            self.prev = "prep"
        else:
            self.content(i, start, tok, w)

    def content(self, i: int, start: int, tok: str, w: str) -> None:
        cur = self.stack[-1]
        if i == 0:  # an imperative's verb, "Name the town where ...", or a title's first word
            self.prev = "verb" if looks_like_name(tok) else "noun"
            if not looks_like_name(tok):
                cur.words.append((w, i))
            return
        if is_possessive(tok) and w not in NO_OWNER:  # a possessor is a noun: "Cothbrurk station's route"
            cur.words.append((w, i))
            self.possess()
            self.prev, self.verbal, self.after_prep = "poss", False, False
            return
        if self.prev == "open" and self.tokens[start - 1].lower() == "whose":
            cur.words.append((w, i))  # "Whose PROPERTY produces X?": the owner's relation, outer
            self.prev = "whose"
            return
        if self.prev == "whose":  # ... and the verb the owned thing's relation to X, inner
            self.stack.append(_Frame([(w, i)], verb=True))
            self.prev, self.verbal = "verb", False
            return
        if self.prev in ("noun", "name") and self.verbal and self.nominal(i):
            # a noun phrase goes on after a possessive or a name: "X's thesis SUPERVISOR stand",
            # "the X TYPEFACE was set up"
            cur.words.append((w, i))
            self.prev = "noun"
            return
        if self.verbal and (not self.after_prep or stranded(self.tokens, i)):
            self.close((w, i))
            self.prev, self.after_prep = "verb", False
            return
        self.after_prep = False
        if self.prev == "open" and self.tokens[start - 1].lower() in ("which", "what"):
            cur.words.append((w, i))  # "Which TOWN ...": the answer's kind
            self.prev = "whnoun"
            return
        if self.prev in ("open", "whnoun") or (self.prev == "rel" and not cur.pending and not cur.verb):
            # the question's own verb ("Who FOUNDED X", "Which yard BUILT X"), a subject relative's
            # ("the company that MAKES X")
            cur.words.append((w, i))
            cur.verb = True
            cur.mark = len(cur.words)
            self.prev, self.verbal = "verb", False
            return
        np = cur.words[cur.mark :]
        if (
            self.prev == "noun"
            and w.endswith("ing")
            and len(w) >= 6
            and w not in ING_PREPOSITIONS
            and len(np) == 1
            and np[0][0] not in AUXILIARY | _STOP
            and not np[0][0].endswith("ing")
            and bare(self.tokens[i - 2]) in PARTICIPLE_DETS
        ):
            # a present participle after a determined noun, "the ship CARRYING X": its relation
            self.stack.append(_Frame([*cur.take_np(), (w, i)], verb=True))
            self.prev, self.verbal = "rel", False
            return
        cur.words.append((w, i))
        if self.second:  # a verb may follow a clause's object when a clause waits for one
            self.prev, self.verbal, self.second = "noun", any(f.waits() for f in self.stack), False
        elif self.prev == "poss":  # the noun a possessive names is whole: "X's designer RAISED"
            self.prev, self.verbal = "noun", True
        else:
            self.prev = "noun"


def opens_clause(text: str) -> bool:
    """Whether the name `text` opens, after a head noun, is a contact clause's subject as the read
    takes it (`question_lookahead.possessive_name`): a name with no possessive, or a possessive whose noun
    phrase a verb group follows. `question_steps.steps` asks it so its count and the read agree."""
    reader = _Reader("the " + text)  # a word before it: the read takes no name as the text's first
    return not possessive_name(reader.tokens, 1)


def parse(query: str) -> tuple[list[list[str]], int]:
    """The question's relations as groups of its (lower-case, content) words, innermost first, and
    how many of them are contact relative clauses (no relative word marks them)."""
    groups, contacts = _parsed(query)
    return [list(g) for g in groups], contacts


@functools.lru_cache(maxsize=256)
def _parsed(query: str) -> tuple[tuple[tuple[str, ...], ...], int]:
    """One read of a question however many of its views (`steps`, `hop_words`, `hop_cues`, the hop
    plan) a kg query asks for: four per query before (#28 speed); immutable, so callers share it."""
    groups, contacts = _Reader(query).read()
    return tuple(tuple(w for w, _ in g) for g in groups), contacts


def phrases(query: str) -> list[str]:
    """Each relation of `parse` as the question's own words, with the particle or preposition after
    each ("set up", "part of", "belongs to"): what a relation's cue phrase is matched against,
    per hop (`patterns.CUES`)."""
    reader = _Reader(query)
    tokens = reader.tokens
    out = []
    for group in reader.read()[0]:
        parts = []
        for _, j in sorted(group, key=lambda wi: wi[1]):
            parts.append(tokens[j])
            nxt = tokens[j + 1].lower() if j + 1 < len(tokens) else ""
            if nxt in PARTICLES or nxt in PREPS or nxt in OF_LINKS:
                parts.append(tokens[j + 1])
        out.append(" ".join(parts))
    return out
