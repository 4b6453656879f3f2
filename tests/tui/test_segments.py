"""A run resumed into the same file in the TUI: resume markers per segment, interrupt marks at each
segment's end, the segment count in the status line, and a budget that restarts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fixtures.approval import build
from graph_core import END, START, Graph, interrupt
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import InterruptError
from graph_core.interrupt import was_interrupted
from inspector.recording import Recorder, read_run
from inspector.tui import Session, make_app
from inspector.tui.budget_bar import BudgetBar
from inspector.tui.goto import GotoError, goto_prompt, resolve_goto
from inspector.tui.interrupts import interrupt_at, stop_mark
from inspector.tui.node_detail import NodeDetail, render_detail
from inspector.tui.timeline import format_row
from tests.tui.conftest import SIZE, clock, screen_text

pytestmark = pytest.mark.anyio


@pytest.fixture
def resumed(tmp_path: Path) -> Path:
    """The approval flow: interrupted at `approve` (checkpoint t1), then resumed and sent."""
    path = tmp_path / "approval.jsonl"
    graph = build(InMemoryCheckpointStore())
    with pytest.raises(InterruptError):
        graph.invoke("Ship it", checkpoint_id="t1", callbacks=[Recorder(path, clock=clock(), run_id="a")])
    graph.invoke(
        None, checkpoint_id="t1", resume_data="yes", callbacks=[Recorder(path, resume=True, clock=clock())]
    )
    return path


def _pause(text: str) -> str:
    if not was_interrupted():
        interrupt("again?")
    return text


def test_rows_mark_each_resume_and_each_segments_interrupt(resumed: Path) -> None:
    session = Session.open(resumed)
    rows = [session.row(i) for i in range(len(session))]
    assert [(r.segment, r.index, r.resumed_from) for r in rows] == [
        (0, 0, None),
        (0, 1, None),
        (1, 0, "t1"),
        (1, 1, None),
    ]
    assert rows[1].interrupt is not None and rows[1].interrupt.checkpoint_id == "t1"
    assert rows[1].interrupt.kind == "interrupt" and rows[2].interrupt is None and rows[3].interrupt is None
    text = format_row(rows[2], current=False, breakpoint=False, hit=False)
    assert text.plain.startswith("↻    0  approve")
    assert "↻ resumed from t1 (segment 1: steps and budget restart)" in text.plain
    assert any("overline" in str(span.style) for span in text.spans), "the segment boundary is drawn"
    assert "overline" not in str(format_row(rows[1], current=False, breakpoint=False, hit=False).spans)
    run = session.run
    mark = interrupt_at(run, 1)
    assert mark is not None and mark.nodes == ("approve",) and mark.checkpoint_id == "t1"
    assert stop_mark(run) is None and session.stop_report() is None
    assert [session.segment_at(i) for i in (-5, 0, 1, 2, 3, 99)] == [0, 0, 0, 1, 1, 1]


def test_stop_mark_is_the_last_segments(tmp_path: Path) -> None:
    """Interrupted again after the resume: the run stops where the last segment did."""
    path = tmp_path / "twice.jsonl"
    graph = Graph()
    graph.add_lambda_node("first", _pause)
    graph.add_lambda_node("second", lambda text: _pause(text + "!"))
    graph.add_edge(START, "first")
    graph.add_edge("first", "second")
    graph.add_edge("second", END)
    compiled = graph.compile(checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError):
        compiled.invoke("x", checkpoint_id="c1", callbacks=[Recorder(path)])
    with pytest.raises(InterruptError):
        compiled.invoke(
            None, checkpoint_id="c1", write_checkpoint_id="c2", callbacks=[Recorder(path, resume=True)]
        )
    run = read_run(path)
    mark = stop_mark(run)
    assert mark is not None and mark.nodes == ("second",) and mark.checkpoint_id == "c2"
    first = interrupt_at(run, 0)
    assert first is not None and first.nodes == ("first",) and first.checkpoint_id == "c1"
    session = Session.open(path)
    assert session.opening_position() == 2
    assert [session.row(i).resumed_from for i in range(3)] == [None, "c1", None]


async def test_status_line_and_budget_follow_the_cursors_segment(resumed: Path) -> None:
    app = make_app(resumed, start=1)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        status = screen_text(app).splitlines()[0]
        assert "position 1 of 4 (3 last)  segment 0 step 1 (2 segments)" in status
        assert "resumed from" not in status
        bar = app.query_one(BudgetBar)
        assert "segment 0" in str(bar.border_title) and "2/14" in str(bar.render())
        await pilot.press("n")
        await pilot.pause()
        text = screen_text(app)
        status = text.splitlines()[0]
        assert "position 2 of 4 (3 last)  segment 1 step 0 (2 segments)" in status
        assert "↻ resumed from checkpoint t1" in status
        assert "segment 1 (restarts at each resume)" in str(bar.border_title)
        assert "1/14" in str(bar.render()), "the step budget restarts with the resumed run"
        resumed_row = next(line for line in text.splitlines() if "▶    0  approve" in line)
        assert "↻ resumed" in resumed_row, "the timeline marks the first step of the resumed segment"


def test_node_detail_names_the_segment_in_a_resumed_file(resumed: Path) -> None:
    run = read_run(resumed)
    headers = [render_detail(step, segments=len(run.segments)).plain.splitlines()[0] for step in run.steps]
    assert [h.split("  ")[0] for h in headers] == [
        "segment 0 step 0",
        "segment 0 step 1",
        "segment 1 step 0",
        "segment 1 step 1",
    ]


def test_node_detail_of_a_single_segment_run_is_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "plain.jsonl"
    with pytest.raises(InterruptError):
        build(InMemoryCheckpointStore()).invoke("Ship it", checkpoint_id="t1", callbacks=[Recorder(path)])
    run = read_run(path)
    assert len(run.segments) == 1
    assert render_detail(run.steps[1], segments=1).plain.startswith("step 1  ")


def test_goto_takes_a_position_or_segment_colon_step(resumed: Path) -> None:
    run = read_run(resumed)
    assert [resolve_goto(answer, run) for answer in ("2", " -1 ", "0:1", "1:0", "1:1", "-1:0", "1:-1")] == [
        2,
        -1,
        1,
        2,
        3,
        2,
        3,
    ]
    with pytest.raises(GotoError, match=r"no segment 2: the run has 2 \(0–1\)"):
        resolve_goto("2:0", run)
    with pytest.raises(GotoError, match="segment 1 has steps 0–1, no step 2"):
        resolve_goto("1:2", run)
    with pytest.raises(GotoError, match="not a step number or segment:step: 'one:0'"):
        resolve_goto("one:0", run)
    assert goto_prompt(run) == (
        "Go to position (0–3) or segment:step (0:0–1:1); negative counts from the end"
    )


async def test_g_goes_to_a_segments_step_and_warns_on_a_missing_one(resumed: Path) -> None:
    app = make_app(resumed)
    warnings: list[str] = []
    shown = app.notify

    def notify(message: str, **options: Any) -> None:
        warnings.append(message)
        shown(message, **options)

    app.notify = notify  # what the prompt tells the user, kept for the assertion below
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("g")
        await pilot.pause()
        assert "segment:step" in screen_text(app)
        await pilot.press("1", ":", "1", "enter")
        await pilot.pause()
        assert app.replay.cursor == 3
        assert "segment 1 step 1" in str(app.query_one(NodeDetail).render())
        await pilot.press("g", "3", "enter")  # a bare number is a position: segment 1, step 1 again
        await pilot.pause()
        assert app.replay.cursor == 3
        await pilot.press("g", "5", ":", "0", "enter")
        await pilot.pause()
        assert app.replay.cursor == 3, "a segment that does not exist moves nothing"
        assert warnings == ["no segment 5: the run has 2 (0–1)"]
