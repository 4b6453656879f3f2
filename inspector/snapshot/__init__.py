"""Snapshot testing for graphs and runs: semantic topology diffs, trajectories, syrupy extensions.

```python
from inspector.snapshot import diff_topologies, trajectory, first_divergence
```

The pytest fixtures `topology_snapshot` and `trajectory_snapshot` (in `inspector.pytest_plugin`) are thin
wrappers over the syrupy extensions here. syrupy is imported only when the extensions are first used, so
`import inspector.snapshot` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from inspector.snapshot.replay import replay_model_from_run, replay_tools_from_run
from inspector.snapshot.topology_diff import (
    TopologyChange,
    TopologyChangeKind,
    describe_topology_changes,
    diff_topologies,
)
from inspector.snapshot.trajectory import Divergence, first_divergence, from_text, to_text, trajectory

if TYPE_CHECKING:
    from inspector.snapshot.extension import TopologySnapshotExtension, TrajectorySnapshotExtension

__all__ = [
    "Divergence",
    "TopologyChange",
    "TopologyChangeKind",
    "TopologySnapshotExtension",
    "TrajectorySnapshotExtension",
    "describe_topology_changes",
    "diff_topologies",
    "first_divergence",
    "from_text",
    "replay_model_from_run",
    "replay_tools_from_run",
    "to_text",
    "trajectory",
]


def __getattr__(name: str) -> Any:
    if name in ("TopologySnapshotExtension", "TrajectorySnapshotExtension"):
        from inspector.snapshot import extension

        return getattr(extension, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
