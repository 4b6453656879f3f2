"""Per-run graph state and `process_state`, Eino's `ProcessState`.

A graph built with `Graph(state=factory)` gets a fresh state per run, held in a `StateFrame` whose
`parent` is the enclosing graph's frame. Code inside a node reaches it through the run scope; the lookup
walks from the innermost graph outwards and takes the first state of the requested type, so an inner
state of the same type shadows the outer one. Every frame has its own lock, held while `fn` runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from graph_core.context import StateFrame, current_scope
from graph_core.errors import StateLookupError

__all__ = ["StateFrame", "StreamHandler", "find_state_frame", "process_state", "stream_handler"]

S = TypeVar("S")
R = TypeVar("R")


class StreamHandler:
    """A state handler that takes and returns a stream (Eino `WithStreamStatePreHandler`/`...PostHandler`).

    In stream mode it sees the live stream, so nothing is concatenated; in invoke mode it gets a 1-chunk
    stream and its result is concatenated back into a value.
    """

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[Any, Any], Any]) -> None:
        self.fn = fn

    def __call__(self, stream: Any, state: Any) -> Any:
        return self.fn(stream, state)


def stream_handler(fn: Callable[[Any, Any], Any]) -> StreamHandler:
    """Mark `fn(stream, state) -> stream` as a stream handler, for `pre=`/`post=` of any `add_*_node`."""
    return StreamHandler(fn)


def find_state_frame(state_type: type[Any], frame: StateFrame | None) -> StateFrame:
    if frame is None:
        raise StateLookupError("get state from context fail: have not set state")
    innermost = frame
    while frame is not None:
        if isinstance(frame.value, state_type):
            return frame
        frame = frame.parent
    raise StateLookupError(
        "get state from context fail: cannot find state with type: "
        f"{state_type.__name__} in states chain, current state type: {type(innermost.value).__name__}"
    )


def process_state(state_type: type[S], fn: Callable[[S], R]) -> R:
    """Call `fn(state)` under the state's lock with the innermost state of `state_type`; return its result."""
    scope = current_scope()
    frame = find_state_frame(state_type, scope.state if scope is not None else None)
    with frame.lock:
        return fn(frame.value)
