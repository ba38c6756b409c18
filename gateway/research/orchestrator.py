"""One research run: search, read, take notes, answer with sources. Transport-free: it yields
events that `chat.py` and `responses.py` render.

Rounds: an initial web search for the question itself, then `iterations` rounds in which the
backend model proposes queries from the notes so far; each round searches the web (the configured
`gateway/tools/web_search` provider) and the knowledge base (`search_stores`) concurrently, reads the best
pages it has not read yet concurrently (`gateway/net/webpages.py`: address policy, robots.txt, caps),
and keeps numbered notes. Notes are trimmed to the model's context (`max_model_len` from the
backend's model list, else `GATEWAY_RESEARCH_CONTEXT_TOKENS`); if the backend still says the
context is exceeded, the answer is retried with half the notes (and the progress says so).
The answer ends with the sources actually consulted: `[n] title — url`.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from gateway.common.errors import APIError
from gateway.common.jsonutil import JSONDecodeError, loads
from gateway.net.webpages import Page, PageReader, PageRefused
from gateway.research.llm import ChatModel
from gateway.telemetry import tracing

log = logging.getLogger(__name__)

CHARS_PER_TOKEN = 3.5
ANSWER_RESERVE_TOKENS = 1024  # left for the instructions, the question and the answer
NOTE_CHARS = 1800  # at most this much of one page goes into a note
MAX_QUERIES = 3
MAX_ANSWER_ATTEMPTS = 3


@dataclass
class Source:
    title: str
    url: str
    snippet: str = ""
    kind: str = "web"  # or "file"
    file_id: str | None = None


@dataclass
class Note:
    n: int
    title: str
    url: str
    text: str
    kind: str = "web"
    file_id: str | None = None


# -- events --------------------------------------------------------------------------------------
@dataclass
class Progress:
    text: str


@dataclass
class Searched:
    query: str
    sources: list[Source]
    kind: str = "web"  # "web", "file" (the knowledge base) or "mcp" (an MCP server's search tool)


@dataclass
class Opened:
    url: str
    title: str


@dataclass
class Refused:
    url: str
    reason: str


@dataclass
class AnswerDelta:
    text: str


@dataclass
class Finished:
    answer: str
    notes: list[Note] = field(default_factory=list)


Event = Progress | Searched | Opened | Refused | AnswerDelta | Finished
WebSearch = Callable[[str], Awaitable[list[Source]]]
KnowledgeSearch = Callable[[list[str]], Awaitable[list[Source]]]
PageSink = Callable[[Page], Awaitable[None]]

PLAN = (
    "You plan web research. Reply with a JSON array of at most {n} short web search queries that would "
    "find what the notes do not yet say about the question. Reply with the JSON array only."
)
ANSWER = (
    "Answer the question from the numbered notes. Cite the notes you use as [n]. If the notes do not "
    "answer it, say what is missing. Do not list the sources at the end: they are appended for you."
)


def parse_queries(text: str, question: str) -> list[str]:
    """The planner's queries: a JSON array if there is one, else its non-empty lines."""
    found = re.search(r"\[.*\]", text, re.S)
    queries: list[str] = []
    if found:
        try:
            parsed = loads(found.group(0))
            if isinstance(parsed, list):
                queries = [str(q).strip() for q in parsed if isinstance(q, str | int | float) and str(q).strip()]
        except (JSONDecodeError, ValueError):
            queries = []
    if not queries:
        queries = [line.strip(" -*\"'0123456789.") for line in text.splitlines()]
        queries = [q for q in queries if len(q) > 2]
    out: list[str] = []
    for q in queries:
        q = q[:300]
        if q.lower() not in {o.lower() for o in out}:
            out.append(q)
    return out[:MAX_QUERIES] or [question]


class Research:
    def __init__(
        self,
        model: ChatModel,
        reader: PageReader,
        *,
        web: WebSearch | None,
        knowledge: list[tuple[str, KnowledgeSearch]],
        iterations: int,
        pages_per_round: int,
        context_tokens: int,
        save: PageSink | None = None,
    ) -> None:
        self.model = model
        self.reader = reader
        self.web = web
        self.knowledge = knowledge
        self.iterations = iterations
        self.pages_per_round = pages_per_round
        self.budget_chars = int(max(1024, context_tokens - ANSWER_RESERVE_TOKENS) * CHARS_PER_TOKEN)
        self.save = save  # GATEWAY_RESEARCH_SAVE_TO: every page read also goes into the knowledge base
        self.notes: list[Note] = []
        self.read_urls: set[str] = set()

    async def run(self, question: str) -> AsyncIterator[Event]:
        yield Progress(f"Researching: {question}")
        async for event in self._round([question]):
            yield event
        for i in range(self.iterations):
            plan = [
                {"role": "system", "content": PLAN.format(n=MAX_QUERIES)},
                {"role": "user", "content": f"Question: {question}\n\nNotes so far:\n{self._digest()}"},
            ]
            queries = parse_queries(await self.model.complete(plan), question)
            yield Progress(f"Round {i + 1} of {self.iterations}: searching for " + "; ".join(queries))
            async for event in self._round(queries):
                yield event
        async for event in self._answer(question):
            yield event

    # -- one round -----------------------------------------------------------------------------------
    async def _round(self, queries: list[str]) -> AsyncIterator[Event]:
        """One round; with tracing on, a `research_round` span over its searches and page reads."""
        if not tracing.ON:
            async for event in self._searched_round(queries):
                yield event
            return
        self._rounds = getattr(self, "_rounds", 0) + 1
        attributes = {"gateway.research.round": self._rounds, "gateway.research.queries": list(queries)}
        span = tracing.start_span("research_round", attributes=attributes)
        token = tracing.attach(span)
        try:
            async for event in self._searched_round(queries):
                yield event
        finally:
            tracing.detach(token)
            span.end()

    async def _searched_round(self, queries: list[str]) -> AsyncIterator[Event]:
        jobs: list[tuple[str, str, Awaitable[list[Source]]]] = []  # (kind, what was asked, search)
        if self.web is not None:
            jobs.extend(("web", q, self.web(q)) for q in queries)
        for kind, search in self.knowledge:
            jobs.append((kind, "; ".join(queries), search(queries)))
        results = await asyncio.gather(*(job for _k, _q, job in jobs), return_exceptions=True)
        candidates: list[Source] = []
        for (kind, query, _job), result in zip(jobs, results, strict=True):
            if isinstance(result, BaseException):
                if isinstance(result, asyncio.CancelledError):
                    raise result
                yield Progress(f"Search failed for {query}: {describe_error(result)}")
                continue
            yield Searched(query, result, kind)
            if kind == "web":
                candidates.extend(result)
            else:
                for src in result:  # knowledge-base passages and MCP documents are notes as they are
                    self._note(src.title, src.url, src.snippet, kind=src.kind, file_id=src.file_id)
        picked: list[Source] = []
        for src in candidates:
            if src.url not in self.read_urls and src.url not in {p.url for p in picked}:
                picked.append(src)
            if len(picked) >= self.pages_per_round:
                break
        self.read_urls.update(p.url for p in picked)
        pages = await asyncio.gather(*(self.reader.read(p.url) for p in picked), return_exceptions=True)
        for src, page in zip(picked, pages, strict=True):
            if isinstance(page, asyncio.CancelledError):
                raise page
            if isinstance(page, BaseException):
                yield Refused(src.url, page.reason if isinstance(page, PageRefused) else describe_error(page))
                continue
            self.read_urls.add(page.final_url)
            yield Opened(page.final_url, page.title or src.title)
            if self.save is not None:
                try:
                    await self.save(page)
                except Exception as exc:  # the knowledge base not growing must not fail the answer
                    log.warning("could not save %s: %s", page.final_url, exc)
                    yield Progress(f"Could not save {page.final_url} to the knowledge base: {describe_error(exc)}")
            self._note(page.title or src.title, page.final_url, page.text)

    def _note(self, title: str, url: str, text: str, *, kind: str = "web", file_id: str | None = None) -> None:
        if any(n.url == url and n.text[:200] == text[:200] for n in self.notes):
            return
        self.notes.append(Note(len(self.notes) + 1, title, url, text[:NOTE_CHARS], kind, file_id))
        self._fit()

    def _fit(self) -> None:
        """Keep the notes within the context budget: shorten the oldest first, never renumber."""
        total = sum(len(n.text) for n in self.notes)
        for note in self.notes:
            if total <= self.budget_chars:
                return
            cut = min(len(note.text) - 200, total - self.budget_chars)
            if cut > 0:
                note.text = note.text[: len(note.text) - cut] + " …"
                total -= cut

    def _digest(self) -> str:
        return "\n".join(f"[{n.n}] {n.title}: {n.text[:200]}" for n in self.notes) or "(none yet)"

    # -- the answer ----------------------------------------------------------------------------------
    async def _answer(self, question: str) -> AsyncIterator[Event]:
        notes = list(self.notes)
        for attempt in range(MAX_ANSWER_ATTEMPTS):
            text = "\n\n".join(f"[{n.n}] {n.title} ({n.url})\n{n.text}" for n in notes) or "(no notes)"
            messages = [
                {"role": "system", "content": ANSWER},
                {"role": "user", "content": f"Question: {question}\n\nNotes:\n{text}"},
            ]
            parts: list[str] = []
            try:
                yield Progress(f"Writing the answer from {len(notes)} note(s)")
                async for piece in self.model.stream(messages):
                    parts.append(piece)
                    yield AnswerDelta(piece)
            except APIError as exc:
                if exc.code != "context_length_exceeded" or parts or attempt + 1 == MAX_ANSWER_ATTEMPTS:
                    raise
                notes = notes[: max(1, len(notes) // 2)] if len(notes) > 1 else notes
                for n in notes:
                    n.text = n.text[: max(200, len(n.text) // 2)]
                yield Progress(f"The notes did not fit the model's context: retrying with {len(notes)} note(s)")
                continue
            sources = self._sources(notes)
            if sources:
                yield AnswerDelta(sources)
                parts.append(sources)
            yield Finished("".join(parts), notes)
            return

    @staticmethod
    def _sources(notes: list[Note]) -> str:
        if not notes:
            return ""
        return "\n\nSources:\n" + "\n".join(f"[{n.n}] {n.title} — {n.url}" for n in notes)


CITE = re.compile(r"\[(\d+)\]")


def url_citations(text: str, notes: list[Note]) -> list[dict[str, Any]]:
    """A `url_citation` (url, title, start/end index of the `[n]` marker) for each marker of the
    answer's body that names a note, as OpenAI's deep research annotates its answers; the
    "Sources" list at the end is not cited again. A knowledge-base note's url is its file's
    citable URL."""
    by_number = {n.n: n for n in notes}
    body_end = text.find("\n\nSources:\n")
    found = []
    for match in CITE.finditer(text, 0, body_end if body_end >= 0 else len(text)):
        note = by_number.get(int(match.group(1)))
        if note is not None:
            found.append(
                {
                    "type": "url_citation",
                    "start_index": match.start(),
                    "end_index": match.end(),
                    "url": note.url,
                    "title": note.title,
                }
            )
    return found


def describe_error(exc: BaseException) -> str:
    return exc.message if isinstance(exc, APIError) else (str(exc) or type(exc).__name__)
