"""Debugging a LangGraph target while no breakpoint is hit, against its plain `invoke`.

A 50-round ReAct run (`create_react_agent` on a scripted model that takes 1 ms per answer, one tool call
per round, 101 supersteps), run with plain `graph.invoke` and under `DebugController` (recording to a
temporary file, no breakpoint and no condition, so nothing holds it), alternately, in pairs
whose order alternates. The debugged run pays for the recording, for the in-memory checkpointer the
debugger supplies (LangGraph writes a checkpoint per superstep) and for LangGraph asking the stop list
before each superstep; it never stops. Target (issue 30): debugged <= 1.25x plain, best of 9 each, on
the wall clock (the model's latency is a sleep, which CPU time would not count); the median of the
pairs' ratios is printed too.
"""

from __future__ import annotations

import gc
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult

from fixtures.langgraph_react import ScriptedToolModel, get_weather, react_agent
from inspector.adapters.langgraph import as_target
from inspector.debug import DebugController

ROUNDS = 50
LATENCY = 0.001
TARGET_RATIO = 1.25


class _SlowModel(ScriptedToolModel):
    """The scripted model, 1 ms per answer (a fast real model's latency is far more)."""

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        time.sleep(LATENCY)
        return super()._generate(messages, stop, run_manager, **kwargs)


def _script(rounds: int) -> list[BaseMessage]:
    calls: list[BaseMessage] = [
        AIMessage(
            f"Checking again ({i}).",
            tool_calls=[{"id": f"call_{i}", "name": "get_weather", "args": {"city": "Hangzhou"}}],
            usage_metadata={"input_tokens": 100 + i, "output_tokens": 20, "total_tokens": 120 + i},
        )
        for i in range(rounds)
    ]
    return [*calls, AIMessage("It stopped raining.")]


def _timed(fn: Callable[[], Any]) -> float:
    gc.collect()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def run(repeats: int = 9) -> None:
    limit = 2 * ROUNDS + 10
    graph = react_agent(_SlowModel(responses=_script(ROUNDS)), [get_weather]).with_config(
        recursion_limit=limit
    )
    target = as_target(graph)
    question = {"messages": [{"role": "user", "content": "Tell me when it stops raining."}]}
    topology = target.topology()

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "run.jsonl"

        def plain() -> None:
            graph.invoke(question)

        def debugged() -> None:
            path.unlink(missing_ok=True)
            controller = DebugController(target, question, output=path, topology=topology, compiled=target)
            controller.start()  # no breakpoint, no condition: LangGraph asks the stop list, it never stops
            if controller.wait(120) is not None or controller.outcome != "ok":
                raise RuntimeError(f"the debugged run stopped: {controller.outcome} {controller.error}")

        plain()  # warm up both paths (imports, caches)
        debugged()
        base: list[float] = []
        dbg: list[float] = []
        for i in range(repeats):
            if i % 2 == 0:
                base.append(_timed(plain))
                dbg.append(_timed(debugged))
            else:
                dbg.append(_timed(debugged))
                base.append(_timed(plain))
    ratio = min(dbg) / min(base)
    paired = statistics.median(d / b for b, d in zip(base, dbg, strict=True))
    verdict = "PASS" if ratio <= TARGET_RATIO else "FAIL"
    print(f"{ROUNDS}-round ReAct run, {2 * ROUNDS + 1} supersteps, model latency {LATENCY * 1000:.0f} ms; "
          f"interleaved pairs, best of {repeats} each, wall clock:")  # fmt: skip
    print(f"    plain graph.invoke            {min(base) * 1000:7.1f} ms  (baseline)")
    print(f"    debugged, no breakpoint hit   {min(dbg) * 1000:7.1f} ms  (recorded, checkpointed)")
    print(f"    ratio                         {ratio:7.2f}x  "
          f"(median of the {repeats} pairs' ratios: {paired:.2f}x)")  # fmt: skip
    print(f"    {verdict}: debugged / plain = {ratio:.2f}x, target <= {TARGET_RATIO}x")
