"""Run a gateway command with a name that resolves to several addresses, without /etc/hosts or a
DNS server: `python -m tests.fake_dns NAME=IP,IP -- serve`.

The gateway resolves a DNS pool with `loop.getaddrinfo`, which calls `socket.getaddrinfo`; this
answers that one name with the given addresses (each a replica) and passes every other name to the
real resolver, so the gateway's own code path is unchanged (as HTTPX tests swap a transport). Run
it with `GATEWAY_EVENT_LOOP=asyncio`: uvloop's `getaddrinfo` is libuv's, which this cannot reach.
"""

from __future__ import annotations

import socket
import sys
from typing import Any

from gateway.cli import main as gateway_main

_real = socket.getaddrinfo


def install(name: str, addresses: list[str]) -> None:
    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != name:
            return _real(host, port, *args, **kwargs)
        out = []
        for address in addresses:
            out.extend(_real(address, port, *args, **kwargs))
        return out

    socket.getaddrinfo = getaddrinfo


if __name__ == "__main__":
    spec, sep, *rest = sys.argv[1:]
    assert sep == "--", "usage: python -m tests.fake_dns NAME=IP,IP -- COMMAND ..."
    host, _, ips = spec.partition("=")
    install(host, ips.split(","))
    sys.exit(gateway_main(rest))
