"""A tiny DNS server for tests: answers A queries for the names it is given (several addresses each),
no records for other types of those names, NXDOMAIN for every other name. Envoy resolves a DNS
pool's name with its own resolver (c-ares), which `tests.support.fake_dns` cannot reach: a test points it
here (`GATEWAY_BACKEND_DNS_RESOLVER`), as an operator would point it at a cluster's DNS.
"""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager


def _question(packet: bytes) -> tuple[str, int, int]:
    """The first question's name, type, and where the question ends."""
    labels, i = [], 12
    while packet[i]:
        n = packet[i]
        labels.append(packet[i + 1 : i + 1 + n].decode())
        i += 1 + n
    qtype = struct.unpack("!H", packet[i + 1 : i + 3])[0]
    return ".".join(labels).lower(), qtype, i + 5


def answer(packet: bytes, records: dict[str, list[str]]) -> bytes:
    name, qtype, end = _question(packet)
    found = records.get(name.rstrip("."))
    addresses = found if found is not None and qtype == 1 else []
    flags = 0x8180 if found is not None else 0x8183  # a response, recursion available; NXDOMAIN
    head = packet[:2] + struct.pack("!HHHHH", flags, 1, len(addresses), 0, 0)
    body = b"".join(struct.pack("!HHHIH", 0xC00C, 1, 1, 5, 4) + socket.inet_aton(address) for address in addresses)
    return head + packet[12:end] + body


@contextmanager
def dns_server(records: dict[str, list[str]]) -> Iterator[int]:
    """Serve `records` on a free UDP port of 127.0.0.1 in a thread; yields the port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(0.2)
    stopping = threading.Event()

    def serve() -> None:
        while not stopping.is_set():
            try:
                packet, peer = sock.recvfrom(512)
                sock.sendto(answer(packet, records), peer)
            except (TimeoutError, OSError, IndexError, struct.error):
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield sock.getsockname()[1]
    finally:
        stopping.set()
        thread.join()
        sock.close()
