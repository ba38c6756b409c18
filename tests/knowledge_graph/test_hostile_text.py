"""Text a tenant controls (documents, questions) costs the knowledge graph linear time and bounded
memory: extraction on runs of whitespace, the question reading on 100,000-character questions, the
entity-key cache on long stretches of text. The bounds are generous (a quadratic regex on 100,000
spaces takes minutes, these take well under a second); they catch a shape, not a speed."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from gateway.knowledge_graph import names, question_steps
from gateway.knowledge_graph.extract import Gazetteer, RuleExtractor, extract
from gateway.knowledge_graph.hops import CACHED_QUERY_CHARS, _cached_plan, hop_plan
from gateway.knowledge_graph.lexicon import _normalise_name, normalise
from gateway.knowledge_graph.question import MAX_RELATION_WORDS, relation_words, steps


def test_extraction_is_linear_on_long_runs_of_spaces() -> None:
    text = "The Alpha Bridge" + " " * 100_000 + "xx Beta Town designed it."
    started = time.monotonic()
    graph = extract(RuleExtractor(), text, known=Gazetteer(["Alpha Bridge", "Beta Town"]))
    assert time.monotonic() - started < 5
    assert graph is not None


_SPACES = " " * 100_000
# one case per shape of the second round of extraction rules (#28), each at a size where quadratic
# work takes minutes: runs of spaces inside the shape, and one endless sentence of thousands of names
_SHAPES = {
    "aside, spaces": "The mill," + _SPACES + "in Beta Town," + _SPACES + "is run by Gamma Hall.",
    "aside, repeated": "The mill" + ", in Beta Town" * 12_000 + ", is run by Gamma Hall.",
    "aside, commas": "Alpha Bridge" + "," * 100_000 + " in Beta Town, is run by Gamma Hall.",
    "fronted, spaces": "Restored by Alpha Hall" + _SPACES + ", the Beta Mill grinds rye.",
    "fronted, repeated": "Restored by Alpha Hall, " * 12_000 + "the Beta Mill grinds rye.",
    "participle before a preposition": "Alpha Bridge" + _SPACES + "founded in " * 12_000 + "Beta Town.",
    "title's lower-case head": "the Alpha canal " * 12_000,
    "given names": " ".join(f"Ann{i} Holt{i} met Ann{i}." for i in range(12_000)),
    "a list of names": "The mill, " + ", ".join(f"Name{i} Town" for i in range(12_000)) + ", is run by Gamma Hall.",
    # tables and lists (#28): thousands of rows and items, runs of spaces inside an item, a heading, a row
    "a table of names": "## Halls\n\n| Name | Year |\n|---|---|\n"
    + "".join(f"| Name{i} Town | 1900 |\n" for i in range(12_000)),
    "a list of items": "Halls:\n" + "".join(f"- Name{i} Town, a hall\n" for i in range(12_000)),
    "a list item, spaces": "Halls:\n- Alpha Bridge" + _SPACES + "x\n- Beta Town\n",
    "a heading, spaces": "## Alpha" + _SPACES + "x #\n- Beta Town\n",
    "a table row, pipes": "| Alpha Bridge |" + " |" * 50_000 + "\n|---|---|\n| Beta Town |" + _SPACES + "|\n",
    # session 15 (#28): a fronted participle opening every sentence (its name check read the whole
    # text once per sentence: 12,000 took 85 s), an ampersand run, a key-value table of dated values
    "fronted participles": "Trained at Alpha Hall, Beta Vell sang. " * 12_000,
    "an ampersand run": " & ".join(f"Name{i}" for i in range(12_000)) + " founded Beta Town.",
    "a table of dated values": "| Field | Detail |\n|---|---|\n"
    + "".join(f"| Born | Beta Town, {1800 + i % 200} |\n| Founded | 1901, by Name{i} Hall |\n" for i in range(6_000)),
}


@pytest.mark.parametrize("shape", sorted(_SHAPES))
def test_extraction_is_linear_on_the_shapes_of_its_rules(shape: str) -> None:
    known = Gazetteer(["Alpha Bridge", "Beta Town", "Oster canal"])
    started = time.process_time()
    graph = extract(RuleExtractor(), _SHAPES[shape], known=known, subject=("Sela Mill", "entity"))
    assert time.process_time() - started < 5, shape
    assert graph.entities


def test_a_huge_question_is_read_in_linear_time_with_a_bounded_word_list() -> None:
    tag = ["".join(chr(97 + i // 26**k % 26) for k in range(3)) for i in range(8_000)]  # aaa, baa, ...
    question = "Where was the " + " ".join(f"mentor{t} of the founder{t}" for t in tag) + " raised?"
    started = time.monotonic()
    words = relation_words(question)
    assert steps(question) > 1
    assert steps("What is " + "Ab's " * 20_000 + "birthplace?") >= 1
    assert time.monotonic() - started < 5
    assert len(words) == MAX_RELATION_WORDS  # each one is embedded: a question cannot send 15,000


# a long run of spaces before a question's last word, after the endings `steps` tests for (a
# stranded preposition, "out of", "a member of"): each ending is tried once, not once for each way
# of splitting the run between two optional spaces (the first took 3.9 s at 40,000 spaces)
_QUESTION_ENDS = {
    "stranded preposition": "What is the part of the country the Morrowby lies in",
    "particle and of": "Which club did Ada Vell drop out of",
    "copula's noun and of": "Which band is Ada Vell a member of",
}


@pytest.mark.parametrize("end", sorted(_QUESTION_ENDS))
def test_a_question_ending_on_a_run_of_spaces_is_read_in_linear_time(end: str) -> None:
    started = time.process_time()
    assert steps(_QUESTION_ENDS[end] + _SPACES + "x") >= 1
    assert time.process_time() - started < 2, end


# the question forms read since session 15 (`question_request`'s polite leads, closing "please",
# "whoever" requests and bare phrases; a participle and a mid-sentence "whose", whose `question_steps`
# rules were dropped, kept as hostile shapes): runs of spaces inside each shape, and each shape
# repeated thousands of times. Only the time is asserted (what a hostile text reads as is no contract)
_FORMS = {
    "polite lead, spaces": "Could you" + _SPACES + "tell me the river the inventor of Brask Lamp settled in",
    "do you know, spaces": "do you know the river the inventor of Brask Lamp settled in" + _SPACES + ", please",
    "closing please, spaces": "I'd like to know the river the founder of Brask settled in,"
    + _SPACES
    + "please"
    + _SPACES,
    "whoever request, spaces": "look up whoever" + _SPACES + "set up the label Tove Lind worked for",
    "participle, repeated": "Which house staged " + "the opera captured on " * 12_000 + "Brask Live?",
    "participle, spaces": "Which house staged the opera" + _SPACES + "captured" + _SPACES + "on Brask Live?",
    "whose, repeated": "Who is the person " + "whose firm introduced the town " * 12_000 + "Brask?",
    "whose, spaces": "Who is the person whose" + _SPACES + "firm" + _SPACES + "introduced Brask?",
    "participle in a phrase, repeated": "the county " + "containing the place " * 12_000 + "Tove Lind came from?",
}


@pytest.mark.parametrize("form", sorted(_FORMS))
def test_the_question_forms_are_read_in_linear_time(form: str) -> None:
    started = time.process_time()
    steps(_FORMS[form])
    assert time.process_time() - started < 2, form


def test_long_text_is_not_kept_by_the_key_cache() -> None:
    before = _normalise_name.cache_info().currsize
    for i in range(50):
        assert normalise(f"{i} " + "a stretch of a sentence " * 500).startswith(f"{i} a stretch")
    assert _normalise_name.cache_info().currsize == before
    assert normalise("Ada  Kettle's") == "ada kettle"


def test_a_possessive_names_the_same_number_of_relations_as_its_of_form() -> None:
    for possessive, of_form in [
        ("What is Ada Kettle's birthplace?", "What is the birthplace of Ada Kettle?"),
        ("Who is the Skiers' captain?", "Who is the captain of the Skiers?"),
        ("Where was the Orrin Garden's designer raised?", "Where was the designer of the Orrin Garden raised?"),
    ]:
        assert steps(possessive) == steps(of_form), (possessive, of_form)


def test_long_queries_are_not_kept_by_the_hop_plan_cache() -> None:
    question = "Where was the founder of Acme born?"
    assert hop_plan(question) is hop_plan(question)  # an ordinary question is planned once
    before = _cached_plan.cache_info().currsize
    for i in range(20):
        long = f"Where was the founder of Acme {i} born? " + "and the rest " * (CACHED_QUERY_CHARS // 10)
        assert hop_plan(long).words
    assert _cached_plan.cache_info().currsize == before


class _Scanned:
    """A compiled pattern's stand-in that counts the characters handed to it: the work a rule does,
    counted rather than timed (a rule scanning the whole prefix at every match is quadratic)."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern, self.chars = pattern, 0

    def search(self, text: str, *args: int) -> re.Match[str] | None:
        self.chars += len(text)
        return self.pattern.search(text, *args)

    def findall(self, text: str, *args: int) -> list[Any]:
        self.chars += len(text)
        return self.pattern.findall(text, *args)


def test_a_capitalised_the_in_a_sentence_without_end_looks_back_a_few_characters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = ("word The Orrin Table Guide and more words, the things of The Vask House " * 2_800)[:200_000]
    scanned = _Scanned(names._TITLE_THE)
    monkeypatch.setattr(names, "_TITLE_THE", scanned)
    spans = {s.text for s in RuleExtractor().spans(text, Gazetteer([]))}
    assert {"The Orrin Table Guide", "The Vask House"} <= spans  # a capital "The" after a lower-case word: a title's
    assert 0 < scanned.chars < 20 * len(text)  # the whole prefix at each "The": 10**9 characters


def test_a_long_question_of_nouns_at_names_reads_a_few_characters_before_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    question = "Where did the chef at the Vask Kitchen of the town learn to cook? " * 650  # 42,900 characters
    scanned = _Scanned(question_steps.TOKEN)
    monkeypatch.setattr(question_steps, "TOKEN", scanned)
    assert steps(question) > 1
    assert scanned.chars < 20 * len(question)  # the whole prefix at each "the chef at": 14 million


# the fallback link's shapes (#28, `fallback.py`): a "Key:" piece after each name, one remark field
# of one repeated name, a page of one-name sentences; each page against one four times longer
_FALLBACK_SHAPES = {
    "colons after names": lambda n: "Kelby: " * n,
    "a remark field of one name": lambda n: "Note: " + "; ".join(["Kelby"] * n) + "\n",
    "one name a sentence": lambda n: " ".join(f"Name{i} Town." for i in range(n)),
    # markdown's inline code spans (each scan stops at the next backtick or blank line): runs of
    # backticks, lone backticks between names, one unclosed backtick before a long page
    "runs of backticks": lambda n: "Kelby ``` " * n,
    "lone backticks": lambda n: "Kelby `a " * n,
    "an unclosed backtick": lambda n: "`" + "Kelby was here.\n" * n,
}


@pytest.mark.parametrize("shape", sorted(_FALLBACK_SHAPES))
def test_the_fallback_link_is_linear_in_the_page(shape: str) -> None:
    def cost(n: int) -> float:
        started = time.process_time()
        extract(
            RuleExtractor(), _FALLBACK_SHAPES[shape](n), known=Gazetteer(["Kelby"]), subject=("Sela Mill", "entity")
        )
        return time.process_time() - started

    size = 8_000 if shape == "one name a sentence" else 2_500
    short, long = cost(size), cost(4 * size)
    assert long < 8 * short + 1.0, (shape, short, long)  # quadratic work: 16 times as long
