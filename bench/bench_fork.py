"""Forking: time of a fork at step N of a long runaway run, which must grow linearly with N.

Issue 37 measured a fork of a 10,001-step run at step 250 in 2.1 s, 500 in 5.4 s, 1,000 in 20.9 s and
2,000 in 92-118 s: each replayed step's rebuilt state was encoded (twice) and compared with the recorded
state whole. Here a 2,001-step runaway ReAct run is recorded, then forked at 250, 500, 1,000 and 2,000
with a model answer that ends the run one step later (so each time is the replay up to N). Printed:
each time, and the ratio of the time at 2,000 to the time at 250 (8x the steps: linear is about 8x,
the square was about 50x).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from inspector.debug.fork import parse_model_answer, plan_fork, run_fork
from inspector.recording import Recorder
from inspector.target import load_target

STEPS = 2_001
FORK_AT = (250, 500, 1_000, 2_000)
LINEAR_TARGET = 1.5  # the time at 2,000 over 8x the time at 250, at most this
_TARGET = f"""
from fixtures.weather import get_weather
from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall

script = [
    Message.assistant(f"Still raining ({{i}}).",
                      tool_calls=[ToolCall(f"call_{{i}}", "get_weather", '{{"city": "Hangzhou"}}')])
    for i in range({STEPS})
]
agent = ReActAgent(ScriptedChatModel(script, restart_on_new_conversation=True), tools=[get_weather],
                   max_step={STEPS})
"""


def run() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "bench_runaway.py").write_text(_TARGET)
        spec = f"{folder / 'bench_runaway.py'}:agent"
        recording = folder / "run.jsonl"
        try:
            load_target(spec).runnable.invoke("Keep checking.", callbacks=[Recorder(recording)])
        except Exception as exc:  # the runaway ends by exhausting its budget
            if "exceeds max steps" not in str(exc):
                raise
        answer = parse_model_answer('{"role": "assistant", "content": "It stopped raining."}')
        times: dict[int, float] = {}
        for step in FORK_AT:
            start = time.perf_counter()
            plan = plan_fork(recording, step, target=spec, model_answer=answer)
            run_fork(plan, folder / f"fork{step}.jsonl")
            times[step] = time.perf_counter() - start
            print(f"  fork at step {step:>5,} of {STEPS:,}: {times[step]:.2f} s")
            sys.stdout.flush()
        first, last = FORK_AT[0], FORK_AT[-1]
        ratio = times[last] / times[first]
        steps = last / first
        verdict = "OK" if ratio <= LINEAR_TARGET * steps else "MISSED"
        print(f"  ratio {last:,}/{first:,}: {ratio:.1f}x for {steps:.0f}x the steps {verdict}")


if __name__ == "__main__":
    run()
