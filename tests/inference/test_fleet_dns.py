"""A DNS pool through the Envoy door (#27) with addresses other than localhost: a name that resolves
to two loopback addresses (127.0.0.1 and 127.0.0.3, a stand-in replica on each, the same port), for
Envoy's own resolver (c-ares, pointed at `tests.support.dns_server` with `GATEWAY_BACKEND_DNS_RESOLVER`) and
for the gateway's processes (`tests.support.fake_dns`, installed by a sitecustomize). Envoy's STRICT_DNS
cluster makes both addresses hosts; the ExtProc names one (`override_host`); chains spread over both
and each stays on one.
"""

from __future__ import annotations

import json
import urllib.request
import uuid
from pathlib import Path

import pytest
from openai import OpenAI

from tests.support.dns_server import dns_server
from tests.support.fake_dns import sitecustomize
from tests.support.procs import scripted_backend
from tests.support.stack import envoy_stack
from tests.support.waiting import until

pytestmark = pytest.mark.slow
CHAT = "chat-model"
ADDRESSES = ["127.0.0.1", "127.0.0.3"]


def test_a_dns_pool_of_two_addresses_through_envoy(tmp_path: Path) -> None:
    with (
        scripted_backend(CHAT) as a,
        scripted_backend(CHAT, port=a.port, host=ADDRESSES[1]) as b,
        dns_server({"pool.test": ADDRESSES}) as dns_port,
    ):
        fleet = [a, b]
        env = {
            "GATEWAY_BACKENDS": json.dumps([{"name": "chat", "dns": f"pool.test:{a.port}", "models": [CHAT]}]),
            "GATEWAY_BACKEND_DNS_RESOLVER": f"127.0.0.1:{dns_port}",
            "GATEWAY_EVENT_LOOP": "asyncio",  # uvloop resolves in C, past socket.getaddrinfo
            "PYTHONPATH": sitecustomize(tmp_path / "site", "pool.test", ADDRESSES),
        }
        with envoy_stack(a.url, tmp_path / "gw", **env) as stack:
            c = OpenAI(base_url=stack.url, api_key="k", max_retries=0, timeout=30)
            until(lambda: CHAT in [m.id for m in c.models.list().data], what="the pool's model listed")

            def hosts() -> str:
                with urllib.request.urlopen(f"http://127.0.0.1:{stack.admin_port}/clusters") as resp:
                    return resp.read().decode()

            until(lambda: all(f"inference::{ip}:{a.port}::" in hosts() for ip in ADDRESSES), what="both hosts")
            homes = set()
            for _ in range(8):
                m = f"mk-{uuid.uuid4().hex[:10]}"
                previous = None
                for turn in range(3):
                    r = c.responses.create(model=CHAT, input=f"{m} {turn}", previous_response_id=previous)
                    assert r.output_text == f"Echo: {m} {turn}"
                    previous = r.id
                served = [i for i, s in enumerate(fleet) if s.requests_matching(m)]
                assert len(served) == 1 and len(fleet[served[0]].requests_matching(m)) == 3, served
                homes.add(served[0])
            assert homes == {0, 1}  # both addresses are replicas, each reached through Envoy
            with urllib.request.urlopen(
                f"http://127.0.0.1:{stack.admin_port}/stats?filter=^cluster.inference.upstream_rq_total$"
            ) as resp:
                assert int(resp.read().decode().split(":")[1]) >= 8 * 3  # Envoy's cluster carried them
