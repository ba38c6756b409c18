"""The store's titles as names of a file's text (`Gazetteer`), and the words a file writes capitalised
mid-sentence (`MidSentence`). Split out of `names.py` (whose `RuleExtractor` reads both, and which
keeps under ~400 lines so): what is known of the corpus and the file before any span is found, apart
from the rules that find spans in one sentence.

A title of the store is a name wherever the text writes it, in any case, as whole words, the longest
title first; a lower-case word that ends enough of the store's titles ("... line", "... station")
ends a name the rules find too (`Gazetteer.heads`). A word the file writes capitalised after a
lower-case word is used as a name somewhere in it ("married Jared"), so the same word opening a
sentence is no participle or opening word to drop (`names._opening_participle`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from gateway.knowledge_graph.lexicon import _STOP

# a capitalised word after a lower-case word, mid-sentence ("met Jared"): a name's use, not an opening word's
_MID_SENTENCE = re.compile(r"\b[a-z]+[ \t]+([A-Z][a-z]+)\b")
# a lower-case word ends names ("the Mivdrark line") once it ends this many titles of the store: one
# title ("Meeting notes") is no naming habit, and a verb-looking word ("notes", "failed") is none
MIN_HEAD_TITLES = 3
_VERBISH = re.compile(r"(?:[^s]s|ed|ing)$")


class Gazetteer:
    """The corpus's titles as entity names, found in any case as whole words.

    Built once per file from the store's titles (hundreds, growing with the store), so it is a plain
    lookup by a title's first two letters rather than one regular expression of every title, whose
    compilation cost tens of milliseconds a file. The same matches as that expression (whole words,
    any case, the longest title first); titles whose lower case changes length keep to that expression."""

    def __init__(self, titles: Sequence[str], document: Sequence[str] = ()) -> None:
        self.document = MidSentence(*document)  # the file's chunks: words it writes capitalised mid-sentence
        names = sorted({t.strip() for t in titles if 2 <= len(t.strip()) <= 80}, key=len, reverse=True)
        self.names = names
        self.lower = frozenset(n.lower() for n in names)  # titles as a set: is this word one?
        self._by_start: dict[str, list[str]] = {}
        for name in names:  # longest first under each key
            self._by_start.setdefault(name.lower()[:2], []).append(name.lower())
        self._odd = any(len(n.lower()) != len(n) for n in names)
        # lower-case last words of titles that are otherwise names ("Harrow line", "Kell station"): the
        # corpus names things with them, so "the Mivdrark line" is one name before its page is known
        ends = Counter(
            words[-1]
            for words in (n.split() for n in names)
            if len(words) >= 2
            and words[-1].isalpha()
            and words[-1].islower()
            and words[-1] not in _STOP
            and not _VERBISH.search(words[-1])
            and all(w[:1].isupper() for w in words[:-1])
        )
        self.heads = frozenset(w for w, n in ends.items() if n >= MIN_HEAD_TITLES)

    def find(self, text: str) -> list[tuple[int, int]]:
        if not self.names:
            return []
        low = text.lower()
        if self._odd or len(low) != len(text):
            return _slow_find(tuple(self.names), text)
        found: list[tuple[int, int]] = []
        after = 0
        for m in _START.finditer(text):
            i = m.start()
            if i < after:
                continue
            for name in self._by_start.get(low[i : i + 2], ()):
                e = i + len(name)
                if low.startswith(name, i) and not (e < len(text) and _wordchar(text[e])):
                    found.append((i, e))
                    after = e
                    break
        return found


_START = re.compile(r"(?<!\w)(?=\S)")  # where a whole-word title can begin


def _wordchar(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


@lru_cache(maxsize=8)
def _slow_find_regex(names: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, names)) + r")(?!\w)", re.IGNORECASE)


def _slow_find(names: tuple[str, ...], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _slow_find_regex(names).finditer(text)]


class MidSentence:
    """The capitalised words texts write after a lower-case word ("met Jared"), collected once when
    first asked (one search of the whole text per opening word was quadratic). A file's chunks are
    extracted one by one, so `Gazetteer.document` holds one of these over every chunk of the file: a
    name written mid-sentence in another chunk is still a name."""

    def __init__(self, *texts: str) -> None:
        self.texts = texts
        self._words: frozenset[str] | None = None

    def __contains__(self, word: str) -> bool:
        if self._words is None:
            self._words = frozenset(m.group(1) for text in self.texts for m in _MID_SENTENCE.finditer(text))
        return word in self._words
