"""Eino's `flow/agent/react/react_test.go`, ported (Eino commit ca0441ac, see docs/eino-conformance.md).

Go's gomock chat model becomes a `ScriptedChatModel` whose script is what the mock's `DoAndReturn`
returns call by call; Go's random names and call IDs become fixed ones. Where the Go test only logs the
answer, the port asserts it (the scripted model makes it deterministic).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from graph_core import END, START, Graph, Lambda
from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from graph_core.stream import collect
from graph_core.tools import tool

GREET = "greet"
STREAM_GREET = "greet in stream"


class Greeter:
    """Eino's `fakeToolGreetForTest` / `fakeStreamToolGreetForTest`: "hello <name>" until `target`
    greetings were given, then "bye"."""

    def __init__(self, target: int = 0) -> None:
        self.target = target
        self.count = 0

    def say(self, name: str) -> str:
        if self.count >= self.target:
            return json.dumps({"say": "bye"})
        self.count += 1
        return json.dumps({"say": f"hello {name}"})

    def invoke_tool(self) -> Any:
        @tool(name=GREET, description="greet with name")
        def greet(name: str) -> str:
            """Args:
            name: user name who to greet
            """
            return self.say(name)

        return greet

    def stream_tool(self) -> Any:
        @tool(name=STREAM_GREET, description="greet with name in stream")
        def greet_in_stream(name: str) -> Iterator[str]:
            """Args:
            name: user name who to greet
            """
            yield self.say(name)

        return greet_in_stream


def call(tool_name: str, name: str, call_id: str) -> ToolCall:
    return ToolCall(call_id, tool_name, json.dumps({"name": name, "hh": "123"}))


def asks(*calls: ToolCall) -> Message:
    return Message.assistant("hello max", tool_calls=list(calls))


USER = Message.user("Use greet tool to continuously say hello until you get a bye response")


def test_react() -> None:
    """flow/agent/react/react_test.go TestReact: two tool rounds then "bye"; the message modifier sees
    2k+1 messages before the k-th model call. With greet as a return-directly tool the first tool
    result is the answer."""
    model = ScriptedChatModel(
        [asks(call(GREET, "max", "c1")), asks(call(GREET, "bob", "c2")), Message.assistant("bye")]
    )
    seen: list[int] = []

    def modifier(messages: list[Message]) -> list[Message]:
        assert len(messages) == len(model.calls) * 2 + 1
        seen.append(len(messages))
        return messages

    greeter = Greeter(target=3)
    agent = ReActAgent(model, tools=[greeter.invoke_tool()], message_modifier=modifier, max_step=40)
    assert agent.invoke([USER]).content == "bye"
    assert seen == [1, 3, 5]

    model = ScriptedChatModel([asks(call(GREET, "max", "c1"))])
    seen.clear()
    agent = ReActAgent(
        model,
        tools=[greeter.invoke_tool()],
        message_modifier=modifier,
        max_step=40,
        tool_return_directly=[GREET],
    )
    out = agent.invoke([USER])
    assert (out.role, out.tool_call_id, out.content) == ("tool", "c1", json.dumps({"say": "hello max"}))
    assert seen == [1]


def test_react_with_message_rewriter_and_modifier() -> None:
    """flow/agent/react/react_test.go TestReactWithMessageRewriterAndModifier: the rewriter sees the
    4-message history and keeps the last two; the modifier sees those two and prepends a system
    prompt; the model gets exactly [system, user "message 2", assistant "response 2"]."""
    model = ScriptedChatModel([Message.assistant("final response")])

    def rewriter(messages: list[Message]) -> list[Message]:
        assert len(messages) == 4
        return messages[-2:]

    def modifier(messages: list[Message]) -> list[Message]:
        assert len(messages) == 2
        return [Message.system("system prompt"), *messages]

    agent = ReActAgent(model, message_rewriter=rewriter, message_modifier=modifier)
    history = [
        Message.user("message 1"),
        Message.assistant("response 1"),
        Message.user("message 2"),
        Message.assistant("response 2"),
    ]
    assert agent.invoke(history).content == "final response"
    assert len(model.calls) == 1
    received = model.calls[0]
    assert [(m.role, m.content) for m in received] == [
        ("system", "system prompt"),
        ("user", "message 2"),
        ("assistant", "response 2"),
    ]


def test_react_stream() -> None:
    """flow/agent/react/react_test.go TestReactStream: stream mode with an invokable and a streaming
    tool (two greet rounds, a stream-greet round, a parallel round, then "bye") gives one chunk. With
    the stream tool returning directly: after two greet rounds the stream tool's result is the single
    chunk; and when it is one of two parallel calls, its result alone is the answer."""
    greeter, stream_greeter = Greeter(target=20), Greeter(target=20)
    script = [
        asks(call(GREET, "a", "c1")),
        asks(call(GREET, "b", "c2")),
        asks(call(STREAM_GREET, "c", "c3")),
        asks(call(GREET, "d", "c4"), call(STREAM_GREET, "e", "c5")),
        Message.assistant("bye"),
        # second agent (stream tool returns directly); Go resets the mock's counter
        asks(call(GREET, "f", "c6")),
        asks(call(GREET, "g", "c7")),
        asks(call(STREAM_GREET, "h", "c8")),
        # third run of the second agent: the mock's counter goes on to the parallel round
        asks(call(GREET, "i", "c9"), call(STREAM_GREET, "j", "c10")),
    ]
    model = ScriptedChatModel(script)
    tools = [greeter.invoke_tool(), stream_greeter.stream_tool()]

    agent = ReActAgent(model, tools=tools, max_step=40)
    chunks = list(agent.stream([USER]))
    assert len(chunks) == 1
    assert collect(chunks).content == "bye"

    agent = ReActAgent(model, tools=tools, max_step=40, tool_return_directly=[STREAM_GREET])
    chunks = list(agent.stream([USER]))
    assert len(chunks) == 1
    assert (chunks[0].tool_call_id, chunks[0].content) == ("c8", json.dumps({"say": "hello h"}))

    chunks = list(agent.stream([USER]))
    assert len(chunks) == 1
    assert (chunks[0].tool_call_id, chunks[0].content) == ("c10", json.dumps({"say": "hello j"}))
    assert model.remaining == 0


def test_react_with_modifier() -> None:
    """flow/agent/react/react_test.go TestReactWithModifier: a modifier prepending a system message on
    every model call; two tool rounds, then "bye"."""
    model = ScriptedChatModel(
        [asks(call(GREET, "max", "c1")), asks(call(GREET, "bob", "c2")), Message.assistant("bye")]
    )
    agent = ReActAgent(
        model,
        tools=[Greeter().invoke_tool()],
        message_modifier=lambda messages: [Message.system("you are a helpful assistant"), *messages],
        max_step=40,
    )
    assert agent.invoke([Message.user("hello")]).content == "bye"
    assert all(received[0].content == "you are a helpful assistant" for received in model.calls)


def test_agent_in_graph_agent_generate_in_chain() -> None:
    """flow/agent/react/react_test.go TestAgentInGraph/agent generate in chain: the agent's
    invoke/stream as a lambda, followed by a lambda taking the answer's content; the model is called
    exactly three times. (Eino builds a Chain; graph_core has no Chain, so the same two nodes in a
    line.)"""
    model = ScriptedChatModel(
        [asks(call(GREET, "max", "c1")), asks(call(GREET, "bob", "c2")), Message.assistant("bye")]
    )
    agent = ReActAgent(model, tools=[Greeter().invoke_tool(), Greeter().stream_tool()], max_step=40)
    g = Graph()
    g.add_lambda_node("node_0", Lambda(invoke=agent.invoke, stream=agent.stream))
    g.add_lambda_node("node_1", lambda message: message.content)
    g.add_edge(START, "node_0")
    g.add_edge("node_0", "node_1")
    g.add_edge("node_1", END)
    assert g.compile().invoke([Message.user("hello")]) == "bye"
    assert len(model.calls) == 3


def test_agent_in_graph_agent_stream_in_chain() -> None:
    """flow/agent/react/react_test.go TestAgentInGraph/agent stream in chain: the agent's exported
    graph (with its compile options) embedded as a graph node, then a lambda taking the content; stream
    mode; the model is called exactly three times."""
    rounds = [asks(call(STREAM_GREET, "max", "c1")), asks(call(STREAM_GREET, "bob", "c2"))]
    model = ScriptedChatModel([*rounds, Message.assistant("bye")])
    agent = ReActAgent(model, tools=[Greeter().invoke_tool(), Greeter().stream_tool()], max_step=40)
    g = Graph()
    g.add_graph_node("node_0", agent.graph, compile_options=agent.compile_options)
    g.add_lambda_node("node_1", lambda message: message.content)
    g.add_edge(START, "node_0")
    g.add_edge("node_0", "node_1")
    g.add_edge("node_1", END)
    assert "".join(g.compile().stream([Message.user("hello")])) == "bye"
    assert len(model.calls) == 3
