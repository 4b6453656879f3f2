"""Pilot tests: moving, searching, breakpoints, diff, play, help and the command palette."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from inspector.tui import make_app
from inspector.tui.app import SPEEDS
from inspector.tui.help_screen import HelpScreen
from inspector.tui.prompt import PromptScreen
from inspector.tui.state_pane import StatePane
from inspector.tui.timeline import Timeline
from tests.tui.conftest import SIZE, screen_text

pytestmark = pytest.mark.anyio


async def test_step_keys_move_the_cursor_and_the_panes(react_run: Path) -> None:
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        assert app.replay.cursor == 0
        await pilot.press("right", "n")
        assert app.replay.cursor == 2
        await pilot.press("left")
        assert app.replay.cursor == 1
        await pilot.press("p", "p")
        assert app.replay.cursor == 0
        await pilot.press("end")
        assert app.replay.cursor == 8
        await pilot.press("n")
        assert app.replay.cursor == 8
        await pilot.press("home")
        assert app.replay.cursor == 0
        await pilot.press("n")
        await pilot.pause()
        assert app.query_one(Timeline).cursor == 1
        text = screen_text(app)
        assert "step 1 of 9" in text
        assert "get_weather" in text  # the tool call in the messages pane


async def test_keys_work_whichever_pane_has_focus(react_run: Path) -> None:
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        app.query_one(StatePane).focus()
        await pilot.pause()
        await pilot.press("right", "right", "end", "left", "home", "n")
        assert app.replay.cursor == 1
        await pilot.press("space")  # the tree binds space too; ours wins
        assert app.playing
        await pilot.press("space")
        assert not app.playing


async def test_go_to_step_prompt(react_run: Path) -> None:
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g")
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("n", "p")  # typed into the input, not navigation
        assert app.replay.cursor == 0
        app.screen.query_one(Input).value = ""
        await pilot.press("5", "enter")
        assert app.replay.cursor == 5
        await pilot.press("g", "-", "1", "enter")
        assert app.replay.cursor == 8
        await pilot.press("g", "escape")
        assert not isinstance(app.screen, PromptScreen) and app.replay.cursor == 8


async def test_search_by_node_text_and_state_key(react_run: Path) -> None:
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", *"tools", "enter")
        assert app.hits == [1, 3, 5, 7]
        assert app.replay.cursor == 1
        await pilot.press("right_square_bracket")
        assert app.replay.cursor == 3
        await pilot.press("left_square_bracket")
        assert app.replay.cursor == 1
        app.search("sunny, 22")  # text of a tool result (round 2)
        assert app.hits == [5, 6]
        app.search("return_directly_tool_call_id")  # a state key: set at step 0
        assert app.hits == [0]
        app.search("no such thing anywhere")
        assert app.hits == []


async def test_next_change_of_a_state_key(react_run: Path) -> None:
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("k", *"messages", "enter")
        assert app.replay.cursor == 1
        await pilot.press("K")
        assert app.replay.cursor == 2
        app.next_change("return_directly_tool_call_id")  # never changes again
        assert app.replay.cursor == 2


async def test_breakpoints_and_continue(react_run: Path) -> None:
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "b")  # on `tools` (step 1)
        assert app.replay.breakpoints == {"tools"}
        await pilot.press("home", "c")
        assert app.replay.cursor == 1
        await pilot.press("c")
        assert app.replay.cursor == 3
        await pilot.press("end", "c")
        assert app.replay.cursor == 8  # no later hit: cursor kept
        await pilot.press("B", *"chat", "enter")
        assert app.replay.breakpoints == {"tools", "chat"}
        await pilot.press("n", "b")  # toggles off whatever runs at the cursor (chat at step 8)
        assert app.replay.breakpoints == {"tools"}
        await pilot.pause()
        assert "●" in screen_text(app)


async def test_diff_toggle_shows_only_the_step_changes(react_run: Path) -> None:
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        tree = app.query_one(StatePane)
        full = [str(node.label) for node in tree.root.children]
        assert full[0].startswith("messages")
        await pilot.press("d")
        assert app.diff_mode
        diff = [str(node.label) for node in tree.root.children]
        assert diff == ["+ messages[2]  appended"]
        await pilot.press("d")
        assert [str(node.label) for node in tree.root.children] == full


async def test_play_advances_and_speed_changes(react_run: Path) -> None:
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        start = app.speed_index
        await pilot.press("plus", "plus")
        assert app.speed_index == start + 2
        await pilot.press("minus")
        assert app.speed_index == start + 1
        app.speed_index = len(SPEEDS) - 1  # 32 steps/s
        await pilot.press("space")
        for _ in range(100):  # up to 5 s on a busy machine; 8 steps at 32 steps/s take 0.25 s
            if not app.playing:
                break
            await pilot.pause(0.05)
        assert not app.playing, "playing stops at the last step"
        assert app.replay.cursor == 8


async def test_play_stops_at_a_breakpoint(react_run: Path) -> None:
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        app.replay.add_breakpoint("tools")
        app.speed_index = len(SPEEDS) - 1
        await pilot.press("space")
        for _ in range(100):
            if not app.playing:
                break
            await pilot.pause(0.05)
        assert not app.playing
        assert app.replay.cursor == 1


async def test_help_and_quit(react_run: Path) -> None:
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        from inspector.tui.keys import KEYS, OTHER_KEYS

        for key in KEYS:
            assert key.description in text, key
        for keys, description in OTHER_KEYS:
            assert keys in text and description in text
        await pilot.press("q")  # closes help, does not quit
        assert not isinstance(app.screen, HelpScreen)
        assert app.is_running
        await pilot.press("q")
    assert app.return_code == 0


async def test_every_action_is_in_the_command_palette(react_run: Path) -> None:
    from inspector.tui.keys import KEYS

    app = make_app(react_run)
    async with app.run_test(size=SIZE):
        titles = {command.title for command in app.get_system_commands(app.screen)}
        for key in KEYS:
            if key.action != "quit":
                assert key.title in titles
        assert "Quit" in titles  # Textual's own


async def test_palette_runs_a_command(react_run: Path) -> None:
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Last step")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert app.replay.cursor == 8


async def test_clicking_a_timeline_row_moves_there(react_run: Path) -> None:
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click(Timeline, offset=(10, 3))
        assert app.replay.cursor == 3
