"""The question's likeness to relations named by their own words (#28), by the store's embedder.

A relation no pattern types is stored as `~` + the words that link its two mentions ("~came into
the world in", `extract._phrases`). The walk follows such a relation when the question means it,
which no word list can say for wording nobody listed: the cosine between the question's vector
(already computed for the vector search) and the phrase's vector does. Phrase vectors are computed
once per process and kept (`PhraseVectors`): ingestion warms them for the phrases of each file it
indexes, so a search embeds only phrases this process has never seen (another process's files).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable, Collection, Sequence

import numpy as np

from gateway.knowledge_graph.patterns import CUES

Embed = Callable[[list[str]], Awaitable[list[list[float]]]]
# a question's words by hop of its chain and the hop of each asked type (`hops.hop_plan`)
Plan = Callable[[], tuple[list[list[str]], dict[str, int]]]
MAX_PHRASES = 50_000  # kept vectors (384 floats each: ~77 MB at the cap with MiniLM)


class PhraseVectors:
    """Unit vectors of phrase relation types, embedded once and kept (least recently asked dropped past
    the cap)."""

    def __init__(self, embed: Embed) -> None:
        self._embed = embed
        self._vectors: dict[str, np.ndarray] = {}
        self._lock = asyncio.Lock()

    async def warm(self, phrases: Sequence[str]) -> None:
        """Embed the phrases not known yet (one batch); the known ones become the newest, so the
        cap drops the least recently asked (a common question word is asked often, never dropped
        for being learned first)."""
        vectors = self._vectors
        for p in phrases:
            if (row := vectors.pop(p, None)) is not None:
                vectors[p] = row
        missing = sorted({p for p in phrases if p not in self._vectors})
        if not missing:
            return
        async with self._lock:
            missing = [p for p in missing if p not in self._vectors]
            if not missing:
                return
            rows = np.asarray(await self._embed([p[1:] for p in missing]), dtype=np.float32)
            rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)
            for phrase, row in zip(missing, rows, strict=True):
                self._vectors[phrase] = row
            # the least recently asked go first, never the pattern types' words (every walk hop
            # compares with them); only the first few keys are looked at, not all 50,000
            excess = len(self._vectors) - MAX_PHRASES
            if excess > 0:
                dropped = list(itertools.islice((p for p in self._vectors if p not in KIND_WORDS), excess))
                for p in dropped:
                    del self._vectors[p]

    def relate(
        self,
        question: list[float],
        words: Sequence[str] = (),
        kinds: Collection[str] = (),
        plan: Plan | None = None,
    ) -> Likeness:
        """The likeness of one question (its embedding and its relation words, `kinds` those of
        them that name no relation beyond the types it asks for: a kind of entity, "town", or a word
        of a type's cue, "grew" of "grew up") to relation words; `plan`, its words by hop of its
        chain (innermost first) and the hop of each asked type (`hops.hop_plan`), read only when
        the question is walked."""
        return Likeness(self, question, words, kinds, plan)

    def cosines(self, phrases: Sequence[str], to: np.ndarray) -> dict[str, np.ndarray]:
        found = [p for p in phrases if p in self._vectors]
        if not found:
            return {}
        sims = np.stack([self._vectors[p] for p in found]) @ to.T
        return dict(zip(found, sims, strict=True))

    def matrix(self, phrases: Sequence[str]) -> np.ndarray:
        return np.stack([self._vectors[p] for p in phrases])


class Likeness:
    """One question's likeness to relation words (`rest`, `table`), and each phrase's
    likeness to the pattern types (`kinds`: "~came into the world in" is most like "born in")."""

    def __init__(
        self,
        vectors: PhraseVectors,
        question: list[float],
        words: Sequence[str] = (),
        kinds: Collection[str] = (),
        plan: Plan | None = None,
    ) -> None:
        self._vectors = vectors
        q = np.asarray(question, dtype=np.float32)
        self._q = q / max(float(np.linalg.norm(q)), 1e-9)
        self._rests: dict[tuple[str, ...], np.ndarray] = {}
        # the question's own relation words ("mentor", "founder", "raised"), each compared with a
        # relation by its vector and its stem: a whole question's vector is mostly its last words
        # ("spend their childhood"), so a relation named by one word elsewhere ("the mentor of")
        # is barely like it, while the word itself is like "taught"
        self._words = [w for w in dict.fromkeys(words) if w]
        self._stems = [stem(w) for w in self._words]
        # the words naming a kind of entity ("town" in "In which town ...") or inside an asked type's
        # cue ("grew" of "grew up"): no relation beyond the asked types
        self._kinds = np.asarray([w in kinds for w in self._words], dtype=bool)
        self._open: dict[tuple[str, ...], np.ndarray] = {}
        self._stemmed: dict[str, np.ndarray] = {}
        self._word_rows: np.ndarray | None = None
        self._stack_key: tuple[str, ...] = ()
        self._stack = np.zeros((0, len(self._words)), dtype=bool)
        # the chain's hops (innermost first): which of the words name each one, and the hop of each
        # asked type its cue placed (`hops.hop_plan`); a relation is credited only for its own hop
        self._plan = plan
        self.hop_types: dict[str, int] = {}
        self.hop_count = 0
        self._hop_columns: list[list[int]] = []

    async def prepare(self) -> None:
        """Read the chain's hops (`plan`) and embed the question's relation words not known yet (one
        batch; words repeat from question to question, so mostly none)."""
        if self._plan is not None:
            hops, self.hop_types = self._plan()
            self._plan = None
            self.hop_count = len(hops)
            self._hop_columns = [[self._words.index(w) for w in hop if w in self._words] for hop in hops]
        if self._words:
            await self._vectors.warm([PHRASE_MARK + w for w in self._words])

    def words_like(
        self,
        phrases: Sequence[str],
        table: np.ndarray,
        used: Sequence[str],
        relations_only: bool = False,
        upto: int | None = None,
    ) -> np.ndarray:
        """Per phrase (`table`'s rows) and question relation word no relation on the path (`used`)
        accounts for already, their cosine; 1 for a word sharing its stem with one of the phrase's
        ("raised" and "~was raised in", "captain" and "~is captained by"). Rows x open words
        (`relations_only`: without the words that name no relation beyond the asked types)."""
        known = [PHRASE_MARK + w in self._vectors._vectors for w in self._words]
        if not self._words or not all(known):
            return np.zeros((len(phrases), 0), dtype=np.float32)
        open_ = self._unexplained(used)
        if relations_only:
            open_ = open_ & ~self._kinds
        if upto is not None:
            open_ = open_ & ~self._later(upto)
        if not open_.any():
            return np.zeros((len(phrases), 0), dtype=np.float32)
        if self._word_rows is None:  # the question's words are embedded once (`prepare`): stacked once
            self._word_rows = self._vectors.matrix([PHRASE_MARK + w for w in self._words])
        sims = table @ self._word_rows.T  # phrases x words
        stems = self._stem_rows(phrases) if len(phrases) else np.zeros_like(sims, dtype=bool)
        return np.asarray(np.where(stems, 1.0, sims)[:, open_], dtype=np.float32)

    def _later(self, k: int) -> np.ndarray:
        """The question's words that name only hops after hop `k` of its chain (`hops.hop_plan`,
        innermost first): a relation the path takes at hop `k` is no step for being like them ("was
        laid down at", like "harbour", is no step for "the captain of X" at the chain's first hop)."""
        first = np.full(len(self._words), -1)
        for j in reversed(range(len(self._hop_columns))):
            first[self._hop_columns[j]] = j
        return first > k

    def _rows(self) -> np.ndarray | None:
        """The question's words' vectors, stacked once (None until `prepare` embedded them all)."""
        if self._word_rows is None:
            if not all(PHRASE_MARK + w in self._vectors._vectors for w in self._words):
                return None
            self._word_rows = self._vectors.matrix([PHRASE_MARK + w for w in self._words])
        return self._word_rows

    def named(self, hop: int) -> bool:
        """Whether the question names hop `hop` of its chain: one of its words, or an asked type its
        cue placed there. `fits` gives an unnamed hop 0 for every phrase, which is no measure of fit."""
        return 0 <= hop < self.hop_count and (bool(self._hop_columns[hop]) or hop in self.hop_types.values())

    def fits(self, phrases: Sequence[str], table: np.ndarray) -> dict[str, np.ndarray]:
        """Per phrase (`table`'s rows), its likeness to each hop of the chain: the highest of its
        cosines with that hop's words (1 for a shared stem) and with the words of the asked types
        placed in it ("born in" for a hop named by "born", which is no relation word), 0 for a hop
        with none. The vectors are the ones the walk's hop stacked already; no embedding."""
        rows = self._rows() if self.hop_count and len(phrases) and self._words else None
        if rows is None:
            return {}
        sims = np.where(self._stem_rows(phrases), 1.0, table @ rows.T)
        out = np.zeros((len(phrases), self.hop_count), dtype=np.float32)
        for j, cols in enumerate(self._hop_columns):
            if cols:
                out[:, j] = sims[:, cols].max(axis=1)
        types = [(PHRASE_MARK + kind.replace("_", " "), j) for kind, j in self.hop_types.items()]
        types = [(t, j) for t, j in types if t in self._vectors._vectors]
        if types:
            like = table @ self._vectors.matrix([t for t, _ in types]).T
            for i, (_t, j) in enumerate(types):
                out[:, j] = np.maximum(out[:, j], like[:, i])
        return dict(zip(phrases, out, strict=True))

    def _stem_rows(self, phrases: Sequence[str]) -> np.ndarray:
        """`_stem_row` of every phrase, stacked: a walk hop asks for the same phrases once per path
        it widens, so the last stack is kept."""
        key = tuple(phrases)
        if self._stack_key != key:
            self._stack_key, self._stack = key, np.stack([self._stem_row(p) for p in phrases])
        return self._stack

    def _stem_row(self, phrase: str) -> np.ndarray:
        """Which of the question's relation words share a stem with one of the phrase's words."""
        row = self._stemmed.get(phrase)
        if row is None:
            own = {stem(t) for t in phrase[1:].split()}
            row = self._stemmed[phrase] = np.asarray([s in own for s in self._stems], dtype=bool)
        return row

    def _unexplained(self, used: Sequence[str]) -> np.ndarray:
        """The question's relation words none of `used` (phrases or pattern types) stands for: not
        sharing a stem with it and less like it than `EXPLAINED`."""
        key = tuple(sorted(used))
        if key not in self._open:
            open_ = np.ones(len(self._words), dtype=bool)
            rel = [u if u.startswith(PHRASE_MARK) else PHRASE_MARK + u.replace("_", " ") for u in used]
            rel = [r for r in rel if r in self._vectors._vectors]
            for u in used:  # a pattern type stands for the words whose cue asked for it ("designer": made_by)
                if not u.startswith(PHRASE_MARK) and u in CUES:
                    open_ &= ~np.asarray([CUES[u].search(w) is not None for w in self._words], dtype=bool)
            if rel:
                sims = self._vectors.matrix(rel) @ self._vectors.matrix([PHRASE_MARK + w for w in self._words]).T
                for r, row in zip(rel, sims, strict=True):
                    own = {stem(t) for t in r[1:].split()}
                    open_ &= ~((row >= EXPLAINED) | np.asarray([s in own for s in self._stems], dtype=bool))
            self._open[key] = open_
        return self._open[key]

    def rest(self, used: Sequence[str]) -> np.ndarray:
        """What the question still asks once the relations on a path are accounted for: its vector
        with the directions of those relations' words (`used`: phrases or pattern types) projected
        out (Gram-Schmidt), unit length. "Where was the person who started the label that released
        X raised?" is, as a whole, most like "founded by"; after a path "issued on the", "founded
        by" it is most like "was raised in", the relation the next hop has to match."""
        known = [u if u.startswith("~") else "~" + u.replace("_", " ") for u in used]
        known = [u for u in known if u in self._vectors._vectors]
        if not known:
            return self._q
        key = tuple(sorted(known))
        if key in self._rests:  # many entities of one hop share their path's relations
            return self._rests[key]
        rest = self._q.copy()
        basis: list[np.ndarray] = []
        for row in self._vectors.matrix(known):
            for b in basis:
                row = row - float(row @ b) * b
            norm = float(np.linalg.norm(row))
            if norm > 1e-6:
                basis.append(row / norm)
        for b in basis:
            rest -= float(rest @ b) * b
        self._rests[key] = rest / max(float(np.linalg.norm(rest)), 1e-9)
        return self._rests[key]

    def table(self, phrases: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """The embedded ones of `phrases` and their unit vectors as rows (one stack per walk hop)."""
        known = [p for p in phrases if p in self._vectors._vectors]
        return known, (self._vectors.matrix(known) if known else np.zeros((0, self._q.shape[0]), np.float32))

    def to_path(self, table: np.ndarray, used: Sequence[str]) -> np.ndarray:
        """Per row of `table` (phrase vectors), its highest cosine with the relations `used` (phrases
        or pattern types) of a path; 0 where none of them is embedded."""
        known = [u if u.startswith(PHRASE_MARK) else PHRASE_MARK + u.replace("_", " ") for u in used]
        known = [u for u in known if u in self._vectors._vectors]
        if not known or not len(table):
            return np.zeros(len(table), dtype=np.float32)
        return np.asarray((table @ self._vectors.matrix(known).T).max(axis=1), dtype=np.float32)

    async def kinds(self, phrases: list[str]) -> dict[str, dict[str, float]]:
        """Per phrase, its cosine to each pattern type's words ("~came into the world in" → born_in 0.58, ...)."""
        await self._vectors.warm([*phrases, *KIND_WORDS])
        types = self._vectors.matrix(list(KIND_WORDS))
        names = list(KIND_WORDS.values())
        return {
            p: dict(zip(names, (float(x) for x in sims), strict=True))
            for p, sims in self._vectors.cosines(phrases, types).items()
        }


PHRASE_MARK = "~"
EXPLAINED = 0.6  # a relation on the path this like a question word (or sharing its stem) stands for it
_SUFFIXES = ("ings", "ing", "ers", "ors", "er", "or", "ed", "es", "s", "e", "d")


def stem(word: str) -> str:
    """A crude stem: the word without one inflection or agent suffix, if 4 letters are left
    ("founder", "founded" -> "found"; "captained" -> "captain"; "raised" -> "rais")."""
    w = word.lower()
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            return w[: -len(suffix)]
    return w


# the pattern types by their words, as phrases are: "~founded by" -> founded_by
KIND_WORDS: dict[str, str] = {"~" + kind.replace("_", " "): kind for kind in CUES}
