"""Every error graph_core raises on purpose, and the hierarchy, drawn once:

```
GraphError                                base of everything below
├── GraphBuildError (ValueError)          a construction mistake, named by node or edge key
├── GraphRunError (RuntimeError)          the engine stopped a run: "[GraphRunError] <reason>"
│   ├── MaxStepsExceededError             the superstep budget ran out ("exceeds max steps")
│   ├── NodeRunError                      a node failed; `node_path` says where, `__cause__` why
│   ├── InterruptError                    the run stopped at an interrupt; `info` says where and with what
│   └── StateLookupError                  `process_state` found no state of the requested type
├── HandlerError (RuntimeError)           a state pre-/post-handler failed (inside a NodeRunError)
├── StreamError (ValueError)              a stream cannot become a value (empty, chunks that do not concat)
├── CheckpointSerializationError (TypeError)  a value cannot be written to or read from a checkpoint
├── CancelError (RuntimeError)            an ADK agent's run was cancelled; `checkpoint_id` resumes it
├── ExceedMaxIterationsError (RuntimeError)   an ADK agent needed more model calls than `max_iterations`
├── RetryExhaustedError (RuntimeError)    every attempt of an ADK agent's model call failed
├── WillRetryError (RuntimeError)         an attempt failed and will be retried (reported, not raised)
├── StreamCanceledError (RuntimeError)    an ADK model stream was abandoned: never retried nor failed over
└── ChatModelError                        the OpenAI client failed (its subclasses: graph_core.models.openai)
```

Messages mirror Eino's texts so that people who know Eino recognise them, and so that the behaviour
described in the semantics document can be checked by substring. Each class is also importable from
the module that raises it (`graph_core.agents.adk.ExceedMaxIterationsError`, ...).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

__all__ = [
    "CancelError",
    "ChatModelError",
    "CheckpointSerializationError",
    "ExceedMaxIterationsError",
    "GraphBuildError",
    "GraphError",
    "GraphRunError",
    "HandlerError",
    "InterruptError",
    "MaxStepsExceededError",
    "NodeRunError",
    "RetryExhaustedError",
    "StateLookupError",
    "StreamCanceledError",
    "StreamError",
    "WillRetryError",
]


class GraphError(Exception):
    """Base class of every error graph_core raises on purpose."""


class GraphBuildError(GraphError, ValueError):
    """A graph was built or compiled wrongly; the message names the node or edge."""


class GraphRunError(GraphError, RuntimeError):
    """The engine itself stopped the run (not a node's own failure)."""

    # Set only where a node is to blame: a NodeRunError, or an engine error of a nested graph run (then
    # the embedding node keys, see `locate`). A top-level engine error has no node path attribute.
    node_path: list[str]

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"[GraphRunError] {reason}")

    def locate(self, node_path: Sequence[str]) -> None:
        """Name the subgraph node(s) whose nested run failed, as Eino's `wrapGraphNodeError` does.

        Without it a nested budget or routing failure would not say which subgraph it came from.
        """
        self.node_path = list(node_path)
        self.args = (
            f"[GraphRunError] {self.reason}\n------------------------\nnode path: [{', '.join(node_path)}]",
        )


class MaxStepsExceededError(GraphRunError):
    """The run needed more supersteps than its budget; raised before the extra step starts."""

    def __init__(self, max_steps: int, *, path: Sequence[str] = ()) -> None:
        self.max_steps = max_steps
        self.path = list(path)
        super().__init__("exceeds max steps")


class NodeRunError(GraphRunError):
    """A node failed. `node_path` lists node keys outermost first; the original error is `__cause__`."""

    def __init__(self, error: BaseException, node_path: Sequence[str]) -> None:
        self.node_path = list(node_path)
        self.error = error
        path = ", ".join(self.node_path)
        GraphError.__init__(self, f"[NodeRunError] {error}\n------------------------\nnode path: [{path}]")
        self.reason = str(error)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.error, self.node_path))


class InterruptError(GraphRunError):
    """The run stopped at an interrupt; `.info` carries the interrupt points and a copy of the state."""

    def __init__(
        self, info: Any, *, checkpoint_id: str | None = None, checkpoint: Any = None, point: Any = None
    ) -> None:
        self.info = info
        self.checkpoint_id = checkpoint_id
        self.checkpoint = checkpoint  # the graph_core.checkpoint.Checkpoint (a nested graph hands it up)
        self.point = point  # the graph_core.runner.interrupts.Point tree (a nested graph hands it up)
        super().__init__("interrupted")


class StateLookupError(GraphRunError):
    """`process_state` found no state, or none of the requested type.

    A GraphRunError so callers catching the engine's errors catch it, but its text carries no
    `[GraphRunError]` tag: it is raised inside a node, whose NodeRunError adds its own (Eino's
    `ProcessState` error is untagged too), which would otherwise read `[NodeRunError] [GraphRunError] ...`.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.args = (reason,)


class HandlerError(GraphError, RuntimeError):
    """A state pre- or post-handler failed; the original error is `__cause__`."""


class StreamError(GraphError, ValueError):
    """A stream could not be turned into a value (empty, or chunks that do not concatenate)."""


class CheckpointSerializationError(GraphError, TypeError):
    """A value cannot be written to (or read from) a checkpoint; the message names its type and place."""


_CANCEL_MODE_NAMES = {
    "AFTER_CHAT_MODEL": "CancelAfterChatModel",
    "AFTER_TOOL_CALLS": "CancelAfterToolCalls",
}


def _cancel_mode_name(mode: enum.Flag) -> str:
    """Eino's name of a `graph_core.agents.cancel.CancelMode` (flags joined by `|`)."""
    if not mode.value:
        return "CancelImmediate"
    members: list[enum.Flag] = list(type(mode))
    return "|".join(_CANCEL_MODE_NAMES[m.name or ""] for m in members if m.value and m in mode)


class CancelError(GraphError, RuntimeError):
    """The run was cancelled; a checkpoint was saved under `checkpoint_id` (Eino `*CancelError`).

    `mode` is the `graph_core.agents.cancel.CancelMode` asked for.
    """

    def __init__(
        self,
        mode: Any,
        *,
        escalated: bool,
        timeout: float | None,
        checkpoint_id: str | None,
        safe_point: str | None,
        interrupt_contexts: Sequence[Any] = (),
    ) -> None:
        self.mode = mode
        self.escalated = escalated
        self.timeout = timeout
        self.checkpoint_id = checkpoint_id
        self.safe_point = safe_point
        self.interrupt_contexts = list(interrupt_contexts)
        name = _cancel_mode_name(mode)
        super().__init__(f"agent canceled: mode={name}, escalated={str(escalated).lower()}")


class ExceedMaxIterationsError(GraphError, RuntimeError):
    """The agent needed more model calls than `max_iterations` (Eino `ErrExceedMaxIterations`)."""

    def __init__(self, max_iterations: int) -> None:
        self.max_iterations = max_iterations
        super().__init__(f"exceeds max iterations (max_iterations={max_iterations})")


class RetryExhaustedError(GraphError, RuntimeError):
    """Every attempt of a model call failed (Eino `RetryExhaustedError`, `errors.Is ErrExceedMaxRetries`)."""

    def __init__(self, last_error: BaseException | None, total_retries: int) -> None:
        text = f"exceeds max retries: last error: {last_error}" if last_error else "exceeds max retries"
        super().__init__(text)
        self.last_error = last_error
        self.total_retries = total_retries


class WillRetryError(GraphError, RuntimeError):
    """A failed attempt that will be retried (Eino `WillRetryError`); `reject_reason` is ShouldRetry's."""

    def __init__(self, error: BaseException, retry_attempt: int, reject_reason: Any = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_attempt = retry_attempt
        self.reject_reason = reject_reason
        self.__cause__ = error


class StreamCanceledError(GraphError, RuntimeError):
    """An ADK model stream was abandoned (Eino `ErrStreamCanceled`): the retry and failover layers pass
    it through untouched, and an event stream the run abandoned ends with it."""

    def __init__(self, message: str = "stream canceled") -> None:
        super().__init__(message)


class ChatModelError(GraphError):
    """Base of every error the OpenAI client raises; `endpoint` is the URL that was called."""

    def __init__(self, message: str, *, endpoint: str) -> None:
        super().__init__(message)
        self.endpoint = endpoint
