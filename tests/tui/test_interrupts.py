"""Interrupts, resumes and ADK cancels: marked in the timeline, node detail, graph and status line."""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from inspector.tui import Session, make_app
from inspector.tui.graph_pane import INTERRUPTED, GraphPane
from inspector.tui.interrupts import split_interrupt_message
from inspector.tui.node_detail import NodeDetail, render_detail
from inspector.tui.timeline import Timeline, format_row
from tests.tui.conftest import SIZE, screen_text

pytestmark = pytest.mark.anyio


def _detail(session: Session, position: int) -> str:
    step = session.run.steps[position]
    stop = session.stop_report() if position == len(session) - 1 else None
    return render_detail(step, stop=stop, mark=session.interrupt_at(position)).plain


def _row(session: Session, position: int, *, current: bool = False) -> str:
    return format_row(session.row(position), current=current, breakpoint=False, hit=False).plain


def test_static_interrupts_are_marked_with_their_checkpoint(interrupt_runs: dict[str, Path]) -> None:
    after = Session.open(interrupt_runs["after"])
    mark = after.interrupt_at(0)
    assert mark is not None and (mark.kind, mark.nodes, mark.checkpoint_id) == ("after", ("draft",), "cp-42")
    assert _row(after, 0).startswith("⏸") and "⏸ interrupt after draft" in _row(after, 0)
    assert "⏸ interrupt after draft\n  finished: its successors run on resume" in _detail(after, 0)
    assert "checkpoint  cp-42" in _detail(after, 0)

    before = Session.open(interrupt_runs["before"])
    assert before.run.steps[0].nodes == ("draft",)
    assert "interrupt before ask" in _row(before, 0)
    detail = _detail(before, 0)
    assert "⏸ interrupt before ask\n  not run yet: runs first on resume" in detail
    assert "checkpoint  cp-b" in detail
    assert "the run stopped at an interrupt" not in detail, "the diagnostic is not repeated"


def test_node_interrupt_is_a_pause_not_a_failure(interrupt_runs: dict[str, Path]) -> None:
    rerun = Session.open(interrupt_runs["rerun"])
    row = rerun.row(0)
    assert not row.failed and row.interrupt is not None and row.resumed_from == "cp-42"
    assert "↻ resumed from cp-42  ⏸ interrupt: ask (rerun on resume)" in _row(rerun, 0)
    detail = _detail(rerun, 0)
    assert (
        "⏸ interrupt in ask\n  rerun on resume with its input type's zero value"
        " (its original input if the run had an interrupt_event)"
    ) in detail
    assert "info        {'question': 'send it?'}" in detail
    assert "interrupted  {'question': 'send it?'}\n  address runnable:Approval;node:ask" in detail
    assert "error" not in detail and "InterruptSignal" not in detail
    stop = rerun.stop_report()
    assert stop is not None and stop.failed == () and stop.node_path == ()

    done = Session.open(interrupt_runs["done"])
    assert done.interrupt_at(0) is None and done.interrupt_at(1) is None
    assert _row(done, 0).startswith("↻") and "⏸" not in _row(done, 0)
    assert "↻" not in _row(done, 1)


def test_cancel_names_its_safe_point(interrupt_runs: dict[str, Path]) -> None:
    cancel = Session.open(interrupt_runs["cancel"])
    last = len(cancel) - 1
    assert cancel.opening_position() == last
    mark = cancel.interrupt_at(last)
    assert mark is not None and mark.kind == "cancel" and mark.safe_point == "AfterToolCallsCancelCheck"
    assert [cancel.interrupt_at(i) for i in range(last)] == [None] * last
    row = _row(cancel, last)
    assert row.startswith("⊘") and row.endswith("⊘ cancel at AfterToolCallsCancelCheck")
    detail = _detail(cancel, last)
    assert detail.startswith("run interrupted (cancelled)")
    assert "⊘ cancel took effect at safe point AfterToolCallsCancelCheck (after tool calls)" in detail
    assert "info        'CancelAfterToolCalls'" in detail and "checkpoint  cp-cancel" in detail


def test_immediate_cancel_of_an_adk_agent_is_a_cancel_not_a_static_interrupt(
    interrupt_runs: dict[str, Path],
) -> None:
    session = Session.open(interrupt_runs["immediate"])
    last = len(session) - 1
    mark = session.interrupt_at(last)
    assert mark is not None and (mark.kind, mark.safe_point, mark.nodes) == (
        "cancel",
        None,
        ("ToolNode",),
    )
    assert _row(session, last).endswith("⊘ cancel (immediate) during ToolNode")
    detail = _detail(session, last)
    assert "⊘ cancel took effect immediately, during ToolNode\n  not at a safe point" in detail
    # the same stop in a graph that is no ADK agent is a static interrupt
    before = Session.open(interrupt_runs["before"]).interrupt_at(0)
    assert before is not None and before.kind == "before"


def test_tools_node_interrupt_lists_which_calls_run_again(interrupt_runs: dict[str, Path]) -> None:
    session = Session.open(interrupt_runs["tools"])
    mark = session.interrupt_at(1)
    assert mark is not None and mark.kind == "interrupt" and mark.nodes == ("tools",)
    assert [(t.name, t.call_id, t.interrupted) for t in mark.tools] == [
        ("_approve", "a1", True),
        ("_look", "l1", False),
    ]
    detail = _detail(session, 1)
    assert "only the interrupted tool calls run again" in detail
    assert "tool        _approve (a1)  interrupted, runs again on resume  {'approve': 'x'}" in detail
    assert "tool        _look (l1)  completed, result reused on resume" in detail
    assert "interrupted  1 of 2 tool calls (below)" in detail
    assert "executed_tools" not in detail, "the composite info is summarised, not dumped"
    assert session.diagnostics is not None
    assert [d.code for d in session.diagnostics] == ["interrupted"], "an interrupt is no tool failure"
    assert not session.row(1).failed


def test_interrupt_messages_split_at_the_address() -> None:
    message = "interrupt at runnable:root;node:agent;tool:get_weather:call_1: {'a': 'b: c'}"
    assert split_interrupt_message(message) == (
        "runnable:root;node:agent;tool:get_weather:call_1",
        "{'a': 'b: c'}",
    )
    assert split_interrupt_message("something else") == ("", "something else")


async def test_cancelled_run_opens_at_the_interrupt_step(interrupt_runs: dict[str, Path]) -> None:
    app = make_app(interrupt_runs["cancel"])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.replay.cursor == len(app.replay) - 1
        text = screen_text(app)
        assert "interrupted (checkpoint cp-cancel)" in text
        assert "⊘ step 5: cancel at AfterToolCallsCancelCheck" in text, "on the timeline's border"
        assert " iter " in text and "/–" in text, "ADK runs get an iterations column and no fake step max"
        detail = str(app.query_one(NodeDetail).render())
        assert "cancel took effect at safe point AfterToolCallsCancelCheck" in detail
        painted = app.query_one(GraphPane).painted
        assert painted is not None and painted.focus is not None
        row = painted.focus.y + 1
        styles = {str(span.style) for span in painted.text.split("\n")[row].spans}
        assert INTERRUPTED in styles, "the safe-point node is drawn as interrupted"
        await pilot.press("home")
        assert "cancel took effect" not in str(app.query_one(NodeDetail).render())
        assert app.query_one(Timeline).cursor == 0


async def test_resumed_run_says_so_in_the_title_bar(interrupt_runs: dict[str, Path]) -> None:
    app = make_app(interrupt_runs["rerun"])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "↻ resumed from checkpoint cp-42" in text.splitlines()[0]
        assert "⏸ interrupt in ask" in text


async def test_cancelled_run_screen(interrupt_runs: dict[str, Path], svg_snapshot: SnapshotAssertion) -> None:
    app = make_app(interrupt_runs["cancel"], theme="textual-dark")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.export_screenshot(title="inspector replay") == svg_snapshot
