"""Ports of Eino's `compose/tool_node_test.go` (cloudwego/eino ca0441ac0bce): the ToolsNode."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest

from graph_core import END, START, Graph
from graph_core.call_options import tool_options, with_tools_node_options
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import InterruptError
from graph_core.interrupt import interrupt
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall, ToolInfo, concat_messages
from graph_core.stream import collect
from graph_core.tools import ToolInput, ToolMiddleware, ToolsNode, ToolsNodeOptions, get_tool_call_id, tool


class _Tool:
    """Go `myTool1`..`myTool4`: counts its runs; `interrupts` first time: `tool.Interrupt(ctx, extra)`."""

    def __init__(self, name: str, *, interrupts: bool) -> None:
        self.info = ToolInfo(name, "", {})
        self.interrupts = interrupts
        self.times = 0

    def _run(self) -> None:
        self.times += 1
        if self.interrupts and self.times == 1:
            interrupt(f"{self.info.name} rerun extra")


class _InvokeTool(_Tool):
    """Go `myTool1`/`myTool3`: an invokable tool."""

    def invoke(self, arguments: str) -> str:
        self._run()
        return f"{self.info.name} input: {arguments}"


class _StreamTool(_Tool):
    """Go `myTool2`/`myTool4`: a stream-only tool (a generator here, Eino's StreamableTool), which may
    interrupt before its first chunk."""

    def stream(self, arguments: str) -> Iterator[str]:
        self._run()
        yield f"{self.info.name} input: "
        yield arguments


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
        "executed_enhanced_tools": {},
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


COMPANY, COMPANY_ID = "user_company", "call_TRZhlagwBS0LpWbWPeZOvIXc"
SALARY, SALARY_ID = "user_salary", "call_AqfoRW6fuF98k0o7696k2nzm"
ARGS = '{"name": "zhangsan", "email": "zhangsan@bytedance.com"}'


@tool(
    name=COMPANY, description="Query user's company and position information based on user's name and email"
)
def query_user_company(name: str, email: str) -> str:
    """Go `queryUserCompany`: checks it runs under its own call ID."""
    assert get_tool_call_id() == COMPANY_ID
    return json.dumps(
        {"user_id": f"{name}-{email}", "gender": "male", "company": "bytedance", "position": "CEO"}
    )


@tool(name=SALARY, description="Query user's salary information based on user's name and email")
def query_user_salary(name: str, email: str) -> Iterator[str]:
    """Go `queryUserSalary`: a streamable tool, three chunks."""
    assert get_tool_call_id() == SALARY_ID
    for salary in (5000, 3000, 2000):
        yield json.dumps({"user_id": f"{name}-{email}", "salary": salary}, separators=(",", ":"))


def _intent() -> Message:
    """What Go's `mockIntentChatModel` answers: one call to each tool."""
    return Message.assistant(
        "",
        tool_calls=[
            ToolCall(id=COMPANY_ID, name=COMPANY, arguments=ARGS),
            ToolCall(id=SALARY_ID, name=SALARY, arguments=ARGS),
        ],
    )


def _by_id(messages: list[Message], call_id: str) -> Message:
    return next(m for m in messages if m.tool_call_id == call_id)


def test_tools_node_success() -> None:
    """tool_node_test.go TestToolsNode/success: model -> tools; invoke gives both results; stream gives
    4 chunks of 2 slots each (1 company + 3 salary chunks), which concatenate to the invoke output;
    `transform` on a 2-chunk input stream does the same."""
    model = ScriptedChatModel([_intent()] * 3)
    graph = Graph()
    graph.add_chat_model_node("model", model)
    graph.add_tools_node("tools", ToolsNode([query_user_company, query_user_salary]))
    graph.add_edge(START, "model")
    graph.add_edge("model", "tools")
    graph.add_edge("tools", END)
    compiled = graph.compile()
    out = compiled.invoke([])
    company = _by_id(out, COMPANY_ID)
    assert json.loads(company.content) == {
        "user_id": "zhangsan-zhangsan@bytedance.com",
        "gender": "male",
        "company": "bytedance",
        "position": "CEO",
    }
    salary = _by_id(out, SALARY_ID)
    assert (
        '{"user_id":"zhangsan-zhangsan@bytedance.com","salary":5000}'
        '{"user_id":"zhangsan-zhangsan@bytedance.com","salary":3000}'
        '{"user_id":"zhangsan-zhangsan@bytedance.com","salary":2000}'
    ) in salary.content
    for chunks in (
        list(compiled.stream([])),
        list(compiled.transform([[Message.user("hi, how are you")], [Message.user("i'm fine'")]])),
    ):
        assert len(chunks) == 4 and all(len(row) == 2 for row in chunks)
        salaries = [row[1].content for row in chunks if row[1] is not None]
        assert [json.loads(s)["salary"] for s in salaries] == [5000, 3000, 2000]
        assert [(m.tool_call_id, m.content) for m in collect(iter(chunks))] == [
            (m.tool_call_id, m.content) for m in out
        ]


def test_tools_node_order_consistency() -> None:
    """tool_node_test.go TestToolsNode/order_consistency: output follows the order of the calls, in
    invoke and in every stream chunk's slots."""
    node = ToolsNode([query_user_company, query_user_salary])
    calls = [
        ToolCall(id=SALARY_ID, name=SALARY, arguments=ARGS),
        ToolCall(id=COMPANY_ID, name=COMPANY, arguments=ARGS),
    ]
    message = Message.assistant("", tool_calls=calls)
    output = node.invoke(message)
    assert [m.tool_call_id for m in output] == [SALARY_ID, COMPANY_ID]
    rows = list(node.stream(message))
    for row in rows:
        assert row[0] is None or row[0].tool_call_id == SALARY_ID
        assert row[1] is None or row[1].tool_call_id == COMPANY_ID
    assert [m.tool_call_id for m in collect(iter(rows))] == [SALARY_ID, COMPANY_ID]


def test_unknown_tool() -> None:
    """tool_node_test.go TestUnknownTool: calls to unknown tools go to the handler; invoke and stream."""
    node = ToolsNode([], unknown_tools_handler=lambda name, arguments: "unknown")
    calls = [
        ToolCall(id="1", name="unknown1", arguments="arg1"),
        ToolCall(id="2", name="unknown2", arguments="arg2"),
    ]
    message = Message.assistant("", tool_calls=calls)
    expected = [
        Message.tool("unknown", tool_call_id="1", tool_name="unknown1"),
        Message.tool("unknown", tool_call_id="2", tool_name="unknown2"),
    ]
    assert node.invoke(message) == expected
    result: list[Message | None] = [None, None]
    for row in node.stream(message):
        for i, m in enumerate(row):
            if m is not None:
                result[i] = m
    assert result == expected


def test_tool_middleware() -> None:
    """tool_node_test.go TestToolMiddleware: an invoke-only middleware wraps only the invokable tool3,
    a stream-only one only the stream-only tool4, in both modes (tool3 streamed through its derived
    stream surface, tool4 invoked through its derived invoke surface); each tool runs once per mode."""

    def middleware1(next_ep: Callable[[ToolInput], str]) -> Callable[[ToolInput], str]:
        def endpoint(inp: ToolInput) -> str:
            next_ep(inp)
            return "middleware1"

        return endpoint

    def middleware2(next_ep: Callable[[ToolInput], Iterator[str]]) -> Callable[[ToolInput], Iterator[str]]:
        def endpoint(inp: ToolInput) -> Iterator[str]:
            for _ in next_ep(inp):
                pass
            yield "middleware2"

        return endpoint

    tool3, tool4 = _InvokeTool("tool3", interrupts=False), _StreamTool("tool4", interrupts=False)
    node = ToolsNode(
        [tool3, tool4], middlewares=[ToolMiddleware(invoke=middleware1), ToolMiddleware(stream=middleware2)]
    )
    calls = [ToolCall(id="1", name="tool3", arguments=""), ToolCall(id="2", name="tool4", arguments="")]
    messages = node.invoke(Message.assistant("", tool_calls=calls))
    assert [m.content for m in messages] == ["middleware1", "middleware2"]
    assert (tool3.times, tool4.times) == (1, 1)

    tool3.times = tool4.times = 0
    rows = list(node.stream(Message.assistant("", tool_calls=calls)))
    merged = [concat_messages([m for row in rows if (m := row[i]) is not None]) for i in range(2)]
    assert [m.content for m in merged] == ["middleware1", "middleware2"]
    assert (tool3.times, tool4.times) == (1, 1)


class _MockTool:
    """Go `mockTool`: echoes `"<name>: <age>"`, the age a per-call tool option (`WithAge`); streams the
    JSON answer one character at a time."""

    info = ToolInfo(
        "mock_tool",
        "mock tool",
        {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    )

    @staticmethod
    def _answer(arguments: str) -> str:
        ages = [o["age"] for o in tool_options() if isinstance(o, dict) and "age" in o]
        name = json.loads(arguments)["name"]
        return json.dumps({"echo": f"{name}: {ages[-1] if ages else 0}"})

    def invoke(self, arguments: str) -> str:
        return self._answer(arguments)

    def stream(self, arguments: str) -> Iterator[str]:
        yield from self._answer(arguments)


def test_tools_node_options_tool_option() -> None:
    """tool_node_test.go TestToolsNodeOptions/tool_option: a per-call tool option (Go `WithToolOption(
    WithAge(10))`) reaches the tool, in invoke and stream mode."""
    graph = Graph()
    graph.add_tools_node("tools", ToolsNode([_MockTool()]))
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    compiled = graph.compile()
    message = Message.assistant("", tool_calls=[ToolCall("call_1", "mock_tool", '{"name": "jack"}')])
    options = [with_tools_node_options(ToolsNodeOptions(tool_options=[{"age": 10}]))]

    out = compiled.invoke(message, options=options)
    assert len(out) == 1
    assert json.loads(out[0].content) == {"echo": "jack: 10"}

    msgs = collect(compiled.stream(message, options=options))
    assert len(msgs) == 1
    assert json.loads(msgs[0].content) == {"echo": "jack: 10"}
