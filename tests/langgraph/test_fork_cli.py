"""`inspector fork` on LangGraph recordings through the CLI: `--set` and `--model-answer` change the run
(an `edit` line, `diff` exit 1), bad edits are one paragraph with exit 2 and nothing written, and a
`path/to/file.py:attr` TARGET records, draws and forks with stable identities."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.recording import read_run

REACT = "fixtures/runs/langgraph_react.jsonl"
RUNAWAY = "fixtures/runs/langgraph_runaway.jsonl"

GRAPH = """
import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph


class Drafts(TypedDict):
    topic: str
    drafts: int
    log: Annotated[list[str], operator.add]


def write(state: Drafts) -> dict:
    n = state["drafts"] + 1
    return {"drafts": n, "log": [f"draft {n} on {state['topic']}"]}


def publish(state: Drafts) -> dict:
    return {"log": [f"published after {state['drafts']} drafts"]}


def more(state: Drafts) -> str:
    return "more" if state["drafts"] < 4 else "done"


builder = StateGraph(Drafts)
builder.add_node("write", write)
builder.add_node("publish", publish)
builder.add_edge(START, "write")
builder.add_conditional_edges("write", more, {"more": "write", "done": "publish"})
builder.add_edge("publish", END)
graph = builder.compile()
"""
TARGET = "path/to/lg_graph.py:graph"
INPUT = '{"topic": "rain", "drafts": 0, "log": []}'


def _inspector(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A command in a process of its own, with its own hash seed (a random module name differed)."""
    env = {**os.environ, "PYTHONHASHSEED": "random"}
    return subprocess.run(
        [sys.executable, "-m", "inspector", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.fixture
def drafts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding `path/to/lg_graph.py` and its recording `lg3.jsonl` (5 steps: write x4,
    publish), made by `inspector record` here (so the fork may run its TARGET); the tests run in it."""
    (tmp_path / "path" / "to").mkdir(parents=True)
    (tmp_path / "path" / "to" / "lg_graph.py").write_text(GRAPH)
    monkeypatch.chdir(tmp_path)
    assert main(["record", TARGET, "--input-json", INPUT, "-o", "lg3.jsonl", "-q"]) == 0
    return tmp_path


def _edits(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.startswith('{"kind":"edit"')]


def _error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("inspector: error: ") and "Traceback" not in err
    return " ".join(err.split())


def test_set_changes_what_the_graph_does_next_and_is_recorded(
    drafts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fork", "lg3.jsonl", "--step", "2", "-o", "f.jsonl", "--set", "state.drafts=3"]) == 0
    assert "1 edit" in capsys.readouterr().err
    assert [(e["step"], e["path"], e["old"], e["new"]) for e in _edits(drafts / "f.jsonl")] == [
        (2, "state.drafts", 2, 3)
    ]
    fork = read_run("f.jsonl")
    # steps 0 and 1 replayed; step 2 wrote draft 4 (not 3) and the branch went to publish at once
    assert [list(s.nodes) for s in fork.steps] == [["write"], ["write"], ["write"], ["publish"]]
    assert fork.steps[-1].state == {
        "topic": "rain",
        "drafts": 4,
        "log": ["draft 1 on rain", "draft 2 on rain", "draft 4 on rain", "published after 4 drafts"],
    }
    assert fork.header.meta["fork"]["step"] == 2
    assert main(["diff", "lg3.jsonl", "f.jsonl"]) == 1


def test_a_fork_without_edits_is_the_recorded_run(drafts: Path) -> None:
    assert main(["fork", "lg3.jsonl", "--step", "3", "-o", "same.jsonl"]) == 0
    assert main(["diff", "lg3.jsonl", "same.jsonl"]) == 0


def test_edits_before_step_0_change_the_input_state(drafts: Path) -> None:
    args = ["--set", "state.drafts=3", "--set", 'state.log=["outline"]']
    assert main(["fork", "lg3.jsonl", "--step", "0", "-o", "f0.jsonl", *args]) == 0
    fork = read_run("f0.jsonl")
    assert [list(s.nodes) for s in fork.steps] == [["write"], ["publish"]]
    assert fork.steps[0].state["log"] == ["outline", "draft 4 on rain"]  # past the reducer: replaced
    assert [e["path"] for e in _edits(drafts / "f0.jsonl")] == ["state.drafts", "state.log"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--set", "nope.x=5"], "path `state.nope.x`: `state` has no key `nope` (keys: topic, drafts, log)"),
        (["--set", 'state.drafts="two"'], '`state.drafts` holds a number; "two" is a string'),
        (["--set", "state.log[7]=1"], "`state.log` has 2 items (indexes 0..1), no [7]"),
        (["--set", "input.write.drafts=1"], "a LangGraph node reads the state, so there is no node input"),
        (
            ["--model-answer", '{"role": "assistant", "content": "X"}'],
            "step 2 ran [write], which made no model call, so there is no model answer to replace there; "
            "the recording holds no model call at all",
        ),
    ],
)
def test_bad_edits_are_refused_and_write_nothing(
    drafts: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    before = sorted(p.name for p in drafts.iterdir())
    assert main(["fork", "lg3.jsonl", "--step", "2", "-o", "bad.jsonl", *args]) == 2
    assert message in _error(capsys)
    assert sorted(p.name for p in drafts.iterdir()) == before  # no fork, no temporary file


def test_a_model_answer_on_the_react_fixture(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "answer.jsonl"
    answer = '{"role": "assistant", "content": "X"}'
    assert main(["fork", REACT, "--step", "2", "-o", str(out), "--model-answer", answer]) == 0
    fork = read_run(out)
    assert fork.status == "ok" and [list(s.nodes) for s in fork.steps] == [["agent"], ["tools"], ["agent"]]
    assert fork.steps[2].node_runs[0].output == {"role": "assistant", "content": "X"}
    assert fork.output["messages"][-1] == {"role": "assistant", "content": "X"}
    assert fork.header.meta["fork"] == {
        "parent": REACT,
        "parent_run_id": "langgraph_react",
        "step": 2,
        "model_answer": True,
    }
    assert fork.steps[1].budget.model_calls == 1 and fork.steps[1].budget.tool_calls == 1  # carried
    capsys.readouterr()
    assert main(["show", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "agent said: assistant: X" in shown and "Error" not in shown
    assert main(["diff", REACT, str(out)]) == 1


def test_a_model_answer_at_the_first_step_ends_the_run(tmp_path: Path) -> None:
    out = tmp_path / "answer0.jsonl"
    answer = '{"role": "assistant", "content": "No need to look it up."}'
    assert main(["fork", REACT, "--step", "0", "-o", str(out), "--model-answer", answer]) == 0
    fork = read_run(out)
    assert [list(s.nodes) for s in fork.steps] == [["agent"]]
    assert [list(b.chosen) for b in fork.steps[0].branches] == [["end"]]


def test_a_model_answer_with_tool_calls_runs_the_tools(tmp_path: Path) -> None:
    out = tmp_path / "beijing.jsonl"
    answer = json.dumps(
        {
            "role": "assistant",
            "tool_calls": [{"id": "call_b", "name": "get_weather", "arguments": '{"city": "Beijing"}'}],
        }
    )
    assert main(["fork", REACT, "--step", "0", "-o", str(out), "--model-answer", answer]) == 0
    fork = read_run(out)
    tools = fork.steps[1].node_runs[0].tools
    assert [(t.name, t.output) for t in tools] == [
        ("get_weather", "Beijing: sunny, 26°C, humidity 30%, wind 2 m/s")
    ]


def test_a_model_answer_where_no_model_was_called_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "never.jsonl"
    answer = '{"role": "assistant", "content": "X"}'
    assert main(["fork", REACT, "--step", "1", "-o", str(out), "--model-answer", answer]) == 2
    assert (
        "--model-answer: step 1 ran [tools], which made no model call, so there is no model answer to "
        "replace there; the model answered at steps 0, 2: fork at one of them"
    ) in _error(capsys)
    assert not out.exists()


def test_an_edited_tool_call_reaches_the_tool(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The prebuilt agent sends each tool call to `tools` (`Send`): the edit is made as `agent`, whose
    edge decides again on the edited state, so the tool gets the edited arguments."""
    out = tmp_path / "edited.jsonl"
    edit = 'state.messages[1].tool_calls[0].arguments="{\\"city\\": \\"Beijing\\"}"'
    assert main(["fork", REACT, "--step", "1", "-o", str(out), "--set", edit]) == 0
    fork = read_run(out)
    assert fork.steps[1].node_runs[0].tools[0].output == "Beijing: sunny, 26°C, humidity 30%, wind 2 m/s"
    assert [e["path"] for e in _edits(out)] == ["state.messages[1].tool_calls[0].arguments"]
    assert main(["diff", REACT, str(out)]) == 1


@pytest.mark.parametrize("step", [5, 11])
def test_the_fork_keeps_the_recorded_step_budget(tmp_path: Path, step: int) -> None:
    """The hand-built loop never stops: its fork runs out of `recursion_limit` (12) where it did."""
    out = tmp_path / f"runaway-{step}.jsonl"
    assert main(["fork", RUNAWAY, "--step", str(step), "-o", str(out)]) == 0
    fork = read_run(out)
    assert len(fork.steps) == len(read_run(RUNAWAY).steps) == 12
    assert fork.status == "error" and fork.error is not None and fork.error.type == "MaxStepsExceededError"


def test_a_file_target_in_a_folder_has_stable_identities(drafts: Path) -> None:
    """`path/to/lg_graph.py:graph`: two recordings in two processes are equivalent, the topology is the
    same bytes twice, and the recording forks (the TARGET's module name is its path's, not random)."""
    for name in ("a.jsonl", "b.jsonl"):
        done = _inspector("record", TARGET, "--input-json", INPUT, "-o", name, "-q", cwd=drafts)
        assert done.returncode == 0, done.stderr
    assert main(["diff", "a.jsonl", "b.jsonl"]) == 0
    first, second = (_inspector("topology", TARGET, "-f", "json", cwd=drafts) for _ in range(2))
    assert first.returncode == 0 and first.stdout == second.stdout
    forked = _inspector(
        "fork", "a.jsonl", "--step", "2", "-o", "f.jsonl", "--set", "state.drafts=3", cwd=drafts
    )
    assert forked.returncode == 0, forked.stderr
    assert main(["diff", "a.jsonl", "f.jsonl"]) == 1
