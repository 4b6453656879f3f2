"""The recorder's usual-step paths write exactly the bytes its general paths write.

A loop's usual step (same nodes and decisions, a state whose fields are the same objects, a message
history that only grew) is recorded by shortcuts: the state's delta from identity checks and a
precomputed append op (`StateTrack`'s fast path), the step line spliced into a per-decision template
(`step_line`). These tests record runs that take them and check each line against the general path:
every line is exactly the JSON serialisation of the event it holds (what the general path writes), and
the state stored at every step is the encoded live state, diffed (`StateTrack.record`).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_core import to_json

import fixtures.runs
from fixtures.runs import RUNS, RecordedFixture, record
from graph_core.agents.react import ReActAgent
from graph_core.callbacks import BranchDecision, Budget, RunInfo, StepInfo
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from graph_core.tools import tool
from inspector.recording import Recorder, read_run
from inspector.recording.encode import Encoder
from inspector.recording.redact import make_redaction
from inspector.recording.state_track import StateTrack


def _checked(path: Path, make: Callable[[Path], Any]) -> bytes:
    """The file `make(path)` writes, each of its lines checked to be its event's own serialisation."""
    make(path)
    data = path.read_bytes()
    for number, line in enumerate(data.splitlines(keepends=True), 1):
        assert to_json(json.loads(line)) + b"\n" == line, f"line {number}"
    return data


@pytest.mark.parametrize("fixture", RUNS, ids=lambda f: f.name)
def test_fixture_runs_are_their_events_serialised(
    fixture: RecordedFixture, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # a constant clock: tools running in parallel read it in whichever order their threads run
    monkeypatch.setattr(fixtures.runs, "fixed_clock", lambda: lambda: 1_767_225_600.0)
    data = _checked(tmp_path / "fast.jsonl", lambda path: record(fixture, path))
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
def test_a_long_react_run_is_its_events_serialised(stream: bool, parallel: bool, tmp_path: Path) -> None:
    def make(path: Path) -> None:
        recorder = Recorder(path, clock=_irregular_clock(), run_id="r", snapshot_every=7)
        agent = _react(40, parallel=parallel)
        if stream:
            for _ in agent.stream([Message.user("go")], callbacks=[recorder]):
                pass
        else:
            agent.invoke([Message.user("go")], callbacks=[recorder])
        assert recorder.fault is None

    data = _checked(tmp_path / "fast.jsonl", make)
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
def test_state_edits_of_every_kind_are_their_events_serialised(
    nodes: tuple[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def make(path: Path) -> None:
        recorder = Recorder(path, clock=_irregular_clock(), run_id="r", snapshot_every=5)
        _drive(recorder, list(_edits()), nodes)
        assert recorder.fault is None

    taken: list[bool] = []
    by_field = StateTrack._by_field  # pyright: ignore[reportPrivateUsage]

    def counted(self: StateTrack, state: Any, fields: Any, encoder: Encoder) -> Any:
        result = by_field(self, state, fields, encoder)
        taken.append(result is not None)
        return result

    monkeypatch.setattr(StateTrack, "_by_field", counted)
    data = _checked(tmp_path / "fast.jsonl", make)
    assert taken.count(True) > 30  # the shortcut ran
    assert b'"secret":"[REDACTED]"' in data
    assert read_run(tmp_path / "fast.jsonl").status == "ok"


def test_the_delta_kept_for_the_step_line_is_the_serialised_payload() -> None:
    """`StateTrack.delta_json` (spliced into step lines) is the JSON of the delta it goes with, on the
    fast path and the general one alike, and the payload is what the general path gives."""
    encoder = Encoder(redaction=make_redaction(True))
    track, general = StateTrack(5), StateTrack(5)
    state = _LoopState(messages=[Message.user("q")])
    for i, edit in enumerate(list(_edits())):
        if i % 4 == 1:  # the history encoded first elsewhere, as a chat node's input is
            encoder.encode_list(state.messages)
        edit(state)
        full, payload, encoded = track.record_state(state, encoder)
        assert (full, payload) == general.record(encoded), f"step {i}"
        if full:
            assert track.delta_json is None
        else:
            assert track.delta_json == to_json(payload), f"step {i}"
