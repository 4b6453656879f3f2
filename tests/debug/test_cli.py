"""`inspector debug` and `inspector fork` through the CLI entry point: results, and one clear message
with exit status 2 and nothing written for each kind of bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.recording import read_run

RUNAWAY = "fixtures/runs/runaway.jsonl"
STOP = '{"role": "assistant", "content": "It stopped raining."}'


def _error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("inspector: error: ") and "Traceback" not in err
    return " ".join(err.split())


def test_fork_writes_the_fork_and_diff_finds_the_fork_point(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fork.jsonl"
    assert main(["fork", RUNAWAY, "--step", "4", "-o", str(out), "--model-answer", STOP]) == 0
    err = capsys.readouterr().err
    assert f"forked {RUNAWAY} at step 4: recorded 5 steps to {out} (status ok)" in err
    assert read_run(out).status == "ok"
    assert main(["diff", RUNAWAY, str(out)]) == 1
    printed = capsys.readouterr().out
    assert "fork: aligned at step 4" in printed
    assert (
        "first divergence: step 4: different branch decision: A [chat -> tools], B [chat -> end]" in printed
    )


def test_fork_with_set_records_the_edit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fork.jsonl"
    args = [
        "fork",
        RUNAWAY,
        "--step",
        "1",
        "-o",
        str(out),
        "--set",
        'input.tools.tool_calls[0].arguments="{}"',
    ]
    assert main(args) == 0
    assert "1 edit" in capsys.readouterr().err
    edits = [json.loads(line) for line in out.read_text().splitlines() if line.startswith('{"kind":"edit"')]
    assert [(e["step"], e["path"], e["new"]) for e in edits] == [
        (1, "input.tools.tool_calls[0].arguments", "{}")
    ]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--step", "13"], "step 13 is outside the run fixtures/runs/runaway.jsonl: it has steps 0..12"),
        (["--step", "4", "--set", "state.nowhere=1"], "path `state.nowhere`: `state` has no field `nowhere`"),
        (
            ["--step", "4", "--set", "state.messages[0].content=[1]"],
            "messages.0.content: Input should be a valid string",
        ),
        (["--step", "4", "--set", "state.messages[0].content=hi"], "the value is not valid JSON"),
        (
            ["--step", "4", "--model-answer", '{"content": "x"}'],
            "--model-answer must be an assistant message",
        ),
    ],
)
def test_fork_refusals_exit_2_and_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    out = tmp_path / "fork.jsonl"
    assert main(["fork", RUNAWAY, "-o", str(out), *extra]) == 2
    assert message in _error(capsys)
    assert list(tmp_path.iterdir()) == []


def test_fork_of_a_target_that_no_longer_matches(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    changed = tmp_path / "changed.py"
    changed.write_text(
        "from fixtures.weather import get_weather\n"
        "from graph_core.agents.react import ReActAgent\n"
        "from graph_core.models import ScriptedChatModel\n"
        "agent = ReActAgent(ScriptedChatModel([]), tools=[get_weather], max_step=30)\n"
    )
    out = tmp_path / "fork.jsonl"
    assert main(["fork", RUNAWAY, "--step", "4", "-o", str(out), "--target", f"{changed}:agent"]) == 2
    assert "no longer matches the graph" in _error(capsys)
    assert not out.exists()


def test_fork_refuses_to_overwrite_a_file_that_is_not_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    assert main(["fork", RUNAWAY, "--step", "4", "-o", str(notes)]) == 2
    assert "is not a run file" in _error(capsys)
    assert notes.read_text() == "keep me"


def test_debug_breakpoint_on_an_unknown_node_lists_the_real_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run.jsonl"
    assert main(["debug", "fixtures.weather:agent", "--input", "hi", "--break", "tool", "-o", str(out)]) == 2
    assert "no node `tool` in the graph; its nodes are: chat, tools, direct_return" in _error(capsys)
    assert not out.exists()


def test_debug_condition_that_does_not_parse_names_the_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run.jsonl"
    assert (
        main(
            ["debug", "fixtures.weather:agent", "--input", "hi", "--when", "len(messages) > ", "-o", str(out)]
        )
        == 2
    )
    assert "condition `len(messages) >`: expected a JSON value after the operator at column" in _error(capsys)
    assert not out.exists()


def test_show_says_where_a_person_changed_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import fixtures.weather as weather
    from tests.debug.conftest import controller_for

    path = tmp_path / "run.jsonl"
    controller = controller_for(weather, path, breakpoints=["tools"])
    controller.start()
    controller.wait()
    controller.edit("input.tools.tool_calls[0].arguments", '{"city": "Paris"}')
    controller.step()
    controller.wait()
    controller.abort()
    controller.wait()
    assert main(["show", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    change = """'{"city": "Hangzhou"}' -> '{"city": "Paris"}'"""
    edit = lines.index(f"edit before step 1: input.tools.tool_calls[0].arguments: {change}")
    assert lines[edit + 1].startswith("step 1  tools")
    assert "aborted by the user before step 2" in lines
    assert "error: RunAborted: aborted by the user before step 2" in lines


def test_show_names_a_forks_parent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fork.jsonl"
    assert main(["fork", RUNAWAY, "--step", "4", "-o", str(out), "--model-answer", STOP]) == 0
    capsys.readouterr()
    assert main(["show", str(out)]) == 0
    assert capsys.readouterr().out.splitlines()[1] == f"fork of {RUNAWAY} at step 4"


def test_debug_break_before_target_and_comma_separated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run.jsonl"
    # `--break` takes several values: TARGET after it is taken back, and `tools,tool` is two nodes
    args = ["debug", "--break", "tools,tool", "fixtures.weather:agent", "--input", "hi", "-o", str(out)]
    assert main(args) == 2
    assert "no node `tool` in the graph" in _error(capsys)
    assert main(["debug", "--break", "tools", "--input", "hi"]) == 2
    assert "TARGET is required" in _error(capsys)


def test_split_breaks_keeps_every_form_of_the_contract() -> None:
    from inspector.cli.debug import split_breaks

    assert split_breaks("m:agent", ["chat", "tools"]) == ("m:agent", ["chat", "tools"])  # --break A B
    assert split_breaks("m:agent", ["chat", "tools,end"]) == ("m:agent", ["chat", "tools", "end"])
    assert split_breaks(None, ["tools", "m:agent"]) == ("m:agent", ["tools"])


def test_fork_step_minus_one_is_the_last_step(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fork.jsonl"
    assert main(["fork", RUNAWAY, "--step", "-1", "-o", str(out), "--model-answer", STOP]) == 0
    assert f"forked {RUNAWAY} at step 12:" in capsys.readouterr().err
    assert read_run(out).header.meta["fork"]["step"] == 12


def test_fork_of_a_run_edited_in_the_debugger(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.debug.test_fork import edited_weather_run

    live = edited_weather_run(tmp_path / "live.jsonl")
    out = tmp_path / "f.jsonl"
    answer = '{"role":"assistant","content":"Paris is clear."}'
    assert main(["fork", str(live), "--step", "2", "-o", str(out), "--model-answer", answer]) == 0
    assert "(status ok, 1 recorded edit replayed)" in capsys.readouterr().err
