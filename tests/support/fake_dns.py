"""Run a gateway command with a name that resolves to several addresses, without /etc/hosts or a
DNS server: `python -m tests.support.fake_dns NAME=IP,IP -- serve`.

The gateway resolves a DNS pool with `loop.getaddrinfo`, which calls `socket.getaddrinfo`; this
answers that one name with the given addresses (each a replica) and passes every other name to the
real resolver, so the gateway's own code path is unchanged (as HTTPX tests swap a transport). Run
it with `GATEWAY_EVENT_LOOP=asyncio`: uvloop's `getaddrinfo` is libuv's, which this cannot reach.
A test that starts processes it does not run itself (`tests.support.stack.envoy_stack`) installs it with a
`sitecustomize.py` on their PYTHONPATH (`sitecustomize`).
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path
from typing import Any

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


def sitecustomize(folder: Path, name: str, addresses: list[str]) -> str:
    """Write a `sitecustomize.py` into `folder` that installs this for every Python process started
    with `folder` first on its PYTHONPATH; returns that PYTHONPATH (the repository after it)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(
        f"from tests.support.fake_dns import install\ninstall({name!r}, {addresses!r})\n", encoding="utf-8"
    )
    return os.pathsep.join([str(folder), str(Path(__file__).resolve().parent.parent.parent)])


if __name__ == "__main__":
    from gateway.process.cli import main as gateway_main  # here: a sitecustomize may import `install` alone

    spec, sep, *rest = sys.argv[1:]
    assert sep == "--", "usage: python -m tests.support.fake_dns NAME=IP,IP -- COMMAND ..."
    host, _, ips = spec.partition("=")
    install(host, ips.split(","))
    sys.exit(gateway_main(rest))
