"""Where the gateway listens and keeps its data, the outside services its tools reach (embeddings,
vector store, MCP servers, web search), and the bounds every request and connection works within
(#10, #26).

A group of `gateway.config.Settings` (which inherits these fields; read them there), apart so no
module of settings grows past what one reads at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class ServerSettings(BaseModel):
    """The server's settings (after the backend's in `Settings`' fields, in its order)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

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
