"""pytest plugin, registered through the `pytest11` entry point `graph_inspector`: snapshot fixtures.

```python
def test_agent_shape(topology_snapshot):
    assert topology_snapshot == build_agent()          # __snapshots__/<file>/<test>.topology.json

def test_agent_behaviour(trajectory_snapshot, tmp_path):
    agent.invoke(question, callbacks=[Recorder(tmp_path / "run.jsonl")])
    assert trajectory_snapshot == read_run(tmp_path / "run.jsonl")   # ...<test>.trajectory.json
```

Importing this module must never break pytest for a project that does not use it, so it imports only
pytest at module level; syrupy and the inspector load when a fixture is first requested.
"""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["topology_snapshot", "trajectory_snapshot"]


@pytest.fixture
def topology_snapshot(snapshot: Any) -> Any:
    """syrupy's `snapshot`, storing canonical topology JSON and explaining mismatches node by node."""
    from inspector.snapshot.extension import TopologySnapshotExtension

    return snapshot.use_extension(TopologySnapshotExtension)


@pytest.fixture
def trajectory_snapshot(snapshot: Any) -> Any:
    """syrupy's `snapshot`, storing a run's trajectory and reporting the first step where it diverges."""
    from inspector.snapshot.extension import TrajectorySnapshotExtension

    return snapshot.use_extension(TrajectorySnapshotExtension)
