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


def test_demo_records_an_interrupt_and_its_resume(tmp_path: Path) -> None:
    from inspector.cli.demo import record_demo, resumed_path
    from inspector.recording import read_run

    first = read_run(record_demo(tmp_path / "i.jsonl", "interrupt"))
    assert first.status == "interrupted" and [s.nodes for s in first.steps] == [("chat",)]
    assert first.interrupt is not None and first.interrupt.before_nodes == ["tools"]
    assert first.interrupt.checkpoint_id == "demo-checkpoint"
    resumed = read_run(resumed_path(tmp_path / "i.jsonl"))
    assert resumed.status == "ok" and resumed.header.resumed_from == "demo-checkpoint"
    assert [s.nodes for s in resumed.steps] == [("tools",), ("chat",)]
