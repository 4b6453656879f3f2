"""ToolsNode.invoke's fast path: taken in the common case only, and indistinguishable from the general path.

The fast path (`ToolsNode._invoke_direct`) calls the tools' own `invoke` without the general path's per-call
objects; it must be taken when nothing else stands between a call and its tool (no middleware, alias,
arguments handler, callbacks, resume state or per-run options), never otherwise, and give the same
messages, errors, interrupts and tool-call IDs as the general path (`_plan` onward).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from graph_core import END, START, Graph
from graph_core.call_options import tool_options, with_tools_node_options
from graph_core.callbacks import RunInfo
from graph_core.context import RunScope, scoped
from graph_core.interrupt import PointRecord, interrupt
from graph_core.multimodal import ToolOutputPart, ToolResult
from graph_core.schema import Message, ToolCall
from graph_core.tools import (
    ToolAliasConfig,
    ToolCallError,
    ToolInput,
    ToolMiddleware,
    ToolNotFoundError,
    ToolsNode,
    ToolsNodeInputError,
    ToolsNodeOptions,
    get_tool_call_id,
    tool,
)


@tool
def echo(text: str) -> str:
    """Echoes the text with the call ID it ran under."""
    return f"{text}@{get_tool_call_id()}"


@tool
def fail() -> str:
    """Always fails."""
    raise ValueError("no")


@tool
def stop() -> str:
    """Interrupts the run."""
    interrupt("needs input")
    return "never"


@tool
def number() -> int:  # pyright: ignore[reportReturnType]
    """Returns a non-text result, which the node rejects."""
    return 7


def calls(*specs: tuple[str, str, str]) -> Message:
    return Message.assistant(tool_calls=[ToolCall(i, n, a) for i, n, a in specs])


@dataclass
class Paths:
    """How many `invoke`s the fast path answered and how many went the general way."""

    fast: int = 0
    general: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> Paths:
    seen = Paths()
    direct, plan = ToolsNode._invoke_direct, ToolsNode._plan  # pyright: ignore[reportPrivateUsage]

    def counted_direct(self: ToolsNode, *args: Any) -> list[Message] | None:
        out = direct(self, *args)
        with seen.lock:
            seen.fast += out is not None
        return out

    def counted_plan(self: ToolsNode, *args: Any, **kwargs: Any) -> Any:
        with seen.lock:
            seen.general += 1
        return plan(self, *args, **kwargs)

    monkeypatch.setattr(ToolsNode, "_invoke_direct", counted_direct)
    monkeypatch.setattr(ToolsNode, "_plan", counted_plan)
    return seen


def general_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Turn the fast path off, so a test can compare it with what the general path gives."""
    monkeypatch.setattr(ToolsNode, "_invoke_direct", lambda self, message, direct: None)  # pyright: ignore[reportUnknownLambdaType]


# -- taken in the common case --------------------------------------------------------------------------


@pytest.mark.parametrize("sequential", [False, True])
@pytest.mark.parametrize("count", [1, 3])
def test_common_case_takes_the_fast_path(paths: Paths, count: int, sequential: bool) -> None:
    node = ToolsNode([echo, fail], execute_sequentially=sequential)
    message = calls(*((f"c{i}", "echo", f'{{"text": "t{i}"}}') for i in range(count)))
    assert [m.content for m in node.invoke(message)] == [f"t{i}@c{i}" for i in range(count)]
    with scoped(RunScope(path=("tools",), step=2)):  # inside a run with nothing else in its scope
        node.invoke(message)
    assert (paths.fast, paths.general) == (2, 0)


def test_the_react_agent_takes_the_fast_path(paths: Paths) -> None:
    from bench.bench_react import _agent  # pyright: ignore[reportPrivateUsage]

    agent, _ = _agent(3)
    assert agent.invoke("go").content == "done"
    assert (paths.fast, paths.general) == (3, 0)


# -- not taken otherwise -------------------------------------------------------------------------------

_PASS = ToolMiddleware(invoke=lambda next_: next_)


class _Echo:
    """A duck-typed tool with only an async invoke (its sync endpoint is derived)."""

    info = echo.info

    async def ainvoke(self, arguments: str) -> str:
        return await echo.ainvoke(arguments)


@tool
def chunks(text: str) -> Iterator[str]:
    """A streaming tool: its invoke joins its chunks."""
    yield text


@tool
def rich(text: str) -> ToolResult:
    """An enhanced tool."""
    return ToolResult([ToolOutputPart.of_text(text)])


GENERAL_NODES: dict[str, Callable[[], tuple[ToolsNode, Message]]] = {
    "middleware": lambda: (ToolsNode([echo], middlewares=[_PASS]), calls(("c", "echo", '{"text": "a"}'))),
    "alias": lambda: (
        ToolsNode([echo], tool_aliases={"echo": ToolAliasConfig(name_aliases=["say"])}),
        calls(("c", "say", '{"text": "a"}')),
    ),
    "arguments handler": lambda: (
        ToolsNode([echo], tool_arguments_handler=lambda name, args: args),
        calls(("c", "echo", '{"text": "a"}')),
    ),
    "unknown tool": lambda: (
        ToolsNode([echo], unknown_tools_handler=lambda name, args: f"no {name}"),
        calls(("c", "nope", "{}")),
    ),
    "one unknown among known": lambda: (
        ToolsNode([echo], unknown_tools_handler=lambda name, args: f"no {name}"),
        calls(("c1", "echo", '{"text": "a"}'), ("c2", "nope", "{}")),
    ),
    "async-only tool": lambda: (ToolsNode([_Echo()]), calls(("c", "echo", '{"text": "a"}'))),
    "streaming tool": lambda: (ToolsNode([chunks]), calls(("c", "chunks", '{"text": "a"}'))),
}


@pytest.mark.parametrize("case", sorted(GENERAL_NODES))
def test_nodes_with_more_than_plain_tools_take_the_general_path(paths: Paths, case: str) -> None:
    node, message = GENERAL_NODES[case]()
    node.invoke(message)
    assert (paths.fast, paths.general) == (0, 1)


def test_options_given_to_invoke_take_the_general_path(paths: Paths) -> None:
    node = ToolsNode([echo])
    node.invoke(calls(("c", "echo", '{"text": "a"}')), options=ToolsNodeOptions(tool_options=["v"]))
    assert (paths.fast, paths.general) == (0, 1)


def test_a_run_s_tools_node_options_take_the_general_path(paths: Paths) -> None:
    node = ToolsNode([echo, fail])
    scope = RunScope(extras={"tools_node_options": ToolsNodeOptions(tool_list=[fail])})
    with scoped(scope), pytest.raises(ToolNotFoundError, match="tool echo not found"):
        node.invoke(calls(("c", "echo", '{"text": "a"}')))
    assert (paths.fast, paths.general) == (0, 1)


def test_per_call_tool_options_take_the_general_path(paths: Paths) -> None:
    @tool
    def read() -> str:
        """Reports its tool options."""
        return ",".join(map(str, tool_options()))

    graph = Graph()
    graph.add_tools_node("tools", ToolsNode([read]))
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    compiled = graph.compile()
    message = calls(("c", "read", "{}"))
    out = compiled.invoke(message, options=[with_tools_node_options(ToolsNodeOptions(tool_options=["v"]))])
    assert out[0].content == "v"
    assert (paths.fast, paths.general) == (0, 1)
    assert compiled.invoke(message)[0].content == ""
    assert (paths.fast, paths.general) == (1, 1)


def test_resume_state_takes_the_general_path(paths: Paths) -> None:
    node = ToolsNode([echo])
    saved = calls(("c1", "echo", '{"text": "a"}'), ("c2", "echo", '{"text": "b"}'))
    record = PointRecord("tools", state={"input": saved, "executed": {"c1": "kept"}, "rerun": ["c2"]})
    with scoped(RunScope(path=("tools",), resume=record)):
        out = node.invoke(calls(("x", "echo", '{"text": "ignored"}')))
    assert [m.content for m in out] == ["kept", "b@c2"]
    assert (paths.fast, paths.general) == (0, 1)


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, str | None, Any]] = []

    def on_start(self, info: RunInfo, input: Any) -> None:
        self.events.append(("start", info.name, info.tool_call_id, input))

    def on_end(self, info: RunInfo, output: Any) -> None:
        self.events.append(("end", info.name, info.tool_call_id, output))


def test_observers_take_the_general_path_and_see_the_call(paths: Paths) -> None:
    rec = Recorder()
    with scoped(RunScope(callbacks=(rec,), path=("tools",), step=1)):
        ToolsNode([echo]).invoke(calls(("c", "echo", '{"text": "a"}')))
    assert rec.events == [("start", "echo", "c", '{"text": "a"}'), ("end", "echo", "c", "a@c")]
    assert (paths.fast, paths.general) == (0, 1)


# -- the same results as the general path ---------------------------------------------------------------


def outcome(node: ToolsNode, message: Any) -> Any:
    """What `invoke` gives, comparable across the two paths: the messages, or the error's whole story."""
    try:
        return [m.model_dump() for m in node.invoke(message)]
    except Exception as exc:
        cause = exc.__cause__
        return (
            type(exc),
            str(exc),
            getattr(exc, "tool_name", None),
            getattr(exc, "tool_call_id", None),
            type(cause),
            str(cause),
            type(exc.__context__),  # raised outside the tool's handler, as the general path raises it
            getattr(exc, "info", None),
        )


SAME_CASES: dict[str, Any] = {
    "one call": calls(("c", "echo", '{"text": "a"}')),
    "three calls": calls(*((f"c{i}", "echo", f'{{"text": "{i}"}}') for i in range(3))),
    "a failing tool": calls(("c", "fail", "{}")),
    "the second of three failing": calls(
        ("c1", "echo", '{"text": "a"}'), ("c2", "fail", "{}"), ("c3", "echo", '{"text": "b"}')
    ),
    "bad arguments": calls(("c", "echo", '{"txt": "a"}')),
    "a non-text result": calls(("c", "number", "{}")),
    "a non-text result among texts": calls(("c1", "echo", '{"text": "a"}'), ("c2", "number", "{}")),
    "an unknown tool": calls(("c", "nope", "{}")),
    "an interrupting tool": calls(("c", "stop", "{}")),
    "an interrupting tool among others": calls(("c1", "echo", '{"text": "a"}'), ("c2", "stop", "{}")),
    "no tool calls": Message.assistant("hi"),
    "a user message": Message.user("hi"),
    "not a message": "hi",
}


@pytest.mark.parametrize("sequential", [False, True])
@pytest.mark.parametrize("case", sorted(SAME_CASES))
def test_fast_and_general_paths_give_the_same(
    monkeypatch: pytest.MonkeyPatch, case: str, sequential: bool
) -> None:
    node = ToolsNode([echo, fail, number, stop], execute_sequentially=sequential)
    fast = outcome(node, SAME_CASES[case])
    general_only(monkeypatch)
    assert outcome(node, SAME_CASES[case]) == fast


def test_a_failure_does_not_stop_the_other_calls(paths: Paths) -> None:
    ran: list[str] = []

    @tool
    def note(text: str) -> str:
        """Notes that it ran."""
        ran.append(text)
        return text

    node = ToolsNode([note, fail], execute_sequentially=True)
    with pytest.raises(ToolCallError, match=r"tool\[name:fail id:c1\]: no"):
        node.invoke(calls(("c1", "fail", "{}"), ("c2", "note", '{"text": "b"}')))
    assert ran == ["b"]
    assert (paths.fast, paths.general) == (0, 0)  # the fast path ran it, then raised as the general one


def test_input_errors_come_from_the_general_path() -> None:
    with pytest.raises(ToolsNodeInputError, match="no tool call found"):
        ToolsNode([echo]).invoke(Message.assistant("hi"))


def test_tool_input_is_still_what_middlewares_see() -> None:
    seen: list[ToolInput] = []

    def spy(next_: Callable[[ToolInput], str]) -> Callable[[ToolInput], str]:
        def run(inp: ToolInput) -> str:
            seen.append(inp)
            return next_(inp)

        return run

    ToolsNode([echo], middlewares=[ToolMiddleware(invoke=spy)]).invoke(calls(("c", "echo", '{"text": "a"}')))
    assert seen == [ToolInput("echo", '{"text": "a"}', "c")]


def test_an_enhanced_tool_keeps_its_parts(paths: Paths) -> None:
    out = ToolsNode([rich]).invoke(calls(("c", "rich", '{"text": "a"}')))
    assert out[0].content == "" and out[0].user_input_multi_content
    assert (paths.fast, paths.general) == (0, 1)
