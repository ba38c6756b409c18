"""This process's lease token for the responses it produces.

Several gateway processes (both doors, their workers, replicas) share one database. A process
stores its token on the responses it is producing and renews their leases while it lives; when the
leases run out, any live process ends those responses as failed (see `ResponsesService`). A random
part makes the token unique even when a pid is reused or a container keeps its hostname.
"""

from __future__ import annotations

import os
import socket
import uuid

OWNER = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
