"""The guards of session 15's extraction rules (#28), through one file's graph (`build_file_graph`,
what the service stores for a file): an ampersand joins a name only before a firm-name ending; a
key-value row's year reads as a date only beside a participle label and as a plausible year; a
fronted participle's name check reads every chunk of the file. Each case is one the rules once got
wrong (the review of s15-d29); the texts are this test's own."""

from __future__ import annotations

from gateway.knowledge_graph.extract import RuleExtractor
from gateway.knowledge_graph.index import FileGraph, build_file_graph


def _graph(chunks: list[str], titles: tuple[str, ...] = ()) -> FileGraph:
    return build_file_graph(
        RuleExtractor(), "s", "f", "page.md", [(f"c{i}", t) for i, t in enumerate(chunks)], list(titles)
    )


def _typed(graph: FileGraph) -> set[tuple[str, str, str]]:
    return {(r.source, r.type, r.target) for r in graph.relations if r.type != "co_occurs"}


def _names(graph: FileGraph) -> set[str]:
    return {e.name for e in graph.entities}


def test_an_ampersand_joins_a_firm_ending_only() -> None:
    page = (
        "# Acme Corp\n\nAcme Corp is a company. Acme Corp was founded by Alice & Bob. "
        "Acme Corp supports Linux & Windows. Acme Corp was designed by Vell & Sons."
    )
    graph = _graph([page], ("Linux", "Windows"))
    assert {"Alice", "Bob", "Linux", "Windows", "Vell & Sons"} <= _names(graph), _names(graph)
    assert not {"Alice & Bob", "Linux & Windows"} & _names(graph)
    assert {b for _, rel, b in _typed(graph) if "founded" in rel} == {"alice", "bob"}, _typed(graph)
    assert ("acme corp", "made_by", "vell sons") in _typed(graph)


def test_an_ampersand_in_a_table_cell_coordinates() -> None:
    page = "# Acme Corp\n\nAcme Corp is a tool.\n\n| Field | Value |\n|---|---|\n| Maintainers | Alice & Bob |\n"
    assert not {"Alice & Bob"} & _names(_graph([page]))


def test_a_rows_dated_value_needs_a_participle_label_and_a_year() -> None:
    rows = (
        "| Founded by | 1901, by Bo Sarn |\n"  # the label's own preposition: not doubled
        "| Suite | 2000 at Tower Bridge |\n"  # no participle label: a number, no date
        "| Opened | 1901, with Cai Morl |\n"  # no preposition of a date
        "| Built | 19011 in Dag Holt |\n"  # five digits: no year
        "| Moved | 0999 in Eir Stam |\n"  # no plausible year
        "| Host | Main Server, 80 |\n"  # a port after the comma, no year
        "| Owner | Jane Doe (not anymore) |\n"  # a note that is no date
        "| Lead | Ann Vik (since the autumn of the year 1999 or so) |\n"  # a note too long
        "| Patron | Ola Berg (b. 1950) |\n"
    )
    page = "# Acme Corp\n\nAcme Corp is a hall.\n\n| Field | Value |\n|---|---|\n" + rows
    assert _typed(_graph([page])) == {("acme corp", "founded_by", "bo sarn"), ("acme corp", "~patron", "ola berg")}


def test_a_name_written_mid_sentence_in_another_chunk_stays_a_name() -> None:
    first = "# Vell Press\n\nVell Press is a printer. Jared in Paris, with Bo Sarn, founded Vell Press."
    second = "Later Bo Sarn married Jared."
    for chunks in ([first + "\n\n" + second], [first, second]):
        out = _typed(_graph(chunks))
        assert ("vell press", "founded_by", "jared") in out, (len(chunks), out)
        assert ("vell press", "founded_by", "paris") not in out, (len(chunks), out)


def test_a_participle_shaped_name_without_a_fronted_phrase_stays_a_name() -> None:
    # no comma closes the phrase, or no preposition follows the word: "Jared" is a name
    assert "Jared" in _names(_graph(["# Kafka\n\nKafka is a tool. Jared at Google wrote Kafka."]))
    assert "Jared" in _names(_graph(["# Kafka\n\nKafka is a tool. Jared and Bo Sarn wrote Kafka, a tool."]))
    # the fronted phrase itself: the participle is no name
    assert "Trained" not in _names(_graph(["# Kafka\n\nKafka is a tool. Trained at Alpha Hall, Bo Sarn wrote Kafka."]))
