"""The replica picker's policy (#27) and the vLLM /metrics parser, in-process: the properties the
fleet tests rely on, checked over many keys."""

from __future__ import annotations

from dataclasses import dataclass

from gateway.inference.picker import Picker
from gateway.inference.replicas import parse_vllm_metrics


@dataclass(eq=False)
class R:
    name: str
    in_flight: int = 0
    down_until: float = 0.0
    waiting: int | None = None
    running: int = 0
    kv_cache: float = 0.0


def pool(n: int) -> list[R]:
    return [R(f"10.0.0.{i}:8000") for i in range(n)]


KEYS = [f"chain:item_{i}" for i in range(2000)]


def test_keys_spread_and_a_lost_replica_moves_only_its_own_chains() -> None:
    replicas = pool(4)
    before = {k: Picker(1.25).pick(replicas, k).name for k in KEYS}  # a fresh picker: any process agrees
    counts = [sum(1 for v in before.values() if v == r.name) for r in replicas]
    assert min(counts) > len(KEYS) / 4 * 0.6, counts
    replicas[2].down_until = float("inf")
    after = {k: Picker(1.25).pick(replicas, k).name for k in KEYS}
    moved = [k for k in KEYS if before[k] != after[k]]
    assert moved and all(before[k] == replicas[2].name for k in moved)
    assert len({after[k] for k in moved}) > 1  # its chains spread over the others, each to one place


def test_bounded_load_moves_a_chain_only_when_work_waits() -> None:
    replicas = pool(3)
    picker = Picker(1.25)
    home = picker.pick(replicas, KEYS[0])
    assert isinstance(home, R)
    home.in_flight, home.waiting = 30, 0  # busy, but its queue is empty: the chain stays
    assert picker.pick(replicas, KEYS[0]) is home
    home.waiting = 5  # now work waits there, far above the mean: the next replica on the ring
    moved = picker.pick(replicas, KEYS[0])
    assert moved is not home and picker.pick(replicas, KEYS[0]) is moved  # the same place each time
    home.waiting = None  # unknown: the in-flight count decides
    assert picker.pick(replicas, KEYS[0]) is moved
    home.in_flight = 0
    assert picker.pick(replicas, KEYS[0]) is home  # and it comes back


def test_a_stored_replica_wins_while_it_fits_and_a_move_is_stored_once() -> None:
    """Stored affinity: the chain's stored replica, whatever the ring says; past the bound (or
    down) the next on the ring, which the caller stores, so the next turns stay there even when the
    old replica's load falls."""
    replicas = pool(4)
    picker = Picker(1.25)
    key = KEYS[0]
    home = picker.pick(replicas, key)
    other = next(r for r in replicas if r is not home)
    assert picker.pick(replicas, key, (), other.name) is other  # stored: not the hash's choice
    assert picker.pick(replicas, key, (), "10.9.9.9:1") is home  # a replica gone: the ring
    other.in_flight, other.waiting = 30, 5  # the stored one is over the bound
    moved = picker.pick(replicas, key, (), other.name)
    assert moved is not other
    other.in_flight, other.waiting = 0, 0  # its load falls: the chain stays where it was stored
    assert picker.pick(replicas, key, (), moved.name) is moved
    other.down_until = float("inf")
    assert picker.pick(replicas, key, (), other.name) is not other
    assert picker.pick(replicas, None, (), moved.name) is moved  # a stored replica needs no key


def test_least_load_and_retry_skip_what_was_tried() -> None:
    replicas = pool(3)
    replicas[0].waiting, replicas[0].running = 40, 16
    replicas[1].in_flight = 2
    picker = Picker(1.25)
    assert {picker.pick(replicas, None).name for _ in range(5)} == {replicas[2].name}
    assert picker.pick(replicas, None, tried=[replicas[2]]) is replicas[1]


def test_vllm_metrics_parsed_and_summed_over_engines() -> None:
    text = (
        b"# HELP vllm:num_requests_waiting Number of requests waiting.\n"
        b'vllm:num_requests_waiting{engine="0",model_name="m"} 3.0\n'
        b'vllm:num_requests_waiting{engine="1",model_name="m"} 2.0\n'
        b'vllm:num_requests_running{engine="0",model_name="m"} 7.0\n'
        b'vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.5\n'
        b'vllm:num_requests_waiting_by_reason{reason="capacity"} 9\n'
        b"process_cpu_seconds_total 12.0\n"
    )
    assert parse_vllm_metrics(text) == {"waiting": 5.0, "running": 7.0, "kv_cache": 0.5}
    assert parse_vllm_metrics(b"not metrics at all") == {}
