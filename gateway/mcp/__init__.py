"""The `mcp` server-side tool: remote MCP servers (by URL or by registered connector) with approvals.

`register(deps)` plugs the tool type into the engine's registry (called from
`gateway/tools/builtin.py`); `shutdown(deps)` closes the process's cached MCP sessions (called from
the HTTP app's cleanup). Modules: `client` (sessions and their cache), `mapping` (configuration,
names, filters, item shapes), `executor` (what a run does with its servers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gateway.errors import InvalidRequest
from gateway.mcp import mapping
from gateway.mcp.client import ServerSpec, SessionPool
from gateway.mcp.executor import McpServerTool, run_group
from gateway.netguard import AddressPolicy

if TYPE_CHECKING:
    from storage.bundle import ConnectorStores

_POOL_ATTR = "_mcp_sessions"


def pool_for(deps: Any) -> SessionPool:
    """The engine's MCP session cache (one per process in production), kept on the deps object so it
    lives and dies with the engine it serves."""
    pool = getattr(deps, _POOL_ATTR, None)
    if pool is None:
        pool = SessionPool(timeout=deps.settings.mcp_call_timeout, policy=mcp_policy(deps.settings))
        setattr(deps, _POOL_ATTR, pool)
    return pool


def mcp_policy(settings: Any) -> AddressPolicy:
    """Where MCP servers may be: public addresses, plus what `GATEWAY_MCP_ALLOWED_HOSTS` opens."""
    return AddressPolicy.from_setting(settings.mcp_allowed_hosts)


def connector_store(deps: Any) -> ConnectorStores:
    return deps.stores.connectors  # type: ignore[no-any-return]


def register(deps: Any) -> None:
    pool = pool_for(deps)
    connectors = connector_store(deps)

    policy = mcp_policy(deps.settings)

    async def check(
        tool: dict[str, Any], index: int, tools: list[dict[str, Any]], shared: dict[str, Any]
    ) -> dict[str, Any]:
        mapping.check_config(tool, index, shared.setdefault("mcp_labels", {}))
        vetted: set[str] = shared.setdefault("mcp_vetted_urls", set())
        if tool.get("server_url") is not None and tool["server_url"] not in vetted:
            await policy.vet(tool["server_url"], f"tools[{index}].server_url")
            vetted.add(tool["server_url"])
        connector_id = tool.get("connector_id")
        if connector_id is not None:
            found = await connectors.secrets(connector_id) if connectors is not None else None
            if found is None:
                raise InvalidRequest(
                    f"Connector '{connector_id}' not found.", param=f"tools[{index}].connector_id", code="invalid_value"
                )
            public, secrets = found
            await policy.vet(secrets.get("server_url") or public["server_url"], f"tools[{index}].connector_id")
        return mapping.public_config(tool)

    async def factory(tool: dict[str, Any], run: Any) -> McpServerTool:
        url, headers, token = tool.get("server_url"), dict(tool.get("headers") or {}), tool.get("authorization")
        if tool.get("connector_id") is not None:
            found = await connectors.secrets(tool["connector_id"]) if connectors is not None else None
            if found is None:  # deleted since the request was checked
                raise InvalidRequest(f"Connector '{tool['connector_id']}' not found.", param="tools")
            public, secrets = found
            url = secrets.get("server_url") or public["server_url"]  # older rows kept it public only
            # registered before the allowlist was narrowed: refused now too
            await policy.vet(str(url), "tools")
            headers = {**(secrets.get("headers") or {}), **headers}  # the request's own headers win
            token = token or secrets.get("authorization")
        group = run_group(run, pool)
        server = McpServerTool(group, tool, ServerSpec.make(str(url), headers, token))
        group.servers.append(server)
        return server

    deps.tools.register("mcp", factory, converter=mapping.replay_call, item_type="mcp_call", checker=check)
    for item_type in ("mcp_list_tools", "mcp_approval_request", "mcp_approval_response"):
        deps.tools.register("mcp", factory, converter=mapping.replay_nothing, item_type=item_type)


async def shutdown(deps: Any) -> None:
    """Close every cached MCP session of this engine (the app's cleanup)."""
    pool = getattr(deps, _POOL_ATTR, None)
    if pool is not None:
        await pool.close()
