"""Eino's two ReAct agents (`shared/docs/eino-semantics.md` §5, §6, Appendix B.4), checked from outside.

flow ReAct: default 13 steps, 2k+1 steps for k tool rounds, the runaway budget (7 model calls, 6 tool
executions), direct return, what is (and is not) in state. ADK ChatModelAgent: max_iterations, the
superstep trace, state appends, return-directly and event order.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from graph_core.agents.adk import ChatModelAgent, ExceedMaxIterationsError
from graph_core.agents.react import ReActAgent, first_chunk_tool_call_checker, set_return_directly
from graph_core.errors import MaxStepsExceededError, NodeRunError
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from graph_core.tools import tool


@dataclass
class Trace:
    """Top-level steps and the last state snapshot (messages as (role, content) pairs)."""

    steps: list[tuple[str, ...]] = field(default_factory=lambda: [])
    state: Any = None
    chat_outputs: list[Any] = field(default_factory=lambda: [])

    def on_step_end(self, step: Any) -> None:
        if not step.path:
            self.steps.append(tuple(step.nodes))
            self.state = step.state

    def on_end(self, info: Any, output: Any) -> None:
        if info.node_key in ("chat", "ChatModel") and len(info.path) == 1:
            self.chat_outputs.append(output)


@dataclass
class Counter:
    n: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def bump(self) -> None:
        with self.lock:
            self.n += 1


def tool_round(i: int, *names: str, text: str = "") -> Message:
    return Message.assistant(text, tool_calls=[ToolCall(f"r{i}c{j}", n, "{}") for j, n in enumerate(names)])


def make_tools(counter: Counter) -> list[Any]:
    @tool
    def ping() -> str:
        """Answer pong."""
        counter.bump()
        return "pong"

    @tool
    def other() -> str:
        """Answer other."""
        counter.bump()
        return "other"

    return [ping, other]


def roles(messages: list[Any]) -> list[tuple[str, str]]:
    out = []
    for m in messages:
        role = m.role if isinstance(m, Message) else m["role"]
        content = m.content if isinstance(m, Message) else m.get("content", "")
        out.append((role, content))
    return out


# -- flow ReAct: steps -----------------------------------------------------------------------------------


def test_react_default_budget_is_13_steps() -> None:
    agent = ReActAgent(model=ScriptedChatModel([Message.assistant("x")]), tools=make_tools(Counter()))
    assert agent.compiled.max_run_steps == 13
    assert agent.compiled.topology().max_run_steps == 13


@pytest.mark.parametrize("rounds", [0, 1, 3, 6])
def test_react_k_tool_rounds_plus_answer_take_2k_plus_1_steps(rounds: int) -> None:
    script = [*(tool_round(i, "ping") for i in range(rounds)), Message.assistant("done")]
    counter = Counter()
    agent = ReActAgent(model=ScriptedChatModel(script), tools=make_tools(counter))
    trace = Trace()
    assert agent.invoke([Message.user("q")], callbacks=[trace]).content == "done"
    assert len(trace.steps) == 2 * rounds + 1
    assert trace.steps == [("chat",), ("tools",)] * rounds + [("chat",)]
    assert counter.n == rounds


def test_react_runaway_makes_7_model_calls_and_6_tool_executions_then_exceeds_max_steps() -> None:
    model = ScriptedChatModel([tool_round(0, "ping")], cycle=True)
    counter = Counter()
    agent = ReActAgent(model=model, tools=make_tools(counter))
    trace = Trace()
    with pytest.raises(MaxStepsExceededError) as info:
        agent.invoke([Message.user("q")], callbacks=[trace])
    assert "exceeds max steps" in str(info.value)
    assert len(model.calls) == 7
    assert counter.n == 6
    assert len(trace.steps) == 13
    assert trace.steps[-1] == ("chat",)


def test_runaway_fixture_matches_the_semantics() -> None:
    from fixtures.runaway import QUESTION, build_agent

    agent = build_agent()
    with pytest.raises(MaxStepsExceededError, match="exceeds max steps"):
        agent.invoke([Message.user(QUESTION)])
    assert len(agent.model.calls) == 7


def test_react_seven_tool_rounds_do_not_fit_the_default_budget() -> None:
    script = [*(tool_round(i, "ping") for i in range(7)), Message.assistant("done")]
    agent = ReActAgent(model=ScriptedChatModel(script), tools=make_tools(Counter()))
    with pytest.raises(MaxStepsExceededError):
        agent.invoke([Message.user("q")])


def test_react_max_step_3_allows_one_tool_round() -> None:
    """Eino `TestWithMessageFuture`: MaxStep=3 with one tool round succeeds."""
    script = [tool_round(0, "ping"), Message.assistant("done")]
    agent = ReActAgent(model=ScriptedChatModel(script), tools=make_tools(Counter()), max_step=3)
    assert agent.compiled.max_run_steps == 3
    assert agent.invoke([Message.user("q")]).content == "done"
    short = ReActAgent(model=ScriptedChatModel(script), tools=make_tools(Counter()), max_step=2)
    with pytest.raises(MaxStepsExceededError):
        short.invoke([Message.user("q")])


# -- flow ReAct: state -----------------------------------------------------------------------------------


def test_react_final_answer_is_not_in_state() -> None:
    script = [tool_round(0, "ping", "other"), Message.assistant("final answer")]
    agent = ReActAgent(model=ScriptedChatModel(script), tools=make_tools(Counter()))
    trace = Trace()
    agent.invoke([Message.user("q")], callbacks=[trace])
    assert roles(trace.state["messages"] if isinstance(trace.state, dict) else trace.state.messages) == [
        ("user", "q"),
        ("assistant", ""),
        ("tool", "pong"),
        ("tool", "other"),
    ]


def test_react_state_holds_the_model_outputs_themselves() -> None:
    """Appendix B.2: the ReAct state stores the same message objects the model returned."""
    script = [tool_round(0, "ping"), Message.assistant("done")]
    agent = ReActAgent(model=ScriptedChatModel(script), tools=make_tools(Counter()))
    trace = Trace()
    agent.invoke([Message.user("q")], callbacks=[trace])
    first_output = trace.chat_outputs[0]
    messages = trace.state.messages if not isinstance(trace.state, dict) else trace.state["messages"]
    assert any(m is first_output for m in messages)


def test_react_modifier_sees_2k_plus_1_messages_and_is_not_persisted() -> None:
    """Eino `TestReact`: the modifier sees len == 2k+1 at the (k+1)-th model call (one call per round)."""
    lengths: list[int] = []

    def modifier(messages: list[Message]) -> list[Message]:
        lengths.append(len(messages))
        return [Message.system("persona"), *messages]

    script = [tool_round(0, "ping"), tool_round(1, "ping"), Message.assistant("done")]
    model = ScriptedChatModel(script)
    agent = ReActAgent(model=model, tools=make_tools(Counter()), message_modifier=modifier)
    trace = Trace()
    agent.invoke([Message.user("q")], callbacks=[trace])
    assert lengths == [1, 3, 5]
    assert [c[0].role for c in model.calls] == ["system"] * 3
    messages = trace.state.messages if not isinstance(trace.state, dict) else trace.state["messages"]
    assert all(m.role != "system" for m in messages)


def test_react_rewriter_runs_before_the_modifier_and_is_persisted() -> None:
    order: list[str] = []

    def rewriter(messages: list[Message]) -> list[Message]:
        order.append("rewriter")
        return [m for m in messages if m.content != "drop me"]

    def modifier(messages: list[Message]) -> list[Message]:
        order.append("modifier")
        return messages

    script = [tool_round(0, "ping"), Message.assistant("done")]
    model = ScriptedChatModel(script)
    agent = ReActAgent(
        model=model, tools=make_tools(Counter()), message_rewriter=rewriter, message_modifier=modifier
    )
    trace = Trace()
    agent.invoke([Message.user("drop me"), Message.user("keep")], callbacks=[trace])
    assert order == ["rewriter", "modifier", "rewriter", "modifier"]
    assert [m.content for m in model.calls[0]] == ["keep"]
    messages = trace.state.messages if not isinstance(trace.state, dict) else trace.state["messages"]
    assert messages[0].content == "keep"


# -- flow ReAct: direct return ---------------------------------------------------------------------------


def test_react_direct_return_takes_3_steps_and_outputs_the_tool_message() -> None:
    counter = Counter()
    tools = make_tools(counter)
    script = [tool_round(0, "other", "ping")]
    model = ScriptedChatModel(script)
    agent = ReActAgent(model=model, tools=tools, tool_return_directly=["ping"])
    trace = Trace()
    out = agent.invoke([Message.user("q")], callbacks=[trace])
    assert trace.steps == [("chat",), ("tools",), ("direct_return",)]
    assert (out.role, out.content, out.tool_call_id, out.tool_name) == ("tool", "pong", "r0c1", "ping")
    assert counter.n == 2  # the other call still ran; its result is discarded
    messages = trace.state.messages if not isinstance(trace.state, dict) else trace.state["messages"]
    assert [m.role for m in messages] == ["user", "assistant"]  # tool results not appended
    assert len(model.calls) == 1


def test_react_direct_return_first_matching_call_wins() -> None:
    script = [tool_round(0, "other", "ping")]
    agent = ReActAgent(
        model=ScriptedChatModel(script), tools=make_tools(Counter()), tool_return_directly=["ping", "other"]
    )
    assert agent.invoke([Message.user("q")]).tool_call_id == "r0c0"


def test_react_set_return_directly_last_call_wins() -> None:
    @tool
    def mark(tag: str) -> str:
        """Mark this call as the answer."""
        if tag == "second":
            time.sleep(0.02)  # finishes last even when run in parallel
        set_return_directly()
        return tag

    calls = [ToolCall("a", "mark", '{"tag": "first"}'), ToolCall("b", "mark", '{"tag": "second"}')]
    agent = ReActAgent(
        model=ScriptedChatModel([Message.assistant("", tool_calls=calls)]),
        tools=[mark],
        execute_sequentially=True,
    )
    out = agent.invoke([Message.user("q")])
    assert (out.role, out.content, out.tool_call_id) == ("tool", "second", "b")


def test_react_direct_return_in_stream_mode_streams_that_tool_only() -> None:
    @tool
    def chunks() -> Iterator[str]:
        """Stream three chunks."""
        yield from ("a", "b", "c")

    counter = Counter()
    script = [Message.assistant("", tool_calls=[ToolCall("x", "chunks", "{}"), ToolCall("y", "ping", "{}")])]
    agent = ReActAgent(
        model=ScriptedChatModel(script), tools=[chunks, *make_tools(counter)], tool_return_directly=["chunks"]
    )
    out = list(agent.stream([Message.user("q")]))
    assert all(m.role == "tool" and m.tool_call_id == "x" for m in out)
    assert "".join(m.content for m in out) == "abc"


def test_react_first_chunk_checker_treats_text_before_tool_calls_as_an_answer_in_stream_mode() -> None:
    """§5.3: with `firstChunkStreamToolCallChecker` the first chunk with content decides: a model that
    talks first ends the run (Claude caveat). It was the default at the pin; since cloudwego/eino PR
    #1141 the default reads on to the tool calls, and this checker is chosen by name."""
    chunks = [
        Message.assistant("Let me check."),
        Message.assistant("", tool_calls=[ToolCall("c1", "ping", "{}", index=0)]),
    ]
    counter = Counter()
    agent = ReActAgent(
        model=ScriptedChatModel([chunks]),
        tools=make_tools(counter),
        stream_tool_call_checker=first_chunk_tool_call_checker,
    )
    out = list(agent.stream([Message.user("q")]))
    assert counter.n == 0
    assert "".join(m.content for m in out) == "Let me check."


# -- ADK ChatModelAgent ----------------------------------------------------------------------------------


def test_adk_default_max_iterations_is_20_model_calls() -> None:
    model = ScriptedChatModel([tool_round(0, "ping")], cycle=True)
    counter = Counter()
    agent = ChatModelAgent(name="loop", model=model, tools=make_tools(counter))
    events = list(agent.run([Message.user("q")]))
    assert isinstance(events[-1].error, ExceedMaxIterationsError)
    assert "exceeds max iterations" in str(events[-1].error)
    assert len(model.calls) == 20
    assert counter.n == 20
    # far beyond the graph's own default (7 nodes + 10): ADK runs with no step limit
    assert agent.compiled.max_run_steps is not None and agent.compiled.max_run_steps > 1000


def test_adk_exceeding_iterations_is_a_chat_model_pre_handler_node_error_on_invoke() -> None:
    model = ScriptedChatModel([tool_round(0, "ping")], cycle=True)
    agent = ChatModelAgent(name="loop", model=model, tools=make_tools(Counter()), max_iterations=2)
    with pytest.raises(NodeRunError) as info:
        agent.invoke([Message.user("q")])
    assert "run node[ChatModel] pre processor fail: exceeds max iterations" in str(info.value)
    assert info.value.node_path[-1] == "ChatModel"
    assert isinstance(info.value.__cause__, ExceedMaxIterationsError)
    assert len(model.calls) == 2


def test_adk_max_iterations_exactly_enough_succeeds() -> None:
    script = [tool_round(0, "ping"), tool_round(1, "ping"), Message.assistant("done")]
    agent = ChatModelAgent(
        name="a", model=ScriptedChatModel(script), tools=make_tools(Counter()), max_iterations=3
    )
    assert agent.invoke([Message.user("q")]).content == "done"


def test_adk_superstep_trace_for_one_tool_round() -> None:
    script = [tool_round(0, "ping"), Message.assistant("done")]
    agent = ChatModelAgent(name="a", model=ScriptedChatModel(script), tools=make_tools(Counter()))
    trace = Trace()
    agent.invoke([Message.user("q")], callbacks=[trace])
    assert trace.steps == [
        ("Init",),
        ("ChatModel",),
        ("CancelCheck",),
        ("ToolNode",),
        ("AfterToolCalls",),
        ("AfterToolCallsCancelCheck",),
        ("ChatModel",),
    ]


def test_adk_every_model_output_final_included_is_appended_to_state() -> None:
    script = [tool_round(0, "ping"), Message.assistant("done")]
    agent = ChatModelAgent(
        name="a", model=ScriptedChatModel(script), tools=make_tools(Counter()), instruction="sys"
    )
    trace = Trace()
    agent.invoke([Message.user("q")], callbacks=[trace])
    messages = trace.state["messages"] if isinstance(trace.state, dict) else trace.state.messages
    assert roles(messages) == [
        ("system", "sys"),
        ("user", "q"),
        ("assistant", ""),
        ("tool", "pong"),
        ("assistant", "done"),
    ]


def test_adk_return_directly_last_matching_call_wins_and_its_event_is_last() -> None:
    """Eino `TestParallelReturnDirectlyToolCall`: the return-directly tool's event comes after the others."""

    @tool
    def quick(tag: str) -> str:
        """Answer at once."""
        return f"quick:{tag}"

    @tool
    def slow(tag: str) -> str:
        """Answer late."""
        time.sleep(0.03)
        return f"slow:{tag}"

    calls = [
        ToolCall("c1", "quick", '{"tag": "1"}'),
        ToolCall("c2", "quick", '{"tag": "2"}'),
        ToolCall("c3", "slow", '{"tag": "3"}'),
    ]
    agent = ChatModelAgent(
        name="a",
        model=ScriptedChatModel([Message.assistant("", tool_calls=calls)]),
        tools=[quick, slow],
        return_directly=["quick"],
    )
    events = [e for e in agent.run([Message.user("q")]) if e.message is not None]
    tool_events = [e.message for e in events if e.message is not None and e.message.role == "tool"]
    assert len(tool_events) == 3
    assert tool_events[-1].tool_call_id == "c2"  # last matching call, emitted last


def test_adk_return_directly_output_is_the_tool_message() -> None:
    @tool
    def stop(text: str) -> str:
        """Stop with text."""
        return text

    calls = [ToolCall("c1", "stop", '{"text": "bye"}')]
    agent = ChatModelAgent(
        name="a",
        model=ScriptedChatModel([Message.assistant("", tool_calls=calls)]),
        tools=[stop],
        return_directly=["stop"],
    )
    trace = Trace()
    out = agent.invoke([Message.user("q")], callbacks=[trace])
    assert (out.role, out.content, out.tool_call_id) == ("tool", "bye", "c1")
    assert trace.steps[-1] == ("ToolNodeToEndConverter",)
