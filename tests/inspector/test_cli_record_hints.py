"""`inspector record`'s summary line says what a user would otherwise miss: folders it created for -o,
the `--resume-data` a resumed run may need, and `--input-json` when a graph got a number as text."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.cli import main

NUMBER_GRAPH = """
from graph_core import Graph, START, END

def build():
    g = Graph()
    g.add_lambda_node("double", lambda x: x * 2 + 1)
    g.add_edge(START, "double")
    g.add_edge("double", END)
    return g

graph = build()
"""


def test_folders_created_for_the_output_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "typo" / "dir" / "run.jsonl"
    assert main(["record", "fixtures.weather:agent", "--input", "hi", "-o", str(out), "-q"]) == 0
    assert f"created the folder {tmp_path / 'typo'} for it" in capsys.readouterr().err
    assert main(["record", "fixtures.weather:agent", "--input", "hi", "-o", str(out), "-q"]) == 0
    assert "created the folder" not in capsys.readouterr().err  # it exists now


def test_a_number_given_as_text_to_a_graph_hints_input_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "g.py"
    source.write_text(NUMBER_GRAPH)
    out = tmp_path / "run.jsonl"
    assert main(["record", f"{source}:graph", "--input", "0", "-o", str(out), "-q"]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert 'the graph got the string "0": to pass the JSON value 0 use --input-json 0' in err
    assert main(["record", f"{source}:graph", "--input-json", "0", "-o", str(out), "-q"]) == 0
    assert "--input-json" not in capsys.readouterr().err


def test_the_resume_hint_includes_resume_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("APPROVAL_CHECKPOINTS", str(tmp_path / "checkpoints.sqlite"))
    out = tmp_path / "run.jsonl"
    args = [
        "record",
        "fixtures.approval:graph",
        "--input",
        "x",
        "-o",
        str(out),
        "-q",
        "--checkpoint-id",
        "t1",
    ]
    assert main(args) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "--checkpoint-id t1 --resume --resume-data JSON` (JSON: the value the interrupted node" in err
