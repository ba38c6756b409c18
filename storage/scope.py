"""Which project the current code acts for: tenancy enforced at the store boundary.

Like row-level security, scoping lives in the stores, not in the engine or the doors: every
top-level row (responses, conversations, files, vector stores, prompts, connectors, API keys) carries
a `project` column, written from `current_project()` on insert and filtered by it on every read,
update and delete, so no handler can forget it. Another project's id is simply not found.

The doors set the project once per request (`project_scope`), from the caller's API key, a trusted
proxy's header, or `default` when authentication is off. Code that runs for no request (the lease
sweep, the ingestion worker, file expiry) runs with no project set and sees every project: it works
on ids that a scoped request already resolved.

A thread does not see the caller's context: a store reads the project in its async method and hands
the value to its database thread (`filter_sql` does exactly that at the call site).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

DEFAULT_PROJECT = "default"

Scope = tuple[str, tuple[str, ...]]
"""A SQL filter for the caller's project and its parameters (empty for system work)."""

_PROJECT: ContextVar[str | None] = ContextVar("gateway_project", default=None)


def current_project() -> str | None:
    """The caller's project; None outside a request (system work that sees every project)."""
    return _PROJECT.get()


def owning_project() -> str:
    """The project a new row belongs to: the caller's, or the default one for system work."""
    return _PROJECT.get() or DEFAULT_PROJECT


@contextmanager
def project_scope(project: str | None) -> Iterator[None]:
    """Act for `project` inside the block (None: every project, for system work)."""
    token = _PROJECT.set(project)
    try:
        yield
    finally:
        _PROJECT.reset(token)


def act_for(project: str | None) -> None:
    """Act for `project` for the rest of the current task: a gRPC stream's handler runs in a task
    of its own, and entering `project_scope` for each of its messages (one per streamed token) cost
    more than the message's own translation."""
    _PROJECT.set(project)


def filter_sql(column: str = "project") -> Scope:
    """`" AND <column> = ?"` and its parameter for the current project, or nothing for system work."""
    project = _PROJECT.get()
    return ("", ()) if project is None else (f" AND {column} = ?", (project,))
