"""Ports of the ChatModelAgent's per-call options (cloudwego/eino): chat model and tool options given to
a run (`adk/chatmodel_test.go` TestGetComposeOptions), the options the retry layer shows and adds
(`adk/chatmodel_retry_test.go` TestShouldRetry_Generate/AdditionalOptions,
TestAttack_ShouldRetry_OptionsAccumulateAcrossRetries) and a cancel during the retry's backoff wait
(TestShouldRetry_Generate/ContextCanceled_DuringSleep). Each test names its Go test.

A Go model gets its options as arguments; a graph_core model reads them from the run it is in
(`node_options("ChatModel")`, merged: `chat_model_options()`), and a tool reads its own with
`tool_options()`. Go cancels the run's context; here the run's `Canceller` (Eino `WithCancel`) cancels
it, and the run ends with a `CancelError`."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

from graph_core.agents.adk import (
    AgentEvent,
    ChatModelAgent,
    ModelRetryConfig,
    RetryContext,
    RetryDecision,
    with_chat_model_options,
    with_tool_options,
)
from graph_core.agents.adk_retry import RetryHooks, pause
from graph_core.agents.cancel import Canceller
from graph_core.call_options import ChatModelOptions, chat_model_options, node_options, tool_options
from graph_core.errors import CancelError
from graph_core.interrupt import InterruptSignal
from graph_core.schema import Message, ToolCall, ToolInfo
from tests.eino.adk_fakes import RecordingModel, Reply


class OptionsModel(RecordingModel):
    """A scripted model that also records each call's chat model options (Go's `opts`)."""

    def __init__(self, replies: Sequence[Reply], *, repeat_last: bool = False) -> None:
        super().__init__(replies, repeat_last=repeat_last)
        self.options: list[list[Any]] = []

    def generate(self, messages: Sequence[Message]) -> Message:
        shared = self._shared
        assert isinstance(shared, OptionsModel)  # `with_tools` copies share the original's records
        shared.options.append(node_options("ChatModel"))
        return super().generate(messages)


def _run(agent: ChatModelAgent, **options: Any) -> list[AgentEvent]:
    return list(agent.run([Message.user("test")], **options))


# -- TestGetComposeOptions ----------------------------------------------------------------------------------


def test_get_compose_options_with_chat_model_options() -> None:
    """chatmodel_test.go TestGetComposeOptions/WithChatModelOptions"""
    captured: list[float | None] = []

    def reply(_messages: list[Message]) -> Message:
        captured.append(chat_model_options().temperature)
        return Message.assistant("response")

    model = RecordingModel([reply])
    agent = ChatModelAgent(name="TestAgent", description="Test agent", model=model)
    _run(agent, options=[with_chat_model_options(ChatModelOptions(temperature=0.7))])
    assert len(model.calls) == 1  # Go: `.Times(1)`
    assert captured == [0.7], "Temperature should be passed through WithChatModelOptions"


class ToolOptionCapturingTool:
    """Eino's `toolOptionCapturingTool`: records the tool options of its call."""

    def __init__(self, name: str) -> None:
        self.info = ToolInfo(name, f"{name} description")
        self.seen: list[list[Any]] = []

    def invoke(self, _arguments: str) -> str:
        self.seen.append(tool_options())
        return f"{self.info.name} result"


def test_get_compose_options_with_tool_options() -> None:
    """chatmodel_test.go TestGetComposeOptions/WithToolOptions"""
    tool = ToolOptionCapturingTool("test_tool")
    call = Message.assistant("Using tool", tool_calls=[ToolCall("call1", tool.info.name, "{}")])
    model = RecordingModel([call, Message.assistant("done")])
    agent = ChatModelAgent(name="TestAgent", description="Test agent", model=model, tools=[tool])
    _run(agent, options=[with_tool_options({"value": "test_value"})])
    assert len(model.calls) == 2
    assert tool.seen and len(tool.seen[0]) > 0, "Tool options should be passed through WithToolOptions"
    assert tool.seen == [[{"value": "test_value"}]]


def test_run_options_come_before_the_agent_tool_list_option() -> None:
    """Not an Eino test: the model call's options are the run's, then the agent's tool list (Eino's state
    model wrapper appends `model.WithTools`, so the state's tools win), then what the retry adds."""
    tool = ToolOptionCapturingTool("test_tool")
    call = Message.assistant("Using tool", tool_calls=[ToolCall("call1", tool.info.name, "{}")])
    model = OptionsModel([call, Message.assistant("done")])
    agent = ChatModelAgent(name="TestAgent", model=model, tools=[tool])
    run_option = ChatModelOptions(temperature=0.2, tools=[])
    _run(agent, options=[with_chat_model_options(run_option)])
    assert len(model.options) == 2
    assert model.options[0] == [run_option, ChatModelOptions(tools=(tool.info,))]


# -- TestShouldRetry_Generate/AdditionalOptions, TestAttack_ShouldRetry_OptionsAccumulateAcrossRetries ------


class RetryableError(Exception):
    """Eino's `errRetryAble`."""


def _retry_agent(model: Any, should_retry: Any, *, max_retries: int = 3, **config: Any) -> ChatModelAgent:
    config.setdefault("sleep", lambda _s: None)  # Go: `instantBackoff`
    return ChatModelAgent(
        name="AdditionalOptionsTestAgent",
        description="Test ShouldRetry AdditionalOptions",
        instruction="You are a helpful assistant.",
        model=model,
        model_retry_config=ModelRetryConfig(max_retries=max_retries, should_retry=should_retry, **config),
    )


def test_should_retry_additional_options() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Generate/AdditionalOptions: the retry's model call has one
    option more than the first call's."""

    def should_retry(ctx: RetryContext) -> RetryDecision:
        if ctx.error is not None:
            return RetryDecision(retry=True, additional_options=[ChatModelOptions(max_tokens=8192)])
        return RetryDecision(retry=False)

    model = OptionsModel([RetryableError("retry"), Message.assistant("success")])
    events = _run(_retry_agent(model, should_retry))
    assert events and events[0].error is None
    assert len(model.calls) == 2
    assert len(model.options) == 2
    assert len(model.options[0]) + 1 == len(model.options[1])
    assert model.options[1][-1] == ChatModelOptions(max_tokens=8192)


def test_should_retry_options_accumulate_across_retries() -> None:
    """chatmodel_retry_test.go TestAttack_ShouldRetry_OptionsAccumulateAcrossRetries"""

    def should_retry(ctx: RetryContext) -> RetryDecision:
        if ctx.error is not None:
            max_tokens = 100 * ctx.retry_attempt
            return RetryDecision(retry=True, additional_options=[ChatModelOptions(max_tokens=max_tokens)])
        return RetryDecision(retry=False)

    model = OptionsModel(
        [RuntimeError("needs retry"), RuntimeError("needs retry"), Message.assistant("done")]
    )
    _run(_retry_agent(model, should_retry, max_retries=5))
    assert len(model.options) == 3
    assert len(model.options[1]) > len(model.options[0]), "second call should have more options than first"
    assert len(model.options[2]) > len(model.options[1]), "third call should have more options than second"


def test_retry_context_options_are_the_attempts_options() -> None:
    """Not an Eino test: `RetryContext.options` are the options the attempt's model call had (the run's,
    the agent's tool list, what earlier decisions added), and `chat_model_options()` merges them with
    the latest added last."""
    seen: list[tuple[Any, ...]] = []

    def should_retry(ctx: RetryContext) -> RetryDecision:
        seen.append(tuple(ctx.options))
        if ctx.error is not None:
            return RetryDecision(retry=True, additional_options=[ChatModelOptions(max_tokens=8192)])
        return RetryDecision(retry=False)

    merged: list[ChatModelOptions] = []

    def succeed(_messages: list[Message]) -> Message:
        merged.append(chat_model_options())
        return Message.assistant("success")

    model = OptionsModel([RetryableError("retry"), succeed])
    run_option = ChatModelOptions(temperature=0.5)
    _run(_retry_agent(model, should_retry), options=[with_chat_model_options(run_option)])
    assert [list(options) for options in seen] == model.options
    assert seen[0] == (run_option, ChatModelOptions(tools=()))
    assert seen[1] == (*seen[0], ChatModelOptions(max_tokens=8192))
    assert merged == [ChatModelOptions(temperature=0.5, tools=(), max_tokens=8192)]


# -- TestShouldRetry_Generate/ContextCanceled_DuringSleep ---------------------------------------------------


def test_should_retry_context_canceled_during_sleep() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Generate/ContextCanceled_DuringSleep: a cancel that comes
    while the retry waits its 10 s backoff ends the run at once, without another model call, with the
    cancel's error (Go `context.Canceled`). The injected sleep is where the cancel arrives."""
    canceller = Canceller()
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        canceller.cancel()

    model = RecordingModel([RuntimeError("transient")], repeat_last=True)
    agent = ChatModelAgent(
        name="ContextCancelDuringSleep",
        description="Test context cancellation during backoff sleep",
        instruction="You are a helpful assistant.",
        model=model,
        model_retry_config=ModelRetryConfig(
            max_retries=5,
            should_retry=lambda _ctx: RetryDecision(retry=True),
            backoff=lambda _attempt: 10.0,
            sleep=sleep,
        ),
    )
    events = list(agent.run([Message.user("Hello")], canceller=canceller))
    assert len(model.calls) == 1
    assert waits == [10.0]
    assert any(isinstance(e.error, CancelError) for e in events), "should have received the cancel's error"


def _cancel(canceller: Canceller) -> None:
    canceller.cancel()


def test_should_retry_cancelled_run_resumes_with_a_new_model_call() -> None:
    """Not an Eino test: the run cancelled during the backoff wait saved a checkpoint; its resume calls
    the model again."""
    canceller = Canceller()
    model = RecordingModel([RuntimeError("transient"), Message.assistant("recovered")])
    agent = ChatModelAgent(
        name="CancelThenResume",
        model=model,
        model_retry_config=ModelRetryConfig(
            max_retries=5,
            should_retry=lambda ctx: RetryDecision(retry=ctx.error is not None),
            sleep=lambda _s: _cancel(canceller),
        ),
    )
    events = list(agent.run([Message.user("Hello")], canceller=canceller))
    cancelled = next(e.error for e in events if isinstance(e.error, CancelError))
    assert cancelled.checkpoint_id is not None
    resumed = list(agent.resume(cancelled.checkpoint_id))
    assert [e.error for e in resumed] == [None]
    assert [m.content for e in resumed if (m := e.get_message()) is not None] == ["recovered"]
    assert len(model.calls) == 2


def test_default_retry_wait_ends_when_the_run_is_cancelled() -> None:
    """Not an Eino test: without an injected `sleep` the wait before a retry is one the run's cancel ends
    at once (Eino `contextAwareSleep`), and the cancelled call stops as at a cancel safe point."""
    cancel = threading.Event()
    hooks = RetryHooks(
        suppress=lambda _on: None, report=lambda _m: None, set_history=lambda _h: None, cancel=cancel
    )
    threading.Timer(0.05, cancel.set).start()
    started = time.monotonic()
    try:
        pause(ModelRetryConfig(max_retries=1), hooks, 10.0)
    except InterruptSignal:
        pass
    else:
        raise AssertionError("a cancelled wait must not let the retry go on")
    assert time.monotonic() - started < 5.0  # far less than the 10 s backoff
