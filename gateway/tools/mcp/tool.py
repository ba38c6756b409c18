"""The `mcp` tool type on the engine's registry: request checks, the executor factory, the address policy."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gateway.common.errors import InvalidRequest
from gateway.config import Settings
from gateway.engine.deps import EngineDeps
from gateway.net.netguard import AddressPolicy
from gateway.tools.mcp import mapping
from gateway.tools.mcp.client import ServerSpec, SessionPool
from gateway.tools.mcp.executor import McpServerTool, run_group

if TYPE_CHECKING:  # the bundle's family types exist for the type checker only
    from storage.bundle import ConnectorStores


def mcp_policy(settings: Settings) -> AddressPolicy:
    """Where MCP servers may be: public addresses, plus what `GATEWAY_MCP_ALLOWED_HOSTS` opens."""
    return AddressPolicy.from_setting(settings.mcp_allowed_hosts)


def session_pool(settings: Settings) -> SessionPool:
    """The process's MCP session cache (built once by the composition root, closed by its teardown)."""
    return SessionPool(timeout=settings.mcp_call_timeout, policy=mcp_policy(settings))


def connector_store(deps: EngineDeps) -> ConnectorStores:
    return deps.stores.connectors


def register(deps: EngineDeps) -> None:
    """Register the `mcp` tool type (and its item types) on the engine's registry."""
    pool = deps.mcp_sessions
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
