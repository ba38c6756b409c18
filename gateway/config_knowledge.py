"""The knowledge base: the graph extracted at ingestion (#12), research (#13) and the MCP server over
the knowledge base (#14).

A group of `gateway.config.Settings` (which inherits these fields; read them there), apart so no
module of settings grows past what one reads at once; the weights are checked by the knowledge
graph's own parser, so a bad value stops the start, not the first search.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from gateway.knowledge_graph.weights import parse_weights


class KnowledgeSettings(BaseModel):
    """The knowledge base's settings (after the server's in `Settings`' fields, in its order)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

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
