"""Anything a run carries is shown literally; any file the reader accepts opens."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph_core.callbacks import Budget, RunInfo, StepInfo
from graph_core.schema import Message
from inspector.recording import Recorder
from inspector.tui import make_app
from inspector.tui.literal import clip, literal, visible
from inspector.tui.node_detail import NodeDetail
from inspector.tui.state_pane import StatePane
from tests.tui.conftest import SIZE, clock, screen_text, stateless_dag, synthetic

pytestmark = pytest.mark.anyio

HOSTILE_KEY = "[red]evil[/]"


def hostile_run(path: Path, *, huge: int = 0) -> Path:
    """One step whose node key, messages and state keys are markup, ANSI and control characters."""
    recorder = Recorder(path, clock=clock(), run_id="hostile", max_str=100_000)
    graph = RunInfo(node_key=None, name="[b]graph[/b]", kind="Graph", graph_name="[b]graph[/b]")
    recorder.on_start(graph, "x")
    recorder.on_step_start(StepInfo(index=0, nodes=(HOSTILE_KEY,), budget=Budget.of(0, 5)))
    info = RunInfo(node_key=HOSTILE_KEY, name="[i]n[/i]", kind="Lambda", path=(HOSTILE_KEY,), step=0)
    recorder.on_start(info, "[/]")
    recorder.on_end(info, "\x1b[31mred\x1b[0m")
    state = {
        "messages": [
            Message.user("[bold]x[/]"),
            Message.assistant("[/] and \x1b[31mred\x1b[0m and a bell \x07"),
        ],
        "[link=http://x]k[/link]": "line\rover",
        "big": "y" * huge,
    }
    finished = StepInfo(index=0, nodes=(HOSTILE_KEY,), budget=Budget.of(1, 5), state=state, ended=True)
    recorder.on_step_end(finished)
    recorder.on_end(graph, "[/]")
    recorder.close()
    return path


def test_visible_escapes_control_characters() -> None:
    assert visible("\x1b[31mred\x07") == "\\x1b[31mred\\x07"
    assert visible("a\nb") == "a ⏎ b"
    assert visible("a\nb", keep_newlines=True) == "a\nb"
    assert visible("\x9b") == "\\x9b"  # C1 CSI
    assert literal("[bold]x[/]").plain == "[bold]x[/]"
    assert literal("[bold]x[/]").spans == []
    assert clip("abcdef", 3) == "abc… (+3 chars, x expands)"
    assert clip("abc", None) == "abc"


def test_a_huge_value_is_serialised_only_as_far_as_it_is_shown() -> None:
    state = {"messages": [{"role": "user", "content": f"message {i}"} for i in range(200_000)]}
    shown = literal(state, limit=40).plain  # a graph's input can be its whole state
    assert shown == '{"messages": [{"role": "user", "content"… (+more than 19960 chars, x expands)'
    assert literal({"a": [1, 2]}, limit=40).plain == '{"a": [1, 2]}'  # short values exactly as before
    assert literal({"a": "b" * 50}, limit=10).plain == '{"a": "bbb… (+49 chars, x expands)'


async def test_markup_ansi_and_control_characters_show_literally(tmp_path: Path) -> None:
    app = make_app(hostile_run(tmp_path / "hostile.jsonl"))
    async with app.run_test(size=(160, 40)) as pilot:  # wide enough for the state pane's long key
        await pilot.pause()
        text = screen_text(app)
        assert "[bold]x[/]" in text
        assert "[/] and \\x1b[31mred\\x1b[0m and a" in text
        assert "bell \\x07" in text
        assert "output  \\x1b[31mred\\x1b[0m" in text
        assert HOSTILE_KEY in text  # timeline and node detail
        assert "[link=http://x]k[/link]: line\\x0dover" in text
        assert "[b]graph[/b]" in text
        assert "\x1b" not in text and "\x07" not in text
        await pilot.press("d", "question_mark", "escape", "slash", *"[/]", "enter")
        assert app.hits == [0]
        await pilot.press("B", *"[/]", "enter")
        assert "[/]" in app.replay.breakpoints
        await pilot.pause()
        assert app.is_running


async def test_huge_values_are_clipped_and_expand(tmp_path: Path) -> None:
    app = make_app(hostile_run(tmp_path / "huge.jsonl", huge=50_000))
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(StatePane)
        big = next(node for node in tree.root.children if str(node.label).startswith("big"))
        assert len(str(big.label)) < 300 and "x expands" in str(big.label)
        await pilot.press("x")
        await pilot.pause()
        big = next(node for node in tree.root.children if str(node.label).startswith("big"))
        # Whole: on its row and the rows under it (a value wider than the pane goes on below).
        assert len(str(big.label)) + sum(len(str(row.label)) for row in big.children) > 50_000
        await pilot.press("x")
        await pilot.pause()
        big = next(node for node in tree.root.children if str(node.label).startswith("big"))
        assert len(str(big.label)) < 300
        tree.select_node(big)  # selecting one leaf expands just that value
        await pilot.pause()
        assert len(str(big.label)) > 50_000


async def test_error_run_opens_at_the_stop_with_its_error_said_once_and_the_path(error_run: Path) -> None:
    app = make_app(error_run)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.replay.cursor == len(app.replay) - 1
        detail = str(app.query_one(NodeDetail).render())
        assert "run error" in detail
        assert "node path  tools" in detail
        assert detail.count("weather service unavailable") == 1  # said once: the run's error
        assert "get_weather  (call_1)" in detail  # the failed tool call, with the node that ran it
        assert "tool-failed" not in detail  # the diagnostic would only say the error again


async def test_incomplete_run_opens_at_its_last_complete_step(tmp_path: Path, react_run: Path) -> None:
    data = react_run.read_bytes()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(data[: len(data) // 2 + 7])  # a cut-off last line
    app = make_app(cut)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.session.run.status == "incomplete"
        assert app.replay.cursor == len(app.replay) - 1 > 0
        assert "run incomplete" in str(app.query_one(NodeDetail).render())
        assert "incomplete" in screen_text(app)


async def test_run_without_state_or_step_max_opens(tmp_path: Path) -> None:
    app = make_app(stateless_dag(tmp_path / "dag.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "d", "end")
        text = screen_text(app)
        assert "no state" in text
        assert "(no max)" in text
        assert "this run file has no topology" in text


async def test_run_without_steps_opens(tmp_path: Path) -> None:
    path = synthetic(tmp_path / "none.jsonl", 2, max_steps=0)  # refused before the first step
    app = make_app(path)
    async with app.run_test(size=(160, 40)) as pilot:  # the detail pane holds the error on one line
        await pilot.press("n", "p", "end", "home", "d", "b", "c", "space", "space", "k", *"m", "enter")
        text = screen_text(app)
        assert "no complete steps recorded" in text
        assert "MaxStepsExceededError: exceeds" in text  # the detail pane wraps "max steps"
        assert app.is_running


async def test_header_only_run_opens(tmp_path: Path) -> None:
    full = synthetic(tmp_path / "full.jsonl", 1)
    header = full.read_bytes().split(b"\n", 1)[0] + b"\n"
    path = tmp_path / "header.jsonl"
    path.write_bytes(header)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "end")
        assert "no complete steps recorded" in screen_text(app)
