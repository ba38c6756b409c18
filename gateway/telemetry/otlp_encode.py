"""The OTLP trace export request of a batch of `gateway.telemetry.lean_tracer` spans, written straight to
protobuf wire bytes: the very bytes the OpenTelemetry exporters' own encoder
(`opentelemetry.exporter.otlp.proto.common.trace_encoder.encode_spans`) serialises for the same
spans (`tests/telemetry/test_tracing.py::test_lean_encoding_matches_the_sdk_encoder`).

Why not the library's encoder: it builds every `KeyValue`, `AnyValue` and `Span` as a message of its
own and copies each into its parent, level by level (~50 us of CPU per span here); building the
same message in place was still ~35 us a span, the largest share of tracing's cost per request
(#31). Here a span is a handful of `bytes` joined: ids and timestamps packed, and each attribute's
encoded `KeyValue` memoised per key (a span's attributes repeat: method, route, model, provider,
replica; a unique value is the key's field head for its length and its bytes: `span_attributes`),
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
from collections.abc import Callable, Mapping, Sequence
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
_MEMO_MAX = 4096  # entries of a memo of names or keys; cleared when full
_pack_times = struct.Struct("<BBBQBQ").pack  # a span's kind, start and end fields in one call
_UNSET_TAIL = {k: b"\x7a\x00\x85\x01" + v for k, v in _FLAGS.items()}
# The memo dicts (these two and `_by_key`'s) are written by two threads on purpose: the export
# thread (`record_bytes`) and the event loop (`span_bytes` of a span holding containers). Safe
# without a lock: every use is one dict get, set or clear (str/int/tuple keys), atomic under the
# GIL, and nothing iterates them; the worst race, an entry lost to a concurrent `clear()` (or a
# value memoised in a key's memo just dropped), only costs a re-encode.
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


# Only short strings are memoised: names, models, ids repeat; captured message content
# (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT) is long, unique, and would pin memory.
_MEMO_STR_MAX = 256
# Bounds of `_by_key` (worst case ~15 MB, typically a few hundred kB): attribute keys (the call
# sites use a few dozen; past it all are dropped and made again), memoised values a key (past it:
# response ids, token counts are encoded each time), remembered field heads a key (one a length).
_KEYS_MAX = 128
_KEY_VALUES = 128
_KEY_HEADS = 64
# attribute key -> (its memo: a str, an int or (type, value) -> the encoded `KeyValue` field; the
# field heads of a string value by its UTF-8 length; of an `AnyValue` body by its length; a double's
# field head). (Written by two threads: see `_names`.)
_by_key: dict[str, tuple[dict[Any, bytes], dict[int, bytes], dict[int, bytes], bytes]] = {}


def attributes(tag: bytes, attrs: Mapping[str, Any] | None) -> list[bytes]:
    """Each attribute as a repeated `KeyValue` field ``tag``, for what is encoded once (a preset, the
    resource, the scope) or seldom (an event's or a link's attributes); a span's own go through
    `span_attributes`. A value of a type OTLP cannot carry is left out (the library logs and drops it
    too), and so is None (the SDK never records it)."""
    out: list[bytes] = []
    for key, value in (attrs or {}).items():
        if value is not None:
            try:
                out.append(_field(tag, key_value(key, value)))
            except TypeError:
                pass
    return out


def _key_memo(key: str) -> tuple[dict[Any, bytes], dict[int, bytes], dict[int, bytes], bytes]:
    """A key's entry in `_by_key`, made when first met."""
    if len(_by_key) >= _KEYS_MAX:
        _by_key.clear()
    field = _field(b"\x0a", key.encode()) if key else b""
    entry = _by_key[key] = ({}, {}, {}, b"\x4a" + varint(len(field) + 11) + field + b"\x12\x09\x21")
    return entry


def _any_head(key: str, size: int, heads: dict[int, bytes]) -> bytes:
    """A `KeyValue` field of ``key`` up to its `AnyValue` body of ``size`` bytes (remembered)."""
    field = _field(b"\x0a", key.encode()) if key else b""
    head = b"\x4a" + varint(len(field) + 1 + len(varint(size)) + size) + field + b"\x12" + varint(size)
    if len(heads) < _KEY_HEADS:
        heads[size] = head
    return head


def _str_head(key: str, size: int, strings: dict[int, bytes], anys: dict[int, bytes]) -> bytes:
    """A `KeyValue` field of ``key`` up to a string value of ``size`` UTF-8 bytes (remembered)."""
    tail = b"\x0a" + varint(size)
    head = (anys.get(size + len(tail)) or _any_head(key, size + len(tail), anys)) + tail
    if len(strings) < _KEY_HEADS:
        strings[size] = head
    return head


def span_attributes(keys: Sequence[str], values: Sequence[Any]) -> list[bytes]:
    """A span's own attributes (``keys`` and ``values`` side by side) as its repeated `KeyValue`
    fields (field 9), as `attributes` encodes them.

    Why the shape (#31: this runs for every attribute of every span, in the export thread): one
    entry per key (`_by_key`), so a value is looked up alone, not as a tuple made per attribute. A
    short string (most values) or an int is its own memo key (a string never equals a number; a
    bool, equal to 1 or 0, is keyed with its type); a tuple of short strings (finish reasons) is
    memoised too. A miss (a response id, a token count) is written as the key's field head for its
    length, made once, and the value's own bytes; a key keeps at most `_KEY_VALUES` values and
    starts again when full, so no request's value stays in memory for the process's life. A float
    is never memoised (time to first chunk: unique; 0.0 and -0.0 are equal but encode apart): the
    key's double head and its 8 bytes. The memo's
    keys are strings and ints, which the garbage collector does not track: a memo of tuple keys
    (an earlier version, thousands alive until its clear) had them promoted to the oldest
    generation, and the full collections they set off cost the HTTP door ~20 us a request."""
    out: list[bytes] = []
    append = out.append
    by_key = _by_key
    for key, value in zip(keys, values, strict=True):
        memo, strings, anys, double = by_key.get(key) or _key_memo(key)
        kind = type(value)
        if kind is str or kind is int:
            encoded = memo.get(value)
            if encoded is None:
                if kind is str:
                    body = value.encode()
                    size = len(body)
                    encoded = (strings.get(size) or _str_head(key, size, strings, anys)) + body
                    keep = size <= _MEMO_STR_MAX
                elif _INT64_MIN <= value <= _INT64_MAX:
                    body = b"\x18" + varint(value)
                    encoded = (anys.get(len(body)) or _any_head(key, len(body), anys)) + body
                    keep = True
                else:  # beyond int64: protobuf refuses it; the library drops the attribute
                    continue
                if keep:
                    if len(memo) >= _KEY_VALUES:  # full: start again (no value pinned for good)
                        memo.clear()
                    memo[value] = encoded
            append(encoded)
            continue
        if kind is float:
            append(double + _pack_d(value))
            continue
        if kind is bool:
            memo_key: Any = (bool, value)
        elif kind is tuple and all(type(v) is str and len(v) <= _MEMO_STR_MAX for v in value):
            memo_key = (tuple, value)
        elif value is None:  # not an attribute value: the SDK never records it
            continue
        else:  # a list, bytes, a mapping, another type (dropped): seldom, not memoised
            try:
                append(_field(b"\x4a", key_value(key, value)))
            except TypeError:
                pass
            continue
        encoded = memo.get(memo_key)
        if encoded is None:
            encoded = _field(b"\x4a", key_value(key, value))
            if len(memo) >= _KEY_VALUES:
                memo.clear()
            memo[memo_key] = encoded
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
    """The body of one OTLP `Span` from a `gateway.telemetry.lean_tracer.LeanSpan`: its record, as
    `span_records.queue_span` makes it, with its events and links beside it."""
    preset, attrs = span.preset, span.attributes
    record = (
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
        tuple(attrs),
        tuple(attrs.values()),
        span.dropped_attributes,
        None,
        0,
        span.status_code,
        span.status_message,
    )
    return record_bytes(record, span.events, span.links)


_M64 = (1 << 64) - 1
_pack_ids = struct.Struct(">HQQHQ").pack  # the trace id (two halves) and span id fields, tags included
_pack_ids_parent = struct.Struct(">HQQHQHQ").pack  # ... and the parent span id's
_pack_parent = struct.Struct(">HQ").pack


def record_bytes(record: tuple[Any, ...], events: Any = None, links: Any = None) -> bytes:
    """The body of one OTLP `Span`, in the proto's field order, from the record `span_records.queue_span`
    queued: ids, parent, trace state header, name, kind, times, the preset's encoded attributes,
    the span's attribute keys and values (two tuples), dropped count, its one event's name (or None)
    and time, status code and message (one level of tuples only: see `gateway.telemetry.span_records`);
    ``events`` and ``links`` those of a span encoded at its end (`span_bytes`). One body for both, so
    the two paths cannot encode a span apart. The fixed fields are packed with their tags in one
    `struct` call (ids) and another (kind and times); what is shared is encoded once (the name, the
    preset, an event's name, an unset status); only the span's own attribute values are not (#31)."""
    (trace_id, span_id, parent_id, remote, state, name, kind, start, end, preset, keys, values, dropped,
     event, at, code, message) = record  # fmt: skip
    if state:
        head = _pack_ids(0x0A10, trace_id >> 64, trace_id & _M64, 0x1208, span_id) + _field(b"\x1a", state.encode())
        if remote is not None:
            head += _pack_parent(0x2208, parent_id)
    elif remote is None:
        head = _pack_ids(0x0A10, trace_id >> 64, trace_id & _M64, 0x1208, span_id)
    else:
        head = _pack_ids_parent(0x0A10, trace_id >> 64, trace_id & _M64, 0x1208, span_id, 0x2208, parent_id)
    named = _names.get(name)
    if named is None:
        if len(_names) >= _MEMO_MAX:
            _names.clear()
        named = _names[name] = _field(b"\x2a", name.encode()) if name else b""
    parts = [head, named, _pack_times(0x30, kind, 0x39, start, 0x41, end)]  # kind < 128: one byte
    if preset is not None:  # attributes shared by spans alike: encoded once (`presets.Preset`)
        parts.append(preset)
    if keys:
        parts += span_attributes(keys, values)
    if dropped:
        parts += (b"\x50", varint(dropped))
    if event is not None:
        events = ((event, at, None),)
    if events:
        for event_name, timestamp, event_attrs in events:
            named = _event_names.get(event_name)  # (names repeat: gen_ai.first_chunk, exception)
            if named is None:
                if len(_event_names) >= _MEMO_MAX:
                    _event_names.clear()
                named = _event_names[event_name] = _field(b"\x12", event_name.encode()) if event_name else b""
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
        parts += (_field(b"\x7a", status), b"\x85\x01", _FLAGS[remote])
    else:
        parts.append(_UNSET_TAIL[remote])  # an empty status and the flags, made once
    return b"".join(parts)


_SPANS_HEADED = 2048  # a span field's tag and length made once for bodies shorter than this
_SPAN_HEADS = [b"\x12" + varint(size) for size in range(_SPANS_HEADED)]  # (no copy of a body to prefix it)


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
        size = len(body)
        append(_SPAN_HEADS[size] if size < _SPANS_HEADED else b"\x12" + varint(size))
        append(body)
    append(scope[1])
    scope_spans = b"".join(fields)
    resource_spans = resource[0] + _field(b"\x12", scope_spans) + resource[1]
    return _field(b"\x0a", resource_spans)
