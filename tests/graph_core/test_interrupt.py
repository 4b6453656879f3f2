"""Static and node interrupts, checkpoints and resume on plain graphs (eino-semantics §7)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from graph_core import END, START, Graph, TriggerMode, process_state
from graph_core.callbacks import StepInfo
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import GraphRunError, InterruptError
from graph_core.interrupt import get_interrupt_state, get_resume_data, interrupt, was_interrupted
from tests.helpers import wire


@dataclass
class Log:
    items: list[str] = field(default_factory=lambda: [])


def _chain(calls: list[str], *, state: bool = True) -> Graph:
    """start -> a -> b -> c -> end; each node appends its key to the input string and to `calls`."""
    graph = Graph(state=Log) if state else Graph()

    def node(key: str) -> Any:
        def run(text: str) -> str:
            calls.append(key)
            if state:
                process_state(Log, lambda s: s.items.append(key))
            return text + key

        return run

    for key in "abc":
        graph.add_lambda_node(key, node(key))
    wire(graph, "a", "b", "c")
    return graph


def test_interrupt_before_stops_before_the_node_and_resume_finishes() -> None:
    calls: list[str] = []
    store = InMemoryCheckpointStore()
    compiled = _chain(calls).compile(interrupt_before=["b"], checkpoint_store=store)
    with pytest.raises(InterruptError) as caught:
        compiled.invoke("x", checkpoint_id="t1")
    info = caught.value.info
    assert info.before_nodes == ["b"] and info.after_nodes == [] and info.rerun_nodes == []
    assert info.state == Log(["a"])
    assert caught.value.checkpoint_id == "t1"
    assert calls == ["a"]
    assert compiled.invoke(None, checkpoint_id="t1") == "xabc"
    assert calls == ["a", "b", "c"]


def test_interrupt_after_computes_successors_then_stops() -> None:
    calls: list[str] = []
    store = InMemoryCheckpointStore()
    compiled = _chain(calls).compile(interrupt_after=["a", "b"], checkpoint_store=store)
    with pytest.raises(InterruptError) as first:
        compiled.invoke("x", checkpoint_id="t")
    assert first.value.info.after_nodes == ["a"]
    with pytest.raises(InterruptError) as second:
        compiled.invoke(None, checkpoint_id="t")
    assert second.value.info.after_nodes == ["b"]
    assert compiled.invoke(None, checkpoint_id="t") == "xabc"
    assert calls == ["a", "b", "c"]


def test_interrupt_before_the_first_node_right_after_start() -> None:
    calls: list[str] = []
    compiled = _chain(calls).compile(interrupt_before=["a"], checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError) as caught:
        compiled.invoke("x", checkpoint_id="t")
    assert caught.value.info.before_nodes == ["a"] and calls == []
    assert compiled.invoke(None, checkpoint_id="t") == "xabc"


def test_resumed_run_restarts_the_step_counter() -> None:
    calls: list[str] = []
    steps: list[int] = []

    class Steps:
        def on_step_start(self, info: StepInfo) -> None:
            steps.append(info.index)

    compiled = _chain(calls).compile(
        interrupt_before=["c"], checkpoint_store=InMemoryCheckpointStore(), max_run_steps=2
    )
    with pytest.raises(InterruptError):
        compiled.invoke("x", checkpoint_id="t", callbacks=[Steps()])
    assert compiled.invoke(None, checkpoint_id="t", callbacks=[Steps()]) == "xabc"
    assert steps == [0, 1, 0]  # a budget of 2 suffices for each segment


def test_state_modifier_changes_the_restored_state() -> None:
    calls: list[str] = []
    compiled = _chain(calls).compile(interrupt_before=["b"], checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError):
        compiled.invoke("x", checkpoint_id="t")
    seen: list[Log] = []

    class Last:
        def on_step_end(self, info: StepInfo) -> None:
            seen.append(info.state)

    def modify(state: Log) -> None:
        state.items.append("edited")

    compiled.invoke(None, checkpoint_id="t", state_modifier=modify, callbacks=[Last()])
    assert seen[-1].items == ["a", "edited", "b", "c"]


def test_interrupt_info_state_is_a_deep_copy() -> None:
    compiled = _chain([]).compile(interrupt_before=["b"], checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError) as caught:
        compiled.invoke("x", checkpoint_id="t")
    caught.value.info.state.items.append("mutated")
    with pytest.raises(InterruptError) as again:
        compiled.invoke("x", checkpoint_id="other")
    assert again.value.info.state.items == ["a"]


def test_force_new_run_neither_reads_nor_writes_the_store() -> None:
    calls: list[str] = []
    store = InMemoryCheckpointStore()
    compiled = _chain(calls).compile(interrupt_before=["b"], checkpoint_store=store)
    with pytest.raises(InterruptError):
        compiled.invoke("x", checkpoint_id="t")
    saved = store.get("t")
    with pytest.raises(InterruptError) as caught:
        compiled.invoke("y", checkpoint_id="t", force_new_run=True)
    assert caught.value.checkpoint_id is None
    assert store.get("t") == saved
    assert calls == ["a", "a"]


def test_checkpoint_id_without_store_is_an_error() -> None:
    compiled = _chain([]).compile()
    with pytest.raises(GraphRunError, match="receive checkpoint id but have not set checkpoint store"):
        compiled.invoke("x", checkpoint_id="t")


def test_unknown_checkpoint_id_starts_a_new_run() -> None:
    compiled = _chain([]).compile(checkpoint_store=InMemoryCheckpointStore())
    assert compiled.invoke("x", checkpoint_id="never-saved") == "xabc"


def test_interrupt_without_checkpoint_id_still_reports_info() -> None:
    compiled = _chain([]).compile(interrupt_after=["a"])
    with pytest.raises(InterruptError) as caught:
        compiled.invoke("x")
    assert caught.value.checkpoint_id is None
    assert caught.value.info.after_nodes == ["a"]
    assert "[GraphRunError] interrupted" in str(caught.value)


# -- node interrupts ---------------------------------------------------------------------------------------


def _approval_graph(calls: list[str]) -> Graph:
    graph = Graph(state=Log)

    def draft(text: str) -> str:
        calls.append("draft")
        return text + "!"

    def approve(text: str) -> str:
        calls.append("approve")
        if not was_interrupted():
            interrupt({"question": f"ok to send {text}?"}, state={"seen": text})
        saved = get_interrupt_state()
        answer = get_resume_data()
        return f"{text}|{saved['seen']}|{answer}"

    def send(text: str) -> str:
        calls.append("send")
        return text.upper()

    graph.add_lambda_node("draft", draft)
    graph.add_lambda_node("approve", approve)
    graph.add_lambda_node("send", send)
    wire(graph, "draft", "approve", "send")
    return graph


def test_node_interrupt_makes_a_rerun_node_with_state_and_resume_data() -> None:
    calls: list[str] = []
    compiled = _approval_graph(calls).compile(checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError) as caught:
        compiled.invoke("hi", checkpoint_id="t")
    info = caught.value.info
    assert info.rerun_nodes == ["approve"]
    assert info.rerun_nodes_extra == {"approve": {"question": "ok to send hi!?"}}
    [ctx] = info.interrupt_contexts
    assert ctx.address == "runnable:;node:approve" and ctx.id == ctx.address and ctx.is_root_cause
    assert compiled.invoke(None, checkpoint_id="t", resume_data="yes") == "|HI!|YES"
    assert calls == ["draft", "approve", "approve", "send"]


def test_resume_data_targeted_at_an_address() -> None:
    compiled = _approval_graph([]).compile(checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError) as caught:
        compiled.invoke("hi", checkpoint_id="t")
    address = caught.value.info.interrupt_contexts[0].address
    assert compiled.invoke(None, checkpoint_id="t", resume_data={address: "sure"}) == "|HI!|SURE"


def test_pre_handler_interrupt_reruns_the_node_and_its_pre_handler() -> None:
    seen: list[str] = []

    def pre(text: str, state: Log) -> str:
        seen.append(text)
        if get_resume_data() is None:
            interrupt("need data")
        return text + str(get_resume_data())

    graph = Graph(state=Log)
    graph.add_lambda_node("a", lambda t: t + "a")
    graph.add_lambda_node("b", lambda t: t + "b", pre=pre)
    wire(graph, "a", "b")
    compiled = graph.compile(checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError) as caught:
        compiled.invoke("x", checkpoint_id="t")
    assert caught.value.info.rerun_nodes == ["b"]
    assert compiled.invoke(None, checkpoint_id="t", resume_data="!") == "!b"
    assert seen == ["xa", ""]  # the rerun gets the zero value of `pre`'s input type (Eino)


def test_parallel_branch_completes_and_only_the_interrupted_node_reruns() -> None:
    calls: list[str] = []
    graph = Graph()

    def left(_: str) -> dict[str, str]:
        calls.append("left")
        return {"left": "L"}

    def right(_: str) -> dict[str, str]:
        calls.append("right")
        if not was_interrupted():
            interrupt("wait")
        return {"right": "R"}

    graph.add_lambda_node("left", left)
    graph.add_lambda_node("right", right)
    graph.add_lambda_node("join", lambda d: f"{d['left']}{d['right']}")
    graph.add_edge(START, "left")
    graph.add_edge(START, "right")
    graph.add_edge("left", "join")
    graph.add_edge("right", "join")
    graph.add_edge("join", END)
    for mode in (TriggerMode.ALL_PREDECESSOR, TriggerMode.ANY_PREDECESSOR):
        calls.clear()
        compiled = graph.compile(trigger_mode=mode, checkpoint_store=InMemoryCheckpointStore())
        with pytest.raises(InterruptError) as caught:
            compiled.invoke("x", checkpoint_id="t")
        assert caught.value.info.rerun_nodes == ["right"]
        if mode is TriggerMode.ALL_PREDECESSOR:
            assert compiled.invoke(None, checkpoint_id="t") == "LR"
            assert calls == ["left", "right", "right"]


def test_step_end_reports_interrupted_nodes() -> None:
    ends: list[StepInfo] = []

    class Ends:
        def on_step_end(self, info: StepInfo) -> None:
            ends.append(info)

    compiled = _approval_graph([]).compile(checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError):
        compiled.invoke("hi", checkpoint_id="t", callbacks=[Ends()])
    assert [e.interrupted for e in ends] == [(), ("approve",)]
    assert ends[-1].errors == ()


def test_stream_mode_interrupt_and_resume() -> None:
    calls: list[str] = []
    compiled = _approval_graph(calls).compile(checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError):
        compiled.stream("hi", checkpoint_id="t")
    assert "".join(compiled.stream(None, checkpoint_id="t", resume_data="yes")) == "|HI!|YES"
    assert calls == ["draft", "approve", "approve", "send"]


async def _ainvoke(compiled: Any, *args: Any, **kwargs: Any) -> Any:
    return await compiled.ainvoke(*args, **kwargs)


def test_async_interrupt_and_resume() -> None:
    import asyncio

    calls: list[str] = []
    compiled = _approval_graph(calls).compile(checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError):
        asyncio.run(_ainvoke(compiled, "hi", checkpoint_id="t"))
    assert asyncio.run(_ainvoke(compiled, None, checkpoint_id="t", resume_data="y")) == "|HI!|Y"
