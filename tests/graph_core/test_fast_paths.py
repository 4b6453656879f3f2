"""The hot-path shortcuts behave exactly like the general code they bypass.

Each test pins one shortcut taken for speed (see bench/bench_react.py): Pregel routing without skip
reports, unvalidated tool messages, shallow copies, one-call argument validation, the awaitable cache.
"""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from typing import Any

import pytest

from graph_core import END, START, Branch, Graph
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall, ToolInfo, shallow_copy
from graph_core.tools import ToolsNode, tool
from graph_core.tools.errors import ToolArgumentsError, ToolCallError
from tests.helpers import wire


class Steps:
    def __init__(self) -> None:
        self.nodes: list[tuple[str, ...]] = []

    def on_step_end(self, step: Any) -> None:
        self.nodes.append(step.nodes)


@pytest.mark.parametrize("observed", [False, True])
def test_pregel_ignores_stale_skip_reports(observed: bool) -> None:
    """Step 0: `a` skips `x`. Step 1: `a` writes `x` while `b` skips it. In Pregel `x` must still run.

    Skip reports matter in DAG mode only (Eino §2.3); counting them in Pregel would drop the value `a`
    wrote in the same step, as both of `x`'s predecessors have "skipped" it at some point.
    """
    calls = {"a": 0}

    def pick_a(_: Any) -> set[str]:
        calls["a"] += 1
        return {"a", "b"} if calls["a"] == 1 else {"x"}

    g = Graph()
    g.add_lambda_node("a", lambda v: v)
    g.add_lambda_node("b", lambda v: v)
    g.add_lambda_node("x", lambda v: f"x got {v}")
    g.add_edge(START, "a")
    g.add_branch("a", Branch.multi(pick_a, ["x", "a", "b"]))
    g.add_branch("b", Branch(lambda _: "b", ["x", "b"]))
    g.add_edge("x", END)
    steps = Steps()
    callbacks = [steps] if observed else []
    assert g.compile(max_run_steps=10).invoke("in", callbacks=callbacks) == "x got in"
    if observed:
        assert steps.nodes == [("a",), ("a", "b"), ("b", "x")]


def test_single_branch_result_outside_ends_still_fails() -> None:
    g = Graph()
    g.add_lambda_node("a", lambda v: v)
    g.add_edge(START, "a")
    g.add_branch("a", Branch(lambda _: "nowhere", ["a", END]))
    with pytest.raises(Exception, match="unintended end node: nowhere"):
        g.compile().invoke(1)


class _NotAwaitable:
    """A handler result of a type the awaitable cache learns about."""


def test_async_conditions_and_handlers_still_awaited_after_sync_ones() -> None:
    """The per-type awaitable cache only remembers negatives: coroutines are awaited every time."""
    seen: list[str] = []

    def plain_pre(value: Any, state: Any) -> Any:
        seen.append("plain")
        return _NotAwaitable()

    async def async_pre(value: Any, state: Any) -> int:
        seen.append("async")
        return 41

    async def cond(value: int) -> str:
        return END

    def gen_node(value: Any) -> Generator[int, None, None]:
        yield 1  # a generator output: never cached as "not awaitable" by type

    for _ in range(2):
        g = Graph(state=dict)
        g.add_lambda_node("p", lambda v: v, pre=plain_pre)
        g.add_lambda_node("q", lambda v: v + 1, pre=async_pre)
        g.add_edge(START, "p")
        g.add_edge("p", "q")
        g.add_branch("q", Branch(cond, ["q", END]))
        assert g.compile().invoke(0) == 42
        assert asyncio.run(g.compile().ainvoke(0)) == 42
    assert seen == ["plain", "async"] * 4

    g2 = Graph()
    g2.add_lambda_node("g", gen_node)
    wire(g2, "g")
    assert list(g2.compile().invoke(0)) == [1]


def test_trusted_message_is_indistinguishable_from_a_validated_one() -> None:
    trusted = Message.trusted("tool", "pong", tool_call_id="c1", tool_name="ping")
    checked = Message("tool", "pong", tool_call_id="c1", tool_name="ping")
    assert trusted == checked
    assert trusted.model_fields_set == checked.model_fields_set
    assert trusted.model_dump_json() == checked.model_dump_json()
    assert Message.trusted("user", "hi") == Message.user("hi")
    assert Message.trusted("user", "hi").model_fields_set == Message.user("hi").model_fields_set
    # fresh mutable defaults per message
    trusted.tool_calls.append(ToolCall("c2", "x", "{}"))
    trusted.extra["k"] = 1
    other = Message.trusted("tool", "pong")
    assert other.tool_calls == [] and other.extra == {}


def test_shallow_copy_is_independent_at_the_top_level() -> None:
    original = Message.assistant("hi", tool_calls=[ToolCall("c1", "f", "{}")])
    copy = shallow_copy(original)
    assert copy == original and copy is not original
    copy.content = "changed"
    assert original.content == "hi"
    assert "content" in copy.model_fields_set
    assert original.model_fields_set == Message.assistant("hi", tool_calls=[]).model_fields_set


def test_scripted_model_hands_out_copies_sharing_nothing_mutable() -> None:
    script = [
        Message.assistant(tool_calls=[ToolCall("c1", "f", '{"a": 1}')]),
        Message.assistant("plain answer"),
    ]
    model = ScriptedChatModel(script, cycle=True)
    first = model.generate([Message.user("go")])
    second = model.generate([Message.user("go")])
    first.tool_calls[0].arguments = "{}"
    first.tool_calls.append(ToolCall("c9", "g", "{}"))
    second.tool_calls.append(ToolCall("c9", "g", "{}"))  # the script's empty list must not change
    second.extra["k"] = "v"
    assert script[0].tool_calls == [ToolCall("c1", "f", '{"a": 1}')]
    assert script[1].tool_calls == [] and script[1].extra == {}
    third = model.generate([Message.user("go")])
    assert third == script[0]


@tool
def add(a: int, b: int = 2) -> int:
    """Add two numbers."""
    return a + b


@tool
def nothing() -> str:
    """No arguments."""
    return "ok"


def test_argument_parsing_fast_path_matches_the_slow_path() -> None:
    assert add.parse_arguments('{"a": 1}') == {"a": 1, "b": 2}
    assert add.parse_arguments('{"a": "3", "b": 4, "extra": true}') == {"a": 3, "b": 4}
    assert nothing.parse_arguments("") == {}
    assert nothing.parse_arguments("   ") == {}
    with pytest.raises(ToolArgumentsError, match="invalid JSON arguments for tool `add`"):
        add.parse_arguments('{"a": ')
    with pytest.raises(ToolArgumentsError, match="must be a JSON object, got list"):
        add.parse_arguments("[1]")
    with pytest.raises(ToolArgumentsError, match="field `a`") as bad:
        add.parse_arguments('{"a": "x"}')
    assert bad.value.field == "a"


class _DuckTool:
    """A duck-typed tool returning a non-string: the tool message is still validated."""

    info = ToolInfo("duck", "returns an int")

    def invoke(self, arguments: str) -> Any:
        return 5


def test_tools_node_single_call_builds_the_same_message() -> None:
    node = ToolsNode([add])
    out = node.invoke(Message.assistant(tool_calls=[ToolCall("c1", "add", '{"a": 1}')]))
    assert out == [Message.tool("3", tool_call_id="c1", tool_name="add")]
    assert out[0].model_fields_set == Message.tool("3", tool_call_id="c1", tool_name="add").model_fields_set
    with pytest.raises(ToolCallError, match="int 5, not a str"):
        ToolsNode([_DuckTool()]).invoke(Message.assistant(tool_calls=[ToolCall("c1", "duck", "{}")]))


def test_runner_scopes_equal_constructed_ones() -> None:
    """The runner builds RunScope through its slots; the result is a normal, frozen RunScope."""
    import dataclasses

    from graph_core.context import RunScope
    from graph_core.runner.run import _new_scope  # pyright: ignore[reportPrivateUsage]

    built = _new_scope((), ("a", "b"), 3, "g", None, {"k": 1})
    assert built == RunScope((), ("a", "b"), 3, "g", None, {"k": 1})
    assert built.resume is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.step = 4  # type: ignore[misc]
