"""End to end through the real apps with Textual's Pilot: a live debug session and a fork from the TUI."""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets.tree import TreeNode

import fixtures.weather as weather
from inspector.recording import read_run
from inspector.rundiff import diff_runs
from inspector.tui import make_app
from inspector.tui.debug_app import DebugApp, make_debug_app
from inspector.tui.debug_panel import DebugPanel
from inspector.tui.fork_screen import ForkScreen
from inspector.tui.graph_pane import GraphPane
from inspector.tui.help_screen import HelpScreen
from inspector.tui.node_detail import NodeDetail
from inspector.tui.state_pane import StatePane
from tests.debug.conftest import controller_for, lines_of

pytestmark = pytest.mark.anyio

SIZE = (140, 45)


async def _until(pilot: Pilot[None], done: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)


async def _type(pilot: Pilot[None], text: str) -> None:
    await pilot.press(*("space" if ch == " " else ch for ch in text))


def _panel_text(app: object) -> str:
    panel = app.query_one(DebugPanel)  # type: ignore[attr-defined]
    return str(panel.render())


def _state_text(app: DebugApp) -> str:
    """The state pane's tree as indented lines of labels (every node, folded or not)."""
    lines: list[str] = []

    def walk(node: TreeNode[Any], depth: int) -> None:
        for child in node.children:
            lines.append("  " * depth + str(child.label))
            walk(child, depth + 1)

    walk(app.query_one(StatePane).root, 0)
    return "\n".join(lines)


def _highlighted(app: DebugApp) -> str:
    """The text inside the graph's highlighted (active) box."""
    painted = app.query_one(GraphPane).painted
    assert painted is not None and painted.active is not None
    region = painted.active
    rows = painted.text.plain.split("\n")[region.y + 1 : region.y + region.height - 1]  # inside the frame
    return " ".join(re.sub(r"[^\w ]", "", row[region.x : region.x + region.width]).strip() for row in rows)


async def test_break_at_tools_edit_the_argument_continue(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    controller = controller_for(weather, path, breakpoints=["tools"])
    app = make_debug_app(controller)
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: controller.status == "paused", "the breakpoint")
        await _until(pilot, lambda: "paused before step 1" in _panel_text(app), "the panel to show the pause")
        await _until(pilot, lambda: not app.waiting, "the panes")
        assert "breakpoint before tools" in _panel_text(app)
        assert 'arguments: {"city": "Hangzhou"}' in _state_text(app)
        await pilot.press("e")
        await _type(pilot, 'input.tools.tool_calls[0].arguments = {"city": "Paris"}')
        await pilot.press("enter")
        await _until(
            pilot, lambda: "edited input.tools.tool_calls[0].arguments" in _panel_text(app), "the edit"
        )
        await pilot.press("c")
        await _until(pilot, lambda: controller.status == "finished", "the end of the run")
        await _until(pilot, lambda: "run over: ok" in _panel_text(app), "the panel to show the end")
        await _until(pilot, lambda: not app.waiting and len(app.replay) == 3, "the timeline to show 3 steps")
    run = read_run(path)
    assert run.status == "ok"
    assert run.steps[1].node_runs[0].tools[0].output == "Paris: clear, 20°C"
    replay = make_app(path)  # the replay of the recording shows where the person changed things
    async with replay.run_test(size=SIZE) as pilot:
        await pilot.press("right")
        await _until(pilot, lambda: replay.replay.cursor == 1, "step 1")
        status = str(replay.query_one("#status").render())
        assert "✎ edited before this step: input.tools.tool_calls[0].arguments" in status
    (edit,) = (json.loads(line) for line in lines_of(path, "edit"))
    assert (edit["step"], edit["path"], edit["old"], edit["new"]) == (
        1,
        "input.tools.tool_calls[0].arguments",
        '{"city": "Hangzhou"}',
        '{"city": "Paris"}',
    )


async def test_bad_edit_and_unknown_breakpoint_in_the_app(tmp_path: Path) -> None:
    controller = controller_for(weather, tmp_path / "run.jsonl", stop_at_start=True)
    app = make_debug_app(controller)
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: "paused before step 0" in _panel_text(app), "the pause at the start")
        await _until(pilot, lambda: not app.waiting, "the panes")
        await pilot.press("e")
        await _type(pilot, "state.nowhere = 1")
        await pilot.press("enter")
        await _until(pilot, lambda: "has no field `nowhere`" in _panel_text(app), "the refusal")
        await pilot.press("B")
        await _type(pilot, "tool")
        await pilot.press("enter")
        await _until(
            pilot, lambda: "its nodes are: chat, tools, direct_return" in _panel_text(app), "the node list"
        )
        await pilot.press("s")
        await _until(pilot, lambda: "paused before step 1" in _panel_text(app), "one step")
        await pilot.press("a")
        await _until(pilot, lambda: "run over: aborted" in _panel_text(app), "the abort")
    assert controller.edits == [] and read_run(tmp_path / "run.jsonl").error.type == "RunAborted"  # type: ignore[union-attr]


async def test_an_edit_of_a_path_that_does_not_exist_says_so_before_judging_the_value(
    tmp_path: Path,
) -> None:
    controller = controller_for(weather, tmp_path / "run.jsonl", stop_at_start=True)
    app = make_debug_app(controller)
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: "paused before step 0" in _panel_text(app), "the pause at the start")
        await _until(pilot, lambda: not app.waiting, "the panes")
        await pilot.press("e")
        await _type(pilot, "messages[0].content = Hello")  # before step 0 the history is still empty
        await pilot.press("enter")
        await _until(pilot, lambda: "has 0 items" in _panel_text(app), "the refusal")
        assert "`state.messages` has 0 items (indexes none), no [0]" in _panel_text(app)
        assert "not a JSON value" not in _panel_text(app)
        await pilot.press("a")
        await _until(pilot, lambda: controller.status == "finished", "the abort")


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (140, 45)])
async def test_a_paused_live_run_does_not_read_as_a_crash(tmp_path: Path, size: tuple[int, int]) -> None:
    controller = controller_for(weather, tmp_path / "run.jsonl", breakpoints=["tools"])
    app = make_debug_app(controller)
    async with app.run_test(size=size) as pilot:
        await _until(pilot, lambda: "paused before step 1" in _panel_text(app), "the breakpoint")
        await _until(pilot, lambda: not app.waiting, "the panes")
        await pilot.pause()
        status = str(app.query_one("#status").render())
        detail = app.query_one(NodeDetail).render().plain
        assert "live, paused" in status
        assert "incomplete" not in status and "diagnostic" not in status
        assert "run incomplete" not in detail and "killed" not in detail
        assert detail.startswith("step 0")
        await pilot.press("c")
        await _until(pilot, lambda: controller.status == "finished", "the end of the run")
        await _until(pilot, lambda: "  ok" in str(app.query_one("#status").render()), "the status")


async def test_fork_the_runaway_at_step_4_from_the_replay_app(tmp_path: Path) -> None:
    parent = tmp_path / "runaway.jsonl"
    shutil.copy("fixtures/runs/runaway.jsonl", parent)
    app = make_app(parent)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g")
        await _type(pilot, "4")
        await pilot.press("enter")
        await _until(pilot, lambda: app.replay.cursor == 4, "the cursor at step 4")
        await pilot.press("f")
        await _type(pilot, '{"role": "assistant", "content": "It stopped raining."}')
        await pilot.press("enter")
        await _until(pilot, lambda: isinstance(app.screen, ForkScreen), "the fork beside its parent")
        summary = str(app.screen.query_one("#fork-diff").render())
        assert (
            "first divergence: step 4: different branch decision: A [chat -> tools], B [chat -> end]"
            in summary
        )
    fork_file = tmp_path / "runaway.fork-4.jsonl"
    fork = read_run(fork_file)
    assert fork.status == "ok" and len(fork.steps) == 5 < len(read_run(parent).steps) == 13
    assert diff_runs(parent, fork_file).first_divergence.index == 4  # type: ignore[union-attr]


async def test_an_interrupted_run_is_resumed_from_the_app_with_typed_data(tmp_path: Path) -> None:
    from fixtures.approval import build
    from graph_core.checkpoint import InMemoryCheckpointStore
    from inspector.debug import DebugController

    graph = build(InMemoryCheckpointStore())
    path = tmp_path / "approval.jsonl"
    controller = DebugController(
        graph, "Tell the team we ship Friday", output=path, topology=graph.topology()
    )
    app = make_debug_app(controller)
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: "interrupted at approve" in _panel_text(app), "the interrupt")
        await _until(pilot, lambda: not app.waiting, "the panes")
        assert "approve asks:" in _panel_text(app) and "Send this email?" in _panel_text(app)
        await pilot.press("r")
        await _type(pilot, '{"approved": false}')
        await pilot.press("enter")
        await _until(pilot, lambda: "run over: ok" in _panel_text(app), "the resumed run's end")
    run = read_run(path)
    assert run.status == "ok" and len(run.segments) == 2
    assert run.output == "discarded: the draft was not approved"


async def test_held_at_tools_the_panes_show_the_live_values_and_the_pending_node(tmp_path: Path) -> None:
    controller = controller_for(weather, tmp_path / "run.jsonl", breakpoints=["tools"])
    app = make_debug_app(controller)
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: controller.status == "paused", "the breakpoint")
        await _until(pilot, lambda: not app.waiting and len(app.replay) == 1, "the panes on step 0")
        await _until(pilot, lambda: "live" in str(app.query_one(StatePane).border_title), "the live state")
        assert app.replay.current is not None and app.replay.current.nodes == ("chat",)
        assert _highlighted(app) == "tools", "the graph highlights the node about to run, not chat"
        assert "next: tools" in str(app.query_one("#graph-box").border_title)
        shown = _state_text(app)
        assert shown.startswith("state  {2}\n  messages  [1]") and "\ninput  {1}\n  tools  {" in shown
        assert 'arguments: {"city": "Hangzhou"}' in shown
        await pilot.press("e")
        await _type(pilot, 'input.tools.tool_calls[0].arguments = {"city": "Paris"}')
        await pilot.press("enter")
        await _until(pilot, lambda: "Paris" in _state_text(app), "the edited value in the state pane")
        shown = _state_text(app)
        assert 'arguments: {"city": "Paris"}' in shown and '"city": "Hangzhou"' not in shown
        assert "1 edit(s)" in str(app.query_one(StatePane).border_title)
        assert _highlighted(app) == "tools"
        await pilot.press("d")  # the diff view: the edits made at this pause, old and new
        await _until(pilot, lambda: "~ input.tools" in _state_text(app), "the edit as a change")
        shown = _state_text(app)
        assert "~ input.tools.tool_calls[0].arguments  changed" in shown
        assert 'old: {"city": "Hangzhou"}' in shown and 'new: {"city": "Paris"}' in shown
        await pilot.press("d", "s")  # one superstep: `tools` runs with the edited call, chat is next
        await _until(pilot, lambda: "before step 2" in str(app.query_one(StatePane).border_title), "step 2")
        await _until(pilot, lambda: len(app.replay) == 2 and app.replay.cursor == 1, "the cursor on tools")
        assert _highlighted(app) == "chat" and "next: chat" in str(app.query_one("#graph-box").border_title)
        shown = _state_text(app)
        assert "content: Paris: clear, 20°C" in shown and "\ninput  {1}\n  chat  " in shown
        await pilot.press("left")  # an earlier step: what the recording says, as in a replay
        assert app.replay.cursor == 0
        assert str(app.query_one(StatePane).border_title) == "state" and "input  {" not in _state_text(app)
        assert str(app.query_one("#graph-box").border_title) == "graph" and "Paris" not in _state_text(app)
        await pilot.press("right")
        assert "before step 2" in str(app.query_one(StatePane).border_title) and _highlighted(app) == "chat"
        await pilot.press("c")
        await _until(pilot, lambda: controller.status == "finished", "the end of the run")
        await _until(pilot, lambda: len(app.replay) == 3 and app.replay.cursor == 2, "the last step")
        await _until(pilot, lambda: str(app.query_one(StatePane).border_title) == "state", "recorded state")
        assert "input  {" not in _state_text(app) and "Paris: clear, 20°C" in _state_text(app)


async def test_help_lists_the_live_debugger_keys(tmp_path: Path) -> None:
    controller = controller_for(weather, tmp_path / "run.jsonl", stop_at_start=True)
    app = make_debug_app(controller)
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: not app.waiting, "the panes")
        await _until(pilot, lambda: "before step 0" in str(app.query_one(StatePane).border_title), "live")
        shown = _state_text(app)  # held before any step: the input is chat's, not yet in the state
        assert "messages  [0]" in shown and "input  {1}\n  chat  [1]" in shown and _highlighted(app) == "chat"
        await pilot.press("question_mark")
        await _until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help screen")
        rows = dict(app.screen.rows)  # type: ignore[attr-defined]
        for key, words in {
            "s": "run one superstep",
            "a": "end it cleanly",
            "e": "PATH = VALUE",
            "w": "len(messages) > 6",
            "r": "resume with data",
            "c": "Live run: run on to the next breakpoint",
            "b": "pending node",
        }.items():
            assert words in rows[key], key
        assert "→ n" in rows and "?" in rows, "the replay keys are still there"
        assert [keys for keys, _ in app.screen.rows].count("c") == 1  # type: ignore[attr-defined]
        await pilot.press("escape")
        await _until(pilot, lambda: not isinstance(app.screen, HelpScreen), "help to close")
        await pilot.press("a")
        await _until(pilot, lambda: controller.status == "finished", "the abort")
    replay = make_app(tmp_path / "run.jsonl")  # the replay app's help has no live keys
    async with replay.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        rows = dict(replay.screen.rows)  # type: ignore[attr-defined]
        assert "s" not in rows and "e" not in rows and "Run forward to the next breakpoint" in rows["c"]
