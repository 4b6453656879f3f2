"""`inspector replay` on a LangGraph recording: the TUI shows it with no LangGraph-specific code."""

from __future__ import annotations

import pytest

from fixtures.runs import HERE
from inspector.tui import Session, make_app
from tests.tui.conftest import SIZE, screen_text

pytestmark = pytest.mark.anyio


def test_the_session_names_the_loop_spending_the_recursion_limit() -> None:
    session = Session.open(HERE / "langgraph_runaway.jsonl")
    assert session.consuming_cycle(9) == ("agent -> tools -> agent", 5)


async def test_replay_shows_steps_budget_and_messages_of_a_langgraph_run() -> None:
    app = make_app(HERE / "langgraph_runaway.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        await pilot.pause()
        text = screen_text(app)
        assert "12/12" in text  # the budget bar at the last step: the recursion limit spent
        assert "agent -> tools -> agent" in text
        assert "get_weather" in text  # the model's tool calls in the messages pane
        assert "TOOL" in text and "Hangzhou: light rain" in text
