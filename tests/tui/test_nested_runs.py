"""Pilot tests: `o` opens the nested runs of a step (here an agent tool's inner run) and Esc goes back."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

import fixtures.agent_tool
from inspector.recording import read_run
from inspector.tui import make_app
from inspector.tui.nested_screen import NestedRunScreen, nested_runs, ran_through
from tests.tui.conftest import SIZE, record_fixture

pytestmark = pytest.mark.anyio


@pytest.fixture
def agent_tool_run(tmp_path: Path) -> Path:
    return record_fixture(tmp_path / "agent_tool.jsonl", fixtures.agent_tool)


def test_ran_through_takes_the_nested_runs_nodes_and_edges(agent_tool_run: Path) -> None:
    step = read_run(agent_tool_run).steps[3]
    ((path, records),) = nested_runs(step)
    assert path == ("ToolNode", "weather_expert:call_expert")
    nodes, edges = ran_through(records)
    assert nodes == {
        "Init",
        "ChatModel",
        "CancelCheck",
        "ToolNode",
        "AfterToolCalls",
        "AfterToolCallsCancelCheck",
        "end",
    }
    assert ("start", "Init") in edges and ("AfterToolCallsCancelCheck", "ChatModel") in edges
    assert ("ChatModel", "end") in edges


async def test_o_opens_the_nested_run_and_escape_goes_back(agent_tool_run: Path) -> None:
    app = make_app(agent_tool_run)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n", "n")
        assert app.replay.cursor == 3
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, NestedRunScreen)
        text = "\n".join(str(static.render()) for static in app.screen.query(Static))
        assert "step 3: 1 nested run" in text
        assert "▸ nested run at ToolNode › weather_expert:call_expert  7 steps  graph weather_expert" in text
        assert "║ CancelCheck ║" in text  # the expert's graph, drawn with what it ran
        assert "▸ ToolNode › weather_expert:call_expert  step 6  ChatModel" in text
        await pilot.press("n")  # the run's keys do nothing over the screen
        assert app.replay.cursor == 3
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, NestedRunScreen)
        await pilot.press("n", "o")  # step 4 ran no nested graph: a notice, no screen
        await pilot.pause()
        assert not isinstance(app.screen, NestedRunScreen)
        assert any("no nested runs in this step" in str(n.message) for n in app._notifications)  # pyright: ignore[reportPrivateUsage]
