"""The OTLP trace export request of a batch of `gateway.telemetry.lean_tracer` spans, written straight to
protobuf wire bytes: the very bytes the OpenTelemetry exporters' own encoder
(`opentelemetry.exporter.otlp.proto.common.trace_encoder.encode_spans`) serialises for the same
spans (`tests/telemetry/test_tracing.py::test_lean_encoding_matches_the_sdk_encoder`).

Why not the library's encoder: it builds every `KeyValue`, `AnyValue` and `Span` as a message of its
own and copies each into its parent, level by level (~50 us of CPU per span here); building the
same message in place was still ~35 us a span, the largest share of tracing's cost per request
(#31). Here a span is a handful of `bytes` joined: ids and timestamps packed, and each attribute's
encoded `KeyValue` memoised (a span's attributes repeat: method, route, model, provider, replica),
so a span costs a few microseconds, encoded by the export thread from the record its end queued
(`record_bytes`; or at its end, `span_bytes`: a span holding containers) and joined
into a batch. The resource and the
instrumentation scope are the process's, encoded once.

Field numbers and wire types are the OTLP protos' (`opentelemetry/proto/trace/v1/trace.proto`);
proto3 leaves a scalar out when it is zero or empty, a message field in when it is set (the
`status`, the `AnyValue` of a `KeyValue`), a oneof member in even at its zero value.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

log = logging.getLogger(__name__)

_U64 = (1 << 64) - 1
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_SMALL = [bytes((i,)) for i in range(128)]
_pack_d = struct.Struct("<d").pack
_pack_q = struct.Struct("<Q").pack
_pack_i = struct.Struct("<I").pack
_HAS_IS_REMOTE = 0x100  # SpanFlags.SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK
_IS_REMOTE = 0x200  # SpanFlags.SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK
_FLAGS = {None: _pack_i(_HAS_IS_REMOTE), False: _pack_i(_HAS_IS_REMOTE), True: _pack_i(_HAS_IS_REMOTE | _IS_REMOTE)}
_MEMO_MAX = 4096  # memoised (tag, key, value) encodings; cleared when full (unique ids would grow it)
_pack_times = struct.Struct("<BBBQBQ").pack  # a span's kind, start and end fields in one call
_UNSET_TAIL = {k: b"\x7a\x00\x85\x01" + v for k, v in _FLAGS.items()}
# The memo dicts (these two and `_memo`) are written by two threads on purpose: the export thread
# (`record_bytes`) and the event loop (`span_bytes` of a span holding containers, `preset_bytes`).
# Safe without a lock: every use is one dict get, set or clear (str/int/tuple keys), atomic under
# the GIL, and nothing iterates them; the worst race, an entry lost to a concurrent `clear()`, only
# costs a re-encode.
_names: dict[str, bytes] = {}  # a span's encoded name field (names repeat: routes, models, tools)
_event_names: dict[str, bytes] = {}  # an event's encoded name field


def varint(n: int) -> bytes:
    """A protobuf varint (a negative int64 as its 64-bit two's complement, as protobuf does)."""
    if 0 <= n < 128:
        return _SMALL[n]
    if 0 < n < 16384:  # two bytes: a span's body, most strings
        return bytes(((n & 0x7F) | 0x80, n >> 7))
    n &= _U64
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _field(tag: bytes, body: bytes) -> bytes:
    """A length-delimited field: its tag, the body's length, the body."""
    return tag + varint(len(body)) + body


def any_value(value: Any) -> bytes:
    """The body of an `AnyValue` (the library's type order: None, bool, str, int, float, bytes, sequence,
    mapping); TypeError for any other type, which the caller drops as the library does."""
    if value is None:
        return b""
    if isinstance(value, bool):
        return b"\x10\x01" if value else b"\x10\x00"
    if isinstance(value, str):
        return _field(b"\x0a", value.encode())
    if isinstance(value, int):
        if not _INT64_MIN <= value <= _INT64_MAX:  # protobuf refuses it; the library drops the attribute
            raise TypeError(f"Invalid int64 value {value}")
        return b"\x18" + varint(value)
    if isinstance(value, float):
        return b"\x21" + _pack_d(value)
    if isinstance(value, bytes):
        return _field(b"\x3a", value)
    if type(value) is tuple or type(value) is list or isinstance(value, Sequence):
        return _field(b"\x2a", b"".join(_field(b"\x0a", any_value(v)) for v in value))
    if isinstance(value, Mapping):
        return _field(b"\x32", b"".join(_field(b"\x0a", key_value(str(k), v)) for k, v in value.items()))
    raise TypeError(f"Invalid type {type(value)} of value {value}")


def key_value(key: str, value: Any) -> bytes:
    """The body of a `KeyValue` (its value message is always present, even empty)."""
    return (_field(b"\x0a", key.encode()) if key else b"") + _field(b"\x12", any_value(value))


_memo: dict[tuple[Any, ...], bytes] = {}  # (written by two threads: see `_names`)
_MEMOISABLE = frozenset({int, bool})
# only short strings are memoised: names, models, ids repeat; captured message content
# (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT) is long, unique, and would pin memory
_MEMO_STR_MAX = 256


def attributes(tag: bytes, attrs: Mapping[str, Any] | None) -> list[bytes]:
    """Each attribute as a repeated `KeyValue` field ``tag``. A value of a type OTLP cannot carry is
    left out (the library logs and drops it too). (The work is `pairs`'.)"""
    return pairs(tag, attrs.items()) if attrs else []


def pairs(tag: bytes, items: Iterable[tuple[str, Any]]) -> list[bytes]:
    """`attributes` of ``items`` (key, value): a span's dict items, or a record's keys and values
    zipped (`record_bytes`: no dict built a record, ~0.5 us a span of the export thread's less).

    Why the shape: this runs for every attribute of every span (#31). A short string (most values)
    is looked up by ``(tag, key, value)``: a string never equals a number, so no type is needed in
    its key; numbers and booleans carry their type (1, 1.0 and True are equal and hash alike but
    encode apart; a float is keyed by its bytes, since 0.0 == -0.0); a tuple or list of short
    strings (finish reasons) is memoised as a tuple, and is tested by its exact type first:
    `isinstance` against `Sequence`, an ABC, costs a few microseconds a value."""
    out: list[bytes] = []
    append = out.append
    memo = _memo
    for key, value in items:
        kind = type(value)
        if kind is str:
            if len(value) <= _MEMO_STR_MAX:
                memo_key: tuple[Any, ...] = (tag, key, value)
            else:
                append(_field(tag, key_value(key, value)))
                continue
        elif kind in _MEMOISABLE:
            memo_key = (tag, key, kind, value)
        elif kind is float:  # by its bytes: 0.0 == -0.0 (one key) but they encode apart
            memo_key = (tag, key, float, _pack_d(value))
        elif (kind is tuple or kind is list) and all(type(v) is str and len(v) <= _MEMO_STR_MAX for v in value):
            memo_key = (tag, key, tuple, tuple(value))  # a list encodes as the tuple does
        elif value is None:  # not an attribute value: the SDK never records it
            continue
        else:
            try:
                append(_field(tag, key_value(key, value)))
            except TypeError:
                pass
            continue
        encoded = memo.get(memo_key)
        if encoded is None:
            if len(memo) >= _MEMO_MAX:
                memo.clear()
            try:
                encoded = memo[memo_key] = _field(tag, key_value(key, value))
            except TypeError:  # an int beyond int64: dropped, as the library drops it
                continue
        append(encoded)
    return out


def resource_part(resource_attributes: Mapping[str, Any], schema_url: str = "") -> tuple[bytes, bytes]:
    """The `ResourceSpans` fields around its scope spans: the `resource` field, and the schema url."""
    resource = _field(b"\x0a", b"".join(attributes(b"\x0a", resource_attributes)))
    return resource, (_field(b"\x1a", schema_url.encode()) if schema_url else b"")


def scope_part(
    name: str, version: str = "", scope_attributes: Mapping[str, Any] | None = None, schema_url: str = ""
) -> tuple[bytes, bytes]:
    """The `ScopeSpans` fields around its spans: the `scope` field, and the schema url."""
    body = b"".join(
        (
            _field(b"\x0a", name.encode()) if name else b"",
            _field(b"\x12", version.encode()) if version else b"",
            *attributes(b"\x1a", scope_attributes),
        )
    )
    return _field(b"\x0a", body), (_field(b"\x1a", schema_url.encode()) if schema_url else b"")


def preset_bytes(preset: Any) -> bytes:
    """A `presets.Preset`'s attributes as `KeyValue` fields, encoded once and kept on it."""
    encoded = preset.encoded
    if encoded is None:
        encoded = preset.encoded = b"".join(attributes(b"\x4a", preset.attributes))
    return encoded  # type: ignore[no-any-return]


def span_bytes(span: Any) -> bytes:
    """The body of one OTLP `Span` from a `gateway.telemetry.lean_tracer.LeanSpan`."""
    preset = span.preset
    return _span(
        span.trace_id,
        span.span_id,
        span.parent_id,
        span.parent_remote,
        span.trace_state_header,
        span.name,
        span.kind,
        span.start,
        span.end_ns,
        None if preset is None else preset_bytes(preset),
        span.attributes.items(),
        span.dropped_attributes,
        span.events,
        span.status_code,
        span.status_message,
        span.links,
    )


def record_bytes(record: tuple[Any, ...]) -> bytes:
    """The body of one OTLP `Span` from the record `span_records.queue_span` queued: ids, parent,
    trace state header, name, kind, times, the preset's encoded attributes, the span's attribute
    keys and values (two tuples), dropped count, its one event's name (or None) and time, status
    code and message. One level of tuples only: see `gateway.telemetry.span_records`."""
    (trace_id, span_id, parent_id, remote, state, name, kind, start, end, preset, keys, values, dropped,
     event, at, code, message) = record  # fmt: skip
    return _span(
        trace_id,
        span_id,
        parent_id,
        remote,
        state,
        name,
        kind,
        start,
        end,
        preset,
        zip(keys, values, strict=True),
        dropped,
        None if event is None else ((event, at, None),),
        code,
        message,
        None,
    )


def _span(
    trace_id: int,
    span_id: int,
    parent_id: int,
    parent_remote: bool | None,
    state: str,
    name: str,
    kind: int,
    start: int,
    end: int,
    preset: bytes | None,
    items: Iterable[tuple[str, Any]],
    dropped: int,
    events: Any,
    code: int,
    message: str,
    links: Any,
) -> bytes:
    """The body of one OTLP `Span` from its fields, in the proto's field order. Positional, not a
    span: `span_bytes` (a live `LeanSpan`) and `record_bytes` (a queued record, in the export
    thread) share this one body, so the two paths cannot encode a span apart."""
    parts = [b"\x0a\x10", trace_id.to_bytes(16, "big"), b"\x12\x08", span_id.to_bytes(8, "big")]
    if state:
        parts.append(_field(b"\x1a", state.encode()))
    if parent_remote is not None:
        parts += (b"\x22\x08", parent_id.to_bytes(8, "big"))
    if name:
        encoded = _names.get(name)
        if encoded is None:
            if len(_names) >= _MEMO_MAX:
                _names.clear()
            encoded = _names[name] = _field(b"\x2a", name.encode())
        parts.append(encoded)
    parts.append(_pack_times(0x30, kind, 0x39, start, 0x41, end))  # kind < 128: one byte
    if preset is not None:  # attributes shared by spans alike: encoded once (`presets.Preset`)
        parts.append(preset)
    parts += pairs(b"\x4a", items)
    if dropped:
        parts += (b"\x50", varint(dropped))
    if events:
        for event, timestamp, event_attrs in events:
            named = _event_names.get(event)  # (names repeat: gen_ai.first_chunk, exception)
            if named is None:
                if len(_event_names) >= _MEMO_MAX:
                    _event_names.clear()
                named = _event_names[event] = _field(b"\x12", event.encode()) if event else b""
            body = b"\x09" + _pack_q(timestamp) + named
            if event_attrs:
                body += b"".join(attributes(b"\x1a", event_attrs))
            parts.append(_field(b"\x5a", body))
    if links:
        for link in links:
            context = link.context
            body = b"".join(
                (
                    b"\x0a\x10",
                    context.trace_id.to_bytes(16, "big"),
                    b"\x12\x08",
                    context.span_id.to_bytes(8, "big"),
                    *attributes(b"\x22", link.attributes),
                    (b"\x28" + varint(link.dropped_attributes)) if link.dropped_attributes else b"",
                    b"\x35",
                    _FLAGS[bool(context.is_remote)],
                )
            )
            parts.append(_field(b"\x6a", body))
    if code or message:
        status = (_field(b"\x12", message.encode()) if message else b"") + (b"\x18" + varint(code) if code else b"")
        parts += (_field(b"\x7a", status), b"\x85\x01", _FLAGS[parent_remote])
    else:
        parts.append(_UNSET_TAIL[parent_remote])  # an empty status and the flags, made once
    return b"".join(parts)


def encode_batch(
    bodies: Sequence[bytes | tuple[Any, ...]],
    resource: tuple[bytes, bytes],
    scope: tuple[bytes, bytes],
    lost: Callable[[], object] | None = None,
) -> bytes:
    """The serialised `ExportTraceServiceRequest` of a batch: one resource, one scope (a gateway
    process has one of each), every span under them. ``bodies`` are what `span_records.queue_span`
    queued for each span: its record (a tuple of atoms, encoded here, in the export thread: the
    usual case), or its `span_bytes` made at its end (a span holding containers: links, a list
    value). A record that fails to encode is dropped alone (logged, and ``lost`` called: the
    recorder counts it), never the batch."""
    fields = [scope[0]]
    append = fields.append
    for body in bodies:
        if type(body) is not bytes:
            try:
                body = record_bytes(body)  # type: ignore[arg-type]
            except Exception:  # never the batch over one span
                log.exception("encoding span %r failed", body[5] if len(body) > 5 else "?")
                if lost is not None:
                    lost()
                continue
        append(b"\x12" + varint(len(body)) + body)
    append(scope[1])
    scope_spans = b"".join(fields)
    resource_spans = resource[0] + _field(b"\x12", scope_spans) + resource[1]
    return _field(b"\x0a", resource_spans)
