"""A question's entity keys: the names the `kg` ranker looks up in the graph (split out of
`ranker.py` to keep it small; `bench/bench_multihop.py` seeds PageRank with them too)."""

from __future__ import annotations

from gateway.knowledge_graph.extract import _CONNECTORS, _STOP, Extractor, Gazetteer, normalise
from gateway.knowledge_graph.question import _AUXILIARY, _acronym, _name
from gateway.knowledge_graph.question import TOKEN as _TOKEN
from gateway.knowledge_graph.question_words import ARTICLES, PREPS, TITLE_CONNECTORS

MAX_TITLED_KEYS = 8  # titles with lower-case function words looked up per question (`_titled`)


def query_keys(extractor: Extractor, query: str) -> list[str]:
    """Candidate entity keys of a question: its 1-5 word runs of names (capitalised words, codes with
    digits, "of"/"de"/... inside), as the text's names are found; a lone capitalised word opening
    the question ("Display ...", "Create ...") is no name unless it is an acronym or a code. A model
    extractor's spans (GLiNER) count too. Lower-case words are never looked up: every common word
    is the name of something in a large enough store ("Files", "Command" in manual pages)."""
    keys = [] if extractor.name == "rules" else [normalise(s.text) for s in extractor.spans(query, Gazetteer(()))]
    tokens = _TOKEN.findall(query)
    titled = 0
    for n in range(1, 6):
        for i in range(len(tokens) - n + 1):
            gram = tokens[i : i + n]
            if not (_name(gram[0]) and _name(gram[-1])) or not all(_name(t) or t in _CONNECTORS for t in gram):
                if titled < MAX_TITLED_KEYS and _titled(gram):
                    # a title keeping its short function words in lower case ("A Summer at Tarn",
                    # "The House on Ash Lane", "Salt for Ely", "Ely and Tarn Railway"): looked up
                    # whole too; unknown runs count nothing, and a known one drops its parts (a
                    # few per question: a long text pasted as one is no question naming titles)
                    keys.append(normalise(" ".join(gram)))
                    titled += 1
                continue
            if n == 1 and (gram[0].lower() in _STOP or len(gram[0]) < 2 or (i == 0 and not _acronym(gram[0]))):
                continue
            keys.append(normalise(" ".join(gram)))
            # a name whose title goes on in lower case ("Buldlaald moss", "Orbis reactor"): the
            # name with its next one or two words, looked up like any key (unknown keys count nothing)
            tail = tokens[i + n : i + n + 2]
            for m in range(1, len(tail) + 1):
                if not all(t.islower() and t not in _STOP and t not in _AUXILIARY for t in tail[:m]):
                    break
                keys.append(normalise(" ".join(gram + tail[:m])))
    return list(dict.fromkeys(k for k in keys if k))


def _titled(gram: list[str]) -> bool:
    """Whether a run of words reads as a title with lower-case function words inside: names at both
    ends, each lower-case word inside one of the short words titles keep in lower case
    (`TITLE_CONNECTORS`), right before a name."""
    inner = gram[1:-1]
    return (
        len(gram) >= 3
        and _name(gram[0])
        and _name(gram[-1])
        and any(not _name(t) for t in inner)
        and all(_name(t) or (t in TITLE_CONNECTORS and _name(n)) for t, n in zip(inner, gram[2:], strict=True))
    )


def longest(keys: list[str]) -> list[str]:
    """Question entities, without those inside a longer one found too ("orbis" inside "orbis 9")."""
    keep: list[str] = []
    for key in sorted(keys, key=len, reverse=True):
        if not any(f" {key} " in f" {other} " for other in keep):
            keep.append(key)
    return keep


MAX_LOWER_KEYS = 48  # a lower-case question's candidate runs looked up (one batch; longest first)
# a single lower-case word is taken for a name only if the graph holds it in at most this many
# files: a name the user typed in lower case ("jolkova") is on its page and a few that mention
# it, while a common word some text capitalised ("files", "linux") is all over a large store
MAX_LOWER_WORD_FILES = 10
MAX_OPENED_KEYS = 16  # runs opening on an article or a preposition (`lower_keys`), looked up too
_OPENERS = ARTICLES | PREPS  # the words such a run opens on


def _edge(token: str) -> bool:
    """A token no lower-case name opens or closes on: a function, question or auxiliary word."""
    word = token.lower()
    return word in _STOP or word in _AUXILIARY or word in _CONNECTORS or len(word) < 2


def lower_keys(query: str) -> list[str]:
    """Candidate keys of a question typed in lower case ("where was the director of winter in
    jolkova born"), read only when `query_keys` finds no name at all and the question is a chain
    (`question.steps` >= 2: a one-relation question is hybrid's), so every capitalised question
    is read as before: its 1-5 word runs neither opening nor closing on a function, question or
    auxiliary word (nor holding an auxiliary), longest first, at most `MAX_LOWER_KEYS`. The graph
    knows few of them; the caller keeps the longest it knows and a single word only if it is rare
    in the store (`rare_lower`)."""
    tokens = _TOKEN.findall(query)
    keys: list[str] = []
    for n in range(5, 0, -1):
        for i in range(len(tokens) - n + 1):
            gram = tokens[i : i + n]
            if _edge(gram[0]) or _edge(gram[-1]) or any(t.lower() in _AUXILIARY for t in gram):
                continue
            keys.append(normalise(" ".join(gram)))
    # a title opening on an article or a preposition ("the drystar affair", "after tarn", "the last
    # of ely": a page's title keeps them, `index.title_of`): its runs of two words or more that open
    # on one, looked up after the others (own budget: they are what the walk needs when the rest are
    # common words) and kept only if the graph knows them and a page is titled by them (the caller's)
    opened = [
        normalise(" ".join(tokens[i : i + n]))
        for n in range(5, 1, -1)
        for i in range(len(tokens) - n + 1)
        if tokens[i].lower() in _OPENERS
        and not _edge(tokens[i + n - 1])
        and not any(t.lower() in _AUXILIARY for t in tokens[i : i + n])
        and not _edge(tokens[i + 1])
    ]
    plain = list(dict.fromkeys(k for k in keys if k))[:MAX_LOWER_KEYS]
    return plain + [k for k in dict.fromkeys(opened) if k and k not in plain][:MAX_OPENED_KEYS]


def numeric(key: str) -> bool:
    """Whether a key opens on a number ("2012", "2012 documentary"): a year or a count typed before a
    lower-case title names nothing capitalised, so the question is read as typed in lower case (a
    number that is itself a title, "1984", is looked up there too: the ranker's lower-case path)."""
    return key.split(" ", 1)[0].isdigit()


def rare_lower(known: list[str], files: dict[str, int]) -> list[str]:
    """Of the lower-case keys the graph knows, those read as the question's names: every run of two
    words or more, and a single word held in at most `MAX_LOWER_WORD_FILES` files."""
    return [k for k in known if " " in k or 0 < files.get(k, 0) <= MAX_LOWER_WORD_FILES]
