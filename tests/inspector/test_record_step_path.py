"""The path one recorded step takes through the recorder's modules: the recorder calls each phase
(times, node runs, state, budgets, the line, the write) once, each in its own module, and no phase
calls back up, into the recorder or into a module below which it was called. Measured with
`sys.setprofile` on one usual step of the runaway agent (a tool step and a model step).

Before: the node-run phase called back into the recorder (`RunWriter._value`) for every value, the
branch elision into the step line's lambda, and the recorder entered `pending` four times, `elision`
and `step_line` twice each."""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from fixtures.runaway import build_agent
from graph_core.callbacks import StepInfo
from graph_core.schema import Message
from inspector.recording import Recorder

RECORDER = frozenset({"inspector.recording.recorder", "inspector.recording.run_writer"})
PHASES = ("times", "pending", "state_track", "elision", "step_line", "encode", "sink")
"""The modules of the step's phases, in `Recorder._write_step`'s order: each entered once per step."""


class _Traced(Recorder):
    """A recorder that notes, for top-level step `index`, every call between project modules."""

    def __init__(self, path: Path, index: int) -> None:
        super().__init__(path, clock=lambda: 0.0, run_id="traced")
        self.index = index
        self.calls: list[tuple[str, str, list[str]]] = []  # (caller, callee, modules below the caller)

    def on_step_end(self, step: StepInfo) -> None:
        if step.path or step.index != self.index:
            super().on_step_end(step)
            return

        def profile(frame: FrameType, event: str, arg: Any) -> None:
            if event == "call" and frame.f_back is not None:
                callee = frame.f_globals.get("__name__", "")
                caller_frame = frame.f_back
                caller = caller_frame.f_globals.get("__name__", "")
                if callee.startswith(("inspector", "graph_core")):
                    below: list[str] = []
                    f = caller_frame.f_back
                    while f is not None:
                        below.append(f.f_globals.get("__name__", ""))
                        f = f.f_back
                    self.calls.append((caller, callee, below))

        sys.setprofile(profile)
        try:
            super().on_step_end(step)
        finally:
            sys.setprofile(None)


@pytest.mark.parametrize("index", [7, 8], ids=["tool step", "model step"])
def test_a_step_goes_down_through_its_phases_and_never_back_up(tmp_path: Path, index: int) -> None:
    recorder = _Traced(tmp_path / "run.jsonl", index)
    with pytest.raises(Exception, match="exceeds max steps"):
        build_agent().invoke([Message.user("Weather?")], callbacks=[recorder])
    assert recorder.calls, "the step was not traced"
    up = [
        (a, b)
        for a, b, _ in recorder.calls
        if b in RECORDER and a not in RECORDER and a.startswith("inspector")
    ]
    assert up == [], f"phases called back into the recorder: {up}"
    again = [(a, b) for a, b, below in recorder.calls if b != a and b in below and b.startswith("inspector")]
    assert again == [], f"modules called back while below on the stack: {again}"
    entered: dict[str, int] = {}  # the phases: modules the recorder calls, and how often
    for caller, callee, _ in recorder.calls:
        if caller in RECORDER and callee not in RECORDER and callee.startswith("inspector"):
            entered[callee] = entered.get(callee, 0) + 1
    assert entered == {f"inspector.recording.{m}": 1 for m in PHASES}, entered
