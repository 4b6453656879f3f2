"""ReAct loop overhead: the flow agent vs a plain Python loop making the same model and tool calls.

A zero-latency scripted model asks for one instant tool K times (K = 1, 10, 100), then answers; both
sides run it in invoke mode with the same model and ToolsNode, so the difference is the graph engine and
agent (state handlers, branches, callbacks plumbing, step bookkeeping). Targets from issue 3: at most
25 µs per round for the agent, per-round cost at K=100 within 1.2x of K=10, memory linear in K.
LangGraph is measured side by side only if it is installed (`pip install -e ".[bench]"`).
"""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from collections.abc import Callable

from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from graph_core.tools import ToolsNode, tool

TARGET_US_PER_ROUND = 25.0
ROUNDS = (1, 10, 100)


@tool
def ping(n: int) -> str:
    """An instant tool."""
    return "pong"


def _script(k: int) -> list[Message]:
    calls = [Message.assistant(tool_calls=[ToolCall(f"c{i}", "ping", '{"n": 1}')]) for i in range(k)]
    return [*calls, Message.assistant("done")]


def _agent(k: int) -> tuple[ReActAgent, ScriptedChatModel]:
    model = ScriptedChatModel(_script(k), restart_on_new_conversation=True)
    # max_step raised so that K=100 rounds (201 supersteps) fit; the default 13 allows 6 rounds.
    return ReActAgent(model, tools=[ping], max_step=2 * k + 1), model


def _plain_loop(k: int) -> Callable[[], Message]:
    model = ScriptedChatModel(_script(k), restart_on_new_conversation=True).with_tools([ping.info])
    node = ToolsNode([ping])

    def run() -> Message:
        messages = [Message.user("go")]
        while True:
            out = model.generate(list(messages))
            if not out.tool_calls:
                return out
            messages.append(out)
            messages.extend(node.invoke(out))

    return run


def _time_per_run(fn: Callable[[], object], *, min_time: float = 0.3) -> float:
    """Median seconds per call over several batches (batch size grown until it takes ~20 ms)."""
    fn()
    batch = 1
    while True:
        start = time.perf_counter()
        for _ in range(batch):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed > 0.02:
            break
        batch *= 2
    samples = [elapsed / batch]
    deadline = time.perf_counter() + min_time
    while time.perf_counter() < deadline or len(samples) < 5:
        start = time.perf_counter()
        for _ in range(batch):
            fn()
        samples.append((time.perf_counter() - start) / batch)
    return statistics.median(samples)


def _peak_bytes(fn: Callable[[], object]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _langgraph_runner(k: int) -> Callable[[], object] | None:
    try:
        from langgraph.graph import END, START, MessagesState, StateGraph  # type: ignore[import-not-found]
    except ImportError:
        return None
    model = ScriptedChatModel(_script(k), restart_on_new_conversation=True)
    node = ToolsNode([ping])

    def chat(state: dict[str, list[Message]]) -> dict[str, list[Message]]:
        return {"messages": [model.generate(list(state["messages"]))]}

    def tools(state: dict[str, list[Message]]) -> dict[str, list[Message]]:
        return {"messages": node.invoke(state["messages"][-1])}

    def route(state: dict[str, list[Message]]) -> str:
        return "tools" if state["messages"][-1].tool_calls else END

    builder = StateGraph(MessagesState)  # type: ignore[arg-type]
    builder.add_node("chat", chat)
    builder.add_node("tools", tools)
    builder.add_edge(START, "chat")
    builder.add_conditional_edges("chat", route, ["tools", END])
    builder.add_edge("tools", "chat")
    graph = builder.compile()
    return lambda: graph.invoke({"messages": [Message.user("go")]}, {"recursion_limit": 2 * k + 5})


def run() -> None:
    print("flow ReActAgent, invoke mode, zero-latency scripted model, one instant tool per round")
    print(
        f"{'K':>5} {'agent us/round':>15} {'plain us/round':>15} {'overhead us/round':>18} {'ratio':>6}"
        f" {'peak KiB':>9} {'KiB/round':>10}"
    )
    per_round: dict[int, float] = {}
    for k in ROUNDS:
        agent, _ = _agent(k)
        agent_s = _time_per_run(lambda agent=agent: agent.invoke("go"))
        plain_s = _time_per_run(_plain_loop(k))
        peak = _peak_bytes(lambda agent=agent: agent.invoke("go"))
        a_us, p_us = agent_s * 1e6 / k, plain_s * 1e6 / k
        per_round[k] = a_us
        print(
            f"{k:>5} {a_us:>15.1f} {p_us:>15.1f} {a_us - p_us:>18.1f} {a_us / p_us:>6.2f}"
            f" {peak / 1024:>9.1f} {peak / 1024 / k:>10.2f}"
        )
    scaling = per_round[100] / per_round[10]
    best = per_round[100]
    met = "MET" if best <= TARGET_US_PER_ROUND else "MISSED"
    print(f"target: <= {TARGET_US_PER_ROUND:.0f} us/round -> {met} ({best:.1f} us/round at K=100)")
    met = "MET" if scaling <= 1.2 else "MISSED"
    print(f"target: K=100 per-round within 1.2x of K=10 -> {scaling:.2f}x {met}")
    lg = {k: _langgraph_runner(k) for k in ROUNDS}
    if lg[1] is None:
        print("langgraph not installed: side-by-side skipped (pip install -e '.[bench]')")
        return
    for k, runner in lg.items():
        assert runner is not None
        lg_us = _time_per_run(runner) * 1e6 / k
        print(
            f"langgraph StateGraph K={k}: {lg_us:.1f} us/round ({lg_us / per_round[k]:.1f}x the flow agent)"
        )
