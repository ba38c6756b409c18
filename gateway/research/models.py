"""The research models of the Responses API and what they need (no imports: the engine's request
checks read this without pulling research in)."""

from __future__ import annotations

from typing import Any

RESEARCH_MODELS = {"research": "standard", "deep-research": "deep"}
DATA_SOURCES = ("web_search", "file_search", "mcp")


def is_research(model: str | None) -> bool:
    return model in RESEARCH_MODELS


def data_source_problem(tools: list[dict[str, Any]]) -> str | None:
    """Why a research request cannot run (no data source), like OpenAI's deep-research models."""
    kinds = {str(t.get("type", "")) for t in tools if isinstance(t, dict)}
    if any(k.startswith(DATA_SOURCES) for k in kinds):
        return None
    return (
        "Research models need at least one data source in 'tools': web_search, file_search "
        "(its vector_store_ids are the knowledge base) or mcp."
    )


def catalog_entries() -> list[dict[str, Any]]:
    return [{"id": name, "object": "model", "created": 0, "owned_by": "responses-gateway"} for name in RESEARCH_MODELS]
