"""A resumed run recorded into the file of the run it continues: segments, one timeline, refusals,
crash safety (a SIGKILL and a cut-off file in the resumed segment)."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fixtures.approval import build
from graph_core import END, START, Graph, get_resume_data, interrupt
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import InterruptError
from graph_core.interrupt import get_interrupt_state, was_interrupted
from inspector.diagnostics import diagnose
from inspector.recording import Recorder, RunFileError, read_run
from inspector.replay import Replay

REQUEST = "The launch moved to Friday"
ROOT = Path(__file__).resolve().parents[2]


def _clock() -> Callable[[], float]:
    ticks = itertools.count()
    return lambda: 1_767_225_600.0 + next(ticks) * 0.001


def _interrupted(path: Path, store: Any, checkpoint_id: str = "t1") -> Any:
    graph = build(store)
    with pytest.raises(InterruptError):
        graph.invoke(
            REQUEST, checkpoint_id=checkpoint_id, callbacks=[Recorder(path, clock=_clock(), run_id="r")]
        )
    return graph


def _two_segments(path: Path, resume_data: Any = "yes") -> None:
    graph = _interrupted(path, InMemoryCheckpointStore())
    recorder = Recorder(path, resume=True, checkpoint_id="t1", clock=_clock())
    graph.invoke(None, checkpoint_id="t1", resume_data=resume_data, callbacks=[recorder])
    assert recorder.fault is None


def test_a_resume_is_a_second_segment_of_one_timeline(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    _two_segments(path)
    run = read_run(path)
    assert run.status == "ok" and run.output == "sent: Hi team, the launch moved to Friday. Thanks!"
    assert [(s.segment, s.index, s.position, s.nodes) for s in run.steps] == [
        (0, 0, 0, ("draft",)),
        (0, 1, 1, ("approve",)),
        (1, 0, 2, ("approve",)),
        (1, 1, 3, ("send",)),
    ]
    first, second = run.segments
    assert (first.index, first.resumed_from, first.status, first.steps) == (
        0,
        None,
        "interrupted",
        range(0, 2),
    )
    assert first.interrupt is not None and first.interrupt.checkpoint_id == "t1"
    assert first.interrupt.rerun_nodes == ["approve"] and first.output is None
    assert (second.index, second.resumed_from, second.status, second.steps) == (1, "t1", "ok", range(2, 4))
    assert run.interrupt is None and run.unfinished is None and first.unfinished is None
    # The resumed segment's values are numbered after the first segment's and resolve to its messages.
    assert run.steps[3].state["approved"] is True
    assert [m.content for m in run.messages_at(3)] == [
        REQUEST,
        "Hi team, the launch moved to Friday. Thanks!",
        "Approved.",
    ]
    assert [m.content for m in run.messages_at(1)] == [
        REQUEST,
        "Hi team, the launch moved to Friday. Thanks!",
    ]
    assert run.state_at(1)["approved"] is None
    # Step budgets restart with the segment, as Eino's step counter does; node names come from the topology.
    assert [s.budget.steps_used for s in run.steps] == [1, 2, 1, 2]
    assert {s.budget.steps_max for s in run.steps} == {run.header.max_run_steps}
    assert run.steps[2].budget_before.steps_used == 0
    assert run.steps[2].node_runs[0].component == "Lambda" and run.steps[2].node_runs[0].output["approved"]
    assert [b.chosen for b in run.steps[2].branches] == [["send"]]
    assert diagnose(run) == []


def test_replay_counts_positions_across_segments(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    _two_segments(path)
    replay = Replay(read_run(path))
    assert replay.last() == 3 and replay.current is not None and replay.current.segment == 1
    assert [(c.path, c.op) for c in replay.changes_at(2)] == [
        (("approved",), "changed"),
        (("messages", 2), "appended"),
    ]
    nodes, edges = replay.executed_path(3)
    assert {"draft", "approve", "send", "end"} <= nodes and ("approve", "send") in edges
    assert replay.visit_counts(3) == {"draft": 1, "approve": 2, "send": 1}
    assert replay.next_visit("approve") is None and replay.prev_visit("approve") == 2


def test_recording_is_byte_stable(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _two_segments(a)
    _two_segments(b)
    assert a.read_bytes() == b.read_bytes()
    lines = a.read_text().splitlines()
    segment_lines = [line for line in lines if line.startswith('{"kind":"segment"')]
    assert segment_lines == [
        '{"kind":"segment","index":1,"resumed_from":"t1","started_at":"2026-01-01T00:00:00+00:00"}'
    ], "the topology is not repeated when it did not change"


def test_single_segment_files_read_as_before() -> None:
    run = read_run(ROOT / "fixtures" / "runs" / "weather.jsonl")
    assert len(run.segments) == 1 and run.segments[0].steps == range(len(run.steps))
    assert run.segments[0].status == run.status == "ok" and run.segments[0].resumed_from is None
    assert [(s.segment, s.position) for s in run.steps] == [(0, i) for i in range(len(run.steps))]
    assert all(s.index == s.position for s in run.steps)


def _sequential_asks(store: Any, *, name: str = "TwoAsks") -> Any:
    """`a -> ask1 -> ask2 -> END`, each ask pausing once: a run interrupted twice, three segments."""

    def ask(tag: str) -> Callable[[str], str]:
        def node(text: str) -> str:
            if not was_interrupted():  # the input is saved with the interrupt: a rerun gets ""
                interrupt(f"{tag}?", state=text)
            return f"{get_interrupt_state()}+{tag}:{get_resume_data()}"

        return node

    graph = Graph(state=lambda: {"n": 0})
    graph.add_lambda_node("a", lambda text: text + "a")
    graph.add_lambda_node("ask1", ask("ask1"))
    graph.add_lambda_node("ask2", ask("ask2"))
    graph.add_edge(START, "a")
    graph.add_edge("a", "ask1")
    graph.add_edge("ask1", "ask2")
    graph.add_edge("ask2", END)
    return graph.compile(name=name, checkpoint_store=store)


def test_three_segments_with_one_resuming_recorder(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    graph = _sequential_asks(InMemoryCheckpointStore())
    with pytest.raises(InterruptError):
        graph.invoke("x", checkpoint_id="c1", callbacks=[Recorder(path)])
    recorder = Recorder.resume(path, checkpoint_id="c1")
    with pytest.raises(InterruptError):
        graph.invoke(None, checkpoint_id="c1", resume_data=1, write_checkpoint_id="c2", callbacks=[recorder])
    # The same recorder appends the next resume too; it checks the file again (it now names c2).
    recorder._expected_checkpoint = None  # pyright: ignore[reportPrivateUsage]
    assert graph.invoke(None, checkpoint_id="c2", resume_data=2, callbacks=[recorder]) == "xa+ask1:1+ask2:2"
    assert recorder.fault is None
    run = read_run(path)
    assert [(s.status, s.resumed_from) for s in run.segments] == [
        ("interrupted", None),
        ("interrupted", "c1"),
        ("ok", "c2"),
    ]
    assert [s.interrupt.checkpoint_id if s.interrupt else None for s in run.segments] == ["c1", "c2", None]
    assert [(s.segment, s.index, s.nodes) for s in run.steps] == [
        (0, 0, ("a",)),
        (0, 1, ("ask1",)),
        (1, 0, ("ask1",)),
        (1, 1, ("ask2",)),
        (2, 0, ("ask2",)),
    ]
    assert run.steps[1].interrupted == ("ask1",) and run.steps[3].interrupted == ("ask2",)
    assert run.output == "xa+ask1:1+ask2:2"


def test_a_changed_topology_is_written_in_the_segment(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    store = InMemoryCheckpointStore()
    with pytest.raises(InterruptError):
        _sequential_asks(store, name="Before").invoke("x", checkpoint_id="c1", callbacks=[Recorder(path)])
    with pytest.raises(InterruptError):
        _sequential_asks(store, name="After").invoke(
            None, checkpoint_id="c1", callbacks=[Recorder(path, resume=True)]
        )
    run = read_run(path)
    assert [s.graph_name for s in run.segments] == ["Before", "After"]
    assert [s.topology.name if s.topology else None for s in run.segments] == ["Before", "After"]
    assert run.topology is not None and run.topology.name == "Before"
    assert run.steps[2].node_runs[0].component == "Lambda"


# --- refusals -------------------------------------------------------------------------------------


def test_refuses_a_file_whose_run_did_not_stop_at_an_interrupt(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    _two_segments(path)
    with pytest.raises(
        RunFileError, match=r"last segment \(2 segments\) ended with status `ok`, not `interrupted`"
    ):
        Recorder(path, resume=True)
    with pytest.raises(RunFileError, match=r"no such file.*A resumed run is appended to the recording"):
        Recorder(tmp_path / "missing.jsonl", resume=True)


def test_refuses_a_run_that_saved_no_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with pytest.raises(InterruptError):
        build(InMemoryCheckpointStore()).invoke(REQUEST, callbacks=[Recorder(path)])
    with pytest.raises(RunFileError, match="saved no checkpoint"):
        Recorder(path, resume=True)


def test_refuses_another_checkpoint_id(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    _interrupted(path, InMemoryCheckpointStore())
    with pytest.raises(
        RunFileError, match="saved checkpoint `t1`, but the resumed run is to start from checkpoint `t9`"
    ):
        Recorder(path, resume=True, checkpoint_id="t9")


def test_a_run_that_does_not_resume_the_files_checkpoint_is_not_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.jsonl"
    store = InMemoryCheckpointStore()
    graph = _interrupted(path, store)
    with pytest.raises(InterruptError):  # a second interrupted run, saved under t2
        graph.invoke("Other", checkpoint_id="t2")
    before = path.read_bytes()
    recorder = Recorder(path, resume=True)
    graph.invoke(None, checkpoint_id="t2", resume_data="yes", callbacks=[recorder])
    assert isinstance(recorder.fault, RunFileError) and "resumed from checkpoint `t2`" in str(recorder.fault)
    recorder = Recorder(path, resume=True)
    with pytest.raises(InterruptError):  # no checkpoint under the ID: the engine starts a new run
        graph.invoke("fresh", checkpoint_id="t3", callbacks=[recorder])
    assert isinstance(recorder.fault, RunFileError) and "a new run" in str(recorder.fault)
    assert path.read_bytes() == before, "the file is left as it was"
    assert capsys.readouterr().err.count("recording to") == 2


# --- crash safety ---------------------------------------------------------------------------------


def test_a_cut_off_second_segment_reads_as_incomplete(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    _two_segments(path)
    whole = path.read_bytes()
    lines = whole.splitlines(keepends=True)
    segment_at = next(i for i, line in enumerate(lines) if line.startswith(b'{"kind":"segment"'))
    last_step = max(i for i, line in enumerate(lines) if line.startswith(b'{"kind":"step"'))
    # Killed while writing the last step of the resumed segment: half its line is there.
    path.write_bytes(b"".join(lines[:last_step]) + lines[last_step][:40])
    run = read_run(path)
    assert run.status == "incomplete" and run.cut_off
    assert [(s.status, s.steps) for s in run.segments] == [
        ("interrupted", range(0, 2)),
        ("incomplete", range(2, 3)),
    ]
    assert run.steps[2].nodes == ("approve",) and run.state_at(2)["approved"] is True
    assert run.interrupt is None and run.unfinished is None
    found = [d for d in diagnose(run) if d.code == "incomplete"]
    assert found and "step 0 of segment 1 (the run resumed from checkpoint t1)" in found[0].message
    # Killed right after the segment line: the first segment is whole, the second has no steps.
    path.write_bytes(b"".join(lines[: segment_at + 1]))
    run = read_run(path)
    assert [(s.status, s.steps) for s in run.segments] == [
        ("interrupted", range(0, 2)),
        ("incomplete", range(2, 2)),
    ]
    assert len(run.steps) == 2 and run.segments[0].interrupt is not None and run.interrupt is None


KILLED_RUN = """
import os, signal, sys
from graph_core import END, START, Graph, interrupt
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import InterruptError
from graph_core.interrupt import get_interrupt_state, was_interrupted
from inspector.recording import Recorder

def ask(text):
    if not was_interrupted():
        interrupt("ok?", state=text)
    return get_interrupt_state() + "!"

def work(text):
    return text + "w"

def die(text):
    os.kill(os.getpid(), signal.SIGKILL)

graph = Graph(state=lambda: {"seen": []})
graph.add_lambda_node("ask", ask)
graph.add_lambda_node("w1", work, post=lambda out, state: state.update(seen=[*state["seen"], out]) or out)
graph.add_lambda_node("w2", work, post=lambda out, state: state.update(seen=[*state["seen"], out]) or out)
graph.add_lambda_node("die", die)
graph.add_edge(START, "ask")
graph.add_edge("ask", "w1")
graph.add_edge("w1", "w2")
graph.add_edge("w2", "die")
graph.add_edge("die", END)
compiled = graph.compile(checkpoint_store=InMemoryCheckpointStore())
path = sys.argv[1]
try:
    compiled.invoke("x", checkpoint_id="k1", callbacks=[Recorder(path)])
except InterruptError:
    pass
compiled.invoke(None, checkpoint_id="k1", callbacks=[Recorder(path, resume=True, checkpoint_id="k1")])
"""


def test_sigkill_during_the_resumed_segment_leaves_a_readable_file(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    script = tmp_path / "killed.py"
    script.write_text(textwrap.dedent(KILLED_RUN))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(script), str(path)], env=env, timeout=60, capture_output=True)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    run = read_run(path)
    assert run.status == "incomplete" and run.interrupt is None
    assert [(s.status, s.resumed_from) for s in run.segments] == [("interrupted", None), ("incomplete", "k1")]
    assert [(s.segment, s.index, s.nodes) for s in run.steps] == [
        (0, 0, ("ask",)),
        (1, 0, ("ask",)),
        (1, 1, ("w1",)),
        (1, 2, ("w2",)),
    ]
    assert run.state_at(3) == {"seen": ["x!w", "x!ww"]}
    assert run.steps[3].node_runs[0].output == "x!ww"
    assert run.unfinished is None, "nothing of the step it was killed in"


def test_nested_graph_steps_stay_in_their_segment(tmp_path: Path) -> None:
    def pause(text: str) -> str:
        if not was_interrupted():
            interrupt("?", state=text)
        return str(get_interrupt_state()) + "p"

    inner = Graph()
    inner.add_lambda_node("i1", lambda text: text + "1")
    inner.add_lambda_node("i2", pause)
    inner.add_edge(START, "i1")
    inner.add_edge("i1", "i2")
    inner.add_edge("i2", END)
    outer = Graph()
    outer.add_graph_node("sub", inner)
    outer.add_edge(START, "sub")
    outer.add_edge("sub", END)
    compiled = outer.compile(checkpoint_store=InMemoryCheckpointStore())
    path = tmp_path / "nested.jsonl"
    with pytest.raises(InterruptError):
        compiled.invoke("x", checkpoint_id="n1", callbacks=[Recorder(path)])
    assert compiled.invoke(None, checkpoint_id="n1", callbacks=[Recorder(path, resume=True)]) == "x1p"
    run = read_run(path)
    first, resumed = run.steps
    assert [n.nodes for n in first.nested] == [["i1"], ["i2"]]
    assert [n.nodes for n in resumed.nested] == [["i2"]], "the first segment's nested steps are not repeated"
    assert [(r.path, r.output) for r in resumed.node_runs] == [(("sub",), "x1p"), (("sub", "i2"), "x1p")]


def test_committed_approval_recording_has_two_segments() -> None:
    run = read_run(ROOT / "fixtures" / "runs" / "approval.jsonl")
    assert [(s.status, s.resumed_from, s.steps) for s in run.segments] == [
        ("interrupted", None, range(0, 2)),
        ("ok", "t1", range(2, 4)),
    ]
    assert run.output == "sent: Hi team, the launch moved to Friday. Thanks!" and diagnose(run) == []
