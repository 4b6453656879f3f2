"""Every error graph_core raises on purpose.

```
GraphError                       base of everything below
├── GraphBuildError (ValueError) a construction mistake, named by node or edge key
└── GraphRunError (RuntimeError) the engine stopped a run: "[GraphRunError] <reason>"
    ├── MaxStepsExceededError    the superstep budget ran out ("exceeds max steps")
    ├── NodeRunError             a node (or its handler) failed; `node_path` says where, `__cause__` why
    └── InterruptError           the run stopped at an interrupt; `info` says where and with what state
```

Messages mirror Eino's texts so that people who know Eino recognise them, and so that the behaviour
described in the semantics document can be checked by substring.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "GraphBuildError",
    "GraphError",
    "GraphRunError",
    "InterruptError",
    "MaxStepsExceededError",
    "NodeRunError",
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
