"""`inspector record --checkpoint-id/--resume` into one file, `inspector show` of the segments, and
trajectories of a resumed run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main
from inspector.recording import read_run
from inspector.snapshot.trajectory import first_divergence, to_text, trajectory

TARGET = "fixtures.approval:graph"
REQUEST = "The launch moved to Friday"


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "checkpoints.sqlite"
    monkeypatch.setenv("APPROVAL_CHECKPOINTS", str(path))
    return path


def _record(out: Path, *extra: str) -> int:
    return main(["record", TARGET, "-o", str(out), "--checkpoint-id", "t1", "--quiet", *extra])


def test_record_an_interrupted_run_then_its_resume_into_one_file(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run.jsonl"
    assert _record(out, "--input", REQUEST) == 0
    err = capsys.readouterr().err
    assert "status interrupted" in err and "saved checkpoint t1" in err and "--resume" in err
    assert _record(out, "--resume", "--resume-data", '"no"') == 0
    assert "(segment 1, 2 segments in the file, status ok)" in capsys.readouterr().err
    run = read_run(out)
    assert [s.status for s in run.segments] == ["interrupted", "ok"]
    assert run.output == "discarded: the draft was not approved"
    assert [s.nodes for s in run.steps] == [("draft",), ("approve",), ("approve",), ("discard",)]
    assert run.segments[1].meta == {"target": TARGET, "mode": "invoke", "resume_data": "no"}
    # Nothing left to continue: a further resume is refused, and the file is untouched.
    before = out.read_bytes()
    assert _record(out, "--resume") == 2
    assert "ended with status `ok`, not `interrupted`" in " ".join(capsys.readouterr().err.split())
    assert out.read_bytes() == before


def test_show_marks_the_resume_point(store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run.jsonl"
    assert _record(out, "--input", REQUEST) == 0
    assert _record(out, "--resume", "--resume-data", '"yes"') == 0
    capsys.readouterr()
    assert main(["show", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    separator = next(
        i for i, line in enumerate(lines) if line.startswith("— resumed from checkpoint t1 (segment 1")
    )
    before, after = lines[:separator], lines[separator + 1 :]
    assert "2 segments: the run was interrupted and resumed 1 time(s)" in lines[1]
    assert [line for line in before if line.startswith("step ")] == [
        line for line in before if line.startswith(("step 0  draft", "step 1  approve"))
    ]
    assert before[-1] == "interrupted, checkpoint t1"
    assert after[0].startswith("step 0  approve  [steps 1/") and "    state: ~ approved: true" in after
    assert any(line.startswith("step 1  send") for line in after)
    assert main(["show", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [
        (s["index"], s["resumed_from"], s["status"], s["start"], s["stop"]) for s in data["segments"]
    ] == [
        (0, None, "interrupted", 0, 2),
        (1, "t1", "ok", 2, 4),
    ]
    assert data["segments"][0]["checkpoint_id"] == "t1"
    assert [(s["segment"], s["index"], s["position"]) for s in data["steps"]] == [
        (0, 0, 0),
        (0, 1, 1),
        (1, 0, 2),
        (1, 1, 3),
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--resume"], "--resume needs --checkpoint-id"),
        (["--input", "x", "--resume", "--checkpoint-id", "t1"], "drop --input"),
        ([], "one of --input or --input-json is required"),
        (["--input", "x", "--resume-data", "1"], "--resume-data is only for --resume"),
        (["--resume", "--checkpoint-id", "nope"], "holds no checkpoint `nope`"),
        (["--resume", "--checkpoint-id", "t1", "--resume-data", "{"], "--resume-data is not valid JSON"),
        (
            ["--input", "again", "--checkpoint-id", "t1"],
            "already holds a checkpoint `t1`, so the run would resume",
        ),
    ],
)
def test_option_errors_exit_2(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    out = tmp_path / "run.jsonl"
    assert _record(out, "--input", REQUEST) == 0  # checkpoint t1 exists
    capsys.readouterr()
    assert main(["record", TARGET, "-o", str(out), "--quiet", *args]) == 2
    assert message in " ".join(capsys.readouterr().err.split())


def test_checkpoint_id_needs_a_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run.jsonl"
    code = main(
        ["record", "fixtures.weather:agent", "--input", "hi", "-o", str(out), "--checkpoint-id", "t1"]
    )
    assert code == 2
    assert "compiled without one" in " ".join(capsys.readouterr().err.split())
    assert not out.exists()


def test_resuming_into_a_file_of_another_checkpoint_is_refused(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, other = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert _record(first, "--input", REQUEST) == 0
    assert main(["record", TARGET, "-o", str(other), "--checkpoint-id", "t2", "--input", "x", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["record", TARGET, "-o", str(first), "--checkpoint-id", "t2", "--resume", "--quiet"]) == 2
    assert "saved checkpoint `t1`, but the resumed run is to start from checkpoint `t2`" in " ".join(
        capsys.readouterr().err.split()
    )


def test_trajectory_of_a_resumed_run(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    assert _record(out, "--input", REQUEST) == 0
    assert _record(out, "--resume", "--resume-data", '"yes"') == 0
    data = trajectory(out)
    assert data["resumed_from"] == ["t1"]
    assert [(s["segment"], s["index"], s["nodes"]) for s in data["steps"]] == [
        (0, 0, ["draft"]),
        (0, 1, ["approve"]),
        (1, 0, ["approve"]),
        (1, 1, ["send"]),
    ]
    assert '"segment": 1, "index": 0, "nodes": ["approve"]' in to_text(out)
    changed: dict[str, Any] = json.loads(json.dumps(data))
    changed["steps"][3]["nodes"] = ["discard"]
    divergence = first_divergence(data, changed)
    assert divergence is not None and (divergence.segment, divergence.step) == (1, 1)
    assert divergence.describe().startswith("segment 1 step 1: different nodes ran")
    single = json.loads(json.dumps(data))
    del single["resumed_from"]
    found = first_divergence(data, single)
    assert found is not None and found.what == "resumed from checkpoints"
