"""The current span in a context variable of our own, and the bridge that shows it to OpenTelemetry's API.

Why (#31): making a span current through the API's context (`trace.set_span_in_context` + attach)
builds a new `Context` (a dict copy) and sets the runtime context's variable for every span made
current, three times a request, and every read of the current span goes through that `Context`.
In place in a door that was ~2.5 points of the ~7-15 % tracing cost. Here `tracing.attach` sets
`CURRENT_SPAN` (one `ContextVar.set`, in C) and our call sites read it first; OpenTelemetry's own
context is consulted only when ours holds nothing (a span something else made current through the
API).

What stays true for anything speaking the API (`trace.get_current_span`, the propagators,
`context.attach` of a foreign span or of baggage): `setup` installs `Bridge` as the API's runtime
context (`opentelemetry.context._RUNTIME_CONTEXT`, wrapping the configured one), so
- `context.get_current()` returns the API's context with our span in it when ours is the newer:
  `get_current_span` and `inject` see it;
- `context.attach(ctx)` (a foreign span, baggage) clears our span for its extent (the attached
  context is then the newest, as the API says: a context built from `get_current()` inside our span
  carries our span with it), and `context.detach` restores both (a token the API made before
  `setup` installed the bridge goes to the inner runtime context alone).
Asyncio tasks inherit both variables alike (a context copy at the task's creation).
"""

from __future__ import annotations

import contextvars
import functools
from typing import Any

CURRENT_SPAN: contextvars.ContextVar[Any] = contextvars.ContextVar("gateway_current_span", default=None)


@functools.cache
def bridge_class() -> type[Any]:
    """`Bridge`, made on first use: the API's `_RuntimeContext` is imported only when tracing is on."""
    from opentelemetry.context.context import Context, _RuntimeContext
    from opentelemetry.trace.propagation import _SPAN_KEY

    get_ours, set_ours, reset_ours = CURRENT_SPAN.get, CURRENT_SPAN.set, CURRENT_SPAN.reset

    class Bridge(_RuntimeContext):  # type: ignore[misc]
        """The API's runtime context (``inner``) with our current span laid over it (see the module)."""

        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def get_current(self) -> Any:
            context = self.inner.get_current()
            span = get_ours()
            if span is None or context.get(_SPAN_KEY) is span:
                return context
            return Context({**context, _SPAN_KEY: span})

        def attach(self, context: Any) -> Any:  # (a pair of tokens: the API's and ours)
            return self.inner.attach(context), set_ours(None)

        def detach(self, token: Any) -> None:
            if type(token) is not tuple:  # the API's own token, made before `setup` installed us
                self.inner.detach(token)
                return
            theirs, ours = token
            try:
                reset_ours(ours)
            finally:
                self.inner.detach(theirs)

    return Bridge
