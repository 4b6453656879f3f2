"""`Run.state_changes(a, b)` (worked out on stored states) equals `changes(state_at(a), state_at(b))`.

Checked step by step over every bundled fixture and over a loop whose state changes in every way a
state can (appends, rewrites, replaced and cleared histories, nested edits, keys starting with `$`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from fixtures.runs import RUNS, RecordedFixture
from graph_core.callbacks import BranchDecision, Budget, RunInfo, StepInfo
from graph_core.schema import Message
from inspector.recording import Recorder, Run, read_run
from inspector.recording.statediff import changes

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "runs"


def _check_every_step(run: Run) -> int:
    checked = 0
    for b in range(len(run.steps)):
        for a in {-1, b - 1, max(b - 3, -1)}:
            old = None if a < 0 else run.state_at(a)
            assert run.state_changes(a, b) == changes(old, run.state_at(b)), (a, b)
            checked += 1
    return checked


@pytest.mark.parametrize("fixture", RUNS, ids=lambda f: f.name)
def test_state_changes_equal_changes_of_the_states_on_every_fixture(fixture: RecordedFixture) -> None:
    with read_run(FIXTURES / f"{fixture.name}.jsonl") as run:
        assert _check_every_step(run) >= 1


class _State(BaseModel):
    messages: list[Message] = []
    note: str = ""
    nested: dict[str, Any] = {}
    tags: list[str] = []


def _edits() -> list[Any]:
    def grow(s: _State) -> None:
        s.messages.append(Message.assistant(f"m{len(s.messages)}"))

    def note(s: _State) -> None:
        s.note += "x"

    def nested(s: _State) -> None:
        s.nested["$ref"] = {"k": len(s.nested), "none": None}  # a key that looks like a marker

    def nested_none(s: _State) -> None:
        s.nested["gone"] = None

    def rewrite(s: _State) -> None:
        s.messages[-1] = Message.assistant("rewritten")

    def replace(s: _State) -> None:
        s.messages = [Message.system("fresh"), *s.messages[-1:]]

    def clear(s: _State) -> None:
        s.messages.clear()

    def tag(s: _State) -> None:
        s.tags.append("t")

    return [
        grow,
        grow,
        note,
        nested,
        grow,
        nested_none,
        rewrite,
        grow,
        tag,
        replace,
        grow,
        clear,
        grow,
        grow,
    ] * 3


def test_state_changes_equal_changes_of_the_states_on_every_kind_of_edit(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    recorder = Recorder(path, clock=lambda: 1.0, run_id="r", snapshot_every=4)
    recorder.on_start(RunInfo(None, "loop", "Graph"), "go")
    state = _State(messages=[Message.user("q")])
    decision = BranchDecision("work", 0, ("work",), ())
    for i, edit in enumerate(_edits()):
        recorder.on_step_start(StepInfo(i, ("work",), Budget.of(i, 100)))
        edit(state)
        recorder.on_step_end(
            StepInfo(
                i, ("work",), Budget.of(i + 1, 100), state=state, branches=(decision,), next_nodes=("work",)
            )
        )
    recorder.on_end(RunInfo(None, "loop", "Graph"), "done")
    with read_run(path) as run:
        assert run.status == "ok" and any(run.finished_event(i).full for i in range(1, len(run.steps)))
        assert _check_every_step(run) > 100


def test_state_changes_equal_changes_of_the_states_when_a_step_only_appends(tmp_path: Path) -> None:
    """Steps whose delta appends to one history, each a different way: a top-level history, one under
    a `$` key (stored as `$$log`), one nested in a dict, two messages at once, runs that extend the
    last one and runs that start a new one (the history's runs are shared between states)."""
    path = tmp_path / "run.jsonl"
    recorder = Recorder(path, clock=lambda: 1.0, run_id="r", snapshot_every=5)
    recorder.on_start(RunInfo(None, "loop", "Graph"), "go")
    state: dict[str, Any] = {
        "messages": [Message.user("q")],
        "$log": [Message.user("l")],
        "deep": {"inner": [Message.user("d")]},
    }
    decision = BranchDecision("work", 0, ("work",), ())
    for i in range(24):
        recorder.on_step_start(StepInfo(i, ("work",), Budget.of(i, 100)))
        if i % 4 in (0, 1):  # twice in a row: the second run extends the first
            state = {**state, "messages": [*state["messages"], Message.assistant(f"m{i}")]}
        elif i % 4 == 2:
            state = {**state, "$log": [*state["$log"], Message.assistant(f"l{i}")]}
        else:
            pair = [Message.assistant(f"d{i}"), Message.assistant(f"e{i}")]
            state = {**state, "deep": {"inner": [*state["deep"]["inner"], *pair]}}
        recorder.on_step_end(
            StepInfo(
                i, ("work",), Budget.of(i + 1, 100), state=state, branches=(decision,), next_nodes=("work",)
            )
        )
    recorder.on_end(RunInfo(None, "loop", "Graph"), "done")
    with read_run(path) as run:
        paths = {
            tuple(op[1])
            for i in range(len(run.steps))
            for op in run.finished_event(i).delta or []
            if op[0] == "append"
        }
        assert paths == {("messages",), ("$$log",), ("deep", "inner")}
        assert _check_every_step(run) > 50
        assert [c.path for c in run.state_changes(1, 2)] == [("$log", 1)]
        assert [c.path for c in run.state_changes(2, 3)] == [("deep", "inner", 1), ("deep", "inner", 2)]
