"""ToolsNode composite interrupts (Eino `TestToolRerun`): only the interrupted calls run again."""

from __future__ import annotations

from collections import Counter

import pytest

from graph_core import END, START, Graph
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import InterruptError
from graph_core.interrupt import get_interrupt_state, get_resume_data, interrupt
from graph_core.schema import Message, ToolCall
from graph_core.tools import ToolsNode, tool


def _graph(runs: Counter[str], *, sequential: bool = False) -> Graph:
    def make(name: str, interrupts: bool):  # type: ignore[no-untyped-def]
        @tool(name=name, description=f"tool {name}")
        def run(x: str) -> str:
            runs[name] += 1
            if interrupts and get_interrupt_state() is None:
                interrupt(f"{name} needs input", state={"x": x})
            if interrupts:
                return f"{name}:{get_interrupt_state()['x']}:{get_resume_data()}"
            return f"{name}:{x}"

        return run

    node = ToolsNode(
        [make("t1", True), make("t2", True), make("t3", False), make("t4", False)],
        execute_sequentially=sequential,
    )
    graph = Graph()
    graph.add_tools_node("tools", node)
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    return graph


def _message() -> Message:
    calls = [ToolCall(id=f"c{i}", name=f"t{i}", arguments=f'{{"x": "v{i}"}}') for i in range(1, 5)]
    return Message.assistant("", tool_calls=calls)


@pytest.mark.parametrize("sequential", [False, True])
def test_completed_calls_are_reused_and_interrupted_calls_rerun(sequential: bool) -> None:
    runs: Counter[str] = Counter()
    compiled = _graph(runs, sequential=sequential).compile(checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError) as caught:
        compiled.invoke(_message(), checkpoint_id="t")
    info = caught.value.info
    assert info.rerun_nodes == ["tools"]
    extra = info.rerun_nodes_extra["tools"]
    assert extra["rerun_tools"] == ["c1", "c2"]
    assert extra["executed_tools"] == {"c3": "t3:v3", "c4": "t4:v4"}
    roots = [c for c in info.interrupt_contexts if c.is_root_cause]
    assert [c.address for c in roots] == [
        "runnable:;node:tools;tool:t1:c1",
        "runnable:;node:tools;tool:t2:c2",
    ]
    assert all(c.parent == "runnable:;node:tools" for c in roots)
    targets = {roots[0].id: "yes", roots[1].id: "no"}
    out = compiled.invoke(None, checkpoint_id="t", resume_data=targets)
    assert [m.content for m in out] == ["t1:v1:yes", "t2:v2:no", "t3:v3", "t4:v4"]
    assert [m.tool_call_id for m in out] == ["c1", "c2", "c3", "c4"]
    assert runs == Counter({"t1": 2, "t2": 2, "t3": 1, "t4": 1})


def test_stream_mode_composite_interrupt() -> None:
    runs: Counter[str] = Counter()
    compiled = _graph(runs).compile(checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError):
        compiled.stream(_message(), checkpoint_id="t")
    chunks = list(compiled.stream(None, checkpoint_id="t", resume_data="ok"))
    merged: dict[int, str] = {}
    for row in chunks:
        for i, m in enumerate(row):
            if m is not None:
                merged[i] = merged.get(i, "") + m.content
    assert [merged[i] for i in range(4)] == ["t1:v1:ok", "t2:v2:ok", "t3:v3", "t4:v4"]
    assert runs == Counter({"t1": 2, "t2": 2, "t3": 1, "t4": 1})


def test_a_real_tool_error_wins_over_interrupts() -> None:
    @tool(name="boom", description="fails")
    def boom(x: str) -> str:
        raise ValueError("bad")

    @tool(name="ask", description="interrupts")
    def ask(x: str) -> str:
        interrupt("q")
        return x

    graph = Graph()
    graph.add_tools_node("tools", ToolsNode([boom, ask]))
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    compiled = graph.compile(checkpoint_store=InMemoryCheckpointStore())
    message = Message.assistant(
        "",
        tool_calls=[
            ToolCall(id="1", name="ask", arguments='{"x": "a"}'),
            ToolCall(id="2", name="boom", arguments='{"x": "b"}'),
        ],
    )
    with pytest.raises(Exception, match=r"failed to invoke tool\[name:boom id:2\]: .*bad") as caught:
        compiled.invoke(message, checkpoint_id="t")
    assert not isinstance(caught.value, InterruptError)
