"""The public contract (`shared/docs/contract.md`), exercised from outside exactly as a user writes it.

Every name is imported from the module the contract names and called in the positional/keyword form the
contract shows. Behaviour is checked against `shared/docs/eino-semantics.md` where the contract defers to
it; the deeper Eino scenarios live in `tests/test_semantics_*.py`. Interrupts/checkpoints and the TUI are
covered by their owners' tests, not here.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import textwrap
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
    for a, b in zip(chain, chain[1:], strict=False):
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

    def bump(x: int) -> int:
        return process_state(dict, lambda s: s.__setitem__("n", s["n"] + 1) or x + 1)

    g = Graph(state=factory)
    g.add_lambda_node("a", bump)
    g.add_lambda_node("b", bump)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", END)
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
    g.add_edge(START, "n")
    g.add_edge("n", END)
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
    g.add_edge(START, "double")
    g.add_edge("double", END)
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
    g.add_edge(START, "n")
    g.add_edge("n", END)
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
    g.add_edge(START, "m")
    g.add_edge("m", END)
    g.add_edge(START, "g")
    g.add_edge("g", END)
    g.add_edge(START, "t")
    g.add_edge("t", "p")
    g.add_edge("p", END)
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
    outer.add_edge(START, "sub")
    outer.add_edge("sub", "sub2")
    outer.add_edge("sub2", END)
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
    inner.add_edge(START, "deep")
    inner.add_edge("deep", END)
    outer = Graph()
    outer.add_graph_node("sub", inner)
    outer.add_edge(START, "sub")
    outer.add_edge("sub", END)
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
    inner.add_edge(START, "bump")
    inner.add_edge("bump", END)
    outer = Graph(state=outer_factory)
    outer.add_lambda_node("first", bump_outer_type)
    outer.add_graph_node("sub", inner)
    outer.add_edge(START, "first")
    outer.add_edge("first", "sub")
    outer.add_edge("sub", END)
    assert outer.compile().invoke(0) == 1  # the inner state's first hit
    assert outer_states[0].hits == 1
    assert inner_states[0].hits == 1

    # a type only the outer graph has is found through the chain
    inner2 = Graph(state=Inner)
    inner2.add_lambda_node("reach", lambda x: process_state(Outer, lambda s: s.hits))
    inner2.add_edge(START, "reach")
    inner2.add_edge("reach", END)
    outer2 = Graph(state=lambda: Outer(hits=41))
    outer2.add_graph_node("sub", inner2)
    outer2.add_edge(START, "sub")
    outer2.add_edge("sub", END)
    assert outer2.compile().invoke(None) == 41


def test_process_state_without_state_fails_clearly() -> None:
    g = Graph()
    g.add_lambda_node("n", lambda x: process_state(dict, lambda s: s))
    g.add_edge(START, "n")
    g.add_edge("n", END)
    with pytest.raises(NodeRunError, match="have not set state"):
        g.compile().invoke(1)


# -- callbacks -------------------------------------------------------------------------------------------


def test_callbacks_info_fields_for_graph_and_nodes() -> None:
    inner = Graph()
    inner.add_lambda_node("leaf", lambda x: x + 1, name="Leaf")
    inner.add_edge(START, "leaf")
    inner.add_edge("leaf", END)
    g = Graph()
    g.add_lambda_node("first", lambda x: x + 1, name="First")
    g.add_graph_node("sub", inner, name="Sub")
    g.add_passthrough_node("pass")
    g.add_edge(START, "first")
    g.add_edge("first", "sub")
    g.add_edge("sub", "pass")
    g.add_edge("pass", END)
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
    g.add_edge(START, "bad")
    g.add_edge("bad", END)
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

    sys.path.insert(0, str(REPO / "tests" / "graph_core"))
    try:
        from openai_server import ChatServer, Reply, completion
    finally:
        sys.path.pop(0)
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
