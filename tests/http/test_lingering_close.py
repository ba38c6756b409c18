"""The lingering close after a pre-routing refusal ends when it should: on the client's quiet, and at
once when the server shuts down (it must not hold a pod's shutdown for its 10 s)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from gateway.http.guard import ConnectionGuard

LONG_LINE = b"GET /" + b"a" * 20_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"


async def _ok(request: web.BaseRequest) -> web.Response:
    return web.Response(text="ok")


@pytest.fixture
async def guarded() -> AsyncIterator[tuple[ConnectionGuard, int]]:
    guard = ConnectionGuard(web.Server(_ok), header_timeout=30, max_per_client=0)
    server = await asyncio.get_running_loop().create_server(guard, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield guard, port
    finally:
        server.close()
        await server.wait_closed()


async def _refused(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection whose request line was refused; the 400 has been read, and the server's EOF."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(LONG_LINE)
    await writer.drain()
    reply = await asyncio.wait_for(reader.read(), 5)  # to the server's half-close
    assert b" 400 " in reply.split(b"\r\n")[0] and b'"invalid_request_error"' in reply
    return reader, writer


async def _trickle(writer: asyncio.StreamWriter) -> bool:
    """Send a byte every 0.3 s until the server closes; True if it closed within 4 s."""
    for _ in range(13):
        try:
            writer.write(b"a")
            await writer.drain()
        except ConnectionError:
            return True
        await asyncio.sleep(0.3)
    return False


async def test_a_refusal_lingers_while_the_client_sends_and_stops_when_it_goes_quiet(
    guarded: tuple[ConnectionGuard, int],
) -> None:
    guard, port = guarded
    _reader, writer = await _refused(port)
    assert not await _trickle(writer), "closed while the client was still sending"
    started = time.monotonic()
    while guard._open and time.monotonic() - started < 5:  # noqa: ASYNC110 (quiet now: the server lets go)
        await asyncio.sleep(0.1)
    writer.close()
    assert 1.5 < time.monotonic() - started < 4


async def test_shutdown_does_not_wait_for_a_lingering_refusal(guarded: tuple[ConnectionGuard, int]) -> None:
    guard, port = guarded
    _reader, writer = await _refused(port)
    trickling = asyncio.create_task(_trickle(writer))
    await asyncio.sleep(0.5)
    started = time.monotonic()
    await guard.shutdown(1.0)
    assert time.monotonic() - started < 0.9
    assert await trickling, "the lingering connection was not closed by the shutdown"
    writer.close()
