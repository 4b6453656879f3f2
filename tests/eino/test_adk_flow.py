"""Ports of `adk/flow_test.go` (cloudwego/eino), the transfer rows of
`adk/callback_integration_test.go` and the run-path gating rows of `adk/agent_tool_test.go`: agents
that transfer the conversation to each other (`set_sub_agents`, `transfer_to_agent`) and the flow
agent's run path, session and callbacks. Each test names its Go test; the tests after them check what
the Go tests leave implicit (the history the next agent gets, the run paths, the transfer tool)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from graph_core.agents.adk import AgentAction, AgentEvent, ChatModelAgent, get_session_values
from graph_core.agents.adk_callbacks import AGENT_KIND, with_callbacks
from graph_core.agents.adk_deterministic import agent_with_deterministic_transfer_to
from graph_core.agents.adk_flow import (
    HistoryEntry,
    agent_with_options,
    set_sub_agents,
    to_flow_agent,
)
from graph_core.agents.adk_history import rewrite_message
from graph_core.agents.adk_run import add_session_value, event_from_message, new_transfer_to_agent_action
from graph_core.agents.adk_runctx import current_run_ctx
from graph_core.agents.adk_runner import Runner
from graph_core.agents.adk_transfer import TRANSFER_TO_AGENT_TOOL_NAME
from graph_core.callbacks import RunInfo
from graph_core.errors import GraphBuildError
from graph_core.multimodal import MediaPart, MessageInputPart
from graph_core.schema import Message, ToolCall
from tests.eino.adk_fakes import RecordingModel


def _transfer_call(dest: str, call_id: str = "tool-call-1") -> Message:
    return Message.assistant(
        f"I'll transfer this to {dest}",
        tool_calls=[ToolCall(call_id, TRANSFER_TO_AGENT_TOOL_NAME, f'{{"agent_name": "{dest}"}}')],
    )


def _parent_and_child(
    parent_reply: Message | None = None,
) -> tuple[ChatModelAgent, ChatModelAgent, RecordingModel, RecordingModel]:
    parent_model = RecordingModel([parent_reply or _transfer_call("ChildAgent")])
    child_model = RecordingModel([Message.assistant("Hello from child agent")])
    parent = ChatModelAgent(
        name="ParentAgent",
        description="Parent agent that will transfer to child",
        instruction="You are a parent agent.",
        model=parent_model,
    )
    child = ChatModelAgent(
        name="ChildAgent",
        description="Child agent that handles specific tasks",
        instruction="You are a child agent.",
        model=child_model,
    )
    return parent, child, parent_model, child_model


class StartCounter:
    """Counts agent-level `on_start` calls per agent name and drains every `on_end` event stream."""

    def __init__(self) -> None:
        self.starts: dict[str, int] = {}
        self.lock = threading.Lock()

    def on_start(self, info: RunInfo, input: Any) -> None:
        if info.kind == AGENT_KIND:
            with self.lock:
                self.starts[info.name] = self.starts.get(info.name, 0) + 1

    def on_end(self, info: RunInfo, output: Any) -> None:
        if info.kind == AGENT_KIND and output.events is not None:
            threading.Thread(target=lambda: list(output.events), daemon=True).start()


def _agents_1_and_2() -> Any:
    agent1 = ChatModelAgent(
        name="Agent1",
        description="First agent that transfers to Agent2",
        instruction="You are agent 1",
        model=RecordingModel([_transfer_call("Agent2", "transfer_1")]),
    )
    agent2 = ChatModelAgent(
        name="Agent2",
        description="Second agent",
        instruction="You are agent 2",
        model=RecordingModel([Message.assistant("final response from Agent2")]),
    )
    return set_sub_agents(agent1, [agent2])


# -- flow_test.go --------------------------------------------------------------------------------------


def test_rewrite_message() -> None:
    """flow_test.go TestRewriteMessage (graph_core's Message has `user_input_multi_content` only: no
    deprecated `MultiContent` and no `AssistantGenMultiContent` to convert)"""
    image = MediaPart(url="http://img.example.com")
    message = Message.assistant(
        "hello",
        user_input_multi_content=[
            MessageInputPart(type="text", text="pre-existing"),
            MessageInputPart(type="image_url", image=image),
        ],
    )
    rewritten = rewrite_message(message, "OtherAgent")
    assert rewritten.role == "user"
    assert rewritten.content == "For context: [OtherAgent] said: hello."
    assert rewritten.user_input_multi_content == message.user_input_multi_content
    rewritten.user_input_multi_content[0].text = "mutated"  # copied, not shared
    assert message.user_input_multi_content[0].text == "pre-existing"


def test_transfer_to_agent() -> None:
    """flow_test.go TestTransferToAgent"""
    parent, child, _, _ = _parent_and_child()
    flow = set_sub_agents(parent, [child])
    assert flow is not None
    assert parent.sub_agents and child.parent_agent is not None
    events = list(flow.run([Message.user("Please transfer this to the child agent")]))
    assert len(events) == 3
    first, second, third = events
    assert first.error is None and first.message is not None and first.message.role == "assistant"
    assert second.error is None and second.message is not None and second.message.role == "tool"
    assert second.action is not None and second.action.transfer_to_agent == "ChildAgent"
    assert third.error is None and third.message is not None and third.message.role == "assistant"
    assert third.message.content == "Hello from child agent"


def test_transfer_to_agent_with_designated_callback() -> None:
    """flow_test.go TestTransferToAgentWithDesignatedCallback"""
    parent, child, _, _ = _parent_and_child()
    flow = set_sub_agents(parent, [child])
    counter = StartCounter()
    list(
        flow.run(
            [Message.user("Please transfer this to the child agent")],
            callbacks=[with_callbacks(counter).designate_agent("ChildAgent")],
        )
    )
    assert counter.starts.get("ChildAgent") == 1
    assert "ParentAgent" not in counter.starts


# -- callback_integration_test.go (the transfer rows) -------------------------------------------------


def test_sub_agent_context_isolation() -> None:
    """callback_integration_test.go TestSubAgentContextIsolation (engine part: both agents' OnStart
    fire; graph_core's handlers return no context, so no marker can leak from one agent's OnStart to
    the next)"""
    counter = StartCounter()
    list(Runner(_agents_1_and_2()).query("hello", callbacks=[counter]))
    assert counter.starts == {"Agent1": 1, "Agent2": 1}


def test_callback_designated_to_specific_agent() -> None:
    """callback_integration_test.go TestCallbackDesignatedToSpecificAgent"""
    counter = StartCounter()
    list(
        Runner(_agents_1_and_2()).query(
            "hello", callbacks=[with_callbacks(counter).designate_agent("Agent2")]
        )
    )
    assert counter.starts.get("Agent1", 0) == 0
    assert counter.starts.get("Agent2", 0) == 1


def test_callback_designated_to_multiple_agents() -> None:
    """callback_integration_test.go TestCallbackDesignatedToMultipleAgents"""
    counter = StartCounter()
    option = with_callbacks(counter).designate_agent("Agent1", "Agent2")
    list(Runner(_agents_1_and_2()).query("hello", callbacks=[option]))
    assert counter.starts.get("Agent1", 0) == 1
    assert counter.starts.get("Agent2", 0) == 1


def test_callback_designated_excludes_non_matching_agents() -> None:
    """callback_integration_test.go TestCallbackDesignatedExcludesNonMatchingAgents"""
    counter = StartCounter()
    list(
        Runner(_agents_1_and_2()).query(
            "hello", callbacks=[with_callbacks(counter).designate_agent("Agent1")]
        )
    )
    assert counter.starts.get("Agent1", 0) == 1
    assert counter.starts.get("Agent2", 0) == 0


def test_mixed_designated_and_global_callbacks() -> None:
    """callback_integration_test.go TestMixedDesignatedAndGlobalCallbacks"""
    global_counter, agent2_counter = StartCounter(), StartCounter()
    options = [with_callbacks(global_counter), with_callbacks(agent2_counter).designate_agent("Agent2")]
    list(Runner(_agents_1_and_2()).query("hello", callbacks=options))
    assert global_counter.starts.get("Agent1", 0) == 1
    assert global_counter.starts.get("Agent2", 0) == 1
    assert agent2_counter.starts.get("Agent1", 0) == 0
    assert agent2_counter.starts.get("Agent2", 0) == 1


def test_on_start_called_once_per_agent_with_designation() -> None:
    """callback_integration_test.go TestOnStartCalledOncePerAgentWithDesignation"""
    counter = StartCounter()
    list(Runner(_agents_1_and_2()).query("hello", callbacks=[with_callbacks(counter)]))
    assert counter.starts.get("Agent1", 0) == 1
    assert counter.starts.get("Agent2", 0) == 1


# -- agent_tool_test.go (run-path gating) ---------------------------------------------------------------


class EmitEventsAgent:
    """Eino's `emitEventsAgent`: sends its events as they are."""

    name = "emit"
    description = "test"

    def __init__(self, events: Sequence[AgentEvent]) -> None:
        self.events = list(events)

    def run(self, messages: Sequence[Message] | str | None, **options: Any) -> Iterator[AgentEvent]:
        yield from self.events


def test_run_path_gating_ignores_inner_exit_and_allows_output() -> None:
    """agent_tool_test.go TestRunPathGating_IgnoresInnerExitAndAllowsOutput"""
    inner_exit = AgentEvent("", action=AgentAction(exit=True), run_path=("inner",))
    final = event_from_message(Message.assistant("ok"))
    flow = to_flow_agent(EmitEventsAgent([inner_exit, final]))
    events = list(flow.run([Message.user("q")]))
    assert any(not e.is_streaming and e.message is not None and e.message.content == "ok" for e in events)


def test_run_path_gating_ignores_inner_transfer() -> None:
    """agent_tool_test.go TestRunPathGating_IgnoresInnerTransfer"""
    inner_transfer = AgentEvent("", action=new_transfer_to_agent_action("ghost"), run_path=("inner",))
    final = event_from_message(Message.assistant("done"))
    flow = to_flow_agent(EmitEventsAgent([inner_transfer, final]))
    events = list(flow.run([Message.user("q")]))
    outputs = [e for e in events if not e.is_streaming and e.message is not None]
    assert outputs
    assert all(e.error is None for e in events)  # no transfer to `ghost` was tried


# -- what the Go tests leave implicit -----------------------------------------------------------------


def test_transfer_gives_the_child_the_history_as_context() -> None:
    """The child's model gets its instruction, the user's input and the parent's turn retold as user
    messages (Eino `genAgentInput` with the default history rewriter)."""
    parent, child, parent_model, child_model = _parent_and_child()
    flow = set_sub_agents(parent, [child])
    list(flow.run([Message.user("Please transfer")]))
    assert parent_model.tools[0] == [TRANSFER_TO_AGENT_TOOL_NAME]
    system = parent_model.calls[0][0]
    assert system.role == "system"
    assert system.content.startswith(
        "You are a parent agent.\n\nAvailable other agents: \n- Agent name: ChildAgent"
    )
    assert "  Agent description: Child agent that handles specific tasks" in system.content
    assert [(m.role, m.content) for m in child_model.calls[0]] == [
        ("system", child_model.calls[0][0].content),
        ("user", "Please transfer"),
        (
            "user",
            "For context: [ParentAgent] said: I'll transfer this to ChildAgent. [ParentAgent] called tool: "
            '`transfer_to_agent` with arguments: {"agent_name": "ChildAgent"}.',
        ),
        (
            "user",
            "For context: [ParentAgent] `transfer_to_agent` tool returned result: "
            "successfully transferred to agent [ChildAgent].",
        ),
    ]
    # the child may transfer back to its parent
    assert "- Agent name: ParentAgent" in child_model.calls[0][0].content
    assert child_model.tools[0] == [TRANSFER_TO_AGENT_TOOL_NAME]


def test_transfer_run_paths_and_session_values() -> None:
    """Events carry the run path (the child runs under the parent); the agents share session values."""
    parent, child, _, _ = _parent_and_child()
    flow = set_sub_agents(parent, [child])
    events = list(Runner(flow).query("hi", session={"k": "v"}))
    assert [e.run_path for e in events] == [
        ("ParentAgent",),
        ("ParentAgent",),
        ("ParentAgent", "ChildAgent"),
    ]
    assert [e.agent_name for e in events] == ["ParentAgent", "ParentAgent", "ChildAgent"]


def test_disallow_transfer_to_parent_removes_the_transfer_tool() -> None:
    parent, child, _, child_model = _parent_and_child()
    set_sub_agents(parent, [agent_with_options(child, disallow_transfer_to_parent=True)])
    assert child.disallow_transfer_to_parent
    assert TRANSFER_TO_AGENT_TOOL_NAME not in [i.name for i in child.tools_node.tool_infos]
    assert child.instruction == "You are a child agent."
    assert child_model.calls == []


def test_transfer_to_an_unknown_agent_fails_with_eino_message() -> None:
    parent, child, _, _ = _parent_and_child(_transfer_call("Nobody"))
    events = list(set_sub_agents(parent, [child]).run([Message.user("q")]))
    assert events[-1].error is not None
    message = "transfer failed: agent 'Nobody' not found when transferring from 'ParentAgent'"
    assert message in str(events[-1].error)


def test_set_sub_agents_twice_fails() -> None:
    parent, child, _, _ = _parent_and_child()
    flow = set_sub_agents(parent, [child])
    with pytest.raises(GraphBuildError, match="sub-agents has already been set"):
        set_sub_agents(flow, [ChatModelAgent(name="x", description="x", model=RecordingModel([]))])


def test_history_rewriter_option_replaces_the_default() -> None:
    seen: list[list[HistoryEntry]] = []

    def rewriter(entries: list[HistoryEntry]) -> list[Message]:
        seen.append(entries)
        return [Message.user("rewritten")]

    parent, child, _, child_model = _parent_and_child()
    list(set_sub_agents(parent, [agent_with_options(child, history_rewriter=rewriter)]).run("q"))
    assert [m.content for m in child_model.calls[0][1:]] == ["rewritten"]
    assert [(e.is_user_input, e.agent_name) for e in seen[-1]] == [
        (True, ""),
        (False, "ParentAgent"),
        (False, "ParentAgent"),
    ]


class SessionAgent:
    """A custom agent that reads its run context and writes a session value."""

    name = "custom"
    description = "custom"

    def __init__(self) -> None:
        self.seen: dict[str, Any] = {}

    def run(self, messages: Sequence[Message] | str | None, **options: Any) -> Iterator[AgentEvent]:
        ctx = current_run_ctx()
        self.seen = {"path": ctx.run_path if ctx else None, "values": get_session_values()}
        add_session_value("custom", "wrote")
        yield event_from_message(Message.assistant("custom done"))


def test_custom_agent_reads_its_run_context_and_session() -> None:
    agent = SessionAgent()
    session: dict[str, Any] = {"given": 1}
    events = list(Runner(to_flow_agent(agent)).query("q", session=session))
    assert agent.seen == {"path": ("custom",), "values": {"given": 1}}
    assert session == {"given": 1, "custom": "wrote"}
    assert events[0].agent_name == "custom" and events[0].run_path == ("custom",)


def test_inner_transfer_as_the_last_event_is_not_acted_upon() -> None:
    """Gating decides even when the inner action comes last (the Go tests end with an own event)."""
    inner_transfer = AgentEvent("", action=new_transfer_to_agent_action("ghost"), run_path=("inner",))
    flow = to_flow_agent(EmitEventsAgent([event_from_message(Message.assistant("done")), inner_transfer]))
    events = list(flow.run([Message.user("q")]))
    assert [e.error for e in events] == [None, None]
    own = to_flow_agent(EmitEventsAgent([AgentEvent("", action=new_transfer_to_agent_action("ghost"))]))
    assert "agent 'ghost' not found" in str(list(own.run([Message.user("q")]))[-1].error)


def test_streaming_transfer_records_streams_the_child_reads_whole() -> None:
    """With streaming, model outputs are streams; the session keeps them, and the child's input holds
    the parent's streamed turn whole."""
    parent, child, _, child_model = _parent_and_child()
    events = list(Runner(set_sub_agents(parent, [child]), enable_streaming=True).query("hi"))
    assert [e.is_streaming for e in events] == [True, False, True]
    assert events[0].get_message() is not None and events[0].get_message().tool_calls  # type: ignore[union-attr]
    assert child_model.calls[0][2].content.startswith("For context: [ParentAgent] said: I'll transfer")


def test_session_values_cross_a_transfer() -> None:
    """`output_key` of the first agent is read by the next one (one session per run)."""
    reader = SessionAgent()
    first = ChatModelAgent(
        name="First",
        description="answers then hands over",
        model=RecordingModel([Message.assistant("42")]),
        output_key="answer",
    )
    flow = set_sub_agents(agent_with_deterministic_transfer_to(first, [reader.name]), [reader])
    list(Runner(flow).query("q"))
    assert reader.seen["values"] == {"answer": "42"}
    assert reader.seen["path"] == ("First", "custom")
