"""Per-run state: factory per run, pre/post handlers in Eino's order, process_state nesting and shadowing."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest

from graph_core import Graph, process_state
from graph_core.errors import GraphBuildError, GraphRunError, NodeRunError
from tests.helpers import wire

MODES = pytest.mark.parametrize("how", ["sync", "async", "stream"])


def run(compiled: Any, value: Any, how: str, **kwargs: Any) -> Any:
    if how == "sync":
        return compiled.invoke(value, **kwargs)
    if how == "stream":
        chunks = list(compiled.stream(value, **kwargs))
        assert len(chunks) == 1
        return chunks[0]
    return asyncio.run(compiled.ainvoke(value, **kwargs))


@dataclass
class Log:
    events: list[str] = field(default_factory=lambda: [])


class Order:
    def __init__(self, log: Log) -> None:
        self.log = log

    def on_start(self, info: Any, value: Any) -> None:
        if info.node_key:
            self.log.events.append(f"start:{info.node_key}")

    def on_end(self, info: Any, value: Any) -> None:
        if info.node_key:
            self.log.events.append(f"end:{info.node_key}")

    on_start_with_stream_input = on_start
    on_end_with_stream_output = on_end


@MODES
def test_handlers_run_in_eino_order_and_replace_values(how: str) -> None:
    log = Log()

    def pre(value: str, state: Log) -> str:
        state.events.append(f"pre:{value}")
        return value + "+pre"

    def post(value: str, state: Log) -> str:
        state.events.append(f"post:{value}")
        return value + "+post"

    def body(value: str) -> str:
        log.events.append(f"body:{value}")
        return value + "+body"

    g = Graph(state=lambda: log)
    g.add_lambda_node("n", body, pre=pre, post=post)
    wire(g, "n")
    assert run(g.compile(), "in", how, callbacks=[Order(log)]) == "in+pre+body+post"
    assert log.events == ["pre:in", "start:n", "body:in+pre", "end:n", "post:in+pre+body"]


@MODES
def test_state_is_fresh_per_run_and_reachable_from_nodes(how: str) -> None:
    made: list[Log] = []

    def factory() -> Log:
        made.append(Log())
        return made[-1]

    def body(value: str) -> int:
        return process_state(Log, lambda s: s.events.append(value) or len(s.events))

    g = Graph(state=factory)
    g.add_lambda_node("n", body)
    wire(g, "n")
    compiled = g.compile()
    assert run(compiled, "a", how) == 1
    assert run(compiled, "b", how) == 1
    assert [m.events for m in made] == [["a"], ["b"]]


def test_handler_without_state_is_a_build_error() -> None:
    g = Graph()
    with pytest.raises(GraphBuildError, match="node 'n' needs state but graph state is not enabled"):
        g.add_lambda_node("n", lambda x: x, pre=lambda x, s: x)


@MODES
def test_pre_handler_failure_is_a_node_error_without_callbacks(how: str) -> None:
    log = Log()
    boom = RuntimeError("boom")

    def pre(value: Any, state: Any) -> Any:
        raise boom

    g = Graph(state=Log)
    g.add_lambda_node("n", lambda x: x, pre=pre)
    wire(g, "n")
    with pytest.raises(NodeRunError) as info:
        run(g.compile(), "x", how, callbacks=[Order(log)])
    assert "run node[n] pre processor fail: boom" in str(info.value)
    assert info.value.node_path == ["n"]
    assert info.value.__cause__ is boom
    assert log.events == []


@MODES
def test_post_handler_failure(how: str) -> None:
    def post(value: Any, state: Any) -> Any:
        raise ValueError("late")

    g = Graph(state=Log)
    g.add_lambda_node("n", lambda x: x, post=post)
    wire(g, "n")
    with pytest.raises(NodeRunError, match=r"run node\[n\] post processor fail: late"):
        run(g.compile(), "x", how)


@dataclass
class Outer:
    seen: list[str] = field(default_factory=lambda: [])


@dataclass
class Inner:
    seen: list[str] = field(default_factory=lambda: [])


@MODES
def test_nested_graph_reaches_outer_state_and_inner_state_shadows(how: str) -> None:
    outer_states: list[Outer] = []
    inner_states: list[Outer] = []

    def touch(tag: str) -> Any:
        def fn(value: str) -> str:
            process_state(Outer, lambda s: s.seen.append(tag))
            return value + tag

        return fn

    def make_outer() -> Outer:
        outer_states.append(Outer())
        return outer_states[-1]

    def make_inner() -> Outer:
        inner_states.append(Outer())
        return inner_states[-1]

    plain = Graph()  # no state of its own: sees the outer one
    plain.add_lambda_node("p", touch("p"))
    wire(plain, "p")
    shadow = Graph(state=make_inner)  # same type: shadows the outer one
    shadow.add_lambda_node("s", touch("s"))
    wire(shadow, "s")

    g = Graph(state=make_outer)
    g.add_graph_node("plain", plain)
    g.add_graph_node("shadow", shadow)
    wire(g, "plain", "shadow")
    assert run(g.compile(), "", how) == "ps"
    assert outer_states[0].seen == ["p"]
    assert inner_states[0].seen == ["s"]


def test_process_state_errors() -> None:
    with pytest.raises(GraphRunError, match="get state from context fail: have not set state"):
        process_state(Outer, lambda s: s)

    g = Graph(state=Outer)
    g.add_lambda_node("n", lambda x: process_state(Inner, lambda s: s))
    wire(g, "n")
    with pytest.raises(NodeRunError) as info:
        g.compile().invoke(1)
    assert "cannot find state with type: Inner in states chain, current state type: Outer" in str(info.value)


def test_async_handlers_are_awaited() -> None:
    async def pre(value: int, state: Outer) -> int:
        return value + 1

    g = Graph(state=Outer)
    g.add_lambda_node("n", lambda x: x * 10, pre=pre)
    wire(g, "n")
    assert g.compile().invoke(1) == 20
    assert asyncio.run(g.compile().ainvoke(1)) == 20


@pytest.mark.parametrize("how", ["sync", "stream"])
def test_stream_handlers_see_streams_without_concatenation(how: str) -> None:
    from collections.abc import Iterator

    from graph_core import Lambda
    from graph_core.state import stream_handler

    seen: list[str] = []

    def tap(stream: Iterator[str], state: Log) -> Iterator[str]:
        for chunk in stream:
            seen.append(chunk)
            yield chunk + "!"

    g = Graph(state=Log)
    g.add_lambda_node("n", Lambda(stream=lambda text: iter(text.split())), post=stream_handler(tap))
    wire(g, "n")
    compiled = g.compile()
    if how == "sync":
        assert compiled.invoke("a b") == "ab!"  # invoke mode: one chunk, the concatenated output
        assert seen == ["ab"]
    else:
        assert list(compiled.stream("a b")) == ["a!", "b!"]
        assert seen == ["a", "b"]
