"""MCP servers as a research data source, the way OpenAI's deep research uses them: the server's
`search(query)` tool lists documents (`{"results": [{"id", "title", "url"}]}`), its `fetch(id)` tool
returns one (`{"id", "title", "text", "url"}`). The servers are the request's `mcp` tools (a
`server_url` or a connector), reached through the MCP client's session pool and address policy."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from gateway.engine.deps import EngineDeps
from gateway.research.orchestrator import KnowledgeSearch, Source
from gateway.tools.mcp.client import ServerSpec
from gateway.tools.mcp.tool import connector_store, mcp_policy

log = logging.getLogger(__name__)

FETCH_PER_QUERY = 3


def _payload(result: Any) -> Any:
    """A tool result's JSON: its structured content, else its first text block parsed."""
    structured = getattr(result, "structuredContent", None) or getattr(result, "structured_content", None)
    if structured:
        return structured.get("result", structured) if set(structured) == {"result"} else structured
    for block in getattr(result, "content", None) or []:
        text = getattr(block, "text", None)
        if text:
            try:
                return json.loads(text)
            except ValueError:
                return None
    return None


async def _spec(deps: EngineDeps, tool: dict[str, Any]) -> ServerSpec | None:
    url, headers, token = tool.get("server_url"), dict(tool.get("headers") or {}), tool.get("authorization")
    if tool.get("connector_id") is not None:
        connectors = connector_store(deps)
        found = await connectors.secrets(tool["connector_id"]) if connectors is not None else None
        if found is None:
            return None
        public, secrets = found
        url = secrets.get("server_url") or public["server_url"]
        headers = {**(secrets.get("headers") or {}), **headers}
        token = token or secrets.get("authorization")
    if not url:
        return None
    await mcp_policy(deps.settings).vet(str(url), "tools")
    return ServerSpec.make(str(url), headers, token)


async def mcp_searches(deps: EngineDeps, tools: list[dict[str, Any]]) -> list[tuple[str, KnowledgeSearch]]:
    """One search per `mcp` tool of the request (each server searched with every query)."""
    pool = deps.mcp_sessions
    out: list[tuple[str, KnowledgeSearch]] = []
    for tool in tools:
        if tool.get("type") != "mcp":
            continue
        spec = await _spec(deps, tool)
        if spec is None:
            continue
        label = str(tool.get("server_label") or "mcp")

        async def search(queries: list[str], spec: ServerSpec = spec, label: str = label) -> list[Source]:
            seen: set[str] = set()
            sources: list[Source] = []
            for query in queries:
                listed = _payload(await pool.call_tool(spec, "search", {"query": query}))
                results = listed.get("results", []) if isinstance(listed, dict) else []
                ids = [str(r["id"]) for r in results if isinstance(r, dict) and r.get("id")]
                ids = [i for i in ids if i not in seen][:FETCH_PER_QUERY]
                seen.update(ids)
                docs = await asyncio.gather(*(pool.call_tool(spec, "fetch", {"id": i}) for i in ids))
                for doc in map(_payload, docs):
                    if isinstance(doc, dict) and doc.get("text"):
                        url = str(doc.get("url") or f"mcp://{label}/{doc.get('id')}")
                        sources.append(
                            Source(title=str(doc.get("title") or url), url=url, snippet=str(doc["text"]), kind="mcp")
                        )
            return sources

        out.append(("mcp", search))
    return out
