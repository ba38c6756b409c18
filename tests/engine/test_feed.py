"""A detached run's feed: every listener gets every event in order, a late listener of a kept
(background) feed gets what it missed, and `more_ready` says truly whether the next event is
already there (the HTTP door joins what is ready into one write on that word)."""

from __future__ import annotations

import asyncio

import pytest

from gateway.engine.feed import Feed


def ev(n: int) -> dict[str, object]:
    return {"type": "response.output_text.delta", "delta": f"t{n}", "sequence_number": n}


async def test_listeners_get_every_event_in_order_and_know_what_is_ready() -> None:
    feed = Feed(keep=False)
    a, b = feed.listen(), feed.listen()
    assert not a.more_ready()  # nothing pushed yet: a door must wait, not spin
    for n in range(3):
        feed.push(ev(n))
    assert a.more_ready()
    got = [await a.__anext__()]
    assert a.more_ready()  # two more were pushed by the same step of the run
    got += [await a.__anext__(), await a.__anext__()]
    assert not a.more_ready()
    feed.push(None)
    assert a.more_ready()  # the end is "ready" too: the door flushes and stops without waiting
    assert [e async for e in a] == []
    with pytest.raises(StopAsyncIteration):  # and stays ended: no wait for an event that never comes
        await asyncio.wait_for(a.__anext__(), 5)
    assert [e["sequence_number"] for e in got] == [0, 1, 2]
    assert [e["sequence_number"] async for e in b] == [0, 1, 2]
    assert feed.queues == []  # both listeners left once they saw the end


async def test_a_waiting_listener_wakes_on_the_next_push() -> None:
    feed = Feed(keep=False)
    listener = feed.listen()
    waiting = asyncio.ensure_future(listener.__anext__())
    await asyncio.sleep(0)
    assert not waiting.done()
    feed.push(ev(0))
    assert (await asyncio.wait_for(waiting, 5))["sequence_number"] == 0


async def test_a_kept_feed_replays_after_a_sequence_number_and_a_closed_listener_leaves() -> None:
    feed = Feed(keep=True)
    for n in range(4):
        feed.push(ev(n))
    late = feed.listen(after=1)
    assert late.more_ready()
    assert (await late.__anext__())["sequence_number"] == 2
    gone = feed.listen()
    await gone.aclose()  # the client went away mid-stream
    assert len(feed.queues) == 1
    feed.push(ev(4))
    feed.push(None)
    assert [e["sequence_number"] async for e in late] == [3, 4]
    ended = feed.listen(after=3)  # subscribing after the end still gets the rest, then stops
    assert [e["sequence_number"] async for e in ended] == [4]
