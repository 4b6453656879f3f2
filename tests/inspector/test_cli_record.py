"""`inspector record`: runs a TARGET with a Recorder, progress on stderr, user errors as exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspector.cli import main
from inspector.recording import read_run

GRAPH_FILE = """
from graph_core import Graph, START, END

def build():
    g = Graph()
    g.add_lambda_node("shout", lambda x: x.upper())
    g.add_edge(START, "shout")
    g.add_edge("shout", END)
    return g

graph = build()
"""


def test_record_an_agent_with_text_input(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "run.jsonl"
    assert main(["record", "fixtures.weather:agent", "--input", "Weather in Hangzhou?", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "step 0: chat" in err and "step 2: chat" in err and "recorded 3 steps" in err
    run = read_run(out)
    assert run.status == "ok" and run.topology is not None and run.topology.name == "ReActAgent"
    assert run.steps[0].state["messages"][0] == {"role": "user", "content": "Weather in Hangzhou?"}
    assert run.header.meta == {"target": "fixtures.weather:agent", "mode": "invoke"}


def test_record_a_graph_file_gets_the_string(tmp_path: Path, capsys: Any) -> None:
    source = tmp_path / "g.py"
    source.write_text(GRAPH_FILE)
    out = tmp_path / "run.jsonl"
    assert main(["record", f"{source}:graph", "--input", "hello", "-o", str(out), "--quiet"]) == 0
    assert capsys.readouterr().err.startswith("recorded 1 step to ")
    assert read_run(out).output == "HELLO"


def test_record_with_json_input(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    messages = json.dumps(
        [{"role": "system", "content": "be brief"}, {"role": "user", "content": "Weather?"}]
    )
    assert main(["record", "fixtures.weather:agent", "--input-json", messages, "-o", str(out), "-q"]) == 0
    roles = [m["role"] for m in read_run(out).steps[0].state["messages"]]
    assert roles == ["system", "user"]


def test_record_stream_mode(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    assert (
        main(["record", "fixtures.streaming_pitfall:agent", "--input", "w", "-o", str(out), "--stream"]) == 0
    )
    run = read_run(out)
    assert run.header.meta["mode"] == "stream" and len(run.steps) == 1


def test_a_failing_run_is_still_recorded_and_exits_1(tmp_path: Path, capsys: Any) -> None:
    # Status 1 so a script or CI job notices the run failed (0 would read as success; 2 is a user error).
    out = tmp_path / "run.jsonl"
    assert main(["record", "fixtures.runaway:agent", "--input", "go", "-o", str(out), "-q"]) == 1
    assert "the run failed: MaxStepsExceededError" in capsys.readouterr().err
    assert read_run(out).status == "error"


def test_user_errors_exit_2(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "run.jsonl"
    assert main(["record", "fixtures.weather:nope", "--input", "x", "-o", str(out)]) == 2
    assert "has no attribute `nope`" in capsys.readouterr().err
    assert main(["record", "fixtures.weather:agent", "--input-json", "{not json", "-o", str(out)]) == 2
    assert "--input-json is not valid JSON" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["record", "fixtures.weather:agent", "--input", "x", "-o", str(blocker / "r.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "could not write the run file" in err and "Traceback" not in err
