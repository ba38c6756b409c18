"""Settings from environment variables (`GATEWAY_*`), optionally layered over a YAML file.

One immutable object is built at start-up and handed to every component, so the HTTP server, the
ExtProc and the supervisor agree on ports, paths and the backend without re-reading the environment.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from gateway.knowledge_graph.weights import parse_weights


class BackendPool(BaseModel):
    """One pool of inference servers serving the same models (`GATEWAY_BACKENDS`, #27): its replicas
    by URL, or by a DNS name whose every A/AAAA record is one (a Kubernetes headless Service)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    urls: list[str] = Field(default_factory=list, description="each replica's base URL, e.g. http://10.0.0.5:8000/v1")
    dns: str | None = Field(default=None, description="host:port; every address it resolves to is a replica")
    models: list[str] | None = Field(default=None, description="unset → each replica's /v1/models says")
    api: Literal["chat_completions", "responses"] = "chat_completions"
    api_key_env: str | None = Field(default=None, description="the environment variable holding the pool's key")

    @model_validator(mode="after")
    def _replicas_named(self) -> BackendPool:
        if bool(self.urls) == bool(self.dns):
            raise ValueError(f"backend pool {self.name!r}: give either urls or dns")
        for url in self.urls:
            if not url.startswith(("http://", "https://")):
                raise ValueError(f"backend pool {self.name!r}: {url!r} is not an http(s) URL")
        if self.dns is not None and not self.dns.rpartition(":")[2].isdigit():
            raise ValueError(f"backend pool {self.name!r}: dns must be host:port")
        return self

    @property
    def api_key(self) -> str | None:
        return os.environ.get(self.api_key_env) if self.api_key_env else None


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    backend_url: str | None = Field(default=None, description="e.g. http://127.0.0.1:8000/v1; unset → local model")
    backend_api: Literal["chat_completions", "responses"] = "chat_completions"
    backends: list[BackendPool] | None = Field(
        default=None,
        description='JSON list of pools: [{"name", "urls" | "dns", "models", "api", "api_key_env"}]; '
        "set → a fleet (GATEWAY_BACKEND_URL is the one-replica shorthand)",
    )
    backend_load_bound: float = Field(
        # 2, not the textbook 1.25: a move re-prefills the chain's whole context on its new replica
        # (and is stored: it sticks), so it pays only against a real hot spot (bench_fleet_doors)
        default=2.0,
        gt=1.0,
        description="affinity holds while a replica's load stays under this multiple of the pool's mean, "
        "or its queue is empty",
    )
    cache_key_affinity_seconds: float = Field(
        default=86400.0,  # a day: OpenAI's longest prompt-cache retention ("24h")
        gt=0,
        description="a prompt_cache_key's stored replica is forgotten this long after it was last used "
        "(a routing read past half this writes its age again; pruned hourly by every process)",
    )
    backend_metrics_seconds: float = Field(
        default=1.0,
        ge=0,
        description="how often a fleet's replicas' vLLM /metrics (queue, KV cache) are read; 0 → never",
    )
    backend_down_seconds: float = Field(
        default=5.0, gt=0, description="a replica that failed to connect gets no traffic this long, then is probed"
    )
    backend_dns_resolver: str | None = Field(
        default=None,
        pattern=r"^\d{1,3}(\.\d{1,3}){3}:\d{1,5}$",
        description="ip:port of the DNS server Envoy's inference cluster resolves a DNS pool's name with "
        "(unset → the system's); the gateway's own processes resolve with the system's",
    )
    backend_api_key: str | None = None
    backend_connect_timeout: float = 5.0
    backend_read_timeout: float = 300.0
    default_model: str | None = None
    data_dir: Path = Path("./data")
    host: str = "127.0.0.1"
    http_port: int = 8082
    envoy_port: int = 8081
    envoy_admin_port: int | None = Field(
        default=None,
        description="Envoy's admin on loopback TCP; unset → a Unix socket in the data dir that no URL can name",
    )
    extproc_port: int = 10000
    local_model_port: int = 8000
    max_body_bytes: int = 32 * 1024 * 1024
    models_refresh_seconds: float = 60.0
    log_level: str = "INFO"
    # files, vector stores, file_search
    max_file_bytes: int = 64 * 1024 * 1024
    embedding_url: str | None = Field(default=None, description="OpenAI-compatible /v1 base; unset → local MiniLM")
    embedding_model: str | None = None
    embedding_api_key: str | None = None
    vector_backend: Literal["sqlite-vec", "milvus", "pgvector"] = "sqlite-vec"
    milvus_uri: str | None = Field(default=None, description="Milvus server URI; unset → milvus-lite in data_dir")
    milvus_token: str | None = None
    # MCP
    mcp_call_timeout: float = 30.0
    mcp_allowed_hosts: str | None = Field(
        default=None,
        description="comma-separated host or host:port patterns (shell-style * and ?) whose non-public "
        "addresses MCP server_urls and connectors may reach; unset → public addresses only",
    )
    # web_search
    web_search_provider: Literal["searxng", "serper", "brave", "tavily"] | None = None
    web_search_url: str | None = Field(default=None, description="provider endpoint override (SearXNG base URL)")
    web_search_api_key: str | None = None

    # --- security and outbound addresses (netguard, #10)
    header_timeout_seconds: float = Field(
        default=30.0, ge=0, description="a connection whose request headers are not complete by then is closed (0: off)"
    )
    body_timeout_seconds: float = Field(
        default=120.0, gt=0, description="longest a client may take to send a JSON body, or between two upload chunks"
    )
    max_connections_per_client: int = Field(
        default=256, ge=0, description="open connections one client address may hold per HTTP worker (0: no cap)"
    )
    # bounded work per request (#26); unset → tied to max_body_bytes / max_file_bytes
    max_rendered_bytes: int | None = Field(
        default=None, ge=1024, description="largest request a stored prompt may render into (unset: max_body_bytes)"
    )
    max_expanded_bytes: int | None = Field(
        default=None, ge=1024, description="largest a file's archive (DOCX) may decompress to (unset: max_file_bytes)"
    )
    max_expansion_ratio: float = Field(default=100.0, ge=1, description="decompressed / compressed size of an archive")
    max_extracted_chars: int | None = Field(
        default=None, ge=1024, description="longest text one file may yield for indexing (unset: max_file_bytes)"
    )
    run_lease_seconds: float = Field(
        default=10.0,
        gt=0.2,
        le=600.0,
        description="lease of a process on the responses it produces; a dead owner's runs end failed within "
        "about 1.5 leases",
    )
    crawl_allowed_hosts: str | None = Field(
        default=None,
        description="like GATEWAY_MCP_ALLOWED_HOSTS, for the web pages research and the MCP server's crawl "
        "tools read; unset → public addresses only",
    )

    # --- knowledge graph (#12)
    kg_enabled: bool = Field(
        default=True, description="extract entities and relations into each vector store's graph at ingestion"
    )
    kg_extractor: Literal["auto", "rules", "gliner"] = Field(
        default="auto", description="auto: GLiNER when GATEWAY_KG_GLINER_MODEL is set, else the rule-based extractor"
    )
    kg_gliner_model: str | None = Field(
        default=None, description="a local GLiNER directory (or a hub name, on a machine with internet)"
    )
    kg_gliner_threshold: float = Field(default=0.5, gt=0, lt=1, description="GLiNER's span score threshold")
    kg_gliner_labels: str = Field(
        default="person,organization,product,place,event", description="comma-separated entity labels for GLiNER"
    )
    kg_weights: str = Field(
        default="vector=0.35,graph=0.4,keyword=0.1,recency=0.05,title=0.1",
        description="the kg ranker's signal weights (vector, graph, keyword, recency, title), summing to 1",
    )
    kg_chain_weights: str = Field(
        default="vector=0.2,graph=0.65,keyword=0.1,recency=0,title=0.05",
        description="the kg ranker's weights when its walk follows a relation the question asks for (#28)",
    )
    kg_graph_store: Literal["sqlite", "neo4j"] = Field(
        default="sqlite", description="sqlite: tables in the gateway's database; neo4j: GATEWAY_KG_NEO4J_URI"
    )
    kg_neo4j_uri: str | None = Field(default=None, description="bolt:// or neo4j:// URI of the Neo4j graph store")
    kg_neo4j_user: str = "neo4j"
    kg_neo4j_password: str | None = None

    @field_validator("kg_weights", "kg_chain_weights")
    @classmethod
    def _kg_weights(cls, value: str) -> str:

        parse_weights(value)
        return value

    # --- research (#13)
    research_model: str | None = Field(
        default=None,
        description="backend model of the `research` models of the Responses API; unset → the default model",
    )
    research_iterations_standard: int = Field(default=2, ge=1, le=10, description="search rounds of a standard run")
    research_iterations_deep: int = Field(default=4, ge=1, le=20, description="search rounds of a deep run")
    research_max_standard: int = Field(default=3, ge=1, description="standard runs at once, deployment-wide")
    research_max_deep: int = Field(default=1, ge=1, description="deep runs at once, deployment-wide")
    research_vector_store_ids: str | None = Field(
        default=None, description="comma-separated vector stores chat-completions research searches (unset: none)"
    )
    research_context_tokens: int = Field(
        default=8192, ge=1024, description="the backend model's context when its /v1/models entry has no max_model_len"
    )
    research_pages_per_round: int = Field(default=3, ge=1, le=10, description="pages read per search round")
    research_ranker: Literal["auto", "kg"] = Field(
        default="kg",
        description="how research ranks knowledge-base passages: the knowledge graph (kg: follows relations "
        "between documents, as multi-hop questions need) or hybrid search (auto)",
    )
    research_save_to: str | None = Field(
        default=None,
        description="a vector store (vs_...) every page research reads is saved into, to grow the knowledge base",
    )

    # --- MCP server over the knowledge base (#14)
    mcp_server: bool = Field(default=True, description="serve the knowledge base to MCP clients at /mcp")
    mcp_server_vector_store_ids: str | None = Field(
        default=None,
        description="comma-separated vector stores the MCP server serves; unset → every store the caller may read",
    )
    mcp_server_read_only: bool = Field(default=False, description="offer only the reading tools (no memory writes)")
    mcp_server_crawl: bool = Field(default=True, description="offer crawl_url and crawl_site (not when read-only)")
    mcp_server_public_url: str | None = Field(
        default=None,
        description="base of the links to uploaded documents (…/v1/files/{id}/content); unset → http://host:envoy_port",
    )
    mcp_server_retention_sweep_seconds: float = Field(
        default=300.0, gt=0, description="how often documents past their store's retention are deleted"
    )
    mcp_server_max_crawl_pages: int = Field(default=20, ge=1, le=500, description="pages one crawl_site may read")
    mcp_server_ranker: Literal["auto", "kg"] = Field(
        default="auto",
        description="ranking of `search` and the default of `search_knowledge`: hybrid, or the knowledge graph",
    )

    # --- operations: metrics, logs, drain, workers (#17)
    workers: int = Field(
        default_factory=lambda: _cores(),
        ge=1,
        le=64,
        description="HTTP server and ExtProc processes each (default: the cores this process may use)",
    )
    log_format: Literal["text", "json"] = "text"
    event_loop: Literal["uvloop", "asyncio"] = Field(
        default="uvloop", description="the doors' event loop (uvloop: less CPU per streamed token)"
    )
    gc_thresholds: tuple[int, int, int] = Field(
        # not Python's 700,10,10: with tracing on, spans waiting for their batch outlived the young
        # collections and set off full ones, 1-23 us a request at the HTTP door (#31, twelfth pass)
        default=(10_000, 10, 10),
        description="the doors' garbage-collector thresholds (gc.set_threshold N0,N1,N2): tracked "
        "objects made a young collection, then collections of each generation before the next's",
    )
    drain_seconds: float = Field(
        default=30.0, ge=0, description="on SIGTERM, how long streams in flight may take to finish"
    )
    metrics_dir: Path | None = Field(
        default=None, description="prometheus multiprocess directory shared by the stack; unset → data_dir/metrics"
    )

    # --- clients: Codex, Open Responses, WebSocket (#18)
    websocket_idle_seconds: float = Field(
        default=300.0, gt=0, description="a WebSocket-mode connection with no message for this long is closed"
    )
    max_websockets: int = Field(default=256, ge=1, description="open WebSocket-mode connections per HTTP worker")
    compaction_key: str | None = Field(
        default=None,
        description="the secret compaction items are sealed with (AES-GCM), the same on every replica; "
        "unset → a random key kept in data_dir/compaction.key",
    )
    # fairness between tenants (#26): the project (keys, trusted), else the client address
    max_concurrent_per_tenant: int = Field(
        default=128, ge=0, description="requests (streams, WebSockets) one tenant may have open per process (0: no cap)"
    )
    max_websockets_per_tenant: int = Field(
        default=64, ge=0, description="open WebSocket-mode connections one tenant may hold per process (0: no cap)"
    )
    max_background_per_tenant: int = Field(
        default=32, ge=0, description="background responses one tenant may have running per process (0: no cap)"
    )

    # --- API keys and projects (#16)
    auth: Literal["none", "keys", "trusted"] = Field(
        default="none",
        description="none: no keys, one 'default' project (a laptop); keys: every /v1 request needs "
        "`Authorization: Bearer <key>`; trusted: the project comes from a header set by Envoy or the mesh",
    )
    admin_key: str | None = Field(default=None, description="the key of the admin routes; unset → no admin routes")
    auth_project_header: str = Field(
        default="x-gateway-project", description="trusted mode: the header carrying the caller's project"
    )
    auth_trusted_proxies: str = Field(
        default="127.0.0.1/32,::1/128",
        description="trusted mode: comma-separated networks whose project header the HTTP server accepts "
        "(and, in every mode, Envoy's x-gateway-door label of the usage ledger)",
    )
    auth_cache_seconds: float = Field(
        default=1.0,
        gt=0,
        le=60,
        description="how long a key lookup is reused: revocation reaches every process in this time",
    )
    project_limits: str | None = Field(
        default=None,
        description='JSON per project (or "*"): {"p": {"requests_per_minute": 60, "tokens_per_minute": '
        '100000, "monthly_token_budget": 10000000, "monthly_cost_budget_usd": 50, "chat_completions": true}}; '
        "shared by every process and replica; unset → no limits, chat completions allowed",
    )

    # --- usage, costs, budgets (#30)
    model_prices: str | None = Field(
        default=None,
        description='JSON per model (or "*"), USD per million tokens: {"m": {"input": 0.5, "cached_input": 0.25, '
        '"output": 1.5}}: the Costs API and cost budgets; unset → every model costs nothing',
    )
    usage_retention_days: float = Field(
        default=30.0, gt=0, description="raw ledger rows (one per model call) and minute buckets are kept this long"
    )
    usage_flush_seconds: float = Field(
        default=1.0, gt=0, le=60, description="how often each process writes its queued usage records"
    )
    reserve_output_tokens: int = Field(
        default=1024,
        gt=0,
        description="tokens_per_minute: the output tokens a request reserves before its call when it sets no "
        "max_output_tokens / max_tokens (settled with what the backend reports)",
    )
    budget_warn_ratio: float = Field(
        default=0.8, gt=0, le=1, description="share of a monthly budget past which gateway_budget_warning is 1"
    )
    replica_name: str | None = Field(default=None, description="this replica in the ledger; unset → the host name")

    # --- PostgreSQL (#15)
    database_url: str | None = Field(
        default=None,
        pattern=r"^postgres(ql)?://",
        description="postgresql://user:password@host:port/db (or ?host=/socket/dir): state in PostgreSQL, "
        "shared by every replica; unset → the SQLite file in data_dir",
    )
    database_pool_size: int = Field(default=10, ge=1, le=200, description="PostgreSQL connections per process")

    # --- readiness (#25)
    ready_checks_extproc: bool = Field(
        default=False,
        description="/ready also asks every ExtProc worker (extproc_port to extproc_port + workers - 1) for "
        "its gRPC health; `up` sets it, as Envoy routes POST /v1/responses to them",
    )

    @property
    def rendered_bytes_cap(self) -> int:
        return self.max_rendered_bytes or self.max_body_bytes

    @property
    def expanded_bytes_cap(self) -> int:
        return self.max_expanded_bytes or self.max_file_bytes

    @property
    def extracted_chars_cap(self) -> int:
        return self.max_extracted_chars or self.max_file_bytes

    @property
    def envoy_admin_socket(self) -> Path:
        return self.data_dir / "envoy-admin.sock"

    @property
    def db_path(self) -> Path:
        return self.data_dir / "gateway.db"

    @field_validator("gc_thresholds", mode="before")
    @classmethod
    def _gc_thresholds(cls, value: Any) -> Any:
        """`GATEWAY_GC_THRESHOLDS` is three integers, comma-separated, each at least 1 (0 would turn
        the collector off, which reference cycles would then leak into); brackets around them are
        read too, as a parent process writes a chosen tuple for its workers (`child_env`)."""
        parts = [p.strip() for p in value.strip().strip("()[]").split(",")] if isinstance(value, str) else value
        if not isinstance(parts, list | tuple) or len(parts) != 3:
            raise ValueError(f"gc_thresholds: three integers N0,N1,N2, not {value!r}")
        try:
            numbers = tuple(int(p) for p in parts)
        except (TypeError, ValueError):
            raise ValueError(f"gc_thresholds: three integers N0,N1,N2, not {value!r}") from None
        if not all(1 <= n <= 10_000_000 for n in numbers):
            raise ValueError(f"gc_thresholds: each of N0,N1,N2 from 1 to 10,000,000, not {value!r}")
        return numbers

    @field_validator("backends", mode="before")
    @classmethod
    def _backends_json(cls, value: Any) -> Any:
        """`GATEWAY_BACKENDS` is JSON; the YAML file gives the list itself."""
        if isinstance(value, str):
            import json

            return json.loads(value) if value.strip() else None
        return value

    @property
    def external_backend(self) -> bool:
        """An inference server is configured (a URL or pools): the bundled local model does not start."""
        return bool(self.backend_url or self.backends)

    @property
    def pools(self) -> list[BackendPool]:
        """The configured pools, or the one pool of `backend_url` (the local model when unset)."""
        if self.backends:
            return list(self.backends)
        return [BackendPool(name="default", urls=[self.backend_base], api=self.backend_api)]

    @property
    def backend_base(self) -> str:
        """The backend base URL without a trailing slash (always ends in the API prefix, e.g. /v1); with
        pools, the first pool's first replica (what Envoy's single `inference` cluster names)."""
        if not self.backend_url and self.backends:
            first = self.backends[0]
            return first.urls[0].rstrip("/") if first.urls else f"http://{first.dns}/v1"
        if not self.backend_url:
            return f"http://127.0.0.1:{self.local_model_port}/v1"
        return self.backend_url.rstrip("/")


_ENV_PREFIX = "GATEWAY_"


def _cores() -> int:
    """CPUs this process may use: its cpuset, capped by a cgroup v2 CPU quota (a container's limit),
    not the host's count (a 64-core GPU node would otherwise get 64 workers per door)."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            n = min(n, -(-int(quota) // int(period)))
    except (OSError, ValueError):
        pass
    return max(1, n)


def load_settings(env: dict[str, str] | None = None, **overrides: Any) -> Settings:
    """Build settings: YAML file (`GATEWAY_CONFIG`) < environment < explicit overrides."""
    env = dict(os.environ if env is None else env)
    values: dict[str, Any] = {}
    config_file = env.get("GATEWAY_CONFIG")
    if config_file:
        with open(config_file, encoding="utf-8") as fh:
            loaded = yaml.safe_load(fh) or {}
        if not isinstance(loaded, dict):
            raise ValueError(f"{config_file}: expected a mapping of settings")
        values.update(loaded)
    for name in Settings.model_fields:
        key = _ENV_PREFIX + name.upper()
        if key in env and env[key] != "":
            values[name] = env[key]
    values.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return Settings(**values)
    except ValidationError as exc:
        raise ValueError(f"invalid gateway settings: {exc}") from exc
