"""End to end through the real apps with Textual's Pilot: a live debug session and a fork from the TUI."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

import fixtures.weather as weather
from inspector.recording import read_run
from inspector.rundiff import diff_runs
from inspector.tui import make_app
from inspector.tui.debug_app import make_debug_app
from inspector.tui.debug_panel import DebugPanel
from inspector.tui.fork_screen import ForkScreen
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


async def test_break_at_tools_edit_the_argument_continue(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    controller = controller_for(weather, path, breakpoints=["tools"])
    app = make_debug_app(controller)
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: controller.status == "paused", "the breakpoint")
        await _until(pilot, lambda: "paused before step 1" in _panel_text(app), "the panel to show the pause")
        await _until(pilot, lambda: not app.waiting, "the panes")
        assert "breakpoint before tools" in _panel_text(app)
        assert '"arguments":"{\\"city\\": \\"Hangzhou\\"}"' in _panel_text(app)
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
