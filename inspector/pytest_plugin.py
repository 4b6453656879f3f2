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

__all__ = ["pytest_addoption", "topology_snapshot", "trajectory_snapshot"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("graph-inspector").addoption(
        "--inspector-report-dir",
        metavar="DIR",
        default=None,
        help="write HTML pages (the run, the trajectory diff, the topology diff) for every failing "
        "trajectory or topology snapshot into DIR, and name them in the failure",
    )


def _with_reports(extension: type[Any], request: pytest.FixtureRequest) -> type[Any]:
    """`extension` told where pages of a failure go (a subclass per test, so tests never share it)."""
    directory = request.config.getoption("inspector_report_dir")
    if directory is None:
        return extension
    from pathlib import Path

    folder = Path(directory)
    if not folder.is_absolute():
        folder = Path(request.config.invocation_params.dir) / folder
    return type(extension.__name__, (extension,), {"report_dir": folder, "test_id": request.node.nodeid})


@pytest.fixture
def topology_snapshot(snapshot: Any, request: pytest.FixtureRequest) -> Any:
    """syrupy's `snapshot`, storing canonical topology JSON and explaining mismatches node by node."""
    from inspector.snapshot.extension import TopologySnapshotExtension

    return snapshot.use_extension(_with_reports(TopologySnapshotExtension, request))


@pytest.fixture
def trajectory_snapshot(snapshot: Any, request: pytest.FixtureRequest) -> Any:
    """syrupy's `snapshot`, storing a run's trajectory and reporting the first step where it diverges."""
    from inspector.snapshot.extension import TrajectorySnapshotExtension

    return snapshot.use_extension(_with_reports(TrajectorySnapshotExtension, request))
