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
labelled by its key. The words after a name label it only when they say something of the subject
("N founded us", "It is where N spent a childhood"), so the link then runs name -> subject, as the
rules' phrase relations do. Weak by weight (`WEIGHT`, below a rule's 1.0, so `GraphStore.edges`, ordering
by summed weight, reads rule-made relations first) and shared: a sentence naming several unlinked
names splits one link's weight among them, and a sentence naming more than `CROWD` names (a
directory row, a list of credits) gives none.

Linear in the page: sentences and their names are walked with moving indexes as `extract` does, a
"Key:" piece joins only the one piece after it, a name is read at its first mention in a sentence,
and a sentence's clause bounds are found once.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from gateway.knowledge_graph.lexicon import FUNCTION, MAX_PHRASE_WORDS, PHRASE, STOP, Span
from gateway.knowledge_graph.names import _PAST

ENABLED = True  # off only in benches that measure what it adds (`bench/kg_link_recall.py --fallback`)
WEIGHT = 0.5  # one fallback link, against a rule's 1.0
CROWD = 4  # a sentence naming more names than this is a list: no fallback link from it
_CUT = re.compile(r"[,;:()\[\]\"\u201c\u201d|\u2014\u2013]|\s-\s|\n")  # clause bounds within a sentence
_KEY = re.compile(
    r"^\s*[*\-\u2022]?\s*([A-Za-z][a-z\-']+(?: [A-Za-z][a-z\-']*){0,3})\s*:\s*"
)  # "Birthplace: P", not "A:"
_FENCE = re.compile(r"^[ \t]*(```|~~~)", re.MULTILINE)  # a code block's fence: its lines are no prose
# markdown's inline code span (`like this`; it may run on past a line break, not past a blank line):
# an identifier, a command or a path, no name the page relates to, and no words of a relation ("The
# answer is `CompactedResponse`"); only a lone backtick opens or closes one, so a fence's ``` pairs
# with no later backtick of the prose (which would blank the prose between); each match ends at the
# next backtick, so finding them is linear
_INLINE = re.compile(r"(?<!`)`(?!`)(?:[^`\n]|\n(?![ \t]*\n))+(?<!`)`(?!`)")
# keys that announce a remark or an attribution, not a relation ("Note: A and B", "See also: A",
# "Source: W", "Photo: P")
_REMARK = frozenset(
    """note notes warning caution tip tips see also example examples previously next previous
    source sources credit credits photo photos photograph image images caption""".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")
# a clause that is only these words links nothing ("and N", "see also N", "with N")
_EMPTY = FUNCTION | frozenset("see also via per etc".split())
# a clause denied or only possible states no link ("N was never here", "N could have died here");
# any "...n't" and "cannot" too
_UNSAID = frozenset("not never no nor could would might may can should must".split())
# words standing for the page's subject (no possessive: "N ... its architect" is N's own)
_BACK = frozenset("it him them us our here".split())
_POSSESSIVE = re.compile(r"\W*(?:its|his|her|their)\s", re.IGNORECASE)
_PRONOUNS = frozenset("i we you he she it they this that there".split())
_OWNER = re.compile(r"['\u2019]s\b")  # "N's son grew up here": the son's clause, not N's
_COORDINATOR = frozenset(("and", "but", "or"))
# a key of only these names no relation ("From:", "To:", "Via:"; "Part of:" does)
_PARTICLES = frozenset("from to via per at by in on of for with and or the a an re".split())
# a determiner before "it" or "them": the clause has a noun of its own for it ("sold the farm beside it");
# not before "here" or "us" ("N is a surgeon here")
_DETERMINER = frozenset("a an the this that these those his her their my your".split())
# the words after a name say what it did only when a verb follows it, not a preposition or a
# determiner ("Contact Bob Lee for details about us": no statement of Bob Lee)
_NO_VERB = frozenset("for about with from to of in on at by into over under via a an the this that".split())


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text.replace("\u2019", "'"))]


def _denied(words: list[str]) -> bool:
    return any(w in _UNSAID or w.endswith("n't") or w == "cannot" for w in words)


def _label(text: str, a: int, b: int, span: Span, others: list[Span]) -> tuple[list[str], bool]:
    """The words of `span`'s clause (from `a` to `b`), the span and other names left out, and
    whether they come from after the name: those before it (nearest last, at most
    MAX_PHRASE_WORDS) when they hold a word that is no function word, else those after it up to
    the clause's first coordinator, when they refer back to the subject ("N founded us") and open
    on a verb."""

    def words(lo: int, hi: int) -> list[str]:
        piece = text[lo:hi]
        for o in others:  # other names are no words of the relation
            if lo <= o.start and o.end <= hi:
                piece = piece[: o.start - lo] + " " * (o.end - o.start) + piece[o.end - lo :]
        return _words(piece)

    before, after = words(a, span.start), words(span.end, b)
    while after and after[0] in _COORDINATOR:  # "A and B supply our wool": the names' own "and"
        after = after[1:]
    cut = next((i for i, w in enumerate(after) if w in _COORDINATOR), len(after))
    after = after[:cut][:MAX_PHRASE_WORDS]  # "N bought a farm and sold it": not the second verb's "it"
    back = next((i for i, w in enumerate(after) if w in _BACK), None)
    refers = back is not None or bool(_BACK.intersection(before))  # "It is where N grew up"
    if (
        not refers
        or not after
        or after[0] in _NO_VERB
        or (back is not None and after[back] in ("it", "them") and _DETERMINER.intersection(after[:back]))
    ):
        # "N had two children": said of N; "N founded us", "It is where N grew up": of the subject
        after = []
    where = bool(before) and before[-1] == "where"
    if after:  # "N founded us in 1961": N -> the subject, "founded"; "It is where N grew up": "grew up in"
        said = [w for w in after if w not in _BACK and not w.isdigit()]
        while said and said[-1] in FUNCTION:
            said = said[:-1]
        after = said + (["in"] if said and ("here" in after or where) else [])
    for side, reverse in ((before[-MAX_PHRASE_WORDS:], False), (after, True)):
        while side and side[0] in FUNCTION and side[0] not in ("by",):
            side = side[1:]
        while side and side[-1] in ("the", "a", "an", "and", "or", "but", "its", "his", "her", "their"):
            side = side[:-1]
        if any(w not in _EMPTY for w in side):
            return side, reverse
    return [], False


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


def _code(text: str) -> list[tuple[int, int]]:
    """The spans of fenced code blocks (an unclosed fence runs to the end)."""
    fences = [m.start() for m in _FENCE.finditer(text)]
    fences += [len(text)] if len(fences) % 2 else []
    return list(zip(fences[::2], fences[1::2], strict=True))


def _plain(text: str) -> tuple[str, list[int]]:
    """`text` with each inline code span blanked (same length, so offsets hold), and the spans'
    bounds in order (start, end, start, end, ...) for a binary search: one pass over the text."""
    bounds: list[int] = []
    for m in _INLINE.finditer(text):
        bounds += [m.start(), m.end()]
    if not bounds:
        return text, bounds
    pieces, pos = [], 0
    for a, b in zip(bounds[::2], bounds[1::2], strict=True):
        pieces += [text[pos:a], " " * (b - a)]
        pos = b
    return "".join(pieces) + text[pos:], bounds


def _keyed(text: str, sentences: list[tuple[int, str]], starts: list[int]) -> list[tuple[int, str, bool]]:
    """The sentences, a bare "Key:" piece joined to its value (extraction cuts a sentence at ":"
    and ";"): the piece after it on its line and the key-less pieces that piece continues with ";"
    or "," ("Other contributors: A (editor); B (illustrator)"; not "Opened: 1901. Architect: A",
    nor "Updated: May 2020. Contact A"), at most CROWD + 1 pieces; each with whether it is a
    register, a field naming more than two names ("Entries: A; B; C")."""
    out: list[tuple[int, str, bool]] = []
    i = 0
    while i < len(sentences):
        start, sentence = sentences[i]
        key = _KEY.match(sentence)
        if (
            key
            and not sentence[key.end() :].strip()
            and i + 1 < len(sentences)
            and "\n" not in text[start : sentences[i + 1][0]]
        ):
            k = i + 1  # the value's last piece
            while (
                k + 1 < len(sentences)
                and k - i <= CROWD  # bounded: a line of fields is no cost
                and sentences[k][1].rstrip().endswith((";", ","))
                and "\n" not in text[sentences[k][0] : sentences[k + 1][0]]
                and not _KEY.match(sentences[k + 1][1])
            ):
                k += 1
            end = sentences[k][0] + len(sentences[k][1])
            out.append((start, text[start:end], bisect_left(starts, end) - bisect_left(starts, start + key.end()) > 2))
            i = k + 1
            continue
        out.append((start, sentence, False))
        i += 1
    return out


def _field(
    key: re.Match[str] | None, start: int, inside: list[Span], keys: dict[int, str], known: frozenset[str]
) -> bool:
    """Whether `key` names a relation: a word or a few of a label, no name ("Anna Jones: A"), no
    remark ("Note: A", "Source: W"), no pronoun ("He thanked B: A"), not only function words or
    one or two letters ("From:", "To:", "Cc:")."""
    if key is None:
        return False
    words = key.group(1).lower().split()
    return not (
        any(
            start + key.start(1) <= s.start < start + key.end(1) and (" " in s.text.strip() or keys[s.start] in known)
            for s in inside
        )
        or set(words) & _REMARK
        or words[0] in _PRONOUNS
        or all(w in _PARTICLES for w in words)
        or len("".join(words)) <= 2
    )


def fallback_links(
    text: str,
    sentences: list[tuple[int, str]],
    spans: list[Span],
    keys: dict[int, str],
    subject: str | None,
    relations: list[tuple[str, str, str, float]],
    known: frozenset[str] = frozenset(),
) -> list[tuple[str, str, str, float]]:
    """Phrase relations subject -> name (name -> subject when the words after the name label it)
    for each name of a sentence that no relation of `relations` (the chunk's, co-occurrence aside)
    joins to the subject or to another name of its sentence; `known` the store's titles,
    normalised (a lone opening word is a name only when one)."""
    if not subject or not ENABLED:
        return []
    linked: dict[str, set[str]] = {}
    for src, dst, kind, _ in relations:
        if kind != "co_occurs":
            linked.setdefault(src, set()).add(dst)
            linked.setdefault(dst, set()).add(src)
    out: dict[tuple[str, str], tuple[str, float]] = {}
    starts = [s.start for s in spans]
    code = _code(text)
    text, inline = _plain(text)  # a name in `code` gets no link; code's words label none
    block = first = last = 0
    for start, sentence, register in _keyed(text, sentences, starts):
        end = start + len(sentence)
        while first < len(spans) and spans[first].start < start:
            first += 1
        last = max(last, first)
        while last < len(spans) and spans[last].start < end:
            last += 1
        while block < len(code) and code[block][1] <= start:
            block += 1
        if register or (block < len(code) and code[block][0] <= start):
            continue  # "Entries: A; B; C"; a code block's lines ("image: nginx")
        inside = spans[first:last]
        names = {keys[s.start] for s in inside}
        if len(names) > CROWD:
            continue
        if _POSSESSIVE.match(sentence):
            continue  # "Its rival, in B, is owned by O": the rival's relation, not the subject's
        key = _KEY.match(sentence)
        if not key and _instruction(sentence, start, inside, known):
            continue
        field = _field(key, start, inside, keys, known)
        lead = start + len(sentence) - len(sentence.lstrip(" *-\u2022#>\t"))
        lone: dict[str, Span] = {}  # a name's first mention in the sentence
        for s in inside:
            if (
                keys[s.start] not in lone
                and keys[s.start] != subject
                and not linked.get(keys[s.start], set()) & (names | {subject}) - {keys[s.start]}
                and not (key and s.start < start + key.end())  # the key of "Key: value" is its label
                # a lone word opening its sentence unknown to the store: an imperative or a heading
                # ("Open the Settings page", "About us"), not a name
                and not (s.start == lead and " " not in s.text.strip() and keys[s.start] not in known)
                and not _OWNER.match(text, s.end)
                and not _OWNER.search(s.text)
                and bisect_right(inline, s.start) % 2 == 0  # not inside an inline code span
            ):
                lone[keys[s.start]] = s
        if key and not field:
            key = None  # "Anna Jones: A", "Note: A", "To: B": the value read as a sentence
        cuts = [m.start() for m in _CUT.finditer(text, start, end)] if lone else []
        found: list[tuple[str, list[str], bool]] = []
        for name, span in lone.items():
            reverse = False
            if key and start + key.end() <= span.start:
                label = _words(key.group(1))
            else:
                at = bisect_right(cuts, span.start - 1)
                lo = cuts[at - 1] + 1 if at else start
                hi = next((c for c in cuts[bisect_left(cuts, span.end) :]), end)
                denied = _denied(_words(text[lo:hi]))
                label, reverse = (
                    ([], False) if denied else _label(text, lo, hi, span, [s for s in inside if s is not span])
                )
            label = [w for w in label if not w.isdigit()]
            if label:
                found.append((name, label, reverse))
        for name, label, reverse in found:
            weight = WEIGHT / len(found)
            pair = (name, subject) if reverse else (subject, name)
            if pair not in out or out[pair][1] < weight:
                out[pair] = (PHRASE + " ".join(label), weight)
    return [(src, dst, kind, weight) for (src, dst), (kind, weight) in out.items()]
