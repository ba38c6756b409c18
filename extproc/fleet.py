"""The Envoy door's side of a fleet (#27): the ExtProc picks the replica, Envoy connects to it.

With `GATEWAY_BACKENDS`, Envoy's `inference` cluster holds every replica and its `override_host`
load-balancing policy sends a request to the address in `x-gateway-destination-endpoint` (the
Gateway API Inference Extension's endpoint-picker protocol), then to the fallbacks listed after it
on a connect failure (the route retries twice). The ExtProc names them with the gateway's own
`Picker` over the same pool (`BackendClient`, whose scrape of the replicas' `/metrics` runs in this
process too), so a chain's turn lands on the same replica whichever door receives it.

Envoy tells the ExtProc, with the response headers, which replica it reached and whether the reply
is its own (`upstream.address`, `response.code_details`): the replicas named before the one that
answered refused (Envoy retried past them), and so did every one named when Envoy gave up before any
reply. The ExtProc marks them down in its own picker, as the HTTP door's client marks a replica that
refused (the same `BackendClient.mark_down` and `/health` probe), so both doors stop sending new
work there and bring it back alike.

A pool whose API is not Chat Completions, or whose replicas are named by host name rather than
address (Envoy's header names an address), is served through the HTTP server, like a tool loop.
"""

from __future__ import annotations

import ipaddress

from google.protobuf import struct_pb2

from extproc.pb.envoy.config.core.v3 import base_pb2 as core_pb2
from extproc.pb.envoy.service.ext_proc.v3 import external_processor_pb2 as ep
from gateway.common.errors import APIError
from gateway.inference.client import BackendClient
from gateway.inference.picker import Affinity
from gateway.inference.replicas import Pool, Replica
from gateway.process.envoy_runner import DESTINATION_HEADER
from gateway.telemetry import metrics

ATTRIBUTES = "envoy.filters.http.ext_proc"  # the key of the attributes Envoy sends the ExtProc
# Envoy's own reply after its last attempt failed before the replica answered (refused, reset)
NO_REPLY = "upstream_reset_before_response_started"
FALLBACKS = 2  # addresses after the chosen one: Envoy's route retries twice on a connect failure
_OVERWRITE = core_pb2.HeaderValueOption.OVERWRITE_IF_EXISTS_OR_ADD


def _set(key: str, value: str) -> core_pb2.HeaderValueOption:
    return core_pb2.HeaderValueOption(
        header=core_pb2.HeaderValue(key=key, raw_value=value.encode()), append_action=_OVERWRITE
    )


def _address(replica: Replica) -> str | None:
    """`ip:port` of a replica (`[v6]:port`), or None when its URL names a host."""
    host, _, port = replica.name.rpartition(":")
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return None
    return f"[{ip}]:{port}" if ip.version == 6 else f"{ip}:{port}"


class EndpointPicker:
    def __init__(self, client: BackendClient, base: ep.HeaderMutation) -> None:
        self.client = client
        self.base = base  # the processor's request mutation (:path, content-type, headers removed)
        self._mutations: dict[str, ep.HeaderMutation] = {}
        self._addresses: dict[str, str | None] = {}  # replica name -> ip:port (parsing an address costs µs)

    def address(self, replica: Replica) -> str | None:
        try:
            return self._addresses[replica.name]
        except KeyError:
            found = self._addresses[replica.name] = _address(replica)
            return found

    def pool(self, model: str) -> Pool | None:
        """The pool the Envoy door can send `model` to directly, or None (the HTTP server serves it)."""
        try:
            pool = self.client.pool_for(model)
        except APIError:
            return None  # the HTTP server answers 404 model_not_found
        if pool.api != "chat_completions" or not pool.replicas or any(self.address(r) is None for r in pool.replicas):
            return None
        return pool

    def _pool_mutation(self, pool: Pool) -> ep.HeaderMutation:
        """The base mutation with the pool's own key (or none) as the upstream's authorization."""
        m = self._mutations.get(pool.name)
        if m is None:
            m = ep.HeaderMutation()
            m.CopyFrom(self.base)
            kept = [h for h in m.set_headers if h.header.key != "authorization"]
            del m.set_headers[:]
            m.set_headers.extend(kept)
            if "authorization" not in m.remove_headers:
                m.remove_headers.append("authorization")  # the caller's key for the gateway
            auth = pool.headers.get("Authorization")
            if auth:
                m.remove_headers.remove("authorization")
                m.set_headers.append(_set("authorization", auth))
            self._mutations[pool.name] = m
        return m

    def route(self, pool: Pool, chain: Affinity) -> tuple[ep.HeaderMutation, list[Replica]]:
        """The request mutation naming the chosen replica and its fallbacks, and those replicas in
        the order named; the chosen (first) one is counted in flight until the caller's `done`, and
        is the chain's `served` replica unless Envoy reaches a fallback (`observe`)."""
        key = chain.key
        preferred = chain.preferred(pool.name)
        replica = pool.picker.pick(pool.replicas, key, (), preferred)
        assert isinstance(replica, Replica)
        if key is not None:
            order = [pool.replicas[k] for k in pool.picker.ring(pool.replicas).walk(key)]
        else:
            order = sorted(pool.replicas, key=lambda r: r.in_flight)
        chosen = [replica, *(r for r in order if r is not replica)][: 1 + FALLBACKS]
        addresses = [a for a in (self.address(r) for r in chosen) if a]
        m = ep.HeaderMutation()
        m.CopyFrom(self._pool_mutation(pool))
        m.set_headers.append(_set(DESTINATION_HEADER, ",".join(addresses)))
        replica.in_flight += 1
        chain.served = f"{pool.name}/{replica.name}"
        return m, [r for r in chosen if self.address(r)]

    @staticmethod
    def done(replica: Replica) -> None:
        replica.in_flight -= 1

    def observe(
        self, named: list[Replica], attributes: struct_pb2.Struct | None, chain: Affinity | None = None
    ) -> list[Replica]:
        """Mark down the named replicas Envoy could not reach, from what it says with the response
        headers (see the module docstring), and make the one it reached the chain's `served`;
        returns the ones marked down."""
        if attributes is None:
            return []
        fields = attributes.fields
        upstream = fields["upstream.address"].string_value if "upstream.address" in fields else ""
        details = fields["response.code_details"].string_value if "response.code_details" in fields else ""
        reached = next((i for i, r in enumerate(named) if self.address(r) == upstream), None)
        if details.startswith(NO_REPLY):  # the last one tried failed too: all up to it (or all)
            failed = named if reached is None else named[: reached + 1]
        else:
            failed = named[:reached] if reached else []
        if chain is not None and chain.served is not None:  # the pick, or the fallback Envoy reached
            if details.startswith(NO_REPLY):
                chain.served = None
            elif reached is not None:
                chain.served = f"{chain.served.rpartition('/')[0]}/{named[reached].name}"
        for replica in failed:
            self.client.mark_down(replica)
            metrics.backend_failover(replica.name)
            metrics.backend_call(replica.name, "backend_error")
        return failed
