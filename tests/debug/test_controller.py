"""The debug controller without Textual: pauses, steps, edits, abort, conditions, interrupts, modes."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

import fixtures.streaming_pitfall as streaming_pitfall
import fixtures.weather as weather
from fixtures.approval import build as build_approval
from graph_core.checkpoint import InMemoryCheckpointStore
from inspector.debug import DebugController
from inspector.debug.controller import RunMode
from inspector.errors import DebugError
from inspector.recording import read_run
from tests.debug.conftest import controller_for, lines_of


def test_break_before_tools_edit_the_call_and_continue(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    controller = controller_for(weather, path, breakpoints=["tools"])
    controller.start()
    pause = controller.wait()
    assert pause is not None and (pause.step, pause.nodes, pause.reason) == (
        1,
        ("tools",),
        "breakpoint before tools",
    )
    assert controller.view()["input"]["tools"]["tool_calls"][0]["arguments"] == '{"city": "Hangzhou"}'
    edit = controller.edit("input.tools.tool_calls[0].arguments", '{"city": "Paris"}')
    assert (edit.step, edit.old, edit.new) == (1, '{"city": "Hangzhou"}', '{"city": "Paris"}')
    controller.resume()
    assert controller.wait() is None and controller.outcome == "ok"
    run = read_run(path)
    assert run.status == "ok" and [s.nodes for s in run.steps] == [("chat",), ("tools",), ("chat",)]
    assert [call.output for call in run.steps[1].node_runs[0].tools] == ["Paris: clear, 20°C"]
    (line,) = lines_of(path, "edit")
    recorded = json.loads(line)
    assert (recorded["step"], recorded["path"], recorded["new"]) == (
        1,
        "input.tools.tool_calls[0].arguments",
        '{"city": "Paris"}',
    )


def test_stop_at_start_then_step_one_superstep_at_a_time(tmp_path: Path) -> None:
    controller = controller_for(weather, tmp_path / "run.jsonl", stop_at_start=True)
    controller.start()
    seen = []
    pause = controller.wait()
    while pause is not None:
        seen.append((pause.step, pause.nodes, pause.reason))
        controller.step()
        pause = controller.wait()
    assert seen == [(0, ("chat",), "start"), (1, ("tools",), "step"), (2, ("chat",), "step")]
    assert controller.outcome == "ok"


def test_abort_ends_the_run_cleanly_and_the_recording_says_so(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    controller = controller_for(weather, path, breakpoints=["tools"])
    controller.start()
    controller.wait()
    controller.abort()
    assert controller.wait() is None and controller.outcome == "aborted"
    run = read_run(path)
    assert run.status == "error" and run.error is not None and run.error.type == "RunAborted"
    assert [json.loads(line)["step"] for line in lines_of(path, "aborted")] == [1]
    assert len(run.steps) == 1


def test_a_bad_edit_changes_nothing_and_says_why(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    controller = controller_for(weather, path, breakpoints=["tools"])
    controller.start()
    controller.wait()
    before = controller.view()
    with pytest.raises(DebugError, match=r"`state` has no field `nope` \(fields: messages"):
        controller.edit("state.nope", 1)
    with pytest.raises(DebugError, match=r"has 1 items \(indexes 0\.\.0\), no \[3\]"):
        controller.edit("messages[3].content", "x")
    with pytest.raises(DebugError, match=r"messages\.0\.content: Input should be a valid string"):
        controller.edit("state.messages[0].content", 5)
    with pytest.raises(DebugError, match="`chat` is not about to run"):
        controller.edit("input.chat[0]", "x")
    assert controller.view() == before and controller.edits == []
    controller.resume()
    controller.wait()
    assert lines_of(path, "edit") == []


def test_an_input_edit_lands_in_the_state_the_next_step_sees(tmp_path: Path) -> None:
    controller = controller_for(weather, tmp_path / "run.jsonl", breakpoints=["chat"])
    controller.start()
    controller.wait()
    assert controller.view()["state"]["messages"] == []  # the question is still chat's pending input
    controller.edit("input.chat[0].content", "Weather in Paris?")
    controller.resume()
    controller.wait()  # held again before the second chat step
    assert controller.view()["state"]["messages"][0]["content"] == "Weather in Paris?"
    controller.abort()
    controller.wait()


def test_breakpoint_on_unknown_node_lists_the_real_nodes(tmp_path: Path) -> None:
    with pytest.raises(
        DebugError, match="no node `tool` in the graph; its nodes are: chat, tools, direct_return"
    ):
        controller_for(weather, tmp_path / "run.jsonl", breakpoints=["tool"])
    assert not (tmp_path / "run.jsonl").exists()


@pytest.mark.parametrize(
    ("condition", "step"),
    [
        ("calls(get_weather)", 1),
        ("len(messages) > 1", 2),  # before step 2: the question and the tool-calling answer
        ("len(messages) >= 1 and before(chat)", 2),
        ("len(messages) == 0 or calls(get_weather)", 0),
        ("not before(chat)", 1),
        ('state.messages[0].role == "user" and calls(nothing)', None),
    ],
)
def test_conditions_hold_the_run_where_they_are_true(
    tmp_path: Path, condition: str, step: int | None
) -> None:
    controller = controller_for(weather, tmp_path / "run.jsonl", conditions=[condition])
    controller.start()
    pause = controller.wait()
    assert (pause.step if pause is not None else None) == step
    if pause is not None:
        assert pause.reason == f"condition `{condition}`"
        controller.abort()
        controller.wait()


def test_breakpoints_are_set_and_removed_while_the_run_is_live(tmp_path: Path) -> None:
    controller = controller_for(weather, tmp_path / "run.jsonl", stop_at_start=True)
    controller.start()
    controller.wait()
    controller.add_breakpoint("tools")
    controller.add_condition("len(messages) > 100")
    controller.resume()
    assert controller.wait().step == 1  # type: ignore[union-attr]
    controller.remove_breakpoint("tools")
    controller.remove_condition("len(messages) > 100")
    assert controller.breakpoints == [] and controller.conditions == []
    controller.resume()
    assert controller.wait() is None and controller.outcome == "ok"


def test_commands_out_of_place_are_refused(tmp_path: Path) -> None:
    controller = controller_for(weather, tmp_path / "run.jsonl")
    controller.start()
    assert controller.wait() is None
    with pytest.raises(DebugError, match="cannot edit: the run is finished"):
        controller.edit("messages[0].content", "x")
    with pytest.raises(DebugError, match="cannot continue: the run is finished"):
        controller.resume()


def test_interrupt_pauses_and_resumes_with_typed_data(tmp_path: Path) -> None:
    graph = build_approval(InMemoryCheckpointStore())
    path = tmp_path / "approval.jsonl"
    controller = DebugController(
        graph, "Tell the team the launch moved to Friday", output=path, topology=graph.topology()
    )
    controller.start()
    pause = controller.wait()
    assert pause is not None and pause.kind == "interrupt" and pause.nodes == ("approve",)
    assert pause.questions["approve"]["question"] == "Send this email?"
    with pytest.raises(DebugError, match="not paused at a step boundary"):
        controller.edit("approved", True)
    controller.resume({"approved": True})
    assert controller.wait() is None and controller.outcome == "ok"
    run = read_run(path)
    assert run.status == "ok" and len(run.segments) == 2
    assert run.output == "sent: Hi team, tell the team the launch moved to Friday. Thanks!"


def test_async_runs_pause_and_edit_too(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    controller = controller_for(weather, path, breakpoints=["tools"], mode="ainvoke")
    controller.start()
    controller.wait()
    controller.edit("input.tools.tool_calls[0].arguments", '{"city": "Paris"}')
    controller.resume()
    assert controller.wait() is None and controller.outcome == "ok"
    assert read_run(path).steps[1].node_runs[0].tools[0].output == "Paris: clear, 20°C"


@pytest.mark.parametrize("mode", ["stream", "astream"])
def test_stream_modes_show_model_chunks_as_they_arrive(tmp_path: Path, mode: RunMode) -> None:
    chunks: list[str] = []
    controller = controller_for(
        streaming_pitfall, tmp_path / "run.jsonl", question=streaming_pitfall.QUESTION, mode=mode
    )
    controller.subscribe(lambda: chunks.append(controller.streaming.get("chat", "")))
    controller.start()
    assert controller.wait() is None and controller.outcome == "ok"
    grown = [text for i, text in enumerate(chunks) if text and (i == 0 or text != chunks[i - 1])]
    assert len(grown) >= 2 and all(b.startswith(a) for a, b in itertools.pairwise(grown))


def test_the_controller_and_forks_load_without_textual() -> None:
    import subprocess
    import sys

    code = (
        "import sys, inspector.debug, inspector.debug.fork, inspector.cli.debug, inspector.cli.fork; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


def test_abort_while_running_ends_the_run_at_the_next_boundary(tmp_path: Path) -> None:
    import threading

    from graph_core import END, START, Graph

    started, release = threading.Event(), threading.Event()

    def slow(text: str) -> str:
        started.set()
        release.wait(30)
        return text + "!"

    graph = Graph()
    graph.add_lambda_node("slow", slow)
    graph.add_lambda_node("after", lambda text: text + "?")
    graph.add_edge(START, "slow")
    graph.add_edge("slow", "after")
    graph.add_edge("after", END)
    compiled = graph.compile()
    path = tmp_path / "run.jsonl"
    controller = DebugController(compiled, "x", output=path, topology=compiled.topology())
    controller.start()
    assert started.wait(30)
    controller.abort()  # running: noted, and done at the boundary before `after`
    release.set()
    assert controller.wait() is None and controller.outcome == "aborted"
    run = read_run(path)
    assert [s.nodes for s in run.steps] == [("slow",)] and run.error.type == "RunAborted"  # type: ignore[union-attr]
    assert [json.loads(line)["step"] for line in lines_of(path, "aborted")] == [1]
