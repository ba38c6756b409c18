"""Turning a user's question into a safe full-text query.

A raw question is not an FTS5 query: `what's "NEAR" (v2.1)? AND/OR -x*` is full of operators and
syntax errors. We keep only word characters, quote every term (so AND, OR, NOT, NEAR and `*` are
plain words), turn a punctuated word such as `10.0.0.7` or `e-mail` into a phrase (the index splits
it the same way), drop common English stopwords, and OR the terms: BM25 then ranks chunks matching
more and rarer terms first, which is what a question wants (an AND of every word would find nothing
for most questions).
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 64  # a pasted paragraph as a query must not become a 1000-term OR

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below between
    both but by can could did do does doing down during each few for from further had has have having he her here
    hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of
    off on once only or other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up very was we were what
    when where which while who whom why will with would you your yours yourself yourselves""".split()
)


def query_terms(text: str) -> list[str]:
    """Distinct search terms (single words or multi-word phrases), lower-cased, stopwords dropped.

    If every word is a stopword ("what is this?"), the stopwords are kept: better a weak query than none.
    """
    terms: list[str] = []
    fallback: list[str] = []
    for raw in text.split():
        pieces = [p.lower() for p in _WORD.findall(raw)]
        if not pieces:
            continue
        term = " ".join(pieces)
        target = fallback if len(pieces) == 1 and pieces[0] in STOPWORDS else terms
        if term not in target:
            target.append(term)
    return (terms or fallback)[:MAX_TERMS]


def fts5_query(text: str) -> str | None:
    """An FTS5 MATCH expression for a free-text question, or None when it has no searchable word."""
    terms = query_terms(text)
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
