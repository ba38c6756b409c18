"""Relation patterns of the text and relation cues of questions: the vocabulary both sides share.

A relation pattern is a phrase between two entity mentions ("X was founded by Y"); `forward` says
whether the entity before it is the relation's source. A question's cues are the relation types its
wording asks for ("the founder of ..." → founded_by), which the ranker prefers when it follows
relations. The two lists are the same relation types, so what ingestion writes is what a question
can ask for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pattern:
    type: str
    regex: re.Pattern[str]
    forward: bool  # True: the entity before the phrase is the source ("X made by Y" → X made_by Y)


def _p(kind: str, phrases: str, forward: bool) -> Pattern:
    return Pattern(kind, re.compile(rf"\b(?:{phrases})\b", re.IGNORECASE), forward)


# Longer, passive phrases come before the active verbs they contain ("founded by" before "founded").
PATTERNS: tuple[Pattern, ...] = (
    _p("founded_by", r"(?:co-?)?founded by|established by|started by|set up by|created by", True),
    _p("founded_by", r"(?:co-?)?founder of|(?:co-?)?founded|established|set up", False),
    _p(
        "made_by",
        r"made by|manufactured by|produced by|built by|developed by|designed by|engineered by|a product of",
        True,
    ),
    _p(
        "made_by",
        r"makes|manufactures|produces|builds|develops|designs|the maker of|the manufacturer of|the developer of",
        False,
    ),
    _p("born_in", r"born in|born at|a native of|hails from|grew up in", True),
    _p("part_of", r"part of|a division of|a subsidiary of|a unit of|belongs to|a member of|owned by", True),
    _p("part_of", r"owns|acquired|the parent (?:company )?of", False),
    _p("located_in", r"based in|headquartered in|located in|situated in|lives in|settled in", True),
    _p(
        "led_by",
        r"led by|run by|headed by|managed by|directed by|chaired by|(?:chief executive|ceo)(?: is| was)?(?! of)",
        True,
    ),
    _p("led_by", r"leads|runs|heads|manages|directs|chairs|(?:the )?chief executive of", False),
    _p("written_by", r"written by|authored by|composed by|painted by", True),
    _p("written_by", r"wrote|authored|composed|painted|the author of", False),
    _p(
        "studied_at",
        r"studied(?: \w+)? at|read \w+ at|graduated from|an alumn\w* of|educated at|attended|trained at",
        True,
    ),
)

# Words in a question that ask for a relation type.
CUES: dict[str, re.Pattern[str]] = {
    # Word-bounded and in the forms a question about the relation uses ("the founder of", "who
    # started"), not the imperative verbs of a description ("create a cluster", "build options",
    # "start, stop or control a server"), which asked the graph for relations nobody meant.
    "founded_by": re.compile(
        r"\b(?:(?:co-?)?found(?:er|ers|ed|ing)|establish(?:ed|er|ers)|started|set up|creat(?:ed|or|ors))\b", re.I
    ),
    "made_by": re.compile(
        r"\b(?:makes|made|maker|makers|manufactur\w*|produc(?:es|ed|er|ers)|builds|built|builder|"
        r"develop(?:s|ed|er|ers)|design(?:s|ed|er|ers)|behind|engineered)\b",
        re.I,
    ),
    "born_in": re.compile(r"\b(?:born|birth\w*|native|hometown|grew up|comes? from)\b", re.I),
    "part_of": re.compile(
        r"\b(?:part of|division|subsidiar\w*|parent|belongs? to|owns|owned|owner|acquir\w*|member of)\b", re.I
    ),
    "located_in": re.compile(r"\b(?:based|headquarter\w*|located|situated|lives|lived|settled)\b", re.I),
    "led_by": re.compile(
        r"\b(?:leads|led|leaders?|runs|heads|head of|manag(?:es|ed|er|ers)|director|chair\w*|chief|ceo)\b", re.I
    ),
    "written_by": re.compile(
        r"\b(?:written|wrote|writer|author|authors|authored|composed|composer|painted|painter)\b", re.I
    ),
    "studied_at": re.compile(r"\b(?:stud(?:y|ied|ies)|graduat\w*|alma mater|alumn\w*|attend\w*|educated)\b", re.I),
}


def cues(question: str) -> set[str]:
    """The relation types the question's wording asks for."""
    return {kind for kind, regex in CUES.items() if regex.search(question)}
