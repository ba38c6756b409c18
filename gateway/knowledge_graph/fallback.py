"""The general fallback link (#28, session 13): a page's subject to each name its page mentions
that no rule relates, labelled by the words of the mention's own clause.

Extraction's rules (patterns, phrase relations between two names of one sentence, the page styles
of `layouts`, `captions`, `lists`, `tables`) read what a sentence states when it is written in a
form they know; on a corpus written in other forms a chain's link is left as co-occurrence only,
which the walk follows on its first hop alone. But a page is about its subject, so a name on it
that no rule links to anything of its sentence is, in the plainest reading, something the subject
stands in some relation to, and the words around the name say which: "Her apprenticeship was spent
under the eye of N" -> subject `~apprenticeship was spent under eye of` N. Stored as a phrase
relation (the same `~words` type), the walk's likeness machinery (`phrases.Likeness`) compares it
with the question's relation words like any other.

No layout, word list or corpus term: the clause is cut at punctuation and at the sentence's
bounds, names and numbers are left out, function words trimmed at its ends; a "Key: value" line is
labelled by its key. Weak by weight (`WEIGHT`, below a rule's 1.0, so `GraphStore.edges`, ordering
by summed weight, reads rule-made relations first) and shared: a sentence naming several unlinked
names splits one link's weight among them, and a sentence naming more than `CROWD` names (a
directory row, a list of credits) gives none.
"""

from __future__ import annotations

import re

from gateway.knowledge_graph.clauses import FUNCTION, MAX_PHRASE_WORDS, PHRASE, STOP, Span
from gateway.knowledge_graph.names import _PAST

ENABLED = True  # off only in benches that measure what it adds (`bench/kg_link_recall.py --fallback`)
WEIGHT = 0.5  # one fallback link, against a rule's 1.0
CROWD = 4  # a sentence naming more names than this is a list: no fallback link from it
_CUT = re.compile(r"[,;:()\[\]\"\u201c\u201d|\u2014\u2013]|\s-\s|\n")  # clause bounds within a sentence
_KEY = re.compile(
    r"^\s*[*\-\u2022]?\s*([A-Za-z][a-z\-']+(?: [A-Za-z][a-z\-']*){0,3})\s*:\s*"
)  # "Birthplace: P", not "A:"
# keys that announce a remark, not a relation ("Note: A and B", "See also: A")
_REMARK = frozenset("note notes warning caution tip tips see also example examples previously next previous".split())
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")
# a clause that is only these words links nothing ("and N", "see also N", "with N")
_EMPTY = FUNCTION | frozenset("see also via per etc".split())
# a clause denied or only possible states no link ("N was never here", "N could have died here")
_UNSAID = frozenset(
    "not never no nor n't didn't doesn't don't wasn't weren't isn't hasn't hadn't could would might may".split()
)
# words standing for the page's subject (no possessive: "N ... its architect" is N's own)
_BACK = frozenset("it him them us our here".split())
_POSSESSIVE = re.compile(r"\W*(?:its|his|her|their)\s", re.IGNORECASE)
_PRONOUNS = frozenset("i we you he she it they this that there".split())
_OWNER = re.compile(r"['\u2019]s\b")  # "N's son grew up here": the son's clause, not N's


def _label(text: str, a: int, b: int, span: Span, others: list[Span]) -> list[str]:
    """The words of `span`'s clause (from `a` to `b`), the span and other names left out: those
    before it (nearest last, at most MAX_PHRASE_WORDS) when they hold a word that is no function
    word, else those after it."""

    def words(lo: int, hi: int) -> list[str]:
        piece = text[lo:hi]
        for o in others:  # other names are no words of the relation
            if lo <= o.start and o.end <= hi:
                piece = piece[: o.start - lo] + " " * (o.end - o.start) + piece[o.end - lo :]
        return [w.lower() for w in _WORD.findall(piece)]

    before, after = words(a, span.start), words(span.end, b)[:MAX_PHRASE_WORDS]
    if not _BACK.intersection(before + after):
        # "N had two children": said of N; "N founded us", "N, surgeon here", "It is where N grew up":
        # of the page's subject
        after = []
    for side in (before[-MAX_PHRASE_WORDS:], after):
        while side and side[0] in FUNCTION and side[0] not in ("by",):
            side = side[1:]
        while side and side[-1] in ("the", "a", "an", "and", "or", "but", "its", "his", "her", "their"):
            side = side[:-1]
        if any(w not in _EMPTY for w in side):
            return side
    return []


def _instruction(sentence: str, start: int, inside: list[Span], known: frozenset[str]) -> bool:
    """An imperative sentence ("Click the Save button", "Install the Debian package"): it opens on a
    capitalised word that is no name, no function word and no verb's past, "-ing" or "-s" form (a
    subjectless biography line, "Trained at N", "Grew up in P", is a statement about the subject)."""
    m = _WORD.search(sentence)
    if m is None or not m.group()[:1].isupper():
        return False
    if any(s.start == start + m.start() and (" " in s.text.strip() or s.text.lower() in known) for s in inside):
        return False  # a name opens it
    word = m.group().lower()
    return not (word in STOP or _PAST.search(word) or word.endswith(("ing", "s")) or word.isupper())


def _keyed(text: str, sentences: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The sentences, a "Key:" line's joined again (extraction cuts a sentence at ":" and ";")."""
    out: list[tuple[int, str]] = []
    for start, sentence in sentences:
        if out and _KEY.match(out[-1][1]) and "\n" not in text[out[-1][0] : start]:
            out[-1] = (out[-1][0], text[out[-1][0] : start + len(sentence)])
        else:
            out.append((start, sentence))
    return out


def fallback_links(
    text: str,
    sentences: list[tuple[int, str]],
    spans: list[Span],
    keys: dict[int, str],
    subject: str | None,
    relations: list[tuple[str, str, str, float]],
    known: frozenset[str] = frozenset(),
) -> list[tuple[str, str, str, float]]:
    """Phrase relations subject -> name for each name of a sentence that no relation of `relations`
    (the chunk's, co-occurrence aside) joins to the subject or to another name of its sentence;
    `known` the store's titles, normalised (a lone opening word is a name only when one)."""
    if not subject or not ENABLED:
        return []
    linked: dict[str, set[str]] = {}
    for src, dst, kind, _ in relations:
        if kind != "co_occurs":
            linked.setdefault(src, set()).add(dst)
            linked.setdefault(dst, set()).add(src)
    out: dict[tuple[str, str], tuple[str, float]] = {}
    first = 0
    for start, sentence in _keyed(text, sentences):
        end = start + len(sentence)
        while first < len(spans) and spans[first].start < start:
            first += 1
        inside = [s for s in spans[first:] if s.start < end]
        names = {keys[s.start] for s in inside}
        if len(names) > CROWD:
            continue
        if _POSSESSIVE.match(sentence):
            continue  # "Its rival, in B, is owned by O": the rival's relation, not the subject's
        key = _KEY.match(sentence)
        if not key and _instruction(sentence, start, inside, known):
            continue
        if key and len({keys[s.start] for s in inside if s.start >= start + key.end()}) > 2:
            continue  # a field listing names ("Entries: A; B; C"): a register, no one relation
        if key and (
            any(  # a key is a word or two of a label, not a name ("Headquarters: P", not "Anna Jones: A")
                start + key.start(1) <= s.start < start + key.end(1)
                and (" " in s.text.strip() or keys[s.start] in known)
                for s in inside
            )
            or set(key.group(1).lower().split()) & _REMARK
            or key.group(1).split()[0].lower() in _PRONOUNS
        ):
            key = None  # "Anna Jones: A", "He thanked B: A", "Note: A": no key naming a relation
        lead = start + len(sentence) - len(sentence.lstrip(" *-\u2022#>\t"))
        lone = [
            s
            for s in inside
            if keys[s.start] != subject
            and not linked.get(keys[s.start], set()) & (names | {subject}) - {keys[s.start]}
            and not (key and s.start < start + key.end())  # the key of "Key: value" is its label
            # a lone word opening its sentence unknown to the store: an imperative or a heading
            # ("Open the Settings page", "About us"), not a name
            and not (s.start == lead and " " not in s.text.strip() and keys[s.start] not in known)
            and not _OWNER.match(text, s.end)
            and not _OWNER.search(s.text)
        ]
        found: list[tuple[str, list[str]]] = []
        for span in lone:
            if key and start + key.end() <= span.start:
                label = [w.lower() for w in _WORD.findall(key.group(1))]
            else:
                lo = max((m.end() for m in _CUT.finditer(text, start, span.start)), default=start)
                hi = next((m.start() for m in _CUT.finditer(text, span.end, end)), end)
                said = {w.lower() for w in _WORD.findall(text[lo:hi])}
                label = [] if said & _UNSAID else _label(text, lo, hi, span, [s for s in inside if s is not span])
            label = [w for w in label if not w.isdigit()]
            if label:
                found.append((keys[span.start], label))
        for key_, label in found:
            weight = WEIGHT / len(found)
            pair = (subject, key_)
            if pair not in out or out[pair][1] < weight:
                out[pair] = (PHRASE + " ".join(label), weight)
    return [(src, dst, kind, weight) for (src, dst), (kind, weight) in out.items()]
