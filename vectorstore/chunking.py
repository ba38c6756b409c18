"""Token-counted chunking with overlap, cutting at paragraph, line, sentence and word boundaries.

OpenAI's `auto` strategy is 800-token chunks with 400 tokens of overlap; `static` passes its own
`max_chunk_size_tokens` / `chunk_overlap_tokens`. We follow the same contract with the embedder's
own tokenizer (`count_tokens`), so "800 tokens" means what the model will see.

How: the text is cut into spans, as coarse as fits: paragraphs; a paragraph over the limit into
lines; a line into sentences; a sentence into words; a word (a base64 blob, a URL) into pieces of
characters. Spans are then packed greedily up to `max_tokens`; the next chunk starts as far back as
`overlap` tokens of whole spans allow, and always past the previous chunk's start, so the loop ends.
Every chunk is a slice of the original text (formatting kept), and none is empty or blank.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_PARAGRAPHS = re.compile(r"\n[ \t]*\n\s*")
_LINES = re.compile(r"\n")
# A sentence ends in . ! ? or their CJK forms, possibly followed by closing quotes or brackets.
_SENTENCES = re.compile(r"(?<=[.!?\u3002\uff01\uff1f])[\"'\u201d\u2019)\]]*\s+")
_WORDS = re.compile(r"\s+")

MAX_CHARS_PER_TOKEN = 12  # English averages 4-5; bounds a chunk's size whatever the tokenizer says
Span = tuple[int, int, int]  # start, end, tokens


def _split(text: str, start: int, end: int, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    """Sub-spans of text[start:end] separated by `pattern` (separators stay with the left piece)."""
    pieces: list[tuple[int, int]] = []
    pos = start
    for m in pattern.finditer(text, start, end):
        if m.end() > pos and m.start() > pos:
            pieces.append((pos, m.end()))
            pos = m.end()
    if pos < end:
        pieces.append((pos, end))
    return pieces


def _spans(text: str, start: int, end: int, level: int, count: Callable[[str], int], limit: int) -> list[Span]:
    """Spans of text[start:end], each at most `limit` tokens, recursing through finer separators."""
    patterns = (_PARAGRAPHS, _LINES, _SENTENCES, _WORDS)
    out: list[Span] = []
    for s, e in _split(text, start, end, patterns[level]) if level < len(patterns) else [(start, end)]:
        if not text[s:e].strip():
            continue
        tokens = count(text[s:e])
        if tokens <= limit:
            out.append((s, e, tokens))
        elif level + 1 < len(patterns):
            out.extend(_spans(text, s, e, level + 1, count, limit))
        else:
            out.extend(_characters(text, s, e, tokens, count, limit))
    return out


def _characters(text: str, start: int, end: int, tokens: int, count: Callable[[str], int], limit: int) -> list[Span]:
    """A single over-long word, cut by characters (estimated from its chars-per-token, then checked)."""
    out: list[Span] = []
    width = max(1, int((end - start) * limit / tokens * 0.9))
    pos = start
    while pos < end:
        stop = min(end, pos + width)
        n = count(text[pos:stop])
        while n > limit and stop - pos > 1:
            stop = pos + max(1, (stop - pos) * 3 // 4)
            n = count(text[pos:stop])
        out.append((pos, stop, n))
        pos = stop
    return out


def chunk_text(
    text: str, count_tokens: Callable[[str], int], *, max_tokens: int = 800, overlap: int = 400
) -> list[str]:
    """Chunks of at most ~`max_tokens` tokens, consecutive chunks sharing up to `overlap` tokens.

    Token counts of spans are summed, so a chunk can exceed `max_tokens` by the few tokens a
    tokenizer may add where spans join (none for WordPiece, which splits on whitespace). A span also
    counts at least len / MAX_CHARS_PER_TOKEN tokens: WordPiece turns a 100k-character blob without
    spaces into one [UNK], and such a "one-token" chunk must still be cut.
    """
    if max_tokens < 1:
        raise ValueError("max_tokens must be >= 1")
    if not 0 <= overlap < max_tokens:
        raise ValueError("overlap must be >= 0 and smaller than max_tokens")

    def count(piece: str) -> int:
        return max(count_tokens(piece), -(-len(piece) // MAX_CHARS_PER_TOKEN))

    spans = _spans(text, 0, len(text), 0, count, max_tokens)
    chunks: list[str] = []
    first = 0
    while first < len(spans):
        last, total = first, spans[first][2]
        while last + 1 < len(spans) and total + spans[last + 1][2] <= max_tokens:
            last += 1
            total += spans[last][2]
        piece = text[spans[first][0] : spans[last][1]].strip()
        if piece:
            chunks.append(piece)
        if last + 1 >= len(spans):
            break
        # Back up over whole spans worth at most `overlap` tokens, leaving room for the next new span.
        nxt, kept, room = last + 1, 0, max_tokens - spans[last + 1][2]
        while nxt - 1 > first and kept + spans[nxt - 1][2] <= min(overlap, room):
            nxt -= 1
            kept += spans[nxt][2]
        first = nxt
    return chunks
