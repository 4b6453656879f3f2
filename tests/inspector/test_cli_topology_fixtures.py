"""`inspector topology` and `inspector lint` on the bundled fixture agents, named as TARGETs by module."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from graph_core.topology import END, START
from inspector.cli import main
from inspector.export import from_json
from inspector.layout import draw
from tests.inspector.test_export_shapes import react_topology


def test_weather_agent_text_drawing_is_the_react_picture(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topology", "fixtures.weather:agent"]) == 0
    assert capsys.readouterr().out == draw(react_topology())


def test_adk_agent_drawing_snapshot_and_json(
    capsys: pytest.CaptureFixture[str], snapshot: SnapshotAssertion
) -> None:
    assert main(["topology", "fixtures.adk:agent"]) == 0
    assert capsys.readouterr().out == snapshot
    assert main(["topology", "fixtures.adk:agent", "--format", "json"]) == 0
    topology = from_json(capsys.readouterr().out)
    assert topology.nodes[0].key == START and topology.nodes[-1].key == END
    assert [(e.source, e.target) for e in topology.back_edges] == [("AfterToolCallsCancelCheck", "ChatModel")]


def test_lint_on_fixture_agents(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "fixtures.weather:agent"]) == 0
    out = capsys.readouterr().out
    assert "info: branch-target-never-chosen: branch `tools` -> `direct_return`" in out
    assert "at most 6 time(s)" in out
    assert main(["lint", "fixtures.report:agent"]) == 0
    assert "branch-target-never-chosen" not in capsys.readouterr().out
