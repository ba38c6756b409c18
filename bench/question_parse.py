"""How often the question's grammar counts a chain's hops right (#28): per spent multi-hop corpus, the
share of questions whose `steps()` equals the hop count the corpus gives, by hop count, and how often
`hop_words()`'s nesting read (`question_parse`) finds as many relations as `steps()` (its groups
then need no merging).

    .venv/bin/python -m bench.question_parse [--corpus easy hard ...] [--show-misses CORPUS ...]

Every corpus offered is spent and run by default (`fresh` and `hushed` since #28 session 13, `swathed` and
`shrouded` since session 15).
Figures "before" come from running this file against an older tree, from outside the worktree
(`cd /tmp; PYTHONPATH=<old tree>:<worktree>`: `-m` puts the current directory first on the path, so
run from the worktree `gateway` is the new one);
`hop_words` is reported only where the tree has it. In-process, no gateway: ~10 s.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable

from bench.multihop_blind import build_blind
from bench.multihop_cloaked import build_cloaked
from bench.multihop_corpus import Doc, Question, build
from bench.multihop_draped import build_draped
from bench.multihop_fresh import build_fresh
from bench.multihop_hard import build_hard
from bench.multihop_heldout import build_heldout
from bench.multihop_hushed import build_hushed
from bench.multihop_masked import build_masked
from bench.multihop_muffled import build_muffled
from bench.multihop_sealed import build_sealed
from bench.multihop_shrouded import build_shrouded
from bench.multihop_swathed import build_swathed
from bench.multihop_unseen import build_unseen
from bench.multihop_veiled import build_veiled
from gateway.knowledge_graph import question

CORPORA: dict[str, Callable[[], tuple[list[Doc], list[Question]]]] = {
    "easy": lambda: build(40, 40),
    "hard": build_hard,
    "unseen": build_unseen,
    "heldout": build_heldout,
    "sealed": build_sealed,
    "fresh": build_fresh,
    "blind": build_blind,
    "veiled": build_veiled,
    "masked": build_masked,
    "cloaked": build_cloaked,
    "draped": build_draped,
    "muffled": build_muffled,
    "hushed": build_hushed,
    "swathed": build_swathed,
    "shrouded": build_shrouded,
}


def report(label: str, questions: list[Question], show: bool) -> None:
    right: Counter[int] = Counter()
    total: Counter[int] = Counter()
    counted: Counter[tuple[int, int]] = Counter()
    agree = 0
    hop_words = getattr(question, "hop_words", None)
    parse: Callable[[str], tuple[list[list[str]], int]] | None = None
    if hop_words is not None:
        from gateway.knowledge_graph.question_parse import parse as read  # absent on older trees

        parse = read
    for q in questions:
        n = question.steps(q.text)
        total[q.hops] += 1
        right[q.hops] += n == q.hops
        counted[(q.hops, n)] += 1
        if parse is not None:
            agree += len(parse(q.text)[0]) == n
        if show and n != q.hops:
            groups = hop_words(q.text) if hop_words is not None else None
            print(f"    hops {q.hops}, steps {n}: {q.text}" + (f"  {groups}" if groups is not None else ""))
    share = sum(right.values()) / len(questions)
    by_hops = "  ".join(f"{h}-hop {right[h]}/{total[h]}" for h in sorted(total))
    confusion = " ".join(f"{h}->{n}:{c}" for (h, n), c in sorted(counted.items()) if h != n)
    line = f"{label:8} {len(questions):4} questions  steps right {share:6.1%}  ({by_hops})"
    if parse is not None:
        line += f"  nesting read agrees with steps {agree / len(questions):6.1%}"
    print(line + (f"  miscounted: {confusion}" if confusion else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    spent = list(CORPORA)
    parser.add_argument("--corpus", nargs="+", choices=list(CORPORA), default=spent)
    parser.add_argument("--show-misses", nargs="*", default=[], choices=list(CORPORA))
    args = parser.parse_args()
    for label in args.corpus:
        _docs, questions = CORPORA[label]()
        report(label, questions, label in args.show_misses)


if __name__ == "__main__":
    main()
