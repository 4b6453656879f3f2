"""Interrupt gaps: END reached in an interrupted step, values left in channels, ToolsNode async streams."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from typing import Any

import pytest

from graph_core import END, START, Graph
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import InterruptError
from graph_core.interrupt import InterruptSignal, get_interrupt_state, get_resume_data, interrupt
from graph_core.schema import Message, ToolCall
from graph_core.tools import ToolsNode, tool


def asking(runs: Counter[str], name: str) -> Any:
    def node(value: Any) -> Any:
        runs[name] += 1
        if get_interrupt_state() is None:
            interrupt("approve?", state="asked")
        return {name: f"{value}:{get_resume_data()}"}

    return node


def counting(runs: Counter[str], name: str) -> Any:
    def node(value: Any) -> Any:
        runs[name] += 1
        return {name: value}

    return node


@pytest.mark.parametrize("how", ["invoke", "ainvoke"])
def test_end_reached_in_the_interrupted_step_is_kept_for_the_resume(how: str) -> None:
    """Eino handles interrupts before computing next tasks: END's value waits in its channel.

    Step 0 runs `a` (-> END) and `b` (interrupts). The run stops; on resume `b` reruns in step 0,
    then END, already holding `a`'s value, ends the run, and `c` (fed by `b`) never runs.
    """
    runs: Counter[str] = Counter()
    g = Graph()
    g.add_lambda_node("a", counting(runs, "a"))
    g.add_lambda_node("b", asking(runs, "b"))
    g.add_lambda_node("c", counting(runs, "c"))
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge("a", END)
    g.add_edge("b", "c")
    g.add_edge("c", END)
    compiled = g.compile(checkpoint_store=InMemoryCheckpointStore())

    def call(value: Any, **options: Any) -> Any:
        if how == "invoke":
            return compiled.invoke(value, **options)
        return asyncio.run(compiled.ainvoke(value, **options))

    with pytest.raises(InterruptError) as caught:
        call("x", checkpoint_id="cp")
    assert caught.value.info.rerun_nodes == ["b"]
    assert call(None, checkpoint_id="cp", resume_data="yes") == {"a": "x"}
    assert runs == Counter({"a": 1, "b": 2})


def test_successor_values_wait_in_their_channel_and_merge_with_the_rerun_output() -> None:
    """`a` completes beside the interrupted `b`; `c` (fed by both) runs once, after the rerun, merged."""
    runs: Counter[str] = Counter()
    seen: list[Any] = []
    g = Graph()
    g.add_lambda_node("a", counting(runs, "a"))
    g.add_lambda_node("b", asking(runs, "b"))
    g.add_lambda_node("c", lambda v: seen.append(v) or "done")
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge("a", "c")
    g.add_edge("b", "c")
    g.add_edge("c", END)
    compiled = g.compile(checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError):  # interruptible from outside: `b`'s input is kept (Eino)
        compiled.invoke("x", checkpoint_id="cp", interrupt_event=threading.Event())
    assert compiled.invoke(None, checkpoint_id="cp", resume_data="ok") == "done"
    assert seen == [{"a": "x", "b": "x:ok"}]
    assert runs == Counter({"a": 1, "b": 2})


def test_uninterrupted_run_for_comparison() -> None:
    """Without the interrupt, `c` gets both values in one merged input too: the resume matches it."""
    seen: list[Any] = []
    g = Graph()
    g.add_lambda_node("a", lambda v: {"a": v})
    g.add_lambda_node("b", lambda v: {"b": f"{v}:ok"})
    g.add_lambda_node("c", lambda v: seen.append(v) or "done")
    for n in ("a", "b"):
        g.add_edge(START, n)
        g.add_edge(n, "c")
    g.add_edge("c", END)
    assert g.compile().invoke("x") == "done"
    assert seen == [{"a": "x", "b": "x:ok"}]


def tools_node(runs: Counter[str]) -> ToolsNode:
    def make(name: str, interrupts: bool) -> Any:
        @tool(name=name, description=f"tool {name}")
        def run(x: str) -> str:
            runs[name] += 1
            if interrupts and get_interrupt_state() is None:
                interrupt(f"{name} needs input", state={"x": x})
            return f"{name}:{x}"

        return run

    return ToolsNode([make("t1", True), make("t2", False), make("t3", False)])


def message() -> Message:
    calls = [ToolCall(id=f"c{i}", name=f"t{i}", arguments=f'{{"x": "v{i}"}}') for i in range(1, 4)]
    return Message.assistant("", tool_calls=calls)


def test_tools_node_astream_raises_a_composite_interrupt_when_opened() -> None:
    runs: Counter[str] = Counter()
    node = tools_node(runs)

    async def go() -> None:
        await node.astream(message())

    with pytest.raises(InterruptSignal) as caught:
        asyncio.run(go())
    signal = caught.value
    state: dict[str, Any] = signal.state or {}
    assert list(signal.children) == ["c1"]
    assert state["executed"] == {"c2": "t2:v2", "c3": "t3:v3"}
    assert state["rerun"] == ["c1"]
    assert signal.info["rerun_tools"] == ["c1"]
    assert runs == Counter({"t1": 1, "t2": 1, "t3": 1})


def test_tools_node_astream_iterated_directly_still_streams() -> None:
    async def go() -> list[list[Message | None]]:
        node = ToolsNode([tool(name="t2", description="d")(lambda x: f"t2:{x}")])
        msg = Message.assistant("", tool_calls=[ToolCall(id="c2", name="t2", arguments='{"x": "v"}')])
        return [row async for row in node.astream(msg)]

    rows = asyncio.run(go())
    assert [[m.content if m else None for m in row] for row in rows] == [["t2:v"]]
