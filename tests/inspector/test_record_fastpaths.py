"""The recorder's usual-step paths write exactly the bytes its general paths write.

A loop's usual step (same nodes and decisions, a pydantic state whose fields are the same objects, a
message history that only grew) is recorded by shortcuts: the state's delta from identity checks and a
precomputed append op, the step line spliced into a per-run template, node runs noted as plain
records. Each shortcut has a module flag; these tests record the same runs with the flags on and off
and compare the files byte for byte, so a shortcut can never change what a file says.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import fixtures.runs
from fixtures.runs import RUNS, RecordedFixture, record
from graph_core.agents.react import ReActAgent
from graph_core.callbacks import BranchDecision, Budget, RunInfo, StepInfo
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from graph_core.tools import tool
from inspector.recording import Recorder, read_run
from inspector.recording import recorder as recorder_module
from inspector.recording.encode import Encoder
from inspector.recording.recorder import _dumps, _StateTrack  # pyright: ignore[reportPrivateUsage]
from inspector.recording.redact import make_redaction

_FLAGS = ("_USUAL_STATE", "_TEMPLATES")


def _general_only(monkeypatch: pytest.MonkeyPatch) -> None:
    for flag in _FLAGS:
        assert getattr(recorder_module, flag) is True, f"{flag} is on by default"
        monkeypatch.setattr(recorder_module, flag, False)


def _both_ways(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, make: Callable[[Path], Any]) -> bytes:
    """The file `make(path)` writes with the shortcuts, checked equal to the one written without."""
    fast, general = tmp_path / "fast.jsonl", tmp_path / "general.jsonl"
    make(fast)
    with monkeypatch.context() as patch:
        _general_only(patch)
        make(general)
    data = fast.read_bytes()
    assert data == general.read_bytes()
    return data


@pytest.mark.parametrize("fixture", RUNS, ids=lambda f: f.name)
def test_fixture_runs_are_byte_identical_with_and_without_shortcuts(
    fixture: RecordedFixture, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # a constant clock: tools running in parallel read it in whichever order their threads run
    monkeypatch.setattr(fixtures.runs, "fixed_clock", lambda: lambda: 1_767_225_600.0)
    data = _both_ways(monkeypatch, tmp_path, lambda path: record(fixture, path))
    assert data.count(b'"kind":"step"') >= 1


@tool
def lookup(n: int) -> str:
    """A tool with a result long enough to be stored as `$call` content."""
    return f"result {n}: " + "lorem ipsum " * 5


def _react(rounds: int, *, parallel: bool = False) -> ReActAgent:
    script: list[Any] = []
    for i in range(rounds):
        calls = [ToolCall(f"c{i}", "lookup", f'{{"n": {i}}}')]
        if parallel and i % 3 == 0:  # two calls in one answer now and then: an unusual step
            calls.append(ToolCall(f"d{i}", "lookup", f'{{"n": {i + 1000}}}'))
        script.append(Message.assistant(f'Looking up {i}%s "{i}".', tool_calls=calls))
    script.append(Message.assistant("done"))
    return ReActAgent(ScriptedChatModel(script), tools=[lookup], max_step=2 * rounds + 1)


def _irregular_clock() -> Callable[[], float]:
    """Readings whose differences round to small floats of several written forms (0, 1e-6 .. 1e-4 s)."""
    ticks = itertools.count()
    now = [1_767_225_600.0]

    def clock() -> float:
        now[0] += ((next(ticks) * 7919) % 97) * 1.3e-6
        return now[0]

    return clock


@pytest.mark.parametrize("stream", [False, True], ids=["invoke", "stream"])
@pytest.mark.parametrize("parallel", [False, True], ids=["one-call", "sometimes-two-calls"])
def test_a_long_react_run_is_byte_identical_with_and_without_shortcuts(
    stream: bool, parallel: bool, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def make(path: Path) -> None:
        recorder = Recorder(path, clock=_irregular_clock(), run_id="r", snapshot_every=7)
        agent = _react(40, parallel=parallel)
        if stream:
            for _ in agent.stream([Message.user("go")], callbacks=[recorder]):
                pass
        else:
            agent.invoke([Message.user("go")], callbacks=[recorder])
        assert recorder.fault is None

    data = _both_ways(monkeypatch, tmp_path, make)
    run = read_run(tmp_path / "fast.jsonl")
    assert run.status == "ok" and len(run.steps) == 81
    assert b"e-6" in data or b"e-5" in data  # small times written in pydantic-core's own notation


class _LoopState(BaseModel):
    messages: list[Message] = []
    note: str = ""
    count: int = 0
    secret: str = "s"
    extra_map: dict[str, Any] = {}
    tags: list[str] = []


def _drive(recorder: Recorder, edits: list[Callable[[_LoopState], None]], nodes: tuple[str, str]) -> None:
    """A two-node loop through the Recorder's callbacks, `edits[i]` applied to the state in step i."""
    graph = RunInfo(None, "loop", "Graph")
    recorder.on_start(graph, "go")
    state = _LoopState(messages=[Message.user("q")])
    decisions = {node: BranchDecision(node, 0, (other,), ()) for node, other in (nodes, nodes[::-1])}
    for i, edit in enumerate(edits):
        node, other = nodes[i % 2], nodes[(i + 1) % 2]
        recorder.on_step_start(StepInfo(i, (node,), Budget.of(i, 100)))
        info = RunInfo(node, node, "Lambda", (node,), i)
        recorder.on_start(info, state.messages)
        edit(state)
        recorder.on_end(info, state.messages[-1] if state.messages else None)
        recorder.on_step_end(
            StepInfo(
                i,
                (node,),
                Budget.of(i + 1, 100),
                state=state,
                branches=(decisions[node],),
                next_nodes=(other,),
            )
        )
    recorder.on_end(graph, "done")


def _edits() -> Iterator[Callable[[_LoopState], None]]:
    def grow(s: _LoopState) -> None:
        s.messages.append(Message.assistant(f"m{len(s.messages)}"))

    def grow_two(s: _LoopState) -> None:
        grow(s)
        grow(s)

    def same(s: _LoopState) -> None:
        pass

    def note(s: _LoopState) -> None:
        s.note += "x"

    def count(s: _LoopState) -> None:
        s.count += 1

    def nested(s: _LoopState) -> None:
        s.extra_map["k"] = len(s.extra_map)  # the same dict object, changed inside

    def replace_history(s: _LoopState) -> None:
        s.messages = [Message.system("fresh"), *s.messages[-1:]]

    def rewrite_last(s: _LoopState) -> None:
        s.messages[-1] = Message.assistant("rewritten")

    def non_message(s: _LoopState) -> None:
        s.messages.append({"role": "user", "content": "a dict"})  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]

    def clear(s: _LoopState) -> None:
        s.messages.clear()  # the same list object, empty now

    def tag(s: _LoopState) -> None:
        s.tags.append("t")  # an empty list, the same object, no longer empty

    def clear_and_refill(s: _LoopState) -> None:
        s.messages.clear()
        s.messages.extend(Message.user(f"r{i}") for i in range(3))

    pattern = [grow, grow, same, grow_two, note, grow, count, nested, grow, rewrite_last, grow]
    yield from pattern * 4
    yield from (replace_history, grow, grow, clear_and_refill, grow, clear, same, grow, tag, grow)
    yield from (non_message, grow, grow)


@pytest.mark.parametrize("nodes", [("work", "check"), ('we%ird "n"', "100%d")], ids=["plain", "odd-names"])
def test_state_edits_of_every_kind_are_byte_identical_with_and_without_shortcuts(
    nodes: tuple[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def make(path: Path) -> None:
        recorder = Recorder(path, clock=_irregular_clock(), run_id="r", snapshot_every=5)
        _drive(recorder, list(_edits()), nodes)
        assert recorder.fault is None

    taken: list[bool] = []
    usual = _StateTrack._record_usual  # pyright: ignore[reportPrivateUsage]

    def counted(self: _StateTrack, state: Any, encoder: Encoder) -> Any:
        result = usual(self, state, encoder)
        taken.append(result is not None)
        return result

    monkeypatch.setattr(_StateTrack, "_record_usual", counted)
    data = _both_ways(monkeypatch, tmp_path, make)
    assert taken.count(True) > 30  # the shortcut ran (the general path, in the other recording)
    assert b'"secret":"[REDACTED]"' in data
    assert read_run(tmp_path / "fast.jsonl").status == "ok"


def test_the_delta_kept_for_the_step_line_is_the_serialised_payload() -> None:
    """`_StateTrack.delta_json` (spliced into step lines) is `_dumps` of the delta it goes with, on the
    usual path, the field-plan path and the generic one alike."""
    encoder = Encoder(redaction=make_redaction(True))
    track = _StateTrack(5)
    state = _LoopState(messages=[Message.user("q")])
    for i, edit in enumerate(list(_edits())):
        if i % 4 == 1:  # the history encoded first elsewhere, as a chat node's input is
            encoder.encode_list(state.messages)
        edit(state)
        full, payload, _ = track.record_state(state, encoder)
        if full:
            assert track.delta_json is None
        else:
            assert track.delta_json == _dumps(payload), f"step {i}"
