"""The public contract (`shared/docs/contract.md`), exercised from outside exactly as a user writes it.

Every name is imported from the module the contract names and called in the positional/keyword form the
contract shows. Behaviour is checked against `shared/docs/eino-semantics.md` where the contract defers to
it; the deeper Eino scenarios live in `tests/test_semantics_*.py`. Interrupts/checkpoints and the TUI are
covered by their owners' tests, not here.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from graph_core import END, START, Branch, CompiledGraph, Graph, Lambda, TriggerMode, process_state
from graph_core.agents.adk import ChatModelAgent, ExceedMaxIterationsError
from graph_core.agents.react import ReActAgent, set_return_directly
from graph_core.errors import GraphBuildError, GraphError, GraphRunError, MaxStepsExceededError, NodeRunError
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall, ToolInfo
from graph_core.tools import ToolsNode, get_tool_call_id, tool
from tests.helpers import wire

REPO = Path(__file__).resolve().parents[1]


# -- helpers ---------------------------------------------------------------------------------------------


@dataclass
class Log:
    """A callback object with every contract timing, recording what it saw."""

    events: list[tuple[str, Any, Any]] = field(default_factory=lambda: [])
    steps: list[tuple[str, Any]] = field(default_factory=lambda: [])

    def on_start(self, info: Any, input: Any) -> None:
        self.events.append(("start", info, input))

    def on_end(self, info: Any, output: Any) -> None:
        self.events.append(("end", info, output))

    def on_error(self, info: Any, error: BaseException) -> None:
        self.events.append(("error", info, error))

    def on_step_start(self, step: Any) -> None:
        self.steps.append(("start", step))

    def on_step_end(self, step: Any) -> None:
        self.steps.append(("end", step))

    def node_starts(self) -> list[str | None]:
        return [info.node_key for kind, info, _ in self.events if kind == "start"]


def calls(*names: str, text: str = "") -> Message:
    """An assistant message calling each named tool once (IDs `c0`, `c1`, ...), arguments `{}`."""
    return Message.assistant(text, tool_calls=[ToolCall(f"c{i}", n, "{}") for i, n in enumerate(names)])


def answer(text: str) -> Message:
    return Message.assistant(text)


@tool
def echo(text: str) -> str:
    """Repeat the text.

    Args:
        text: What to repeat.
    """
    return f"echo:{text}"


@tool
def ping() -> str:
    """Answer pong."""
    return "pong"


def linear(*keys: str, state: Any = None, fn: Any = None) -> Graph:
    """START -> keys... -> END, each node appending its key to a string input."""
    g = Graph(state=state)
    for key in keys:
        g.add_lambda_node(key, fn or (lambda x, k=key: f"{x}{k}"))
    chain = [START, *keys, END]
    for a, b in itertools.pairwise(chain):
        g.add_edge(a, b)
    return g


# -- imports and constants -------------------------------------------------------------------------------


def test_start_and_end_are_einos_literal_node_keys() -> None:
    assert START == "start"
    assert END == "end"


def test_error_hierarchy() -> None:
    assert issubclass(GraphBuildError, GraphError) and issubclass(GraphBuildError, ValueError)
    assert issubclass(GraphRunError, GraphError)
    assert issubclass(MaxStepsExceededError, GraphRunError)
    assert issubclass(NodeRunError, GraphError)
    assert issubclass(ExceedMaxIterationsError, GraphError)


# -- building and compiling ------------------------------------------------------------------------------


def test_state_factory_is_called_once_per_run() -> None:
    made: list[dict[str, int]] = []

    def factory() -> dict[str, int]:
        made.append({"n": 0})
        return made[-1]

    def count(s: dict[str, int]) -> None:
        s["n"] += 1

    def bump(x: int) -> int:
        process_state(dict, count)
        return x + 1

    g = Graph(state=factory)
    g.add_lambda_node("a", bump)
    g.add_lambda_node("b", bump)
    wire(g, "a", "b")
    compiled = g.compile()
    assert made == []
    assert compiled.invoke(0) == 2
    assert compiled.invoke(10) == 12
    assert made == [{"n": 2}, {"n": 2}]


def test_graph_without_state_positional_default() -> None:
    compiled = linear("a", "b").compile()
    assert isinstance(compiled, CompiledGraph)
    assert compiled.invoke("") == "ab"


def test_lambda_node_accepts_plain_async_and_lambda_bundles() -> None:
    async def add_async(x: str) -> str:
        await asyncio.sleep(0)
        return x + "A"

    def stream_only(x: str) -> Iterator[str]:
        yield x
        yield "S"

    def collect_only(chunks: Iterator[str]) -> str:
        return "".join(chunks) + "C"

    def transform_only(chunks: Iterator[str]) -> Iterator[str]:
        for c in chunks:
            yield c.upper()

    g = Graph()
    g.add_lambda_node("plain", lambda x: x + "p")
    g.add_lambda_node("async", add_async)
    g.add_lambda_node("stream", Lambda(stream=stream_only))
    g.add_lambda_node("collect", Lambda(collect=collect_only))
    g.add_lambda_node("transform", Lambda(transform=transform_only))
    for a, b in [
        (START, "plain"),
        ("plain", "async"),
        ("async", "stream"),
        ("stream", "collect"),
        ("collect", "transform"),
        ("transform", END),
    ]:
        g.add_edge(a, b)
    compiled = g.compile()
    assert compiled.invoke("x") == "XPASC"
    assert "".join(compiled.stream("x")) == "XPASC"
    assert asyncio.run(compiled.ainvoke("x")) == "XPASC"


def test_ainvoke_overlaps_the_async_tasks_of_one_step() -> None:
    async def scenario() -> Any:
        left_ready, right_ready = asyncio.Event(), asyncio.Event()

        async def left(x: Any) -> dict[str, str]:
            left_ready.set()
            await right_ready.wait()  # deadlocks unless `right` runs at the same time
            return {"left": "ok"}

        async def right(x: Any) -> dict[str, str]:
            right_ready.set()
            await left_ready.wait()
            return {"right": "ok"}

        g = Graph()
        g.add_lambda_node("left", left)
        g.add_lambda_node("right", right)
        g.add_edge(START, "left")
        g.add_edge(START, "right")
        g.add_edge("left", END)
        g.add_edge("right", END)
        return await asyncio.wait_for(g.compile().ainvoke(None), timeout=5)

    assert asyncio.run(scenario()) == {"left": "ok", "right": "ok"}


def test_invoke_runs_invoke_mode_and_stream_runs_stream_mode() -> None:
    used: list[str] = []

    def inv(x: str) -> str:
        used.append("invoke")
        return x + "!"

    def tr(chunks: Iterator[str]) -> Iterator[str]:
        used.append("transform")
        for c in chunks:
            yield c + "!"

    g = Graph()
    g.add_lambda_node("n", Lambda(invoke=inv, transform=tr))
    wire(g, "n")
    compiled = g.compile()
    assert compiled.invoke("a") == "a!"
    assert used == ["invoke"]
    assert list(compiled.stream("a")) == ["a!"]
    assert used == ["invoke", "transform"]

    async def collect_async() -> list[str]:
        return [c async for c in compiled.astream("b")]

    assert asyncio.run(collect_async()) == ["b!"]
    assert used[-1] == "transform"


def test_node_keyword_options_name_pre_post_input_key_output_key() -> None:
    @dataclass
    class S:
        seen: list[Any] = field(default_factory=lambda: [])

    def pre(input: Any, state: S) -> Any:
        state.seen.append(("pre", input))
        return input

    def post(output: Any, state: S) -> Any:
        state.seen.append(("post", output))
        return output

    states: list[S] = []

    def factory() -> S:
        states.append(S())
        return states[-1]

    g = Graph(state=factory)
    g.add_lambda_node(
        "double", lambda v: v * 2, name="Doubler", pre=pre, post=post, input_key="x", output_key="y"
    )
    wire(g, "double")
    compiled = g.compile()
    assert compiled.invoke({"x": 4, "other": 1}) == {"y": 8}
    # as in Eino, the key options wrap the node itself: handlers see the whole map in and the keyed map out
    assert states[0].seen == [("pre", {"x": 4, "other": 1}), ("post", {"y": 8})]
    node = compiled.topology().node("double")
    assert (node.name, node.kind) == ("Doubler", "Lambda")


def test_pre_handler_runs_before_on_start_and_post_after_on_end() -> None:
    order: list[str] = []

    class Tracker:
        def on_start(self, info: Any, input: Any) -> None:
            if info.node_key == "n":
                order.append(f"on_start:{input}")

        def on_end(self, info: Any, output: Any) -> None:
            if info.node_key == "n":
                order.append(f"on_end:{output}")

    def pre(x: str, state: dict[str, Any]) -> str:
        order.append("pre")
        return x + "<"

    def post(x: str, state: dict[str, Any]) -> str:
        order.append("post")
        return x + ">"

    g = Graph(state=dict)
    g.add_lambda_node("n", lambda x: order.append("node") or x + "n", pre=pre, post=post)
    wire(g, "n")
    assert g.compile().invoke("", callbacks=[Tracker()]) == "<n>"
    assert order == ["pre", "on_start:<", "node", "on_end:<n", "post"]


def test_chat_model_tools_graph_and_passthrough_nodes() -> None:
    model = ScriptedChatModel([calls("ping")])
    inner = linear("i1")
    g = Graph()
    g.add_lambda_node("ask", lambda q: [Message.user(q)])
    g.add_chat_model_node("chat", model, name="Model")
    g.add_tools_node("tools", ToolsNode([ping]), name="Tools")
    g.add_lambda_node("contents", lambda msgs: "".join(m.content for m in msgs))
    g.add_graph_node("sub", inner, name="Sub")
    g.add_passthrough_node("pass")
    for a, b in [
        (START, "ask"),
        ("ask", "chat"),
        ("chat", "tools"),
        ("tools", "contents"),
        ("contents", "sub"),
        ("sub", "pass"),
        ("pass", END),
    ]:
        g.add_edge(a, b)
    compiled = g.compile()
    assert compiled.invoke("hi") == "pongi1"
    kinds = {n.key: n.kind for n in compiled.topology().nodes}
    assert kinds == {
        "start": "start",
        "ask": "Lambda",
        "chat": "ChatModel",
        "tools": "ToolsNode",
        "contents": "Lambda",
        "sub": "Graph",
        "pass": "Passthrough",
        "end": "end",
    }
    assert compiled.topology().node("sub").graph is not None
    assert model.calls == [[Message.user("hi")]]


def test_chat_tools_graph_nodes_accept_the_same_keyword_options() -> None:
    g = Graph(state=dict)

    def keep(x: Any, s: dict[str, Any]) -> Any:
        return x

    g.add_chat_model_node(
        "m", ScriptedChatModel([answer("ok")]), name="M", pre=keep, post=keep, input_key="q"
    )
    g.add_tools_node("t", ToolsNode([ping]), name="T", pre=keep, post=keep, output_key="r")
    g.add_graph_node("g", linear("x"), name="G", pre=keep, post=keep, input_key="a", output_key="b")
    g.add_passthrough_node("p")
    wire(g, "m")
    wire(g, "g")
    wire(g, "t", "p")
    topo = g.compile().topology()
    assert [(n.key, n.name) for n in topo.nodes[1:-1]] == [("m", "M"), ("t", "T"), ("g", "G"), ("p", "")]
    assert topo.node("m").input_key == "q" and topo.node("t").output_key == "r"


@pytest.mark.parametrize("asynchronous", [False, True])
def test_branch_single_and_multi(asynchronous: bool) -> None:
    def pick(x: str) -> str:
        return "b" if x == "go-b" else "c"

    async def apick(x: str) -> str:
        return pick(x)

    def pick_many(x: str) -> set[str]:
        return {"b", "c"}

    async def apick_many(x: str) -> set[str]:
        return pick_many(x)

    g = Graph()
    g.add_lambda_node("a", lambda x: x)
    g.add_lambda_node("b", lambda x: {"b": x})
    g.add_lambda_node("c", lambda x: {"c": x})
    g.add_edge(START, "a")
    g.add_branch("a", Branch(apick if asynchronous else pick, ["b", "c"]))
    g.add_edge("b", END)
    g.add_edge("c", END)
    compiled = g.compile()
    assert compiled.invoke("go-b") == {"b": "go-b"}
    assert compiled.invoke("other") == {"c": "other"}

    m = Graph()
    m.add_lambda_node("a", lambda x: x)
    m.add_lambda_node("b", lambda x: {"b": x})
    m.add_lambda_node("c", lambda x: {"c": x})
    m.add_edge(START, "a")
    m.add_branch("a", Branch.multi(apick_many if asynchronous else pick_many, ["b", "c"]))
    m.add_edge("b", END)
    m.add_edge("c", END)
    assert m.compile().invoke("v") == {"b": "v", "c": "v"}


@pytest.mark.parametrize("asynchronous", [False, True])
def test_stream_branches_receive_an_iterator(asynchronous: bool) -> None:
    seen: list[list[str]] = []

    def first(chunks: Iterator[str]) -> str:
        got = list(chunks)
        seen.append(got)
        return "b" if got[0].startswith("b") else END

    async def afirst(chunks: Iterator[str]) -> str:
        return first(chunks)

    def both(chunks: Iterator[str]) -> list[str]:
        seen.append(list(chunks))
        return ["b", "c"]

    async def aboth(chunks: Iterator[str]) -> list[str]:
        return both(chunks)

    def words(x: str) -> Iterator[str]:
        yield from x.split()

    g = Graph()
    g.add_lambda_node("a", Lambda(stream=words))
    g.add_lambda_node("b", lambda x: f"[{x}]")
    g.add_edge(START, "a")
    g.add_branch("a", Branch.stream(afirst if asynchronous else first, ["b", END]))
    g.add_edge("b", END)
    compiled = g.compile()
    assert compiled.invoke("b1 b2") == "[b1b2]"
    assert seen[-1] == ["b1b2"]  # invoke mode: a 1-chunk stream holding the whole output
    assert "".join(compiled.stream("b1 b2")) == "[b1b2]"
    assert seen[-1] == ["b1", "b2"]  # stream mode: the live chunks

    m = Graph()
    m.add_lambda_node("a", Lambda(stream=words))
    m.add_lambda_node("b", lambda x: {"b": x})
    m.add_lambda_node("c", lambda x: {"c": x})
    m.add_edge(START, "a")
    m.add_branch("a", Branch.stream_multi(aboth if asynchronous else both, ["b", "c"]))
    m.add_edge("b", END)
    m.add_edge("c", END)
    assert m.compile().invoke("x y") == {"b": "xy", "c": "xy"}


def test_branch_ends_may_be_an_eino_style_map_of_allowed_targets() -> None:
    g = Graph()
    g.add_lambda_node("a", lambda x: x)
    g.add_lambda_node("b", lambda x: "b")
    g.add_lambda_node("c", lambda x: "c")
    g.add_edge(START, "a")
    g.add_branch("a", Branch(lambda x: x, {"b": True, "c": False}))
    g.add_edge("b", END)
    g.add_edge("c", END)
    compiled = g.compile()
    assert compiled.invoke("b") == "b"
    with pytest.raises(GraphRunError, match="unintended end node: c"):
        compiled.invoke("c")


def test_process_state_holds_the_state_lock_across_parallel_nodes() -> None:
    import time

    def slow_increment(state: dict[str, int]) -> int:
        seen = state["n"]
        time.sleep(0.005)
        state["n"] = seen + 1
        return state["n"]

    keys = [f"w{i}" for i in range(4)]
    g = Graph(state=lambda: {"n": 0})
    for key in keys:
        g.add_lambda_node(key, lambda x, key=key: {key: process_state(dict, slow_increment)})
        g.add_edge(START, key)
        g.add_edge(key, END)
    merged = g.compile().invoke(None)
    assert sorted(merged.values()) == [1, 2, 3, 4]  # no lost update: each ran under the lock


def test_build_errors_name_the_node_or_edge() -> None:
    g = Graph()
    g.add_lambda_node("a", lambda x: x)
    with pytest.raises(GraphBuildError, match="'a'"):
        g.add_lambda_node("a", lambda x: x)

    g2 = Graph()
    g2.add_lambda_node("a", lambda x: x)
    with pytest.raises(GraphBuildError, match="ghost"):
        g2.add_edge("a", "ghost")

    g3 = Graph()
    with pytest.raises(ValueError, match=START):
        g3.add_lambda_node(START, lambda x: x)

    g4 = Graph()
    g4.add_lambda_node("a", lambda x: x)
    with pytest.raises(GraphBuildError, match="nowhere"):
        g4.add_branch("a", Branch(lambda x: "nowhere", ["nowhere"]))

    g5 = Graph()
    g5.add_lambda_node("a", lambda x: x)
    g5.add_edge("a", END)
    with pytest.raises(GraphBuildError, match="start"):  # no edge out of START
        g5.compile()


def test_sticky_build_error_is_raised_again_by_compile() -> None:
    g = Graph()
    with pytest.raises(GraphBuildError) as first:
        g.add_edge("x", END)
    with pytest.raises(GraphBuildError) as again:
        g.compile()
    assert str(again.value) == str(first.value)


def test_compiled_graph_refuses_mutation_but_compiles_again_and_embeds() -> None:
    inner = linear("i")
    compiled = inner.compile()
    with pytest.raises(GraphBuildError, match="compiled"):
        inner.add_lambda_node("late", lambda x: x)
    with pytest.raises(GraphBuildError):
        inner.add_edge(START, END)
    assert inner.compile().invoke("") == "i"
    outer = Graph()
    outer.add_graph_node("sub", inner)
    outer.add_graph_node("sub2", compiled)
    wire(outer, "sub", "sub2")
    assert outer.compile().invoke(">") == ">ii"


def test_compile_keywords_and_resolved_max_run_steps() -> None:
    g = linear("a", "b", "c")
    compiled = g.compile(
        name="three",
        trigger_mode=TriggerMode.ANY_PREDECESSOR,
        max_run_steps=None,
        interrupt_before=(),
        interrupt_after=(),
        checkpoint_store=None,
    )
    assert compiled.max_run_steps == 3 + 10
    assert compiled.topology().name == "three"
    assert linear("a").compile(max_run_steps=4).max_run_steps == 4
    dag = linear("a", "b").compile(trigger_mode=TriggerMode.ALL_PREDECESSOR)
    assert dag.topology().trigger_mode == TriggerMode.ALL_PREDECESSOR
    assert dag.invoke("") == "ab"


def test_invoke_keywords_callbacks_max_steps_checkpoint_id() -> None:
    compiled = linear("a", "b", "c").compile()
    log = Log()
    assert compiled.invoke("", callbacks=(log,), max_steps=None, checkpoint_id=None) == "abc"
    assert log.events
    with pytest.raises(MaxStepsExceededError, match="exceeds max steps"):
        compiled.invoke("", max_steps=2)
    assert compiled.invoke("", max_steps=3) == "abc"


def test_max_steps_exceeded_is_a_graph_run_error_with_einos_text() -> None:
    g = Graph()
    g.add_lambda_node("loop", lambda x: x + 1)
    g.add_edge(START, "loop")
    g.add_branch("loop", Branch(lambda x: "loop", ["loop", END]))
    compiled = g.compile(max_run_steps=5)
    with pytest.raises(GraphRunError) as info:
        compiled.invoke(0)
    assert isinstance(info.value, MaxStepsExceededError)
    assert "exceeds max steps" in str(info.value)


def test_node_run_error_has_node_path_and_cause() -> None:
    boom = KeyError("missing")

    def fail(x: Any) -> Any:
        raise boom

    inner = Graph()
    inner.add_lambda_node("deep", fail)
    wire(inner, "deep")
    outer = Graph()
    outer.add_graph_node("sub", inner)
    wire(outer, "sub")
    with pytest.raises(NodeRunError) as info:
        outer.compile().invoke(1)
    assert info.value.node_path == ["sub", "deep"]
    assert info.value.__cause__ is boom
    assert isinstance(info.value, GraphError)


def test_process_state_uses_innermost_state_of_the_type_and_returns_result() -> None:
    @dataclass
    class Outer:
        hits: int = 0

    @dataclass
    class Inner:
        hits: int = 0

    outer_states: list[Outer] = []
    inner_states: list[Outer] = []

    def outer_factory() -> Outer:
        outer_states.append(Outer())
        return outer_states[-1]

    def inner_factory() -> Outer:  # same type as the outer state: shadows it
        inner_states.append(Outer())
        return inner_states[-1]

    def bump_outer_type(x: int) -> int:
        def f(s: Outer) -> int:
            s.hits += 1
            return s.hits

        return process_state(Outer, f)

    inner = Graph(state=inner_factory)
    inner.add_lambda_node("bump", bump_outer_type)
    wire(inner, "bump")
    outer = Graph(state=outer_factory)
    outer.add_lambda_node("first", bump_outer_type)
    outer.add_graph_node("sub", inner)
    wire(outer, "first", "sub")
    assert outer.compile().invoke(0) == 1  # the inner state's first hit
    assert outer_states[0].hits == 1
    assert inner_states[0].hits == 1

    # a type only the outer graph has is found through the chain
    inner2 = Graph(state=Inner)
    inner2.add_lambda_node("reach", lambda x: process_state(Outer, lambda s: s.hits))
    wire(inner2, "reach")
    outer2 = Graph(state=lambda: Outer(hits=41))
    outer2.add_graph_node("sub", inner2)
    wire(outer2, "sub")
    assert outer2.compile().invoke(None) == 41


def test_process_state_without_state_fails_clearly() -> None:
    g = Graph()
    g.add_lambda_node("n", lambda x: process_state(dict, lambda s: s))
    wire(g, "n")
    with pytest.raises(NodeRunError, match="have not set state"):
        g.compile().invoke(1)


# -- callbacks -------------------------------------------------------------------------------------------


def test_callbacks_info_fields_for_graph_and_nodes() -> None:
    inner = Graph()
    inner.add_lambda_node("leaf", lambda x: x + 1, name="Leaf")
    wire(inner, "leaf")
    g = Graph()
    g.add_lambda_node("first", lambda x: x + 1, name="First")
    g.add_graph_node("sub", inner, name="Sub")
    g.add_passthrough_node("pass")
    wire(g, "first", "sub", "pass")
    log = Log()
    assert g.compile(name="outer").invoke(0, callbacks=[log]) == 2

    starts = [(i.node_key, i.name, i.kind, tuple(i.path), i.step) for k, i, _ in log.events if k == "start"]
    graph_start = starts[0]
    assert graph_start[0] is None and graph_start[1] == "outer" and graph_start[2] == "Graph"
    assert ("first", "First", "Lambda", ("first",), 0) in starts
    sub = next(s for s in starts if s[0] == "sub")
    assert sub[1:] == ("Sub", "Graph", ("sub",), 1)
    leaf = next(s for s in starts if s[0] == "leaf")
    assert leaf[1:4] == ("Leaf", "Lambda", ("sub", "leaf"))
    assert "pass" not in [s[0] for s in starts]  # passthrough nodes fire no callbacks

    ends = [(i.node_key, out) for k, i, out in log.events if k == "end"]
    assert ends[-1] == (None, 2)  # graph on_end fires last with the output
    assert ("first", 1) in ends
    assert log.events[0][0] == "start" and log.events[0][2] == 0


def test_on_error_fires_for_node_and_graph() -> None:
    def fail(x: Any) -> Any:
        raise RuntimeError("nope")

    g = Graph()
    g.add_lambda_node("bad", fail)
    wire(g, "bad")
    log = Log()
    with pytest.raises(NodeRunError):
        g.compile().invoke(1, callbacks=[log])
    errors = [(i.node_key, e) for k, i, e in log.events if k == "error"]
    assert [key for key, _ in errors] == ["bad", None]
    assert isinstance(errors[0][1], RuntimeError)


def test_step_callbacks_mark_superstep_boundaries() -> None:
    log = Log()
    linear("a", "b").compile().invoke("", callbacks=[log])
    kinds = [(k, s.index, tuple(s.nodes)) for k, s in log.steps if not s.path]
    assert kinds == [("start", 0, ("a",)), ("end", 0, ("a",)), ("start", 1, ("b",)), ("end", 1, ("b",))]


def test_callbacks_with_only_some_methods_are_fine() -> None:
    class OnlyEnd:
        def __init__(self) -> None:
            self.outputs: list[Any] = []

        def on_end(self, info: Any, output: Any) -> None:
            self.outputs.append(output)

    cb = OnlyEnd()
    assert linear("a").compile().invoke("", callbacks=[cb]) == "a"
    assert cb.outputs == ["a", "a"]


def test_tool_calls_inside_a_tools_node_report_kind_tool_with_the_tool_name() -> None:
    model = ScriptedChatModel([calls("ping", "echo"), answer("ok")])
    agent = ReActAgent(model=model, tools=[ping, echo], tool_arguments_handler=lambda n, a: '{"text": "t"}')
    log = Log()
    agent.invoke([Message.user("q")], callbacks=[log])
    tools = [
        (i.name, i.kind, i.node_key, tuple(i.path))
        for k, i, _ in log.events
        if k == "start" and i.kind == "Tool"
    ]
    assert sorted(tools) == [("echo", "Tool", "tools", ("tools",)), ("ping", "Tool", "tools", ("tools",))]
    kinds = {i.node_key: (i.name, i.kind) for k, i, _ in log.events if k == "start" and i.kind != "Tool"}
    assert kinds == {
        None: ("ReActAgent", "Graph"),
        "chat": ("ChatModel", "ChatModel"),
        "tools": ("Tools", "ToolsNode"),
    }


# -- schema, tools, models -------------------------------------------------------------------------------


def test_message_constructors() -> None:
    m = Message("user")
    assert (m.role, m.content, m.tool_calls, m.tool_call_id, m.tool_name, m.name) == (
        "user",
        "",
        [],
        None,
        None,
        None,
    )
    m2 = Message("assistant", content="hi", tool_calls=[ToolCall("1", "f", "{}")], name="bot")
    assert m2.tool_calls[0].name == "f" and m2.name == "bot"
    assert Message.user("q") == Message("user", "q")
    assert Message.system("s").role == "system"
    a = Message.assistant("x", tool_calls=[ToolCall("id", "n", '{"a": 1}', index=0)])
    assert a.role == "assistant" and a.tool_calls[0].index == 0
    t = Message.tool("out", tool_call_id="id", tool_name="n")
    assert (t.role, t.content, t.tool_call_id, t.tool_name) == ("tool", "out", "id", "n")
    # pydantic: validates and round-trips through JSON
    assert Message.model_validate_json(a.model_dump_json()) == a
    with pytest.raises(ValueError):
        Message("wizard")  # type: ignore[arg-type]


def test_tool_call_and_tool_info_positional_forms() -> None:
    call = ToolCall("call_1", "get_weather", '{"city": "Paris"}')
    assert (call.id, call.name, call.arguments, call.index) == (
        "call_1",
        "get_weather",
        '{"city": "Paris"}',
        None,
    )
    assert json.loads(call.arguments) == {"city": "Paris"}
    assert ToolCall("c", "n", "{}", 2).index == 2
    params = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    info = ToolInfo("search", "Search things", params)
    assert (info.name, info.description, info.parameters) == ("search", "Search things", params)


def test_tool_decorator_plain_and_with_options_sync_and_async() -> None:
    @tool
    def add(a: int, b: int = 2) -> int:
        """Add numbers."""
        return a + b

    @tool(name="mul", description="Multiply two numbers")
    async def multiply(a: int, b: int) -> int:
        return a * b

    assert isinstance(add.info, ToolInfo)
    assert add.info.name == "add" and "Add numbers" in add.info.description
    props = add.info.parameters["properties"]
    assert props["a"]["type"] == "integer" and "a" in add.info.parameters.get("required", [])
    assert "b" not in add.info.parameters.get("required", [])
    assert multiply.info.name == "mul" and multiply.info.description == "Multiply two numbers"
    assert add.invoke('{"a": 1}') == "3"
    assert asyncio.run(multiply.ainvoke('{"a": 3, "b": 4}')) == "12"


def test_tools_node_outputs_tool_messages_in_call_order_with_call_ids() -> None:
    seen_ids: list[str] = []

    @tool
    def slow(n: int) -> str:
        """Sleep a little then answer."""
        import time

        time.sleep(0.02)
        seen_ids.append(get_tool_call_id())
        return f"slow{n}"

    @tool
    def fast(n: int) -> str:
        """Answer at once."""
        seen_ids.append(get_tool_call_id())
        return f"fast{n}"

    node = ToolsNode([slow, fast])
    msg = Message.assistant(
        "", tool_calls=[ToolCall("a", "slow", '{"n": 1}'), ToolCall("b", "fast", '{"n": 2}')]
    )
    out = node.invoke(msg)
    assert [(m.role, m.content, m.tool_call_id, m.tool_name) for m in out] == [
        ("tool", "slow1", "a", "slow"),
        ("tool", "fast2", "b", "fast"),
    ]
    assert sorted(seen_ids) == ["a", "b"]
    assert get_tool_call_id() in ("", None)  # outside a call

    seq = ToolsNode([slow, fast], execute_sequentially=True)
    seen_ids.clear()
    seq.invoke(msg)
    assert seen_ids == ["a", "b"]


def test_tools_node_handlers_take_name_and_json_arguments() -> None:
    got: list[tuple[str, str]] = []

    def unknown(name: str, arguments: str) -> str:
        got.append(("unknown", name + arguments))
        return f"no tool {name}"

    def fix_args(name: str, arguments: str) -> str:
        got.append(("args", name + arguments))
        return '{"text": "fixed"}'

    node = ToolsNode([echo], unknown_tools_handler=unknown, tool_arguments_handler=fix_args, middlewares=())
    out = node.invoke(
        Message.assistant(
            "", tool_calls=[ToolCall("1", "echo", '{"text": 1}'), ToolCall("2", "nope", '{"x":1}')]
        )
    )
    assert [m.content for m in out] == ["echo:fixed", "no tool nope"]
    assert [m.tool_name for m in out] == ["echo", "nope"]
    assert sorted(got) == [("args", 'echo{"text": 1}'), ("unknown", 'nope{"x":1}')]


def test_scripted_model_entries_whole_chunks_and_exceptions() -> None:
    whole = Message.assistant("whole")
    chunks = [Message.assistant("ab"), Message.assistant("cd")]
    model = ScriptedChatModel([whole, chunks, ValueError("scripted failure"), whole, chunks])
    first = [Message.user("1")]
    assert model.generate(first).content == "whole"
    assert model.generate([Message.user("2")]).content == "abcd"  # chunks concatenated for invoke
    with pytest.raises(ValueError, match="scripted failure"):
        model.generate([Message.user("3")])
    assert [c.content for c in model.stream([Message.user("4")])] == ["whole"]  # one chunk
    assert [c.content for c in model.stream([Message.user("5")])] == ["ab", "cd"]  # chunk by chunk
    assert [c[0].content for c in model.calls] == ["1", "2", "3", "4", "5"]
    with pytest.raises(Exception, match="script") as exhausted:
        model.generate([Message.user("6")])
    assert isinstance(exhausted.value, GraphError | IndexError)


def test_scripted_model_tool_bound_copies_share_position_and_calls() -> None:
    model = ScriptedChatModel([answer("one"), answer("two")])
    bound = model.with_tools([ping.info])
    assert bound.generate([Message.user("a")]).content == "one"
    assert model.generate([Message.user("b")]).content == "two"
    assert [c[0].content for c in model.calls] == ["a", "b"]
    assert bound.calls is model.calls or bound.calls == model.calls


def test_openai_chat_model_constructor_and_http_errors_without_the_key() -> None:
    from graph_core.models import OpenAIChatModel
    from tests.graph_core.openai_server import ChatServer, Reply, completion

    secret = "sk-contract-secret-123"
    with ChatServer() as server:
        server.script(
            Reply.json({"error": {"message": "busy"}}, status=429, headers={"Retry-After": "0"}),
            Reply.json(completion("hello")),
            Reply.json({"error": {"message": "bad key"}}, status=401),
        )
        model = OpenAIChatModel(
            model="m", base_url=server.base_url, api_key=secret, timeout=5.0, max_retries=2
        )
        assert model.generate([Message.user("hi")]).content == "hello"
        first = server.requests[0]
        assert first.path.endswith("/chat/completions")
        assert {k.lower(): v for k, v in first.headers.items()}["authorization"] == f"Bearer {secret}"
        with pytest.raises(Exception) as info:
            model.generate([Message.user("hi")])
        assert "401" in str(info.value) and secret not in str(info.value)


# -- agents ----------------------------------------------------------------------------------------------


def test_react_agent_keyword_options_node_keys_and_names() -> None:
    model = ScriptedChatModel([calls("ping"), answer("done")])
    agent = ReActAgent(
        model=model,
        tools=[ping],
        max_step=0,
        tool_return_directly=(),
        message_modifier=None,
        message_rewriter=None,
        stream_tool_call_checker=None,
        graph_name="MyAgent",
        model_node_name="Brain",
        tools_node_name="Hands",
        execute_sequentially=True,
        unknown_tools_handler=None,
        tool_arguments_handler=None,
        tool_middlewares=(),
    )
    assert isinstance(agent.compiled, CompiledGraph)
    assert isinstance(agent.graph, Graph)
    topo = agent.compiled.topology()
    assert [n.key for n in topo.nodes] == ["start", "chat", "tools", "direct_return", "end"]
    assert {n.key: n.name for n in topo.nodes}["chat"] == "Brain"
    assert {n.key: n.name for n in topo.nodes}["tools"] == "Hands"
    assert topo.name == "MyAgent"
    assert agent.compiled.max_run_steps == 13
    result = agent.invoke([Message.user("hi")])
    assert (result.role, result.content) == ("assistant", "done")


def test_react_agent_invoke_stream_ainvoke_astream() -> None:
    def fresh() -> ReActAgent:
        script: list[Any] = [calls("ping"), [Message.assistant("fi"), Message.assistant("nal")]]
        return ReActAgent(model=ScriptedChatModel(script), tools=[ping])

    assert fresh().invoke([Message.user("q")]).content == "final"
    assert [c.content for c in fresh().stream([Message.user("q")])] == ["fi", "nal"]
    assert asyncio.run(fresh().ainvoke([Message.user("q")])).content == "final"

    async def pull() -> list[str]:
        stream: AsyncIterator[Message] = fresh().astream([Message.user("q")])
        return [c.content async for c in stream]

    assert asyncio.run(pull()) == ["fi", "nal"]


def test_react_agent_hooks_take_and_return_message_lists() -> None:
    seen: dict[str, list[list[Message]]] = {"modifier": [], "rewriter": [], "checker": []}

    def modifier(messages: list[Message]) -> list[Message]:
        seen["modifier"].append(list(messages))
        return [Message.system("be brief"), *messages]

    def rewriter(messages: list[Message]) -> list[Message]:
        seen["rewriter"].append(list(messages))
        return messages

    def checker(chunks: Iterator[Message]) -> bool:
        got = list(chunks)
        assert all(isinstance(c, Message) for c in got)
        seen["checker"].append(got)
        return any(c.tool_calls for c in got)

    model = ScriptedChatModel([calls("ping"), answer("ok")])
    agent = ReActAgent(
        model=model,
        tools=[ping],
        message_modifier=modifier,
        message_rewriter=rewriter,
        stream_tool_call_checker=checker,
    )
    assert agent.invoke([Message.user("q")]).content == "ok"
    assert len(seen["modifier"]) == 2 and len(seen["rewriter"]) == 2 and len(seen["checker"]) == 2
    assert model.calls[0][0] == Message.system("be brief")
    assert [m.role for m in model.calls[1]] == ["system", "user", "assistant", "tool"]


def test_react_agent_graph_embeds_as_a_nested_graph() -> None:
    agent = ReActAgent(model=ScriptedChatModel([answer("inner answer")]), tools=[ping])
    outer = Graph()
    outer.add_lambda_node("ask", lambda q: [Message.user(q)])
    outer.add_graph_node("agent", agent.graph)
    outer.add_lambda_node("text", lambda m: m.content)
    wire(outer, "ask", "agent", "text")
    assert outer.compile().invoke("q") == "inner answer"


def test_set_return_directly_inside_a_tool_overrides_the_config() -> None:
    @tool
    def finish(text: str) -> str:
        """Finish with this text."""
        set_return_directly()
        return f"final:{text}"

    script = [Message.assistant("", tool_calls=[ToolCall("c1", "finish", '{"text": "x"}')])]
    agent = ReActAgent(model=ScriptedChatModel(script), tools=[finish, ping], tool_return_directly=["ping"])
    out = agent.invoke([Message.user("q")])
    assert (out.role, out.content, out.tool_call_id, out.tool_name) == ("tool", "final:x", "c1", "finish")


def test_chat_model_agent_options_node_keys_events() -> None:
    model = ScriptedChatModel([calls("ping"), answer("done")])
    agent = ChatModelAgent(
        name="helper", model=model, tools=(ping,), instruction="You help.", max_iterations=20
    )
    assert isinstance(agent.compiled, CompiledGraph)
    keys = [n.key for n in agent.compiled.topology().nodes]
    assert keys == [
        "start",
        "Init",
        "ChatModel",
        "CancelCheck",
        "ToolNode",
        "AfterToolCalls",
        "AfterToolCallsCancelCheck",
        "end",
    ]
    events = list(agent.run([Message.user("hi")]))
    assert all(hasattr(e, "message") and hasattr(e, "error") and hasattr(e, "action") for e in events)
    assert [(e.message.role, e.message.content) for e in events if e.message is not None] == [
        ("assistant", ""),
        ("tool", "pong"),
        ("assistant", "done"),
    ]
    assert all(e.error is None for e in events)
    assert model.calls[0][0] == Message.system("You help.")


def test_chat_model_agent_return_directly_adds_the_converter_node() -> None:
    @tool
    def stop(text: str) -> str:
        """Stop."""
        return text

    script = [Message.assistant("", tool_calls=[ToolCall("c1", "stop", '{"text": "bye"}')])]
    agent = ChatModelAgent(name="a", model=ScriptedChatModel(script), tools=[stop], return_directly=["stop"])
    assert "ToolNodeToEndConverter" in [n.key for n in agent.compiled.topology().nodes]
    events = list(agent.run([Message.user("hi")]))
    assert events[-1].message is not None and events[-1].message.content == "bye"


def test_chat_model_agent_exceeding_max_iterations_ends_with_an_error_event() -> None:
    model = ScriptedChatModel([calls("ping")], cycle=True)
    agent = ChatModelAgent(name="loop", model=model, tools=[ping], max_iterations=3)
    events = list(agent.run([Message.user("hi")]))
    last = events[-1]
    assert isinstance(last.error, ExceedMaxIterationsError)
    assert "exceeds max iterations" in str(last.error)
    assert len(model.calls) == 3
    assert all(e.error is None for e in events[:-1])


# -- topology and export ---------------------------------------------------------------------------------


def test_topology_fields_and_react_back_edge() -> None:
    agent = ReActAgent(model=ScriptedChatModel([answer("x")]), tools=[ping])
    topo = agent.compiled.topology()
    assert topo.name == "ReActAgent"
    assert topo.trigger_mode == TriggerMode.ANY_PREDECESSOR
    assert topo.max_run_steps == 13
    assert (topo.nodes[0].key, topo.nodes[0].kind) == ("start", "start")
    assert (topo.nodes[-1].key, topo.nodes[-1].kind) == ("end", "end")
    assert {n.key: n.kind for n in topo.nodes}["direct_return"] == "Lambda"
    edges = {(e.source, e.target): (e.kind, e.back_edge) for e in topo.edges}
    assert edges == {
        ("start", "chat"): ("edge", False),
        ("direct_return", "end"): ("edge", False),
        ("chat", "tools"): ("branch", False),
        ("chat", "end"): ("branch", False),
        ("tools", "chat"): ("branch", True),
        ("tools", "direct_return"): ("branch", False),
    }
    # pydantic: round-trips through JSON
    assert type(topo).model_validate_json(topo.model_dump_json()) == topo


def test_nested_graph_nodes_carry_their_own_topology() -> None:
    outer = Graph()
    outer.add_graph_node("sub", linear("x", "y"))
    wire(outer, "sub")
    nested = outer.compile().topology().node("sub").graph
    assert nested is not None
    assert [n.key for n in nested.nodes] == ["start", "x", "y", "end"]


def test_exports_accept_topology_compiled_graph_and_agent() -> None:
    from inspector.export import to_dot, to_json, to_mermaid, to_networkx

    agent = ReActAgent(model=ScriptedChatModel([answer("x")]), tools=[ping])
    subjects: list[Any] = [agent.compiled.topology(), agent.compiled, agent]
    jsons = {to_json(s) for s in subjects}
    assert len(jsons) == 1
    assert len({to_dot(s) for s in subjects}) == 1
    assert len({to_mermaid(s) for s in subjects}) == 1
    for s in subjects:
        g = to_networkx(s)
        assert type(g).__name__ == "MultiDiGraph"
        assert g.nodes["chat"]["kind"] == "ChatModel" and g.nodes["chat"]["name"] == "ChatModel"
        back = [(u, v) for u, v, d in g.edges(data=True) if d["back_edge"]]
        assert back == [("tools", "chat")]
        assert {d["kind"] for _, _, d in g.edges(data=True)} == {"edge", "branch"}


def test_to_json_is_canonical_byte_identical_for_the_same_graph() -> None:
    from inspector.export import to_json

    def build() -> CompiledGraph:
        return ReActAgent(model=ScriptedChatModel([answer("x")]), tools=[ping, echo]).compiled

    first, second = to_json(build()), to_json(build())
    assert first == second
    assert isinstance(first, str) and json.loads(first)


HOSTILE_KEYS = [
    'say "hi"',
    "back\\slash",
    "new\nline",
    "<b>html</b>",
    "graph",
    "node",
    "edge",
    "subgraph",
    "strict",
    "a->b",
    "semi;colon",
    "{braces}",
    "ünïcødé ✓",
    "-1.5",
    "a\\Nb",
    "c\\ld",
    "trailing\\",
]


def test_to_dot_is_accepted_by_graphviz_for_hostile_keys() -> None:
    from inspector.export import to_dot, to_mermaid

    g = Graph()
    previous = START
    for key in HOSTILE_KEYS:
        g.add_lambda_node(key, lambda x: x, name=f"name of {key}")
        g.add_edge(previous, key)
        previous = key
    g.add_branch(previous, Branch(lambda x: END, [END, HOSTILE_KEYS[0]]))
    compiled = g.compile(name='evil "graph"')
    dot = to_dot(compiled)
    assert isinstance(to_mermaid(compiled), str)
    dot_bin = shutil.which("dot")
    if dot_bin is None:
        pytest.skip("Graphviz `dot` is not installed")
    done = subprocess.run([dot_bin, "-Tsvg"], input=dot.encode(), capture_output=True, timeout=30)
    assert done.returncode == 0 and not done.stderr, done.stderr.decode()
    # every key is drawn as its literal text: no DOT escapes (\\N, \\l), quotes or HTML leak through
    import html
    import re

    texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>(.*?)</text>", done.stdout.decode())]
    for key in HOSTILE_KEYS:
        if "\n" not in key:
            assert key in texts, key


# -- recordings ------------------------------------------------------------------------------------------


def test_recorder_and_read_run_on_an_agent(tmp_path: Path) -> None:
    from inspector.recording import Recorder, read_run

    path = tmp_path / "run.jsonl"
    agent = ReActAgent(model=ScriptedChatModel([calls("ping"), answer("done")]), tools=[ping])
    agent.invoke([Message.user("hi")], callbacks=[Recorder(path)])
    run = read_run(path)
    assert run.status == "ok"
    assert run.error is None
    assert run.output is not None and "done" in json.dumps(run.output)
    assert run.topology is not None and [n.key for n in run.topology.nodes][1] == "chat"
    assert [(s.index, tuple(s.nodes)) for s in run.steps] == [(0, ("chat",)), (1, ("tools",)), (2, ("chat",))]
    for step in run.steps:
        assert step.budget.steps_used == step.index + 1
        assert step.budget.steps_max == 13
        assert step.budget.steps_remaining == 13 - (step.index + 1)
    state = run.steps[1].state
    assert isinstance(state, dict)
    json.dumps(state)  # JSON-like
    assert "pong" not in json.dumps(run.steps[0].state)
    assert "pong" in json.dumps(run.steps[2].state)


def test_recorder_on_a_compiled_graph_without_state_and_with_an_error(tmp_path: Path) -> None:
    from inspector.recording import Recorder, read_run

    ok_path = tmp_path / "ok.jsonl"
    linear("a", "b").compile().invoke("", callbacks=[Recorder(ok_path)])
    run = read_run(ok_path)
    assert (run.status, run.output) == ("ok", "ab")
    assert [s.state for s in run.steps] == [None, None]

    def fail(x: Any) -> Any:
        raise RuntimeError("kaput")

    g = Graph()
    g.add_lambda_node("bad", fail)
    wire(g, "bad")
    err_path = tmp_path / "err.jsonl"
    with pytest.raises(NodeRunError):
        g.compile().invoke(1, callbacks=[Recorder(str(err_path))])
    failed = read_run(str(err_path))
    assert failed.status == "error"
    assert failed.error is not None and "kaput" in failed.error.message
    assert failed.output is None


def test_recorder_redacts_secrets_by_default(tmp_path: Path) -> None:
    from inspector.recording import Recorder, read_run

    def factory() -> dict[str, Any]:
        return {"API_KEY": "sk-state-secret", "nested": {"Password": "pw-secret"}, "ok": "visible"}

    g = Graph(state=factory)
    g.add_lambda_node(
        "n", lambda x: {"Authorization": "Bearer tok-secret", "client_secret": "cs-secret", "v": x}
    )
    wire(g, "n")
    path = tmp_path / "run.jsonl"
    g.compile().invoke({"api_key": "sk-input-secret", "q": 1}, callbacks=[Recorder(path)])
    text = path.read_text(encoding="utf-8")
    for secret in ("sk-state-secret", "pw-secret", "tok-secret", "cs-secret", "sk-input-secret"):
        assert secret not in text
    assert "visible" in text
    assert read_run(path).steps[0].state["ok"] == "visible"


def test_recorder_on_an_adk_agent_run(tmp_path: Path) -> None:
    from inspector.recording import Recorder, read_run

    path = tmp_path / "adk.jsonl"
    agent = ChatModelAgent(
        name="helper", model=ScriptedChatModel([calls("ping"), answer("done")]), tools=[ping]
    )
    events = list(agent.run([Message.user("hi")], callbacks=[Recorder(path)]))
    assert events[-1].message is not None and events[-1].message.content == "done"
    run = read_run(path)
    assert run.status == "ok"
    assert [s.nodes[0] for s in run.steps] == [
        "Init",
        "ChatModel",
        "CancelCheck",
        "ToolNode",
        "AfterToolCalls",
        "AfterToolCallsCancelCheck",
        "ChatModel",
    ]
    assert [s.budget.steps_used for s in run.steps] == list(range(1, 8))


def test_read_run_corrupt_middle_line_and_cut_off_tail(tmp_path: Path) -> None:
    from inspector.recording import Recorder, RunFileError, read_run

    path = tmp_path / "run.jsonl"
    agent = ReActAgent(model=ScriptedChatModel([calls("ping"), answer("done")]), tools=[ping])
    agent.invoke([Message.user("hi")], callbacks=[Recorder(path)])
    lines = path.read_bytes().splitlines(keepends=True)
    assert len(lines) > 4

    corrupt = tmp_path / "corrupt.jsonl"
    middle = len(lines) // 2
    corrupt.write_bytes(b"".join([*lines[:middle], b'{"kind": oops\n', *lines[middle + 1 :]]))
    with pytest.raises(RunFileError) as info:
        read_run(corrupt)
    assert isinstance(info.value, ValueError)
    assert info.value.line_no == middle + 1

    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    run = read_run(cut)
    assert run.status == "incomplete"
    assert len(run.steps) >= 1


# -- command line ----------------------------------------------------------------------------------------

FILE_TARGET = """
from graph_core import END, START, Graph


def build():
    g = Graph()
    g.add_lambda_node("upper", lambda s: s.upper())
    g.add_lambda_node("exclaim", lambda s: s + "!")
    g.add_edge(START, "upper")
    g.add_edge("upper", "exclaim")
    g.add_edge("exclaim", END)
    return g.compile(name="shout")
"""


def _main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The CLI in-process (same code as the console script); returns (status, stdout, stderr)."""
    from inspector.cli import main

    try:
        status = main(argv)
    except SystemExit as exc:  # argparse: --help, usage errors
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def cli(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The CLI as a user runs it: both entry points as subprocesses, all at once (the machine is small)."""
    from concurrent.futures import ThreadPoolExecutor

    from inspector.recording import Recorder

    work = tmp_path_factory.mktemp("cli")
    (work / "shout.py").write_text(FILE_TARGET, encoding="utf-8")
    linear("a", "b").compile().invoke("", callbacks=[Recorder(work / "given.jsonl")])
    exe = shutil.which("inspector")
    assert exe is not None, "the `inspector` console script is not installed"
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    py = [sys.executable, "-m", "inspector"]

    def run(argv: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=60)

    jobs: dict[str, list[str]] = {
        "text": [exe, "topology", "fixtures.weather:agent"],
        "record": [
            *py,
            "record",
            "fixtures.weather:agent",
            "--input",
            "Weather?",
            "-o",
            str(work / "a.jsonl"),
        ],
        "show": [exe, "show", str(work / "given.jsonl")],
        "bad_target": [exe, "topology", "no_such_module_xyz:thing"],
        "bad_show": [*py, "show", str(work / "absent.jsonl")],
        "demo": [*py, "demo", "--headless", "-o", str(work / "demo.jsonl")],
    }
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        results: dict[str, Any] = dict(zip(jobs, pool.map(run, jobs.values()), strict=True))
    results["_dir"] = work
    return results


def _ok(result: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert result.returncode == 0, (
        f"exit {result.returncode}\nstdout: {result.stdout}\nstderr: {result.stderr}"
    )
    return result


def test_cli_subprocess_entry_points(cli: dict[str, Any]) -> None:
    from inspector.recording import read_run

    work: Path = cli["_dir"]
    assert "chat" in _ok(cli["text"]).stdout and "direct_return" in cli["text"].stdout
    _ok(cli["record"])
    run = read_run(work / "a.jsonl")
    assert run.status == "ok"
    assert [tuple(s.nodes) for s in run.steps] == [("chat",), ("tools",), ("chat",)]
    assert "Weather?" in json.dumps(run.steps[0].state)  # --input became one user message
    shown = _ok(cli["show"]).stdout
    assert "a" in shown and "b" in shown and "0" in shown


@pytest.mark.parametrize("case", ["bad_target", "bad_show"])
def test_cli_subprocess_user_errors_exit_2_without_traceback(cli: dict[str, Any], case: str) -> None:
    result = cli[case]
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr
    assert result.stderr.strip()
    assert "\n\n" not in result.stderr.strip()  # one paragraph


def test_cli_topology_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from fixtures.weather import agent
    from inspector.export import to_json

    weather = "fixtures.weather:agent"
    status, out, _ = _main(["topology", weather, "--format", "text"], capsys)
    assert status == 0 and "chat" in out
    status, out, _ = _main(["topology", weather, "--format", "dot"], capsys)
    assert status == 0 and out.lstrip().startswith(("digraph", "strict digraph"))
    status, out, _ = _main(["topology", weather, "--format", "mermaid"], capsys)
    assert status == 0 and "chat" in out
    status, _, _ = _main(["topology", weather, "--format", "json", "-o", str(tmp_path / "t.json")], capsys)
    assert status == 0 and (tmp_path / "t.json").read_text(encoding="utf-8") == to_json(agent)
    if shutil.which("dot") is not None:
        status, _, err = _main(
            ["topology", "fixtures.weather:build_agent", "-f", "svg", "-o", str(tmp_path / "t.svg")], capsys
        )
        assert status == 0, err
        assert "<svg" in (tmp_path / "t.svg").read_text(encoding="utf-8")
        status, _, err = _main(
            ["topology", weather, "--format", "png", "-o", str(tmp_path / "t.png")], capsys
        )
        assert status == 0, err
        assert (tmp_path / "t.png").read_bytes().startswith(b"\x89PNG")


def test_cli_file_target_record_input_json_and_show(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspector.recording import read_run

    monkeypatch.chdir(tmp_path)
    (tmp_path / "shout.py").write_text(FILE_TARGET, encoding="utf-8")
    status, out, _ = _main(["topology", "shout.py:build", "--format", "json"], capsys)
    assert status == 0 and "upper" in out and "shout" in out
    status, _, err = _main(["record", "shout.py:build", "--input-json", '"hey"', "-o", "g.jsonl"], capsys)
    assert status == 0, err
    run = read_run(tmp_path / "g.jsonl")
    assert (run.status, run.output) == ("ok", "HEY!")
    status, out, _ = _main(["show", "g.jsonl"], capsys)
    assert status == 0 and "upper" in out and "exclaim" in out


def test_cli_graph_and_agent_factory_targets_and_json_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspector.recording import read_run

    monkeypatch.chdir(tmp_path)
    (tmp_path / "targets.py").write_text(
        FILE_TARGET + "\n\ngraph = Graph()\ngraph.add_lambda_node('solo', str.title)\n"
        "graph.add_edge(START, 'solo')\ngraph.add_edge('solo', END)\n",
        encoding="utf-8",
    )
    status, out, err = _main(["topology", "targets.py:graph", "--format", "json"], capsys)
    assert status == 0, err
    assert "solo" in out
    messages = json.dumps([{"role": "user", "content": "Beijing please"}])
    status, _, err = _main(
        ["record", "fixtures.weather:build_agent", "--input-json", messages, "-o", "w.jsonl"], capsys
    )
    assert status == 0, err
    run = read_run(tmp_path / "w.jsonl")
    assert run.status == "ok" and "Beijing please" in json.dumps(run.steps[0].state)


@pytest.mark.parametrize(
    "argv",
    [
        ["topology", "shout.py:missing"],
        ["topology", "nope.py:build"],
        ["topology", "no-colon-here"],
        ["record", "fixtures.weather:agent", "--input-json", "{not json", "-o", "x.jsonl"],
        ["show", "corrupt.jsonl"],
    ],
)
def test_cli_user_errors_exit_2(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shout.py").write_text(FILE_TARGET, encoding="utf-8")
    (tmp_path / "corrupt.jsonl").write_text("this is not a run file\n{}\n", encoding="utf-8")
    status, _, err = _main(argv, capsys)
    assert status == 2
    assert err.strip() and "Traceback" not in err


def test_cli_demo_headless(cli: dict[str, Any]) -> None:
    _ok(cli["demo"])
    assert (cli["_dir"] / "demo.jsonl").is_file(), "the demo records its run before summarising it"


# -- pytest plugin ---------------------------------------------------------------------------------------

pytest_plugins = ["pytester"]


def _preload_for_pytester() -> None:
    """Import what the inner runs use, so pytester's in-process runs (it restores `sys.modules`) reuse it.

    A speed measure only: if the import fails, the tests that need these modules report it themselves.
    """
    import contextlib
    import importlib

    for module in ("inspector.recording", "inspector.snapshot.extension"):
        with contextlib.suppress(ImportError):
            importlib.import_module(module)


_preload_for_pytester()

PLUGIN_PROJECT = """
from graph_core import END, START, Graph
from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from graph_core.tools import tool
from inspector.recording import Recorder, read_run


@tool
def ping() -> str:
    "Answer pong."
    return "pong"


def build():
    g = Graph()
    g.add_lambda_node("a", lambda x: x)
    {extra}
    g.add_edge(START, "a")
    g.add_edge("a", END)
    return g.compile()


def test_shape(topology_snapshot):
    assert topology_snapshot == build()


def test_agent_shape(topology_snapshot):
    agent = ReActAgent(model=ScriptedChatModel([Message.assistant("x")]), tools=[ping])
    assert topology_snapshot == agent


def test_trajectory(trajectory_snapshot, tmp_path):
    script = [
        Message.assistant("", tool_calls=[ToolCall("c1", "ping", "{{}}")]),
        Message.assistant("{answer}"),
    ]
    agent = ReActAgent(model=ScriptedChatModel(script), tools=[ping])
    agent.invoke([Message.user("q")], callbacks=[Recorder(tmp_path / "run.jsonl")])
    assert trajectory_snapshot == read_run(tmp_path / "run.jsonl")
"""


def test_pytest_plugin_snapshot_fixtures(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_project=PLUGIN_PROJECT.format(extra="", answer="done"))
    created = pytester.runpytest("--snapshot-update", "-p", "no:cacheprovider")
    created.assert_outcomes(passed=3)
    assert len([p for p in (pytester.path / "__snapshots__").rglob("*") if p.is_file()]) == 3

    extra = "\n    ".join(
        [
            'g.add_lambda_node("b_added", lambda x: x)',
            'g.add_edge("a", "b_added")',
            'g.add_edge("b_added", END)',
        ]
    )
    pytester.makepyfile(test_project=PLUGIN_PROJECT.format(extra=extra, answer="done"))
    changed = pytester.runpytest("-p", "no:cacheprovider")
    changed.assert_outcomes(passed=2, failed=1)
    text = changed.stdout.str()
    assert "node added: `b_added`" in text and "edge a -> b_added added" in text
