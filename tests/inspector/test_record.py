"""The Recorder, driven with synthetic callback events (exact control over what the engine reports)."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from graph_core.callbacks import Budget, RunInfo, StepInfo
from graph_core.schema import Message
from inspector.recording import Recorder, read_run
from inspector.recording.format import decode_line
from inspector.recording.synthetic import react_topology, simulate_react


def _clock() -> Any:
    ticks = itertools.count()
    return lambda: 1_700_000_000.0 + next(ticks) * 0.25


def _record(path: Path, rounds: int = 2, **kwargs: Any) -> Recorder:
    recorder = Recorder(path, topology=react_topology(), clock=_clock(), run_id="r1", **kwargs)
    simulate_react(recorder, rounds)
    assert recorder.fault is None
    return recorder


def test_every_line_is_a_valid_event_with_kind_first(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    _record(path)
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["kind"] == "header"
    kinds = []
    for line in lines:
        assert line.startswith('{"kind":"')
        decode_line(line.encode())
        kinds.append(json.loads(line)["kind"])
    assert kinds[-1] == "run_finished"
    assert kinds.count("step") == 5 and "step_unfinished" not in kinds


def test_recording_is_byte_stable_with_injected_clock_and_run_id(tmp_path: Path) -> None:
    _record(tmp_path / "a.jsonl")
    _record(tmp_path / "b.jsonl")
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_budget_counts_model_calls_tool_calls_and_tokens(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    _record(path, rounds=2)
    run = read_run(path)
    last = run.steps[-1].budget
    assert (last.steps_used, last.steps_max, last.steps_remaining) == (5, 5, 0)
    assert (last.model_calls, last.tool_calls) == (3, 2)
    assert (last.prompt_tokens, last.completion_tokens, last.total_tokens) == (60, 15, 75)
    assert run.steps[0].budget_before.steps_used == 0


def test_message_history_is_stored_once_not_per_step(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    _record(path, rounds=30)
    text = path.read_text()
    # every message text appears once (its value line), however many steps and model inputs mention it
    assert text.count("What is the weather in Paris?") == 1
    assert text.count("sunny, 29 C") == 2  # the tool's own output, and the tool message in the history
    steps = [json.loads(line) for line in text.splitlines() if line.startswith('{"kind":"step",')]
    assert steps[0].get("full") is True
    # the history in state is a run of value ids; a step's growth is stored as an append of one id
    appends = [s["delta"] for s in steps if not s.get("full")]
    assert appends and all(d[0][:2] == ["append", ["messages"]] for d in appends)
    assert all(len(d[0][2]["$refs"]) == 1 for d in appends)
    assert max(len(json.dumps(s.get("delta"))) for s in steps) < 60


def test_default_redaction_masks_secret_keys_anywhere(tmp_path: Path) -> None:
    @dataclass
    class State:
        config: dict[str, Any] = field(default_factory=lambda: {"OpenAI_API_KEY": "sk-123", "nested": {}})
        Password: str = "hunter2"

    path = tmp_path / "run.jsonl"
    recorder = Recorder(path, clock=_clock(), run_id="r")
    graph = RunInfo(None, "g", "Graph")
    node = RunInfo("n", "", "Lambda", ("n",), 0)
    state = State()
    state.config["nested"] = {"Authorization": "Bearer abc", "client_secret": "s3", "ok": "visible"}
    recorder.on_start(graph, {"api-key": "k1"})
    recorder.on_step_start(StepInfo(0, ("n",), Budget.of(0, 3)))
    recorder.on_start(node, Message.user("hi", extra={"apikey": "k2", "api_key": "k3"}))
    recorder.on_end(node, {"headers": {"authorization": "Bearer xyz"}})
    recorder.on_step_end(StepInfo(0, ("n",), Budget.of(1, 3), state=state, ended=True))
    recorder.on_end(graph, "done")
    text = path.read_text()
    for secret in ("sk-123", "hunter2", "Bearer abc", "s3", "k3", "Bearer xyz"):
        assert secret not in text
    assert "visible" in text
    assert read_run(path).steps[0].state["config"]["OpenAI_API_KEY"] == "[REDACTED]"


def test_redaction_can_be_disabled_or_customised(tmp_path: Path) -> None:
    def run_with(redact: Any) -> str:
        path = tmp_path / "r.jsonl"
        recorder = Recorder(path, clock=_clock(), run_id="r", redact=redact)
        recorder.on_start(RunInfo(None, "g", "Graph"), {"password": "p1", "token": "t1", "n": 7})
        recorder.on_end(RunInfo(None, "g", "Graph"), None)
        return path.read_text()

    assert "p1" in run_with(False)
    text = run_with(["tok"])
    assert "t1" not in text and "p1" in text
    text = run_with(lambda key, value: "<int>" if isinstance(value, int) else value)
    assert "<int>" in text and "p1" not in text


def test_unencodable_values_become_marked_representations(tmp_path: Path) -> None:
    class Opaque:
        def __repr__(self) -> str:
            return "<opaque thing>"

    class Hostile:
        def __repr__(self) -> str:
            raise RuntimeError("no repr for you")

    cyclic: list[Any] = []
    cyclic.append(cyclic)
    path = tmp_path / "run.jsonl"
    recorder = Recorder(path, clock=_clock(), run_id="r", max_str=20)
    recorder.on_start(RunInfo(None, "g", "Graph"), None)
    value = {"o": Opaque(), "h": Hostile(), "c": cyclic, "nan": float("nan"), "b": b"\x00\x01", "s": "x" * 50}
    recorder.on_end(RunInfo(None, "g", "Graph"), value)
    assert recorder.fault is None
    run = read_run(path)
    out = run.output
    assert out["o"] == {"$repr": "<opaque thing>", "$type": f"{__name__}.{Opaque.__qualname__}"}
    assert out["h"]["$repr"].startswith("<unencodable: Runtim")
    assert out["c"] == [{"$repr": "<cycle>", "$type": "list"}]
    assert out["nan"] == {"$repr": "nan", "$type": "float"}
    assert out["b"]["$repr"] == "<2 bytes>"
    assert out["s"] == {"$truncated": "str", "length": 50, "preview": "x" * 20}


def test_unwritable_path_is_reported_once_and_the_run_goes_on(tmp_path: Path, capsys: Any) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    recorder = Recorder(blocker / "run.jsonl", clock=_clock(), run_id="r")
    out = simulate_react(recorder, 2)
    assert out is not None and out.content == "It is sunny in Paris."
    assert recorder.fault is not None
    err = capsys.readouterr().err
    assert err.count("recording to") == 1 and "the run itself continues" in err


def test_killed_run_keeps_complete_steps(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    recorder = Recorder(path, clock=_clock(), run_id="r")
    graph = RunInfo(None, "g", "Graph")
    recorder.on_start(graph, "x")
    for i in range(3):
        recorder.on_step_start(StepInfo(i, ("a",), Budget.of(i, 10)))
        recorder.on_step_end(StepInfo(i, ("a",), Budget.of(i + 1, 10), next_nodes=("a",)))
    recorder.on_step_start(StepInfo(3, ("a",), Budget.of(3, 10)))
    recorder.on_start(RunInfo("a", "", "Lambda", ("a",), 3), "half")
    # the process dies here: whatever reached the disk must replay up to step 2
    # (the recorder writes unbuffered: nothing is left to flush)
    run = read_run(path)
    assert run.status == "incomplete"
    assert [s.index for s in run.steps] == [0, 1, 2]
    recorder.close()


def test_step_boundaries_flush_to_disk(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    recorder = Recorder(path, clock=_clock(), run_id="r")
    recorder.on_start(RunInfo(None, "g", "Graph"), "x")
    recorder.on_step_start(StepInfo(0, ("a",), Budget.of(0, 10)))
    recorder.on_step_end(StepInfo(0, ("a",), Budget.of(1, 10)))
    assert len(read_run(path).steps) == 1  # readable before the run ends or the file is closed
    recorder.close()


def test_node_error_and_run_error_are_recorded(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    recorder = Recorder(path, clock=_clock(), run_id="r")
    simulate_react(recorder, 3, tool_error_round=1)
    run = read_run(path)
    assert run.status == "error"
    assert run.error is not None and run.error.type == "NodeRunError"
    assert run.error.node_path == ["tools"] and run.error.cause_message == "weather service unavailable"
    assert len(run.steps) == 3  # the failing step never finished


def test_snapshots_are_periodic_and_bounded(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    recorder = Recorder(path, clock=_clock(), run_id="r", snapshot_every=10)
    simulate_react(recorder, 100)
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.startswith('{"kind":"step",')]
    full = [x["index"] for x in lines if x.get("full")]
    assert full[0] == 0 and 1 < len(full) < 40
    run = read_run(path)
    for i in (0, 57, 200, 123):
        assert len(run.steps[i].state["messages"]) == i + 1 + (i % 2 == 0) - (i % 2 == 0)


@pytest.mark.parametrize("rounds", [0, 1, 5])
def test_states_read_back_equal_what_the_engine_held(tmp_path: Path, rounds: int) -> None:
    path = tmp_path / "run.jsonl"
    seen: list[Any] = []

    class Spy:
        def on_step_end(self, step: StepInfo) -> None:
            seen.append([m.model_dump(mode="json", exclude_defaults=True) for m in step.state.messages])

    recorder = Recorder(path, clock=_clock(), run_id="r")

    class Both:
        def __getattr__(self, name: str) -> Any:
            inner = getattr(recorder, name)
            if name == "on_step_end":
                return lambda step: (Spy().on_step_end(step), inner(step))
            return inner

    simulate_react(Both(), rounds)
    run = read_run(path)
    assert [s.state["messages"] for s in run.steps] == seen


def test_a_finished_recorder_is_freed_without_the_garbage_collector(tmp_path: Path) -> None:
    # no reference cycle: a recorder's memos (every message of the run) go when the run lets go of it,
    # instead of waiting for a collection that traverses them, in some later step of another run
    import gc
    import weakref

    recorder = _record(tmp_path / "run.jsonl", rounds=3)
    assert read_run(tmp_path / "run.jsonl").status == "ok"
    gone = weakref.ref(recorder)
    enabled = gc.isenabled()
    gc.disable()
    try:
        del recorder
        assert gone() is None
    finally:
        if enabled:
            gc.enable()
