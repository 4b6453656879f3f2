"""Recording: overhead on a ReAct run, opening a 100,000-step file, and file size for 1,000 rounds.

Targets from issue 5 (its 1.5x was withdrawn by issue 15, which asks instead for no more than 10% over
8155cd9 per superstep, counted in instructions by `python3 -m bench.callgrind_recorder compare`, and
<= 1.10x with 1 ms per model call):
- recording a 100-round ReAct run costs at most 1.5x the unrecorded run (same process, same agent, a
  zero-latency scripted model and an instant tool, best of alternating repeats). Printed with its parts
  (the engine's reporting to a do-nothing callback, the Recorder's own work), with a floor measured in the
  same run (a callback that only writes each step's new messages: what no recorder can skip), and with
  the same run when each model call takes 0.1 ms and 1 ms;
- opening a generated 100,000-step run file takes under 1 s, and reading any step under 50 ms (100
  random steps: the step's events, node runs and its state);
- the file of a 1,000-round ReAct run stays within 3x the final state's JSON size. Reported twice: the
  state storage alone (message values plus state snapshots and deltas) and the whole file (which also
  holds every node's input and output, budgets and timings).
"""

from __future__ import annotations

import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from graph_core.agents.react import ReActAgent
from graph_core.callbacks import BranchDecision, Budget, RunInfo, StepInfo
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall, ToolInfo
from graph_core.tools import tool
from inspector.recording import Recorder, read_run
from inspector.replay import Replay

OVERHEAD_TARGET = 1.5
LATENCY_TARGET = 1.10  # issue 15, with 1 ms per model call
OPEN_TARGET_S = 1.0
STEP_TARGET_MS = 50.0
SIZE_TARGET = 3.0
BIG_STEPS = 100_000


@tool
def lookup(n: int) -> str:
    """An instant tool with a realistic-size answer."""
    return f"result {n}: " + "lorem ipsum dolor sit amet " * 8


def _agent(rounds: int, *, latency: float = 0.0) -> ReActAgent:
    script = [
        Message.assistant(f"Looking up item {i}.", tool_calls=[ToolCall(f"c{i}", "lookup", f'{{"n": {i}}}')])
        for i in range(rounds)
    ]
    script.append(Message.assistant("done"))
    model = ScriptedChatModel(script, restart_on_new_conversation=True)
    chat = _Slow(model, latency) if latency else model
    return ReActAgent(chat, tools=[lookup], max_step=2 * rounds + 1)


class _Silent:
    """A callback with every timing the Recorder uses and no work: what the engine's reporting costs."""

    def on_start(self, info: RunInfo, input: object) -> None: ...
    def on_end(self, info: RunInfo, output: object) -> None: ...
    def on_error(self, info: RunInfo, error: BaseException) -> None: ...
    def on_step_start(self, step: StepInfo) -> None: ...
    def on_step_end(self, step: StepInfo) -> None: ...


class _MessagesOnly:
    """The floor of any recorder: at each step end, the messages the step added to the state, each
    encoded once (pydantic-core's serializer), in one line and one unbuffered write. It keeps none of
    what the format asks for beyond that (no node runs, inputs, outputs, budgets, branches, timings,
    redaction, other state fields), and it watches the cheapest event the engine reports."""

    def __init__(self, path: Path) -> None:
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        self._seen = 0
        self._dump = Message.__pydantic_serializer__.to_json

    def on_step_end(self, step: StepInfo) -> None:
        messages = step.state.messages
        new = messages[self._seen :]
        self._seen = len(messages)
        encoded = b",".join([self._dump(m, exclude_defaults=True) for m in new])
        os.write(self._fd, b'{"index":%d,"messages":[%s]}\n' % (step.index, encoded))

    def close(self) -> None:
        os.close(self._fd)


class _Slow:
    """A model that waits `latency` seconds before answering, like a fast model server would."""

    def __init__(self, inner: ScriptedChatModel, latency: float) -> None:
        self.inner = inner
        self.latency = latency

    def generate(self, messages: list[Message]) -> Message:
        time.sleep(self.latency)
        return self.inner.generate(messages)

    def stream(self, messages: list[Message]) -> Iterator[Message]:
        time.sleep(self.latency)
        return self.inner.stream(messages)

    async def agenerate(self, messages: list[Message]) -> Message:
        return self.generate(messages)

    def astream(self, messages: list[Message]) -> AsyncIterator[Message]:
        return self.inner.astream(messages)

    def with_tools(self, tools: Sequence[ToolInfo]) -> _Slow:
        return _Slow(self.inner.with_tools(tools), self.latency)


def _best(runs: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Best wall time of each, over alternating repeats (so drift in machine load hits all alike)."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeats):
        for name, fn in runs.items():
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def _overhead(tmp: Path) -> None:
    agent = _agent(100)
    path = tmp / "overhead.jsonl"

    def floor() -> None:
        handler = _MessagesOnly(tmp / "floor.jsonl")
        agent.invoke([Message.user("go")], callbacks=[handler])
        handler.close()

    best = _best(
        {
            "plain": lambda: agent.invoke([Message.user("go")]),
            "silent": lambda: agent.invoke([Message.user("go")], callbacks=[_Silent()]),
            "floor": floor,
            "recorded": lambda: agent.invoke([Message.user("go")], callbacks=[Recorder(path)]),
        },
        40,
    )
    ratio = best["recorded"] / best["plain"]
    verdict = "OK" if ratio <= OVERHEAD_TARGET else "MISSED (withdrawn by issue 15: bench.callgrind_recorder)"
    steps = 201
    run_us, silent_us, floor_us, recorded_us = (
        best[k] / steps * 1e6 for k in ("plain", "silent", "floor", "recorded")
    )
    fixed = _fixed_cost(path) / steps * 1e6
    inside = _inside(agent, path) / steps * 1e6
    print(
        f"overhead, 100-round ReAct ({steps} supersteps): unrecorded {best['plain'] * 1e3:.2f} ms, "
        f"recorded {best['recorded'] * 1e3:.2f} ms -> {ratio:.2f}x (target <= {OVERHEAD_TARGET}x) {verdict}"
    )
    allowed = run_us * (OVERHEAD_TARGET - 1)
    print(f"  per superstep: the run alone {run_us:.1f} µs (the target allows {allowed:.1f} µs more)")
    print(
        f"  (a) the engine reporting to a do-nothing callback: +{silent_us - run_us:.1f} µs "
        f"({best['silent'] / best['plain']:.2f}x the run alone)"
    )
    print(
        f"  (b) the Recorder itself: +{recorded_us - silent_us:.1f} µs, of which {fixed:.1f} µs is its fixed "
        "cost per run (open and truncate the file, header, close) spread over the steps"
    )
    print(
        f"      {inside:.1f} µs of it inside its callbacks (noting, encoding, building and writing the step "
        "line); the rest is the run itself slowed down around them (the write per step, the memory touched)"
    )
    floor_ratio = best["floor"] / best["plain"]
    below = "above" if floor_ratio > OVERHEAD_TARGET else "within"
    print(
        f"  floor: a callback that only writes each step's new messages (one line, one write per step, "
        f"nothing else of the format) +{floor_us - run_us:.1f} µs = {floor_ratio:.2f}x the run alone, "
        f"{below} the target"
    )
    _with_latency(tmp)


def _with_latency(tmp: Path) -> None:
    """The same 100 rounds when each model call takes `latency` seconds: what recording costs a run
    whose model is not instant (a local model or a cache answers in about a millisecond). Issue 15's
    target: <= 1.10x the unrecorded run at 1 ms. Best of alternating repeats, as above; the sleeps
    hand the CPU to other processes, so on a loaded machine the best of few repeats still carries
    their noise (more repeats: `BENCH_LATENCY_REPEATS`)."""
    repeats = int(os.environ.get("BENCH_LATENCY_REPEATS", "9"))
    for latency in (0.0001, 0.001):
        slow = _agent(100, latency=latency)
        best = _best(
            {
                "plain": lambda slow=slow: slow.invoke([Message.user("go")]),
                "recorded": lambda slow=slow: slow.invoke(
                    [Message.user("go")], callbacks=[Recorder(tmp / "slow.jsonl")]
                ),
            },
            repeats,
        )
        ratio = best["recorded"] / best["plain"]
        verdict = ""
        if latency == 0.001:
            verdict = f" (target <= {LATENCY_TARGET}x) {'OK' if ratio <= LATENCY_TARGET else 'MISSED'}"
        print(
            f"  with {latency * 1e3:g} ms per model call: unrecorded {best['plain'] * 1e3:.1f} ms, recorded "
            f"{best['recorded'] * 1e3:.1f} ms -> {ratio:.2f}x{verdict}"
        )


class _Timed:
    """Forwards every callback to `target`, adding up the time spent inside it: splits (b) into the
    Recorder's own work and what it costs the run around it (its write per step, the memory it touches)."""

    def __init__(self, target: Any) -> None:
        self.target = target
        self.inside = 0.0

    def _timed(self, name: str, *args: Any) -> None:
        start = time.perf_counter()
        getattr(self.target, name)(*args)
        self.inside += time.perf_counter() - start

    def on_start(self, info: RunInfo, input: object) -> None:
        self._timed("on_start", info, input)

    def on_end(self, info: RunInfo, output: object) -> None:
        self._timed("on_end", info, output)

    def on_error(self, info: RunInfo, error: BaseException) -> None:
        self._timed("on_error", info, error)

    def on_step_start(self, step: StepInfo) -> None:
        self._timed("on_step_start", step)

    def on_step_end(self, step: StepInfo) -> None:
        self._timed("on_step_end", step)


def _inside(agent: ReActAgent, path: Path) -> float:
    """Best time spent inside the Recorder's callbacks during one run, less the timing's own cost
    (measured the same way around a do-nothing handler)."""
    best = {"recorder": float("inf"), "silent": float("inf")}
    for _ in range(40):
        for name, target in (("recorder", Recorder(path)), ("silent", _Silent())):
            timed = _Timed(target)
            agent.invoke([Message.user("go")], callbacks=[timed])
            best[name] = min(best[name], timed.inside)
    return best["recorder"] - best["silent"]


def _fixed_cost(path: Path) -> float:
    """Best time of a Recorder's per-run work alone: a graph start and end on the same (existing) file."""
    graph = RunInfo(None, "ReActAgent", "Graph")
    best = float("inf")
    for _ in range(20):
        recorder = Recorder(path)
        start = time.perf_counter()
        recorder.on_start(graph, [Message.user("go")])
        recorder.on_end(graph, Message.assistant("done"))
        best = min(best, time.perf_counter() - start)
    return best


def _generate(path: Path, steps: int) -> None:
    """A long run of a two-node loop with a small state, driven through the Recorder's callbacks."""
    recorder = Recorder(path, clock=iter(range(10 * steps + 10)).__next__, run_id="bench")
    graph = RunInfo(None, "loop", "Graph")
    recorder.on_start(graph, "go")
    state = {"count": 0, "last": ""}
    for i in range(steps):
        node = "work" if i % 2 == 0 else "check"
        recorder.on_step_start(StepInfo(i, (node,), Budget.of(i, steps)))
        info = RunInfo(node, node, "Lambda", (node,), i)
        recorder.on_start(info, {"i": i})
        state["count"] = i
        state["last"] = f"step {i} did some work"
        recorder.on_end(info, {"i": i, "note": "ok"})
        target = "check" if node == "work" else "work"
        recorder.on_step_end(
            StepInfo(
                i,
                (node,),
                Budget.of(i + 1, steps),
                state=state,
                branches=(BranchDecision(node, 0, (target,), ()),),
                next_nodes=(target,),
            )
        )
    recorder.on_end(graph, "done")


def _open_large(tmp: Path) -> None:
    path = tmp / "big.jsonl"
    start = time.perf_counter()
    _generate(path, BIG_STEPS)
    generated = time.perf_counter() - start
    size_mb = os.path.getsize(path) / 1e6
    times = []
    for _ in range(3):
        start = time.perf_counter()
        run = read_run(path)
        times.append(time.perf_counter() - start)
        assert len(run.steps) == BIG_STEPS
    opened = min(times)
    verdict = "OK" if opened < OPEN_TARGET_S else "MISSED"
    print(
        f"open a {BIG_STEPS:,}-step file ({size_mb:.0f} MB, generated in {generated:.1f} s): "
        f"{opened * 1e3:.0f} ms (target < {OPEN_TARGET_S * 1e3:.0f} ms) {verdict}"
    )
    run = read_run(path)
    rng = random.Random(5)
    access = []
    for i in rng.sample(range(BIG_STEPS), 100):
        start = time.perf_counter()
        step = run.steps[i]
        _ = (step.nodes, step.budget, step.node_runs, step.state)
        access.append(time.perf_counter() - start)
    worst = max(access) * 1e3
    verdict = "OK" if worst < STEP_TARGET_MS else "MISSED"
    print(
        f"  100 random steps (events, node runs, state): median {statistics.median(access) * 1e3:.2f} ms, "
        f"worst {worst:.2f} ms (target < {STEP_TARGET_MS:.0f} ms) {verdict}"
    )
    replay = Replay(run)
    replay.go(BIG_STEPS // 2)
    for text, what in (("step 50007 did", "a hit a few steps on"), ("no such text", "no hit at all")):
        start = time.perf_counter()
        found = replay.find_next(text)
        took = time.perf_counter() - start
        print(f"  find_next from the middle, {what}: {took * 1e3:.0f} ms (-> {found})")


def _size(tmp: Path) -> None:
    path = tmp / "size.jsonl"
    _agent(1000).invoke([Message.user("go")], callbacks=[Recorder(path)])
    run = read_run(path)
    final = len(json.dumps(run.steps[-1].state, separators=(",", ":"), ensure_ascii=False).encode())
    by_kind: dict[str, int] = {}
    state_bytes = 0
    with path.open("rb") as handle:
        for line in handle:
            event = json.loads(line)
            kind = event["kind"]
            by_kind[kind] = by_kind.get(kind, 0) + len(line)
            if kind == "value":
                state_bytes += len(line)
            elif kind == "step":
                payload = event.get("state") if event.get("full") else event.get("delta")
                state_bytes += len(json.dumps(payload, separators=(",", ":")))
    total = os.path.getsize(path)
    print(f"1,000-round ReAct run: final state {final / 1e3:.0f} kB")
    verdict = "OK" if state_bytes <= SIZE_TARGET * final else "MISSED"
    print(
        f"  state storage (messages + snapshots + deltas): {state_bytes / 1e3:.0f} kB = "
        f"{state_bytes / final:.2f}x (target <= {SIZE_TARGET}x) {verdict}"
    )
    verdict = "OK" if total <= SIZE_TARGET * final else "MISSED"
    print(f"  whole file: {total / 1e3:.0f} kB = {total / final:.2f}x {verdict}")
    parts = ", ".join(f"{k} {v / 1e3:.0f} kB" for k, v in sorted(by_kind.items(), key=lambda kv: -kv[1]))
    print(f"  by line kind: {parts}")


def run() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        _overhead(Path(tmp))
        _open_large(Path(tmp))
        _size(Path(tmp))


if __name__ == "__main__":
    run()
