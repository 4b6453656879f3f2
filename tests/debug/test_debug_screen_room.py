"""The live debugger's screen at 80x24, 120x40 and 140x45 (Pilot): at a pause every lower pane keeps
rows and its title, values are not clipped where the screen has room, `x` shows them whole in the
state pane, prompts say their whole question, a long edit stays readable, and the focused pane says so
in its title."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets.tree import TreeNode

import fixtures.weather as weather
from inspector.tui import make_app
from inspector.tui.debug_app import DebugApp, make_debug_app
from inspector.tui.debug_panel import DebugPanel
from inspector.tui.state_pane import StatePane
from tests.debug.conftest import controller_for
from tests.tui.conftest import screen_text

pytestmark = pytest.mark.anyio

SIZES = [(80, 24), (120, 40), (140, 45)]
IDS = [f"{w}x{h}" for w, h in SIZES]


async def _until(pilot: Pilot[None], done: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)


def _prompt_text(app: DebugApp, selector: str) -> str:
    """The words a widget of the prompt on top shows, its rows joined."""
    region = app.screen.query_one(selector, Widget).region
    rows = screen_text(app).splitlines()[region.y : region.y + region.height]
    return " ".join(" ".join(row[region.x : region.x + region.width].strip("▊▎▔▁ ").split()) for row in rows)


def pane_lines(app: DebugApp, selector: str) -> list[str]:
    """The rows a pane covers on screen, border included."""
    region = app.query_one(selector, Widget).region
    rows = screen_text(app).splitlines()[region.y : region.y + region.height]
    return [row[region.x : region.x + region.width] for row in rows]


async def _paused(pilot: Pilot[None], app: DebugApp) -> None:
    controller = app.controller
    await _until(pilot, lambda: controller.status == "paused", "the breakpoint")
    await _until(pilot, lambda: not app.waiting, "the panes")
    panel = app.query_one(DebugPanel)
    await _until(pilot, lambda: "paused before step 1" in str(panel.render()), "the panel")
    await _until(pilot, lambda: "live · before step 1" in screen_text(app), "the live state's title")
    await pilot.pause(0.2)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_at_a_pause_every_lower_pane_keeps_rows_and_its_title(
    size: tuple[int, int], tmp_path: Path
) -> None:
    # At 80x24 the state, messages and node-detail panes had no rows (the state pane lost its title).
    app = make_debug_app(controller_for(weather, tmp_path / "run.jsonl", breakpoints=["tools"]))
    async with app.run_test(size=size) as pilot:
        await _paused(pilot, app)
        for selector in ("#state", "#messages-box", "#detail-box"):
            assert app.query_one(selector).region.height - 2 >= 5, selector
        state = pane_lines(app, "#state")
        assert "live · before step 1" in state[0]
        assert "▼ state" in "\n".join(state[1:-1])
        text = screen_text(app)
        assert "⏸ paused before step 1 [tools]" in text
        assert "? Help" in text.splitlines()[-1], "the footer stays on screen"
    app.controller.abort()  # after the app: a run ending under a closing app races its last poll


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_the_lower_panes_share_the_width_and_x_shows_values_whole(
    size: tuple[int, int], tmp_path: Path
) -> None:
    # At 120x40 each lower pane had 28 columns (`name: get_weathe`) beside a half-empty timeline.
    app = make_debug_app(controller_for(weather, tmp_path / "run.jsonl", breakpoints=["tools"]))
    async with app.run_test(size=size) as pilot:
        await _paused(pilot, app)
        widths = [app.query_one(s).region.width for s in ("#state", "#messages-box", "#detail-box")]
        assert min(widths) >= (size[0] - 2) // 3 - 1 if size[0] < 140 else min(widths) >= 36, widths
        state = "\n".join(pane_lines(app, "#state"))
        if size[0] >= 120:
            assert "name: get_weather" in state and "id: call_weather_1" in state
        await pilot.press("x")
        await pilot.pause(0.3)
        pane = app.query_one(StatePane)
        head = _node(pane.root, "arguments:")
        assert head is not None
        pane.scroll_to(y=head.line, animate=False, immediate=True)  # its first row at the top
        await pilot.pause(0.2)
        rows = pane_lines(app, "#state")[1:-1]
        start = next((i for i, row in enumerate(rows) if "arguments:" in row), None)
        assert start is not None, rows
        shown = "".join(row.strip("│ ├└─▼▶▅▁▃▆▇▂▄") for row in rows[start : start + 1 + len(head.children)])
        # Shown whole (x): the value goes on over rows under its first, all of it on screen.
        assert '"city":"Hangzhou"}' in shown.replace(" ", ""), rows
    app.controller.abort()  # after the app: a run ending under a closing app races its last poll


def _node(node: TreeNode[Any], prefix: str) -> TreeNode[Any] | None:
    for child in node.children:
        if str(child.label).startswith(prefix):
            return child
        found = _node(child, prefix)
        if found is not None:
            return found
    return None


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_prompts_say_their_whole_question_and_a_long_edit_stays_readable(
    size: tuple[int, int], tmp_path: Path
) -> None:
    app = make_debug_app(controller_for(weather, tmp_path / "run.jsonl", breakpoints=["tools"]))
    async with app.run_test(size=size) as pilot:
        await _paused(pilot, app)
        await pilot.press("w")
        await _until(pilot, lambda: "Break when" in screen_text(app), "the prompt")
        flat = _prompt_text(app, "#prompt-question")
        assert "Break when (e.g. len(messages) > 6, calls(get_weather); empty clears)" in flat
        await pilot.press("escape", "e")
        await _until(pilot, lambda: "Edit: PATH" in screen_text(app), "the edit prompt")
        flat = _prompt_text(app, "#prompt-question")
        assert "Edit: PATH = VALUE (JSON; a string field takes plain text)" in flat
        edit = 'input.tools.tool_calls[0].arguments = {"city": "Paris, the capital of France, in Europe"}'
        await pilot.press(*("space" if ch == " " else ch for ch in edit))
        await pilot.pause(0.2)
        typed = _prompt_text(app, "#prompt-input")
        echoed = _prompt_text(app, "#prompt-echo").replace(" ", "")
        # The input scrolls to its end; the whole answer stays in sight, start first.
        assert edit in typed or edit.replace(" ", "") in echoed, (typed, echoed)
        await pilot.press("escape")
    app.controller.abort()  # after the app: a run ending under a closing app races its last poll


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_the_focused_pane_is_marked_in_its_title(size: tuple[int, int], tmp_path: Path) -> None:
    app = make_debug_app(controller_for(weather, tmp_path / "run.jsonl", breakpoints=["tools"]))
    async with app.run_test(size=size) as pilot:
        await _paused(pilot, app)
        text = screen_text(app)
        assert "╭─ ▶ timeline" in text and "╭─ ▶ live" not in text
        app.query_one("#state").focus()
        await pilot.pause(0.2)
        text = screen_text(app)
        assert "╭─ ▶ live" in text and "▶ timeline" not in text
        assert text.count("╭─ ▶ ") == 1
        await pilot.press("s")  # the next pause sets the titles again: the mark stays where the focus is
        await _until(pilot, lambda: "paused before step 2" in str(app.query_one(DebugPanel).render()), "s")
        await pilot.pause(0.3)
        text = screen_text(app)
        assert "╭─ ▶ live" in text and text.count("╭─ ▶ ") == 1
    app.controller.abort()  # after the app: a run ending under a closing app races its last poll


@pytest.mark.parametrize("size", SIZES[1:], ids=IDS[1:])
async def test_the_status_line_names_what_was_edited(size: tuple[int, int], tmp_path: Path) -> None:
    # It ended in `✎ edited before this step:` and nothing: the path had wrapped to an unseen row.
    path = tmp_path / "live.jsonl"
    controller = controller_for(weather, path, breakpoints=["tools"])
    controller.start()
    assert controller.wait() is not None
    controller.edit("input.tools.tool_calls[0].arguments", json.dumps({"city": "Paris"}))
    controller.remove_breakpoint("tools")
    controller.resume()
    deadline = time.monotonic() + 30
    while controller.status != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    app = make_app(path)
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.2)
        app.go(1)
        await pilot.pause(0.2)
        status = screen_text(app).splitlines()[0]
        assert "✎ edited before this step: input.tools.tool_calls[0].arguments" in status
