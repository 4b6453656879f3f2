"""`inspector demo --headless` and `inspector replay` errors, through the CLI entry point."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from inspector.cli import main


def test_demo_headless_records_replays_and_summarises(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "demo.jsonl"
    assert main(["demo", "--headless", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert out.is_file()
    assert "status       ok" in printed
    assert "steps        3" in printed
    assert "chat ×2, tools ×1" in printed
    assert "diagnostics  0" in printed


def test_demo_headless_runaway_names_the_cycle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--headless", "--agent", "runaway", "-o", str(tmp_path / "r.jsonl")]) == 0
    printed = capsys.readouterr().out
    assert "status       error" in printed
    assert "budget-exhausted" in printed and "chat -> tools -> chat" in printed


def test_replay_of_a_bad_file_is_a_user_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not a run\n")
    assert main(["replay", str(bad)]) == 2
    assert "run file" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.jsonl")]) == 2


def test_demo_headless_in_a_fresh_process_exits_zero(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "demo", "--headless", "-o", str(tmp_path / "d.jsonl")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "status       ok" in done.stdout


def test_demo_records_the_adk_agent(tmp_path: Path) -> None:
    from inspector.cli.demo import record_demo
    from inspector.recording import read_run

    run = read_run(record_demo(tmp_path / "adk.jsonl", "adk"))
    assert run.status == "ok" and run.graph_name == "TripPlanner"
    assert run.steps[-1].budget.iterations_remaining == 18


def test_demo_records_an_interrupt_and_its_resume_into_one_file(tmp_path: Path) -> None:
    from inspector.cli.demo import record_demo
    from inspector.recording import read_run

    run = read_run(record_demo(tmp_path / "i.jsonl", "interrupt"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["i.jsonl"], "no separate file for the resume"
    first, resumed = run.segments
    assert first.status == "interrupted" and first.steps == range(0, 1)
    assert first.interrupt is not None and first.interrupt.before_nodes == ["tools"]
    assert first.interrupt.checkpoint_id == "demo-checkpoint"
    assert (
        resumed.status == "ok" and resumed.resumed_from == "demo-checkpoint" and resumed.steps == range(1, 3)
    )
    assert [(s.segment, s.index, s.nodes) for s in run.steps] == [
        (0, 0, ("chat",)),
        (1, 0, ("tools",)),
        (1, 1, ("chat",)),
    ]
    assert run.status == "ok" and run.output is not None


def test_demo_headless_interrupt_summarises_both_segments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "stop.jsonl"
    for _ in range(2):  # a second demo over the same file starts it afresh: still two segments
        assert main(["demo", "--headless", "--agent", "interrupt", "-o", str(out)]) == 0
        printed = capsys.readouterr().out
        assert "status       ok" in printed and "steps        3" in printed
        assert "segment 0    position 0, interrupted (checkpoint demo-checkpoint)" in printed
        assert "segment 1    positions 1–2, resumed from demo-checkpoint, ok" in printed
        assert "resumed.jsonl" not in printed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stop.jsonl"]


@pytest.mark.anyio
async def test_demo_opens_the_resumed_file_at_the_pause(tmp_path: Path) -> None:
    from inspector.cli.demo import opening_position, record_demo
    from inspector.tui import Session, make_app

    session = Session.open(record_demo(tmp_path / "i.jsonl", "interrupt"))
    assert opening_position(session) == 0
    app = make_app(session, start=opening_position(session))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.replay.cursor == 0 and session.interrupt_at(0) is not None
        await pilot.press("n")
        await pilot.pause()
        assert app.replay.cursor == 1 and session.row(1).resumed_from == "demo-checkpoint"
    weather = Session.open(record_demo(tmp_path / "w.jsonl", "weather"))
    assert opening_position(weather) is None, "single-segment runs open where the app would anyway"
