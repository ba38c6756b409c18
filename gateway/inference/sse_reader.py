"""An incremental Server-Sent Events parser.

Bytes arrive in arbitrary slices (TCP reads, Envoy body chunks); events are only complete at a blank
line. The parser keeps the partial tail between calls, so both the HTTP client and the ExtProc feed
it whatever they get.
"""

from __future__ import annotations


class SSEParser:
    __slots__ = ("_buf", "_data", "_event")

    def __init__(self) -> None:
        self._buf = b""
        self._event: str | None = None
        self._data: list[bytes] = []

    def feed(self, chunk: bytes) -> list[tuple[str | None, bytes]]:
        """Return the complete `(event, data)` pairs that `chunk` finishes."""
        buf = self._buf + chunk if self._buf else chunk
        if self._data or self._event is not None or b"\r" in buf:
            return self._lines(buf)
        # The common case, `data: ...` events with LF line ends (vLLM; Envoy's body chunks): cut at
        # blank lines in C and keep the unfinished tail as it is. Both doors parse once per token.
        blocks = buf.split(b"\n\n")
        self._buf = blocks.pop()
        out: list[tuple[str | None, bytes]] = []
        for block in blocks:
            if block.startswith(b"data: ") and b"\n" not in block:
                out.append((None, block[6:]))
            elif block:
                out.extend(self._lines(block + b"\n\n", keep_tail=False))
        return out

    def _lines(self, buf: bytes, keep_tail: bool = True) -> list[tuple[str | None, bytes]]:
        """Line by line: any line end, `event:` fields, comments, an event split across feeds."""
        out: list[tuple[str | None, bytes]] = []
        start = 0
        while True:
            nl = buf.find(b"\n", start)
            if nl < 0:
                break
            line = buf[start:nl]
            start = nl + 1
            if line.endswith(b"\r"):
                line = line[:-1]
            if not line:
                if self._data:
                    out.append((self._event, b"\n".join(self._data)))
                self._event, self._data = None, []
            elif line.startswith(b"data:"):
                value = line[5:]
                self._data.append(value[1:] if value.startswith(b" ") else value)
            elif line.startswith(b"event:"):
                self._event = line[6:].strip().decode()
            # ids, retry fields and comments (":") carry nothing the gateway needs
        if keep_tail:
            self._buf = buf[start:]
        return out

    def close(self) -> list[tuple[str | None, bytes]]:
        """Flush an event the stream ended without a trailing blank line."""
        out = self.feed(b"\n\n") if self._buf or self._data else []
        return out
