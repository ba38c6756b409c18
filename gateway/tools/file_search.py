"""The `file_search` tool: the model searches the request's vector stores, the gateway runs it.

The model is offered one function, `file_search(queries)`. Each call becomes a `file_search_call`
output item streamed as `in_progress → searching → completed`, searching every configured store
concurrently. The model sees the hits labelled with citation markers (`[n]`, one per file, stable for
the whole response), so the `[n]` it writes become `file_citation` annotations and never reach the
text. `results` are only kept on the item when the request includes `file_search_call.results`, as
OpenAI does; later turns replay the item through `replay()` (the results when kept, else a note).
"""

from __future__ import annotations

import logging
from typing import Any

from gateway.common.errors import APIError, InvalidRequest
from gateway.common.ids import item_id
from gateway.common.jsonutil import JSONDecodeError, dumps_str, loads
from gateway.engine.deps import EngineDeps
from gateway.engine.events import EventBuilder
from gateway.retrieval import params
from gateway.retrieval.core import Retrieval
from gateway.retrieval.search import DEFAULT_MAX_RESULTS, breakdown_of, search_stores
from gateway.telemetry import tracing
from gateway.tools.registry import ToolResult

log = logging.getLogger(__name__)

FUNCTION = "file_search"
INCLUDE_RESULTS = "file_search_call.results"
DEFINITION = {
    "type": "function",
    "name": FUNCTION,
    "description": (
        "Search the user's uploaded files for passages relevant to the question. Pass one or more short "
        "search queries. Cite the passages you use with their source marker, e.g. [1]."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "queries": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Search queries, each a few keywords or a short question.",
            }
        },
        "required": ["queries"],
    },
}


def parse_config(tool: dict[str, Any], i: int) -> dict[str, Any]:
    """Check a `file_search` tool entry's shape (not that the stores exist: see `validate`)."""
    p = f"tools[{i}]"
    allowed = {"type", "vector_store_ids", "max_num_results", "filters", "ranking_options"}
    for key in tool:
        if key not in allowed:
            raise InvalidRequest(f"Unknown parameter: '{p}.{key}'.", param=f"{p}.{key}", code="unknown_parameter")
    store_ids = params.string_list(tool.get("vector_store_ids"), f"{p}.vector_store_ids")
    if not store_ids:
        raise InvalidRequest(
            f"Invalid '{p}.vector_store_ids': expected at least one vector store id.", param=f"{p}.vector_store_ids"
        )
    k = DEFAULT_MAX_RESULTS
    if tool.get("max_num_results") is not None:
        k = params.require_int(tool["max_num_results"], f"{p}.max_num_results", 1, params.MAX_NUM_RESULTS)
    return {
        "store_ids": list(dict.fromkeys(store_ids)),
        "k": k,
        "filters": params.filters(tool.get("filters"), f"{p}.filters"),
        "ranking": params.ranking_options(tool.get("ranking_options"), f"{p}.ranking_options"),
    }


async def check(retrieval: Retrieval, tool: dict[str, Any], i: int) -> dict[str, Any]:
    """Every client mistake in the tool config is a 400 before any output, unknown stores included.

    Returns the entry as the Response object shows it: OpenAI's defaults filled in.
    """
    config = parse_config(tool, i)
    known = await retrieval.stores.existing(config["store_ids"])
    for store_id in config["store_ids"]:
        if store_id not in known:
            raise InvalidRequest(
                f"Vector store with id '{store_id}' not found.",
                param=f"tools[{i}].vector_store_ids",
                code="vector_store_not_found",
            )
    ranking = tool.get("ranking_options") or {}
    return {
        **tool,
        "filters": tool.get("filters"),
        "max_num_results": config["k"],
        "ranking_options": {
            **ranking,
            "ranker": ranking.get("ranker") or "auto",
            "score_threshold": config["ranking"]["score_threshold"],
        },
    }


def _queries(arguments: str) -> list[str]:
    try:
        args = loads(arguments or "{}")
    except JSONDecodeError:
        args = arguments  # a small model may pass the bare query
    if isinstance(args, str):
        return [args] if args.strip() else []
    if not isinstance(args, dict):
        return []
    found = args.get("queries", args.get("query"))
    if isinstance(found, str):
        found = [found]
    return [q for q in found or [] if isinstance(q, str) and q.strip()]


class FileSearch:
    """One request's file_search tool (a new one per response run)."""

    def __init__(self, retrieval: Retrieval, config: dict[str, Any], run: Any) -> None:
        self.r = retrieval
        self.config = config
        self.run_ = run
        self.include_results = INCLUDE_RESULTS in (run.p.req.include or [])
        self.markers: dict[str, int] = {}  # file id → citation marker, stable across calls

    def definitions(self) -> list[dict[str, Any]]:
        return [DEFINITION]

    def handles(self, name: str) -> bool:
        return name == FUNCTION

    async def run(self, call: dict[str, Any], events: EventBuilder) -> ToolResult:
        queries = _queries(call.get("arguments", ""))
        item: dict[str, Any] = {
            "id": item_id("file_search_call"),
            "type": "file_search_call",
            "status": "in_progress",
            "queries": queries,
            "results": None,
        }
        index = events.open_item(item)
        ref = {"item_id": item["id"], "output_index": index}
        events.emit("response.file_search_call.in_progress", ref)
        if not queries:
            item["status"] = "failed"
            events.close_item(index, "failed")
            return ToolResult("Error: file_search needs at least one non-empty query in 'queries'.")
        item["status"] = "searching"
        events.emit("response.file_search_call.searching", ref)
        cfg = self.config
        try:
            with tracing.span("file_search", attributes=_span_attributes(cfg)) as span:
                hits = await self._search(cfg, queries)
                if span is not None:
                    span.set_attribute("gateway.file_search.hits", len(hits))
        except APIError as exc:
            log.warning("file_search failed: %s", exc.message)
            events.close_item(index, "failed")
            return ToolResult(f"Error: the file search failed ({exc.message}).")
        results = [
            {
                "file_id": h.file_id,
                "filename": h.filename,
                "score": h.score,
                "text": h.text,
                "attributes": h.attributes,
                **breakdown_of(h),
            }
            for h in hits
        ]
        if self.include_results:
            item["results"] = results
        events.emit("response.file_search_call.completed", ref)
        events.close_item(index, "completed")
        return ToolResult(self._model_text(queries, results))

    async def _search(self, cfg: dict[str, Any], queries: list[str]) -> list[Any]:
        for store_id in cfg["store_ids"]:
            await self.r.check_embedder(store_id, param="tools.vector_store_ids")
        return await search_stores(
            self.r,
            cfg["store_ids"],
            queries,
            k=cfg["k"],
            filters=cfg["filters"],
            score_threshold=cfg["ranking"]["score_threshold"],
            mode=cfg["ranking"]["mode"],
            vector_weight=cfg["ranking"]["vector_weight"],
            ranker=cfg["ranking"]["ranker"],
        )

    def _marker(self, file_id: str, filename: str) -> int:
        if file_id not in self.markers:
            source = {"type": "file_citation", "file_id": file_id, "filename": filename}
            self.markers[file_id] = self.run_.citations.add(source)
        return self.markers[file_id]

    def _model_text(self, queries: list[str], results: list[dict[str, Any]]) -> str:
        if not results:
            return f"No passages in the files matched {dumps_str(queries)}."
        lines = [f"Passages from the user's files matching {dumps_str(queries)}, most relevant first:"]
        for res in results:
            lines.append(f"\n[{self._marker(res['file_id'], res['filename'])}] {res['filename']}:\n{res['text']}")
        lines.append("\nCite a passage you use by writing its marker, e.g. [1], right after the statement.")
        return "\n".join(lines)


def replay(item: dict[str, Any]) -> list[dict[str, Any]]:
    """A stored `file_search_call` as the call and result the model saw (for later turns)."""
    call_id = item.get("id") or item_id("file_search_call")
    results = item.get("results")
    if results:
        output = "\n".join(f"{r.get('filename')}:\n{r.get('text')}" for r in results)
    elif item.get("status") == "completed":
        output = "(search results were not retained)"
    else:
        output = "(the search did not complete)"
    return [
        {
            "type": "function_call",
            "call_id": call_id,
            "name": FUNCTION,
            "arguments": dumps_str({"queries": item.get("queries") or []}),
        },
        {"type": "function_call_output", "call_id": call_id, "output": output},
    ]


def register(deps: EngineDeps) -> None:
    """Register `file_search` on the engine's tool registry (both front-door processes call this)."""
    retrieval = deps.retrieval

    async def factory(tool: dict[str, Any], run: Any) -> FileSearch:
        tools = run.p.req.tools or []
        i = next((n for n, t in enumerate(tools) if t is tool), 0)
        return FileSearch(retrieval, parse_config(tool, i), run)

    async def checker(
        tool: dict[str, Any], i: int, tools: list[dict[str, Any]], _shared: dict[str, Any]
    ) -> dict[str, Any]:
        return await check(retrieval, tool, i)

    deps.tools.register(FUNCTION, factory, converter=replay, item_type="file_search_call", checker=checker)


def _span_attributes(cfg: dict[str, Any]) -> dict[str, Any]:
    """The search's span attributes: which stores, how many results, which ranking."""
    ranking = cfg["ranking"]
    return {
        "gen_ai.data_source.id": ",".join(cfg["store_ids"]),
        "gateway.file_search.max_results": int(cfg["k"]),
        "gateway.file_search.ranker": str(ranking.get("ranker")),
        "gateway.file_search.mode": str(ranking.get("mode")),
    }
