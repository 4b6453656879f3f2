"""The conversation of a run edited under the debugger: the edited tool call in the model's place,
once, marked with what the person changed (in `Conversation`, `inspector show` and the messages pane)."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.cli import main
from inspector.conversation import Conversation
from inspector.recording import read_run
from inspector.tui import make_app
from inspector.tui.messages_pane import MessagesPane
from tests.debug.test_fork import edited_weather_run
from tests.tui.conftest import screen_text

NOTE = 'edited before step 1: tool_calls[0].arguments {"city": "Hangzhou"} -> {"city": "Paris"}'


def test_the_edited_call_is_the_models_message_once(tmp_path: Path) -> None:
    run = read_run(edited_weather_run(tmp_path / "live.jsonl"))
    said = Conversation(run).at(len(run.steps) - 1)
    assert [(s.origin, s.position, s.message["role"]) for s in said] == [
        ("input", None, "user"),
        ("chat", 0, "assistant"),
        ("tools", 1, "tool"),
        ("chat", 2, "assistant"),
    ]
    call = said[1]
    assert call.message["tool_calls"][0]["arguments"] == '{"city": "Paris"}' and call.edited == NOTE
    assert [s.edited for s in said if s is not call] == [None, None, None]


def test_show_lists_it_in_step_0s_place(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    live = edited_weather_run(tmp_path / "live.jsonl")
    assert main(["show", str(live)]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = lines.index("conversation (who said what, in reading order):")
    said = lines[start + 1 : start + 5]
    assert said[1].startswith('  step 0 chat   assistant: -> get_weather({"city": "Paris"})')
    assert said[1].endswith(f"({NOTE})")
    assert said[2].startswith("  step 1 tools  tool: Paris: clear")
    assert sum("get_weather(" in line for line in lines[start:]) == 1


@pytest.mark.anyio
@pytest.mark.parametrize("size", [(80, 24), (120, 40), (140, 45)])
async def test_the_messages_pane_marks_the_edit(tmp_path: Path, size: tuple[int, int]) -> None:
    live = edited_weather_run(tmp_path / "live.jsonl")
    app = make_app(live)
    async with app.run_test(size=size) as pilot:
        await pilot.press("end")
        await pilot.pause()
        pane = app.query_one(MessagesPane)
        shown = [(said.origin, said.position, said.edited) for said, _ in pane._items]  # pyright: ignore[reportPrivateUsage]
        assert shown[1] == ("chat", 0, NOTE) and len(shown) == 4
        pane.scroll_home(animate=False)
        await pilot.pause()
        if size[0] >= 120:
            assert "✎ edited before step 1" in screen_text(app)
