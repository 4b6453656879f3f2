"""Ports of Eino's `compose/tool_node_test.go` (cloudwego/eino ca0441ac0bce): the ToolsNode."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from graph_core import END, START, Graph
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import InterruptError
from graph_core.interrupt import interrupt
from graph_core.schema import Message, ToolCall, ToolInfo
from graph_core.stream import collect
from graph_core.tools import ToolsNode


class _InvokeTool:
    """Go `myTool1`/`myTool3`: an invokable tool; `interrupts` first time: `tool.Interrupt(ctx, extra)`."""

    def __init__(self, name: str, *, interrupts: bool) -> None:
        self.info = ToolInfo(name, "", {})
        self.interrupts = interrupts
        self.times = 0

    def invoke(self, arguments: str) -> str:
        self.times += 1
        if self.interrupts and self.times == 1:
            interrupt(f"{self.info.name} rerun extra")
        return f"{self.info.name} input: {arguments}"


class _StreamTool(_InvokeTool):
    """Go `myTool2`/`myTool4`: a stream-only tool (a generator here), which may interrupt before its
    first chunk."""

    def invoke(self, arguments: str) -> str:  # pragma: no cover - a stream-only tool
        raise AssertionError("stream-only")

    def stream(self, arguments: str) -> Iterator[str]:
        self.times += 1
        if self.interrupts and self.times == 1:
            interrupt(f"{self.info.name} rerun extra")
        yield f"{self.info.name} input: "
        yield arguments


del _StreamTool.invoke  # only `stream`: Eino's StreamableTool


def _calls() -> list[ToolCall]:
    return [ToolCall(id=i, name=f"tool{i}", arguments="input") for i in ("3", "4", "1", "2")]


def test_tool_rerun() -> None:
    """tool_node_test.go TestToolRerun: in stream mode, an invokable and a stream-only tool interrupt;
    the other two complete. One composite interrupt names the rerun calls and the executed results;
    the resume reruns only the interrupted calls (tool3 and tool4 run once)."""
    tools = [
        _InvokeTool("tool1", interrupts=True),
        _StreamTool("tool2", interrupts=True),
        _InvokeTool("tool3", interrupts=False),
        _StreamTool("tool4", interrupts=False),
    ]
    calls = _calls()

    def join(messages: list[Message]) -> str:
        contents = [""] * len(messages)
        for m in messages:
            contents[int(m.tool_call_id or "0") - 1] = m.content
        return "".join(contents)

    graph = Graph(state=lambda: {"in": Message.assistant("", tool_calls=calls)})
    graph.add_tools_node("tool node", ToolsNode(tools))
    graph.add_lambda_node("lambda", join)
    graph.add_edge(START, "tool node")
    graph.add_edge("tool node", "lambda")
    graph.add_edge("lambda", END)
    compiled = graph.compile(checkpoint_store=InMemoryCheckpointStore())

    with pytest.raises(InterruptError) as caught:
        compiled.stream(Message.assistant("", tool_calls=calls), checkpoint_id="1")
    info = caught.value.info
    assert info.rerun_nodes == ["tool node"]
    assert info.rerun_nodes_extra["tool node"] == {
        "tool_calls": [c.model_dump() for c in calls],
        "rerun_tools": ["1", "2"],
        "rerun_extra_map": {"1": "tool1 rerun extra", "2": "tool2 rerun extra"},
        "executed_tools": {"3": "tool3 input: input", "4": "tool4 input: input"},
    }

    result = collect(compiled.stream(None, checkpoint_id="1"))
    assert result == "tool1 input: inputtool2 input: inputtool3 input: inputtool4 input: input"
    assert [t.times for t in tools] == [2, 2, 1, 1]


def test_tool_rerun_function_and_interrupting_generator_tool() -> None:
    """tool_node_test.go TestToolRerun, reduced to one function tool and one interrupting generator
    tool (issue 16): the stream run raises `InterruptError` (not a raw `InterruptSignal`), and the
    interrupt's address keeps the tool name."""
    tools = [_InvokeTool("tool3", interrupts=False), _StreamTool("tool2", interrupts=True)]
    calls = [ToolCall(id=i, name=f"tool{i}", arguments="input") for i in ("3", "2")]
    graph = Graph()
    graph.add_tools_node("tool node", ToolsNode(tools))
    graph.add_edge(START, "tool node")
    graph.add_edge("tool node", END)
    compiled = graph.compile(checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError) as caught:
        compiled.stream(Message.assistant("", tool_calls=calls), checkpoint_id="1")
    roots = [c.address for c in caught.value.info.interrupt_contexts if c.is_root_cause]
    assert roots == ["runnable:;node:tool node;tool:tool2:2"]
    assert caught.value.info.rerun_nodes_extra["tool node"]["executed_tools"] == {"3": "tool3 input: input"}
    out = collect(compiled.stream(None, checkpoint_id="1"))
    assert [(m.tool_call_id, m.content) for m in out] == [
        ("3", "tool3 input: input"),
        ("2", "tool2 input: input"),
    ]
    assert [t.times for t in tools] == [1, 2]
