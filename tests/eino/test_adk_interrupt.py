"""Ports of Eino's `adk/interrupt_test.go` (cloudwego/eino ca0441ac0bce) for what graph_core's
`ChatModelAgent` implements: tool interrupts inside the agent, targeted resume, re-interrupts. Go's
Runner (`Query`, `ResumeWithParams`) is the agent's own `run`/`resume` here."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from graph_core.agents.adk import (
    AgentEvent,
    ChatModelAgent,
    ChatModelAgentContext,
    ChatModelAgentMiddleware,
    ChatModelAgentResumeData,
    ModelRetryConfig,
)
from graph_core.agents.adk_agent_tool import AgentTool
from graph_core.agents.adk_runner import Runner
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.interrupt import (
    get_interrupt_state,
    get_resume_data,
    interrupt,
    is_resume_target,
    was_interrupted,
)
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall, ToolInfo
from tests.eino.adk_fakes import RecordingModel


class _StatefulTool:
    """Go `myStatefulTool`: interrupts with a count in its state until resumed with data."""

    def __init__(self, name: str) -> None:
        self.info = ToolInfo(name, "desc", {"type": "object"})

    def invoke(self, arguments: str) -> str:
        name = self.info.name
        if not was_interrupted():
            interrupt(f"interrupt from {name}", state={"interrupt_count": 1})
        state = get_interrupt_state()
        if not is_resume_target() or get_resume_data() is None:
            assert state is not None, f"tool {name} should have interrupt state on resume"
            interrupt(f"interrupt from {name}", state={"interrupt_count": state["interrupt_count"] + 1})
        return str(get_resume_data())


def _until_interrupt(events: list[AgentEvent]) -> tuple[list[AgentEvent], AgentEvent | None]:
    """Go `consumeUntilInterrupt`: the normal events and the interrupt event."""
    normal = [e for e in events if not (e.action is not None and e.action.interrupted is not None)]
    stops = [e for e in events if e.action is not None and e.action.interrupted is not None]
    return normal, (stops[-1] if stops else None)


def test_chat_model_parallel_tool_interrupt_and_resume() -> None:
    """interrupt_test.go TestChatModelParallelToolInterruptAndResume: two parallel tools interrupt (two
    root causes); resuming only toolA leaves toolB's interrupt; resuming toolB lets the model call both
    tools again, which interrupt anew."""

    def calls(*ids: tuple[str, str]) -> Message:
        return Message.assistant("", tool_calls=[ToolCall(id=i, name=n, arguments="{}") for i, n in ids])

    model = ScriptedChatModel(
        [
            calls(("1", "toolA"), ("2", "toolB")),
            calls(("3", "toolA"), ("4", "toolB")),
            Message.assistant("all done"),
        ]
    )
    agent = ChatModelAgent(
        name="ParallelToolAgent",
        description="An agent that uses parallel tools",
        model=model,
        tools=[_StatefulTool("toolA"), _StatefulTool("toolB")],
        checkpoint_store=InMemoryCheckpointStore(),
    )
    normal, stop = _until_interrupt(list(agent.run("start", checkpoint_id="parallel-tool-test-1")))
    assert len(normal) == 1 and stop is not None
    contexts = stop.action.interrupted.interrupt_contexts  # type: ignore[union-attr]
    assert len(contexts) == 2 and all(c.is_root_cause for c in contexts)
    ids = {c.info: c.id for c in contexts}
    assert set(ids) == {"interrupt from toolA", "interrupt from toolB"}

    _, stop = _until_interrupt(
        list(agent.resume("parallel-tool-test-1", resume_data={ids["interrupt from toolA"]: "toolA resumed"}))
    )
    assert stop is not None, "expected a re-interrupt from toolB"
    assert len(stop.action.interrupted.interrupt_contexts) == 1, "should have 1 remaining interrupts"  # type: ignore[union-attr]
    [root] = [c for c in stop.action.interrupted.interrupt_contexts if c.is_root_cause]  # type: ignore[union-attr]
    assert root.info == "interrupt from toolB"

    final, stop = _until_interrupt(
        list(agent.resume("parallel-tool-test-1", resume_data={root.id: "toolB resumed"}))
    )
    assert len(final) == 2
    assert stop is not None


class _ReturnDirectlyTool:
    def __init__(self, name: str) -> None:
        self.info = ToolInfo(name, "A tool that returns directly", {"type": "object"})

    def invoke(self, arguments: str) -> str:
        return "return directly result"


class _InterruptingTool:
    def __init__(self, name: str) -> None:
        self.info = ToolInfo(name, "A tool that interrupts", {"type": "object"})

    def invoke(self, arguments: str) -> str:
        if not was_interrupted():
            interrupt("interrupt data")
        data = get_resume_data() if is_resume_target() else None
        return data if data is not None else "resumed without data"


class _DynamicTool:
    """Go `dynamicTool`"""

    def __init__(self, name: str) -> None:
        self.info = ToolInfo(name, "A dynamically added tool", {"type": "object"})

    def invoke(self, arguments: str) -> str:
        return "dynamic tool result"


class _ToolsHandler(ChatModelAgentMiddleware):
    """Go `interruptTestToolsHandler`: `before_agent` adds its tools."""

    def __init__(self, tools: list[Any]) -> None:
        self.tools = tools

    def before_agent(self, context: ChatModelAgentContext) -> ChatModelAgentContext:
        context.tools = [*context.tools, *self.tools]
        return context


def test_return_directly_event_sent_after_resume() -> None:
    """interrupt_test.go TestReturnDirectlyEventSentAfterResume: a return-directly tool completes beside
    an interrupting one; after the resume its held event is sent; the tool a handler added is offered to
    the model (Go `twoToolCallModel` keeps the tools of its last call)"""
    calls = [
        ToolCall(id="call_return_directly", name="return_directly_tool", arguments="{}"),
        ToolCall(id="call_interrupting", name="interrupting_tool", arguments="{}"),
    ]
    model = RecordingModel([Message.assistant("", tool_calls=calls), Message.assistant("final response")])
    agent = ChatModelAgent(
        name="TestAgent",
        description="Test agent for return directly + interrupt",
        model=model,
        tools=[_ReturnDirectlyTool("return_directly_tool"), _InterruptingTool("interrupting_tool")],
        return_directly=["return_directly_tool"],
        handlers=[_ToolsHandler([_DynamicTool("dynamic_tool")])],
    )
    runner = Runner(agent, checkpoint_store=InMemoryCheckpointStore())
    _, stop = _until_interrupt(list(runner.query("test input", checkpoint_id="test_checkpoint")))
    assert stop is not None and stop.action is not None
    contexts = stop.action.interrupted.interrupt_contexts
    assert contexts
    assert "dynamic_tool" in model.tools[-1], "Dynamic tool should be in tool list before interrupt"
    resumed = list(runner.resume("test_checkpoint", resume_data={contexts[0].id: "resume data"}))
    assert any(
        e.message is not None and e.message.role == "tool" and e.message.tool_name == "return_directly_tool"
        for e in resumed
    ), "ReturnDirectlyEvent should be sent after resume"
    assert "dynamic_tool" in model.tools[-1], "Dynamic tool should be in tool list after resume"


class _ValidatingModel:
    """Go `myModel`: answers its script in order; `validator(call, messages)` false fails the call."""

    def __init__(self, script: list[Message], validator: Callable[[int, list[Message]], bool]) -> None:
        self.script = script
        self.validator = validator
        self.times = 0

    def with_tools(self, tools: object) -> _ValidatingModel:
        return self

    def generate(self, messages: list[Message]) -> Message:
        if not self.validator(self.times, messages):
            raise ValueError("invalid input")
        self.times += 1
        return self.script[self.times - 1]


class _Tool1:
    """Go `myTool1`: interrupts until resumed as a target; returns its resume data (else "result")."""

    info = ToolInfo("tool1", "desc", {"type": "object"})

    def invoke(self, arguments: str) -> str:
        if not was_interrupted() or not is_resume_target():
            interrupt(None)
        data = get_resume_data()
        return data if data is not None else "result"


def test_chat_model_interrupt() -> None:
    """interrupt_test.go TestChatModelInterrupt: a tool interrupts; the interrupt event has one context
    (the tool call) whose parents reach the agent; resuming with data for the tool and, for the agent,
    a `ChatModelAgentResumeData` whose history modifier rewrites the history, gives the tool's resume
    result, then the model (which sees the rewritten history) completes."""

    def validator(call: int, messages: list[Message]) -> bool:
        return call == 0 or (len(messages) == 4 and messages[2].content == "new user message")

    tool_call = ToolCall(id="1", name="tool1", arguments="arguments")
    model = _ValidatingModel(
        [Message.assistant("", tool_calls=[tool_call]), Message.assistant("completed")], validator
    )
    agent = ChatModelAgent(
        name="name",
        description="description",
        instruction="instruction",
        model=model,
        tools=[_Tool1()],
        checkpoint_store=InMemoryCheckpointStore(),
    )
    first, stop = list(agent.run("hello world", checkpoint_id="1"))
    assert first.error is None and first.message is not None and first.message.tool_calls
    assert stop.error is None and stop.action is not None and stop.action.interrupted is not None
    [context] = stop.action.interrupted.interrupt_contexts
    assert context.address == "agent:name;tool:tool1:1"
    chain: list[str] = []
    parent = context
    while parent is not None:
        chain.append(parent.id)
        parent = parent.parent_context
    agent_id = chain[-1]
    assert agent_id == "agent:name"

    def rewrite(history: list[Message]) -> list[Message]:
        history[2] = history[2].model_copy(update={"content": "new user message"})
        return history

    targets = {agent_id: ChatModelAgentResumeData(history_modifier=rewrite), context.id: "tool resume result"}
    events = list(agent.resume("1", resume_data=targets))
    assert [e.error for e in events] == [None, None]
    assert [e.message.content for e in events if e.message is not None] == ["tool resume result", "completed"]


def test_nested_chat_model_agent_with_agent_tool() -> None:
    """interrupt_test.go TestNestedChatModelAgentWithAgentTool: a tool of an agent used as a tool
    interrupts; the outer run reports one root cause at the nested address, every event is the outer
    agent's, and resuming that address completes the inner agent and then the outer one."""
    inner = ChatModelAgent(
        name="InnerAgent",
        description="Inner agent with interruptible tool",
        model=ScriptedChatModel(
            [
                Message.assistant("", tool_calls=[ToolCall(id="1", name="innerTool", arguments="{}")]),
                Message.assistant("inner agent completed"),
            ]
        ),
        tools=[_StatefulTool("innerTool")],
    )
    outer = ChatModelAgent(
        name="OuterAgent",
        description="Outer agent with AgentTool containing inner agent",
        model=ScriptedChatModel(
            [
                Message.assistant("", tool_calls=[ToolCall(id="1", name="InnerAgent", arguments="{}")]),
                Message.assistant("outer agent completed"),
            ]
        ),
        tools=[AgentTool(inner)],
    )
    runner = Runner(outer, checkpoint_store=InMemoryCheckpointStore())
    events = list(runner.query("start", checkpoint_id="nested-agent-test-1"))
    stops = [e for e in events if e.action is not None and e.action.interrupted is not None]
    assert len(stops) == 1
    [context] = stops[0].action.interrupted.interrupt_contexts  # type: ignore[union-attr]
    assert context.is_root_cause and context.info == "interrupt from innerTool"
    assert context.address == "agent:OuterAgent;tool:InnerAgent:1;agent:InnerAgent;tool:innerTool:1"
    assert {e.agent_name for e in events if e.agent_name} == {"OuterAgent"}

    final = list(runner.resume("nested-agent-test-1", resume_data={context.id: "resume inner tool"}))
    assert final and all(e.error is None for e in final)
    contents = [e.message.content for e in final if e.message is not None]
    assert "inner agent completed" in contents and "outer agent completed" in contents


class _RetryableError(Exception):
    """Go `errRetryAble`."""


class _StreamErrorThenToolCallModel:
    """Go `streamErrorThenToolCallModel`: the first stream sends three chunks then a retryable error;
    the next one a call of `tool_call_name`."""

    def __init__(self, tool_call_name: str) -> None:
        self.tool_call_name = tool_call_name
        self.call_count = 0

    def with_tools(self, tools: object) -> _StreamErrorThenToolCallModel:
        return self

    def generate(self, messages: list[Message]) -> Message:
        return Message.assistant("final answer")

    def stream(self, messages: list[Message]) -> Iterator[Message]:
        self.call_count += 1
        if self.call_count == 1:
            for text in ("chunk1", "chunk2", "chunk3"):
                yield Message.assistant(text)
            raise _RetryableError("retryable")
        yield Message.assistant(
            "", tool_calls=[ToolCall(id="call-1", name=self.tool_call_name, arguments="{}")]
        )


def test_stream_retry_then_tool_interrupt_checkpoint() -> None:
    """interrupt_test.go TestStreamRetryThenToolInterruptCheckpoint: a stream that failed mid-way and was
    retried does not stop the checkpoint of the tool interrupt that follows"""
    model = _StreamErrorThenToolCallModel("interrupt_tool")
    agent = ChatModelAgent(
        name="RetryInterruptAgent",
        description="Agent that retries model then tool interrupts",
        instruction="You are a test agent.",
        model=model,
        model_retry_config=ModelRetryConfig(
            max_retries=2, is_retryable=lambda e: isinstance(e, _RetryableError), sleep=lambda _s: None
        ),
        tools=[_InterruptingTool("interrupt_tool")],
    )
    store = InMemoryCheckpointStore()
    runner = Runner(agent, enable_streaming=True, checkpoint_store=store)
    events = list(runner.run([Message.user("test query")], checkpoint_id="retry_interrupt_ckpt"))
    assert [e.error for e in events if e.error is not None] == []
    assert any(e.action is not None and e.action.interrupted is not None for e in events)
    assert store.get("retry_interrupt_ckpt") is not None
    assert model.call_count == 2
