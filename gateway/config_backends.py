"""The inference servers the gateway calls: one URL (`GATEWAY_BACKEND_URL`) or pools of replicas
(`GATEWAY_BACKENDS`, #27), and how calls to them are bounded, kept on a replica and health-checked.

A group of `gateway.config.Settings` (which inherits these fields; read them there): apart so the
backend's settings and the pool model they parse into are read in one place, not among the ~100
settings of the rest of the gateway.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


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


class BackendSettings(BaseModel):
    """The backend's settings (the first of `Settings`' fields, in its order)."""

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

    @field_validator("backends", mode="before")
    @classmethod
    def _backends_json(cls, value: Any) -> Any:
        """`GATEWAY_BACKENDS` is JSON; the YAML file gives the list itself."""
        if isinstance(value, str):
            import json

            return json.loads(value) if value.strip() else None
        return value
