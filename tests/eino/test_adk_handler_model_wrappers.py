"""Ports of the model-wrapper tests of `adk/handler_test.go` (cloudwego/eino): a handler's `wrap_model`
around the agent's model, on the generate and the streaming path. Each test names its Go test."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from graph_core.agents.adk import ChatModelAgent, ChatModelAgentMiddleware, ModelContext
from graph_core.agents.adk_runner import Runner
from graph_core.agents.adk_stream import drain
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.schema import Message, ToolCall, ToolInfo
from tests.eino.adk_fakes import NamedTool


class WrapperHandler(ChatModelAgentMiddleware):
    """Eino's `testModelWrapperHandler`: `wrap_model` is a function."""

    def __init__(self, wrap: Any) -> None:
        self.wrap = wrap

    def wrap_model(self, model: Any, model_context: ModelContext) -> Any:
        return self.wrap(model, model_context)


class BeforeAfterModel:
    """Eino's `testWrappedModel`: records before and after the inner call."""

    def __init__(self, inner: Any, order: list[str]) -> None:
        self.inner, self.order = inner, order

    def generate(self, messages: list[Message]) -> Message:
        self.order.append("wrapper-before")
        out = self.inner.generate(messages)
        self.order.append("wrapper-after")
        return out

    def stream(self, messages: list[Message]) -> Iterator[Message]:
        self.order.append("wrapper-before")
        out = self.inner.stream(messages)
        self.order.append("wrapper-after")
        return out


class InputPrefixModel:
    """Eino's `inputOutputModifyingModel`: prefixes the user messages before the inner model sees them."""

    def __init__(self, inner: Any, prefix: str) -> None:
        self.inner, self.prefix = inner, prefix

    def _modified(self, messages: Sequence[Message]) -> list[Message]:
        return [Message.user(self.prefix + m.content) if m.role == "user" else m for m in messages]

    def generate(self, messages: list[Message]) -> Message:
        return self.inner.generate(self._modified(messages))

    def stream(self, messages: list[Message]) -> Iterator[Message]:
        return self.inner.stream(self._modified(messages))


class Mock:
    """Eino's gomock model: `replies` are given in order to `Generate` (or `Stream`, as chunk lists);
    `on_call` runs at each call; `inputs` records what the model received."""

    def __init__(self, replies: Sequence[Any], *, on_call: Any = None) -> None:
        self.replies = list(replies)
        self.on_call = on_call
        self.inputs: list[list[Message]] = []

    def with_tools(self, _infos: Sequence[ToolInfo]) -> Mock:
        return self

    def generate(self, messages: Sequence[Message]) -> Message:
        self.inputs.append(list(messages))
        if self.on_call is not None:
            self.on_call()
        return self.replies.pop(0)

    def stream(self, messages: Sequence[Message]) -> Iterator[Message]:
        self.inputs.append(list(messages))
        return iter(self.replies.pop(0))


def test_model_wrapper_before_after_call_order() -> None:
    """handler_test.go TestModelWrapperHandlers/ModelWrapperBeforeAfterCallOrder"""
    order: list[str] = []
    model = Mock([Message.assistant("original response")], on_call=lambda: order.append("model-generate"))
    agent = ChatModelAgent(
        name="TestAgent", model=model, handlers=[WrapperHandler(lambda m, _mc: BeforeAfterModel(m, order))]
    )
    list(agent.run([Message.user("test")]))
    assert order == ["wrapper-before", "model-generate", "wrapper-after"]


def test_model_wrapper_with_tools() -> None:
    """handler_test.go TestModelWrapperHandlers/ModelWrapperWithTools: the wrapper wraps each model call
    of the ReAct loop."""
    order: list[str] = []
    call = ToolCall("call1", "test_tool", "{}")
    model = Mock(
        [Message.assistant("Using tool", tool_calls=[call]), Message.assistant("done")],
        on_call=lambda: order.append("model-call"),
    )
    agent = ChatModelAgent(
        name="TestAgent",
        model=model,
        tools=[NamedTool("test_tool")],
        handlers=[WrapperHandler(lambda m, _mc: BeforeAfterModel(m, order))],
    )
    list(agent.run([Message.user("test")]))
    assert order == ["wrapper-before", "model-call", "wrapper-after"] * 2


def test_model_wrapper_modifies_input_generate() -> None:
    """handler_test.go TestModelWrapper_InputModification/ModelWrapperModifiesInput_Generate"""
    model = Mock([Message.assistant("original response")])
    agent = ChatModelAgent(
        name="TestAgent",
        model=model,
        handlers=[WrapperHandler(lambda m, _mc: InputPrefixModel(m, "[WRAPPER]"))],
    )
    list(agent.run([Message.user("test input")]))
    assert model.inputs and any(m.content == "[WRAPPER]test input" for m in model.inputs[0])


def test_model_wrapper_modifies_input_stream() -> None:
    """handler_test.go TestModelWrapper_InputModification/ModelWrapperModifiesInput_Stream (through a
    streaming Runner, reading the assistant's event streams)"""
    model = Mock([[Message.assistant("chunk1"), Message.assistant("chunk2")]])
    agent = ChatModelAgent(
        name="TestAgent",
        model=model,
        handlers=[WrapperHandler(lambda m, _mc: InputPrefixModel(m, "[WRAPPER]"))],
    )
    runner = Runner(agent, enable_streaming=True, checkpoint_store=InMemoryCheckpointStore())
    streamed: list[str] = []
    for event in runner.run([Message.user("test input")]):
        if event.message_stream is not None:
            chunks, error = drain(event.message_stream)
            assert error is None
            streamed.extend(c.content for c in chunks if c.role == "assistant")
    assert streamed == ["chunk1", "chunk2"]
    assert model.inputs and any(m.content == "[WRAPPER]test input" for m in model.inputs[0])
