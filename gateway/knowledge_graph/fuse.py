"""The walk's ranking fused with two-hop expansion's when the walk completes a chain (#28).

Where an entity completes the question's chain of two or three relations (`RankOutcome.path`
"chain") the walk's ranking used to stand alone. Yet the walk completes chains wrongly: on the ten
spent corpora together (swathed shrouded hushed muffled draped cloaked masked veiled blind fresh,
1,294 multi-hop questions on this path) the answer was in the walk's top 10 for 68.5 % of them, and
in the top 10 of the walk or of two-hop expansion from hybrid's best hit (`expand.py`, which reads
no relation word, so it misreads none) for 78.2 %; the expansion's own first pages held most of
those it alone found (its ranks 1-4: 89 of 125). Personalised PageRank (`spread.py`) added 0.6
points to the walk's top 10 and is left out.

The expansion is trusted only where it starts where the chain starts: when hybrid's best hit is the
page of an entity the question names (`expand.opening`, read beside the walk; then, for a question
whose grammar reads a chain, `question.steps` >= 2, `expand.pages` lists the farthest hop first,
where a two-relation chain ends; one counted a chain by its relation types alone gets the nearest
first). There, over those corpora, fusing put 65 answers in the top 10 that were not and pushed 19
out; where hybrid's best is some other page, 4 and 2 (on held-out and sealed, the next corpora: 3
and 1 against 0 and 3 and a one-hop control lost; they helped decide this gate, so they are no
independent evidence for it), so there the walk's ranking stands (the expansion is not even read
past its first row: `Ranker._early`).

The two rankings are fused by weighted reciprocal rank, by page (a file: the expansion lists one
chunk a page, the walk may list two of one page, its later ones placed after every page's first): a
page scores 1 / (`RRF_K` + its rank in the walk's list) + vote / (`RRF_K` + its rank in the
expansion's), the walk's first `LEAD` pages kept first whatever the expansion says. A page both
lists hold is lifted; a page only the expansion lists enters after the walk's pages it does not
outscore. The expansion's vote follows the walk's own doubt, the number of entities completing the
chain at the best weight (`tied`): 1 - `DOUBT` / tied, 0.6 when one entity completes it, 0.8 when
two tie, nearer the walk's own 1 the more tie (the walk cannot tell its answers apart). Chosen on
the ten spent corpora pooled (the per-question dump and simulation under `/work/wt/e30_tools/`; no
corpus tuned alone): simulated multi-hop top 10 65.4 -> 68.8 % (the bench's per-corpus figures:
docs/ARCHITECTURE.md, step 3d), no corpus losing a question, MRR@10 up on eight (fresh -0.007,
hushed -0.004). Around them: a fixed vote of 0.7 gains 0.6 points more but loses a question on
hushed and one on cloaked (0.6 / 1.0 for one / several completers: cloaked -1); the walk's first
page alone kept instead of two lifts the pooled MRR 0.003 more but costs fresh 0.015; `RRF_K` 10
gains 2.0 points, 2 gains 4.0 and loses a question on hushed.

A pure function of the two rankings: no graph or backend call here, the same on every store.
"""

from __future__ import annotations

from gateway.knowledge_graph.blend import RankedHit
from gateway.knowledge_graph.expand import levelled

RRF_K = 5  # rank offset: the walk's first pages far ahead of its tenth, as in `blend.RRF_K`
LEAD = 2  # the walk's first pages, kept first (MRR@10 rests on them)
DOUBT = 0.4  # the expansion's vote is 1 - DOUBT / tied: 0.6 when one entity completes the chain


def vote(tied: int) -> float:
    """The expansion's weight beside the walk's (1), from the walk's doubt: the entities tied."""
    return 1.0 - DOUBT / max(tied, 1)


def fuse(walked: list[RankedHit], expanded: list[RankedHit], k: int, weight: float) -> list[RankedHit]:
    """The top k of the walk's hits and the expansion's, fused by page (weighted reciprocal rank,
    the walk's first `LEAD` pages first). A page is placed by its first hit, the walk's when it
    lists the page, else the expansion's; the walk's later hits of a page come after every page's
    first, in the walk's order (a page's tenth hit never jumps to second). Scores as
    `expand.interleave` gives them: a hit the walk ranks keeps its score in its own order, one the
    expansion brings in takes the score of the walk's hit it displaced, and the list never rises."""
    walk_rank = _ranks(walked)
    expand_rank = _ranks(expanded)
    score = {f: 1.0 / (RRF_K + r) for f, r in walk_rank.items()}
    for f, r in expand_rank.items():
        score[f] = score.get(f, 0.0) + weight / (RRF_K + r)
    first = [f for f, r in walk_rank.items() if r <= LEAD]
    rest = sorted(
        (f for f in score if f not in first),
        key=lambda f: (-score[f], walk_rank.get(f, len(walk_rank) + 1), expand_rank.get(f, 0)),
    )
    # each page's first hit at the page's place (the walk's when it lists the page); a page's later
    # walk hits after every page's first, in the walk's order, so none rides up with its page
    head: dict[str, RankedHit] = {}
    for h in [*walked, *expanded]:
        head.setdefault(h.file_id, h)
    later = [h for h in walked if head[h.file_id] is not h]
    order = [(head[f], f not in walk_rank) for f in [*first, *rest]] + [(h, False) for h in later]
    return levelled(order, walked, k)


def _ranks(hits: list[RankedHit]) -> dict[str, int]:
    """Each page's rank (1 first) in `hits`, by its first hit there."""
    ranks: dict[str, int] = {}
    for h in hits:
        ranks.setdefault(h.file_id, len(ranks) + 1)
    return ranks
