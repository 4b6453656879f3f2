"""Ports of `adk/handler_test.go` (cloudwego/eino): the ChatModelAgent's handlers (Eino's
`ChatModelAgentMiddleware`) and middlewares (`AgentMiddleware`). Each test names its Go test."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from graph_core.agents.adk import (
    AgentEvent,
    AgentMiddleware,
    ChatModelAgent,
    ChatModelAgentContext,
    ChatModelAgentMiddleware,
    ChatModelAgentState,
    ExceedMaxIterationsError,
    ModelContext,
    ToolContext,
)
from graph_core.schema import Message, ToolCall, ToolInfo
from graph_core.tools import ToolInput, ToolMiddleware
from tests.eino.adk_fakes import NamedTool, RecordingModel


def _drain(agent: ChatModelAgent, text: str = "test") -> list[AgentEvent]:
    return list(agent.run([Message.user(text)]))


def _call(name: str, call_id: str = "call1") -> Message:
    return Message.assistant("Using tool", tool_calls=[ToolCall(call_id, name, "{}")])


class InstructionHandler(ChatModelAgentMiddleware):
    def __init__(self, text: str) -> None:
        self.text = text

    def before_agent(self, context: ChatModelAgentContext) -> ChatModelAgentContext:
        context.instruction = f"{context.instruction}\n{self.text}" if context.instruction else self.text
        return context


class Hook(ChatModelAgentMiddleware):
    """One overridable method given as a function (Eino's `test...Handler{fn: ...}` family)."""

    def __init__(self, **fns: Callable[..., Any]) -> None:
        self.fns = fns

    def before_agent(self, context: ChatModelAgentContext) -> ChatModelAgentContext:
        fn = self.fns.get("before_agent")
        return fn(context) if fn else context

    def after_agent(self, state: ChatModelAgentState) -> None:
        fn = self.fns.get("after_agent")
        if fn:
            fn(state)

    def before_model_rewrite_state(
        self, state: ChatModelAgentState, model_context: ModelContext
    ) -> ChatModelAgentState:
        fn = self.fns.get("before_model")
        return fn(state, model_context) if fn else state

    def after_model_rewrite_state(
        self, state: ChatModelAgentState, model_context: ModelContext
    ) -> ChatModelAgentState:
        fn = self.fns.get("after_model")
        return fn(state, model_context) if fn else state

    def wrap_model(self, model: Any, model_context: ModelContext) -> Any:
        fn = self.fns.get("wrap_model")
        return fn(model, model_context) if fn else model

    def wrap_invokable_tool_call(
        self, endpoint: Callable[[str], str], tool_context: ToolContext
    ) -> Callable[[str], str]:
        fn = self.fns.get("wrap_invokable")
        return fn(endpoint, tool_context) if fn else endpoint

    def wrap_streamable_tool_call(
        self, endpoint: Callable[[str], Iterator[str]], tool_context: ToolContext
    ) -> Callable[[str], Iterator[str]]:
        fn = self.fns.get("wrap_streamable")
        return fn(endpoint, tool_context) if fn else endpoint


def _ordering(
    order: list[str], label: str
) -> Callable[[Callable[[str], str], ToolContext], Callable[[str], str]]:
    def wrap(endpoint: Callable[[str], str], _ctx: ToolContext) -> Callable[[str], str]:
        def wrapped(arguments: str) -> str:
            order.append(f"{label}-before")
            result = endpoint(arguments)
            order.append(f"{label}-after")
            return result

        return wrapped

    return wrap


class _OrderingModel:
    def __init__(self, inner: Any, order: list[str], label: str) -> None:
        self.inner, self.order, self.label = inner, order, label

    def generate(self, messages: list[Message]) -> Message:
        self.order.append(f"{self.label}-before")
        out = self.inner.generate(messages)
        self.order.append(f"{self.label}-after")
        return out


def test_multiple_instruction_handlers_pipeline() -> None:
    """handler_test.go TestHandlerExecutionOrder/MultipleInstructionHandlersPipeline"""
    model = RecordingModel([Message.assistant("response")])
    agent = ChatModelAgent(
        name="TestAgent",
        description="Test agent",
        instruction="Base instruction.",
        model=model,
        handlers=[
            InstructionHandler("Handler 1 addition."),
            InstructionHandler("Handler 2 addition."),
            Hook(before_agent=lambda c: _set(c, instruction=c.instruction + "\nHandler 3 dynamic.")),
        ],
    )
    _drain(agent)
    system = model.calls[0][0]
    assert system.role == "system"
    for part in ("Base instruction.", "Handler 1 addition.", "Handler 2 addition.", "Handler 3 dynamic."):
        assert part in system.content


def _set(context: ChatModelAgentContext, **changes: Any) -> ChatModelAgentContext:
    for key, value in changes.items():
        setattr(context, key, value)
    return context


def test_middlewares_before_handlers() -> None:
    """handler_test.go TestHandlerExecutionOrder/MiddlewaresBeforeHandlers"""
    model = RecordingModel([Message.assistant("response")])
    agent = ChatModelAgent(
        name="TestAgent",
        description="Test agent",
        instruction="Base.",
        model=model,
        middlewares=[AgentMiddleware(additional_instruction="Middleware instruction.")],
        handlers=[InstructionHandler("Handler instruction.")],
    )
    _drain(agent)
    captured = model.calls[0][0].content
    assert captured == "Base.\n\nMiddleware instruction.\nHandler instruction."


def test_multiple_tools_handlers_append() -> None:
    """handler_test.go TestToolsHandlerCombinations/MultipleToolsHandlersAppend"""
    model = RecordingModel([Message.assistant("response")])
    tool1, tool2 = NamedTool("tool1"), NamedTool("tool2")
    agent = ChatModelAgent(
        name="TestAgent",
        model=model,
        handlers=[
            Hook(before_agent=lambda c: _set(c, tools=[*c.tools, tool1])),
            Hook(before_agent=lambda c: _set(c, tools=[*c.tools, tool2])),
        ],
    )
    _drain(agent)
    assert len(model.tools[0]) == 2


def test_tools_func_can_remove_tools() -> None:
    """handler_test.go TestToolsHandlerCombinations/ToolsFuncCanRemoveTools"""
    model = RecordingModel([Message.assistant("response")])
    tools = [NamedTool("tool1"), NamedTool("tool2"), NamedTool("tool3")]
    agent = ChatModelAgent(
        name="TestAgent",
        model=model,
        tools=tools,
        handlers=[Hook(before_agent=lambda c: _set(c, tools=[t for t in c.tools if t.info.name != "tool2"]))],
    )
    _drain(agent)
    assert "tool1" in model.tools[0]
    assert "tool2" not in model.tools[0]
    assert "tool3" in model.tools[0]


def test_return_directly_modification() -> None:
    """handler_test.go TestToolsHandlerCombinations/ReturnDirectlyModification"""
    model = RecordingModel([_call("tool1")])

    def direct(context: ChatModelAgentContext) -> ChatModelAgentContext:
        context.return_directly.add("tool1")
        return context

    agent = ChatModelAgent(
        name="TestAgent", model=model, tools=[NamedTool("tool1")], handlers=[Hook(before_agent=direct)]
    )
    events = _drain(agent)
    for event in events:
        if event.message is not None and event.message.role == "tool":
            assert event.message.content == "tool1 result"
    assert len(events) == 2


def test_dynamic_tool_can_be_called_by_model() -> None:
    """handler_test.go TestToolsHandlerCombinations/DynamicToolCanBeCalledByModel (no tools configured:
    the handler's tool turns the no-tools chain into the ReAct graph, as Eino's rebuildGraph does)"""
    dynamic = NamedTool("dynamic_tool")
    model = RecordingModel([_call("dynamic_tool"), Message.assistant("done")])
    agent = ChatModelAgent(
        name="TestAgent",
        model=model,
        handlers=[Hook(before_agent=lambda c: _set(c, tools=[*c.tools, dynamic]))],
    )
    _drain(agent)
    assert dynamic.calls == 1


def test_before_model_rewrite_state_pipeline() -> None:
    """handler_test.go TestMessageRewriteHandlers/BeforeModelRewriteStatePipeline"""
    model = RecordingModel([Message.assistant("response")])

    def inject(text: str) -> Callable[[ChatModelAgentState, ModelContext], ChatModelAgentState]:
        def fn(state: ChatModelAgentState, _mc: ModelContext) -> ChatModelAgentState:
            state.messages = [*state.messages, Message.user(text)]
            return state

        return fn

    agent = ChatModelAgent(
        name="TestAgent",
        instruction="instruction",
        model=model,
        handlers=[Hook(before_model=inject("injected1")), Hook(before_model=inject("injected2"))],
    )
    _drain(agent, "original")
    assert len(model.calls[0]) == 4


def test_after_model_rewrite_state() -> None:
    """handler_test.go TestMessageRewriteHandlers/AfterModelRewriteState"""
    seen: list[ChatModelAgentState] = []

    def after(state: ChatModelAgentState, _mc: ModelContext) -> ChatModelAgentState:
        seen.append(state)
        return state

    agent = ChatModelAgent(
        name="TestAgent",
        model=RecordingModel([Message.assistant("response")]),
        handlers=[Hook(after_model=after)],
    )
    _drain(agent)
    assert len(seen) == 1
    assert seen[0].messages and seen[0].messages[-1].role == "assistant"


def test_multiple_tool_wrappers_pipeline() -> None:
    """handler_test.go TestToolCallWrapperHandlers/MultipleToolWrappersPipeline"""
    order: list[str] = []
    model = RecordingModel([_call("test_tool"), Message.assistant("done")])
    agent = ChatModelAgent(
        name="TestAgent",
        model=model,
        tools=[NamedTool("test_tool")],
        handlers=[
            Hook(wrap_invokable=_ordering(order, "wrapper1")),
            Hook(wrap_invokable=_ordering(order, "wrapper2")),
        ],
    )
    _drain(agent)
    assert order == ["wrapper1-before", "wrapper2-before", "wrapper2-after", "wrapper1-after"]


def test_tool_wrapper_can_modify_result() -> None:
    """handler_test.go TestToolCallWrapperHandlers/ToolWrapperCanModifyResult"""

    def modify(endpoint: Callable[[str], str], _ctx: ToolContext) -> Callable[[str], str]:
        return lambda arguments: "modified: " + endpoint(arguments)

    model = RecordingModel([_call("test_tool"), Message.assistant("done")])
    agent = ChatModelAgent(
        name="TestAgent", model=model, tools=[NamedTool("test_tool")], handlers=[Hook(wrap_invokable=modify)]
    )
    events = _drain(agent)
    tool_events = [e for e in events if e.message is not None and e.message.role == "tool"]
    assert [e.message.content for e in tool_events if e.message] == ["modified: test_tool result"]


def test_tool_context_has_correct_name_and_call_id() -> None:
    """handler_test.go TestToolContextInWrappers/ToolContextHasCorrectNameAndCallID"""
    captured: list[ToolContext] = []

    def capture(endpoint: Callable[[str], str], ctx: ToolContext) -> Callable[[str], str]:
        captured.append(ctx)
        return endpoint

    model = RecordingModel([_call("context_test_tool", "test_call_id_123"), Message.assistant("done")])
    agent = ChatModelAgent(
        name="TestAgent",
        model=model,
        tools=[NamedTool("context_test_tool")],
        handlers=[Hook(wrap_invokable=capture)],
    )
    _drain(agent)
    assert captured == [ToolContext("context_test_tool", "test_call_id_123")]


def test_multiple_model_wrappers_pipeline() -> None:
    """handler_test.go TestModelWrapperHandlers/MultipleModelWrappersPipeline"""
    order: list[str] = []
    agent = ChatModelAgent(
        name="TestAgent",
        model=RecordingModel([Message.assistant("response")]),
        handlers=[
            Hook(wrap_model=lambda m, _mc: _OrderingModel(m, order, "wrapper1")),
            Hook(wrap_model=lambda m, _mc: _OrderingModel(m, order, "wrapper2")),
        ],
    )
    _drain(agent)
    assert order == ["wrapper1-before", "wrapper2-before", "wrapper2-after", "wrapper1-after"]


def test_model_context_tools_field() -> None:
    """handler_test.go TestToolContextFunctions/ModelContextToolsField"""
    seen: list[list[str]] = []

    def capture(model: Any, mc: ModelContext) -> Any:
        seen.append([t.name for t in mc.tools])
        return model

    model = RecordingModel([Message.assistant("response")])
    agent = ChatModelAgent(
        name="TestAgent", model=model, tools=[NamedTool("tool1")], handlers=[Hook(wrap_model=capture)]
    )
    _drain(agent)
    assert seen == [["tool1"]]


def test_before_agent_error_stops_run() -> None:
    """handler_test.go TestHandlerErrorHandling/BeforeAgentErrorStopsRun"""

    def fail(_c: ChatModelAgentContext) -> ChatModelAgentContext:
        raise RuntimeError("assert.AnError general error for testing")

    model = RecordingModel([])
    events = _drain(ChatModelAgent(name="TestAgent", model=model, handlers=[Hook(before_agent=fail)]))
    errors = [e.error for e in events if e.error is not None]
    assert errors and "BeforeAgent failed" in str(errors[-1])
    assert model.calls == []


def test_before_model_rewrite_state_error_stops_run() -> None:
    """handler_test.go TestHandlerErrorPropagation/BeforeModelRewriteStateErrorStopsRun"""

    def fail(_s: ChatModelAgentState, _mc: ModelContext) -> ChatModelAgentState:
        raise RuntimeError("before model error")

    model = RecordingModel([])
    events = _drain(ChatModelAgent(name="TestAgent", model=model, handlers=[Hook(before_model=fail)]))
    assert events[-1].error is not None and "before model error" in str(events[-1].error)
    assert model.calls == []


def test_after_model_rewrite_state_error_stops_run() -> None:
    """handler_test.go TestHandlerErrorPropagation/AfterModelRewriteStateErrorStopsRun"""

    def fail(_s: ChatModelAgentState, _mc: ModelContext) -> ChatModelAgentState:
        raise RuntimeError("after model error")

    events = _drain(
        ChatModelAgent(
            name="TestAgent",
            model=RecordingModel([Message.assistant("r")]),
            handlers=[Hook(after_model=fail)],
        )
    )
    assert events[-1].error is not None and "after model error" in str(events[-1].error)


def test_multiple_handlers_first_error_stops() -> None:
    """handler_test.go TestHandlerErrorPropagation/MultipleHandlersFirstErrorStops"""
    second: list[bool] = []

    def fail(_s: ChatModelAgentState, _mc: ModelContext) -> ChatModelAgentState:
        raise RuntimeError("assert.AnError")

    def record(state: ChatModelAgentState, _mc: ModelContext) -> ChatModelAgentState:
        second.append(True)
        return state

    _drain(
        ChatModelAgent(
            name="TestAgent",
            model=RecordingModel([]),
            handlers=[Hook(before_model=fail), Hook(before_model=record)],
        )
    )
    assert second == []


def _after_agent_recorder() -> tuple[Hook, list[ChatModelAgentState]]:
    seen: list[ChatModelAgentState] = []
    return Hook(after_agent=seen.append), seen


def test_after_agent_final_answer() -> None:
    """handler_test.go TestAfterAgent/FinalAnswer"""
    hook, seen = _after_agent_recorder()
    _drain(
        ChatModelAgent(
            name="TestAgent", model=RecordingModel([Message.assistant("response")]), handlers=[hook]
        )
    )
    assert len(seen) == 1
    assert len(seen[0].messages) >= 2


def test_after_agent_return_directly() -> None:
    """handler_test.go TestAfterAgent/ReturnDirectly"""
    hook, seen = _after_agent_recorder()

    def direct(context: ChatModelAgentContext) -> ChatModelAgentContext:
        context.return_directly.add("myTool")
        return context

    agent = ChatModelAgent(
        name="TestAgent",
        model=RecordingModel([_call("myTool")]),
        tools=[NamedTool("myTool")],
        handlers=[Hook(before_agent=direct), hook],
    )
    _drain(agent)
    assert len(seen) == 1


def test_after_agent_not_called_on_model_error() -> None:
    """handler_test.go TestAfterAgent/NotCalledOnModelError"""
    hook, seen = _after_agent_recorder()
    _drain(
        ChatModelAgent(name="TestAgent", model=RecordingModel([RuntimeError("model error")]), handlers=[hook])
    )
    assert seen == []


def test_after_agent_not_called_on_max_iterations() -> None:
    """handler_test.go TestAfterAgent/NotCalledOnMaxIterations"""
    hook, seen = _after_agent_recorder()
    agent = ChatModelAgent(
        name="TestAgent",
        model=RecordingModel([_call("myTool")], repeat_last=True),
        max_iterations=1,
        tools=[NamedTool("myTool")],
        handlers=[hook],
    )
    events = _drain(agent)
    assert isinstance(events[-1].error, ExceedMaxIterationsError)
    assert seen == []


def test_after_agent_error_stops_run() -> None:
    """handler_test.go TestAfterAgent/ErrorStopsRun"""

    def fail(_state: ChatModelAgentState) -> None:
        raise RuntimeError("after agent hook error")

    events = _drain(
        ChatModelAgent(
            name="TestAgent",
            model=RecordingModel([Message.assistant("response")]),
            handlers=[Hook(after_agent=fail)],
        )
    )
    errors = [e.error for e in events if e.error is not None]
    assert errors and "AfterAgent" in str(errors[-1])


def test_after_agent_no_tools_path() -> None:
    """handler_test.go TestAfterAgent/NoToolsPath (the chain gets node_2 = AfterAgent)"""
    hook, seen = _after_agent_recorder()
    agent = ChatModelAgent(
        name="TestAgent", model=RecordingModel([Message.assistant("response")]), handlers=[hook]
    )
    _drain(agent)
    assert [n.key for n in agent.compiled.topology().nodes if n.key.startswith("node_")] == [
        "node_0",
        "node_1",
        "node_2",
    ]
    assert len(seen) == 1 and seen[0].messages[-1].content == "response"


def test_basic_chat_model_with_agent_middleware() -> None:
    """chatmodel_test.go TestChatModelAgentRun/BasicChatModelWithAgentMiddleware"""
    after_len: list[int] = []
    model = RecordingModel([Message.assistant("Hello, I am an AI assistant.")])
    agent = ChatModelAgent(
        name="TestAgent",
        instruction="You are a helpful assistant.",
        model=model,
        middlewares=[
            AgentMiddleware(
                before_chat_model=lambda s: s.messages.append(Message.user("m")),
                after_chat_model=lambda s: after_len.append(len(s.messages)),
            )
        ],
    )
    events = _drain(agent, "Hello, who are you?")
    assert after_len == [4]
    assert len(events) == 1 and events[0].error is None and events[0].message is not None
    assert events[0].message.content == "Hello, I am an AI assistant."


def test_after_chat_model_no_tools_modify_does_not_affect_event() -> None:
    """chatmodel_test.go TestChatModelAgentRun/AfterChatModel_NoTools_ModifyDoesNotAffectEvent"""
    captured: list[Message] = []

    def append(state: ChatModelAgentState) -> None:
        captured.extend(state.messages)
        state.messages.append(Message.assistant("appended content"))

    agent = ChatModelAgent(
        name="TestAgent",
        instruction="You are a helpful assistant.",
        model=RecordingModel([Message.assistant("original content")]),
        middlewares=[AgentMiddleware(after_chat_model=append)],
    )
    events = _drain(agent, "Hello")
    assert len(events) == 1 and events[0].error is None and events[0].message is not None
    assert events[0].message.content == "original content"
    assert len(captured) == 3


def test_after_chat_model_react_append_tool_call_affects_flow() -> None:
    """chatmodel_test.go TestChatModelAgentRun/AfterChatModel_ReAct_AppendToolCall_AffectsFlow"""
    model = RecordingModel([Message.assistant("first response no tool"), Message.assistant("final response")])

    def replace_last(state: ChatModelAgentState) -> None:
        if len(model.calls) == 1:
            state.messages[-1] = Message.assistant(
                "modified with tool call", tool_calls=[ToolCall("tc1", "test_tool", "{}")]
            )

    agent = ChatModelAgent(
        name="TestAgent",
        instruction="You are a helpful assistant.",
        model=model,
        tools=[NamedTool("test_tool")],
        middlewares=[AgentMiddleware(after_chat_model=replace_last)],
    )
    events = _drain(agent, "Hello")
    assert len(model.calls) == 2
    assert len(events) == 3


def test_wrap_tool_call_multiple_middlewares_order() -> None:
    """chatmodel_test.go TestChatModelAgentRun/WrapToolCall_MultipleMiddlewares_Order"""
    order: list[str] = []

    def mw(label: str) -> ToolMiddleware:
        def invoke(next_ep: Callable[[ToolInput], str]) -> Callable[[ToolInput], str]:
            def endpoint(inp: ToolInput) -> str:
                order.append(f"{label}_before")
                out = next_ep(inp)
                order.append(f"{label}_after")
                return out

            return endpoint

        return ToolMiddleware(invoke=invoke)

    model = RecordingModel([_call("tool1", "tc1"), Message.assistant("done")], repeat_last=True)
    agent = ChatModelAgent(
        name="TestAgent",
        instruction="You are a helpful assistant.",
        model=model,
        tools=[NamedTool("tool1")],
        middlewares=[AgentMiddleware(wrap_tool_call=mw("mw1")), AgentMiddleware(wrap_tool_call=mw("mw2"))],
    )
    _drain(agent, "use tool")
    assert order == ["mw1_before", "mw2_before", "mw2_after", "mw1_after"]


class CountingHandler(ChatModelAgentMiddleware):
    """Eino's `countingHandler`: counts its hooks' calls."""

    def __init__(self) -> None:
        self.before_agent_count = self.after_agent_count = 0
        self.before_model_count = self.after_model_count = 0

    def before_agent(self, context: ChatModelAgentContext) -> ChatModelAgentContext:
        self.before_agent_count += 1
        return context

    def after_agent(self, state: ChatModelAgentState) -> None:
        self.after_agent_count += 1

    def before_model_rewrite_state(
        self, state: ChatModelAgentState, model_context: ModelContext
    ) -> ChatModelAgentState:
        self.before_model_count += 1
        return state

    def after_model_rewrite_state(
        self, state: ChatModelAgentState, model_context: ModelContext
    ) -> ChatModelAgentState:
        self.after_model_count += 1
        return state


def test_custom_handler_with_state() -> None:
    """handler_test.go TestCustomHandler/CustomHandlerWithState"""
    handler = CountingHandler()
    model = RecordingModel([Message.assistant("response")])
    _drain(ChatModelAgent(name="TestAgent", model=model, handlers=[handler]))
    assert len(model.calls) == 1
    assert (handler.before_agent_count, handler.after_agent_count) == (1, 1)
    assert (handler.before_model_count, handler.after_model_count) == (1, 1)


def test_after_agent_fail_fast() -> None:
    """handler_test.go TestAfterAgent/FailFast: the second handler's `after_agent` is not called once
    the first one raised."""
    called: list[bool] = []

    def fail(_state: ChatModelAgentState) -> None:
        raise RuntimeError("first handler error")

    _drain(
        ChatModelAgent(
            name="TestAgent",
            model=RecordingModel([Message.assistant("response")]),
            handlers=[Hook(after_agent=fail), Hook(after_agent=lambda _s: called.append(True))],
        )
    )
    assert called == []


class FakeToolForTest:
    """Eino's `fakeToolForTest` (`test_tool`): after `tar_count` greetings it says bye."""

    name = "test_tool"

    def __init__(self, tar_count: int) -> None:
        self.info = ToolInfo(self.name, "test tool for unit testing")
        self.tar_count, self.cur_count = tar_count, 0

    def _answer(self, arguments: str) -> str:
        name = json.loads(arguments)["name"]
        if self.cur_count >= self.tar_count:
            return '{"say": "bye"}'
        self.cur_count += 1
        return f'{{"say": "hello {name}"}}'

    def invoke(self, arguments: str) -> str:
        return self._answer(arguments)


class FakeStreamToolForTest(FakeToolForTest):
    """Eino's `fakeStreamToolForTest` (`test_stream_tool`): the same answers, streamed, no invoke."""

    name = "test_stream_tool"

    def stream(self, arguments: str) -> Iterator[str]:
        return iter([self._answer(arguments)])

    invoke = None  # type: ignore[assignment]


def _calls_then_done(tool: str) -> RecordingModel:
    call = Message.assistant("calling tool", tool_calls=[ToolCall("tc1", tool, '{"name":"test"}')])
    return RecordingModel([call, Message.assistant("done")], repeat_last=True)


def test_after_chat_model_react_modify_affects_flow() -> None:
    """chatmodel_test.go TestChatModelAgentRun/AfterChatModel_ReAct_ModifyAffectsFlow: a middleware that
    removes the tool call ends the run; the event keeps the model's message."""
    model = RecordingModel(
        [
            Message.assistant(
                "first response with tool call", tool_calls=[ToolCall("tc1", "test_tool", "{}")]
            ),
            Message.assistant("final response"),
        ]
    )
    tool_called: list[bool] = []

    def drop_tool_call(state: ChatModelAgentState) -> None:
        if state.messages[-1].tool_calls:
            tool_called.append(True)
            state.messages[-1] = Message.assistant("modified to remove tool call")

    agent = ChatModelAgent(
        name="TestAgent",
        instruction="You are a helpful assistant.",
        model=model,
        tools=[FakeToolForTest(0)],
        middlewares=[AgentMiddleware(after_chat_model=drop_tool_call)],
    )
    events = _drain(agent, "Hello")
    assert tool_called == [True]
    assert len(model.calls) == 1
    assert len(events) == 1 and events[0].message is not None
    assert events[0].message.content == "first response with tool call"
    assert len(events[0].message.tool_calls) == 1


def test_wrap_tool_call_tool_middleware() -> None:
    """chatmodel_test.go TestChatModelAgentRun/WrapToolCall_ToolMiddleware"""
    captured: list[tuple[str, str]] = []

    def invoke(next_ep: Callable[[ToolInput], str]) -> Callable[[ToolInput], str]:
        def endpoint(inp: ToolInput) -> str:
            captured.append((inp.name, inp.arguments))
            return next_ep(inp)

        return endpoint

    agent = ChatModelAgent(
        name="TestAgent",
        instruction="You are a helpful assistant.",
        model=_calls_then_done("test_tool"),
        tools=[FakeToolForTest(1)],
        middlewares=[AgentMiddleware(wrap_tool_call=ToolMiddleware(invoke=invoke))],
    )
    events = _drain(agent, "use tool")
    assert captured == [("test_tool", '{"name":"test"}')]
    assert [e.message.role for e in events if e.message is not None] == ["assistant", "tool", "assistant"]
    assert len(events) == 3 and events[2].message is not None and events[2].message.content == "done"


def test_wrap_tool_call_modify_result() -> None:
    """chatmodel_test.go TestChatModelAgentRun/WrapToolCall_ModifyResult"""

    def invoke(next_ep: Callable[[ToolInput], str]) -> Callable[[ToolInput], str]:
        return lambda inp: "modified: " + next_ep(inp)

    agent = ChatModelAgent(
        name="TestAgent",
        model=_calls_then_done("test_tool"),
        tools=[FakeToolForTest(1)],
        middlewares=[AgentMiddleware(wrap_tool_call=ToolMiddleware(invoke=invoke))],
    )
    events = _drain(agent, "use tool")
    assert len(events) == 3 and events[1].message is not None
    assert events[1].message.role == "tool" and "modified:" in events[1].message.content


def test_wrap_tool_call_streamable_middleware() -> None:
    """chatmodel_test.go TestChatModelAgentRun/WrapToolCall_StreamableMiddleware: a stream-only tool in
    a non-streaming run goes through the middleware's streamable wrapper."""
    invoked: list[bool] = []

    def stream(next_ep: Callable[[ToolInput], Iterator[str]]) -> Callable[[ToolInput], Iterator[str]]:
        def endpoint(inp: ToolInput) -> Iterator[str]:
            invoked.append(True)
            return next_ep(inp)

        return endpoint

    agent = ChatModelAgent(
        name="TestAgent",
        model=_calls_then_done("test_stream_tool"),
        tools=[FakeStreamToolForTest(1)],
        middlewares=[AgentMiddleware(wrap_tool_call=ToolMiddleware(stream=stream))],
    )
    events = _drain(agent, "use tool")
    assert invoked, "the streamable wrap_tool_call middleware should have been invoked"
    assert len(events) == 3
    tool_event = events[1].get_message()
    assert tool_event is not None and tool_event.role == "tool"
    assert events[1].is_streaming  # a streamed result's event is a stream, also in an invoke run (Eino)
