"""Which live process is producing a response.

Two gateway processes (the HTTP server and the ExtProc) share one database; each marks the responses
it is producing with its owner token, so recovery after a crash touches only the dead process's rows.
"""

from __future__ import annotations

import os
import socket
import time

HOST = socket.gethostname()
OWNER = f"{HOST}:{os.getpid()}:{time.time_ns()}"


def is_alive(owner: str) -> bool:
    """True unless the owner ran on this host and its pid is gone (or is this process's previous life)."""
    try:
        host, pid_s, _start = owner.rsplit(":", 2)
        pid = int(pid_s)
    except ValueError:
        return False
    if host != HOST:
        return True  # another machine's process: it recovers its own rows
    if owner == OWNER:
        return True
    if pid == os.getpid():
        return False  # same pid, different start: a previous incarnation of this process
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
