"""Ports of `adk/chatmodel_retry_test.go` and `adk/failover_chatmodel_test.go` (cloudwego/eino): the
ChatModelAgent's model retry and failover. Waits go through an injected `sleep`, so nothing sleeps.
Each test names its Go test."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from graph_core.agents.adk import (
    AgentEvent,
    ChatModelAgent,
    FailoverContext,
    ModelFailoverConfig,
    ModelRetryConfig,
    RetryContext,
    RetryDecision,
    RetryExhaustedError,
    WillRetryError,
)
from graph_core.agents.adk_retry import default_backoff
from graph_core.errors import GraphBuildError
from graph_core.schema import Message
from tests.eino.adk_fakes import NamedTool, RecordingModel


class RetryableError(Exception):
    """Eino's `errRetryAble`."""


class NonRetryableError(Exception):
    """Eino's `errNonRetryAble`."""


def _is(error: BaseException | None, kind: type[BaseException] | BaseException) -> bool:
    """Go's `errors.Is`: the error or one it wraps (`__cause__`) is `kind` (a type or an instance)."""
    seen = error
    while seen is not None:
        if seen is kind or (isinstance(kind, type) and isinstance(seen, kind)):
            return True
        seen = seen.__cause__
    return False


def _find(error: BaseException | None, kind: type[Any]) -> Any:
    seen = error
    while seen is not None:
        if isinstance(seen, kind):
            return seen
        seen = seen.__cause__
    return None


def _run(agent: ChatModelAgent, *, streaming: bool = False) -> list[AgentEvent]:
    return list(agent.run([Message.user("Hello")], streaming=streaming))


def _retry(**kwargs: Any) -> ModelRetryConfig:
    kwargs.setdefault("sleep", lambda _s: None)
    return ModelRetryConfig(**kwargs)


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, RetryableError)


class StreamModel(RecordingModel):
    """A model whose stream fails before its first chunk on the scripted errors."""

    def stream(self, messages: Any) -> Iterator[Message]:
        message = self.generate(messages)
        yield from (Message.assistant(part) for part in (message.content[:7], message.content[7:]))


def test_no_tools_direct_error_generate() -> None:
    """chatmodel_retry_test.go TestChatModelAgentRetry_NoTools_DirectError_Generate"""
    model = RecordingModel(
        [RetryableError("retry"), RetryableError("retry"), Message.assistant("Success after retry")]
    )
    agent = ChatModelAgent(
        name="RetryTestAgent",
        instruction="You are a helpful assistant.",
        model=model,
        model_retry_config=_retry(max_retries=3, is_retryable=_retryable),
    )
    events = _run(agent)
    assert len(events) == 1 and events[0].error is None and events[0].message is not None
    assert events[0].message.content == "Success after retry"
    assert len(model.calls) == 3


def test_with_tools_direct_error_generate() -> None:
    """chatmodel_retry_test.go TestChatModelAgentRetry_WithTools_DirectError_Generate"""
    model = RecordingModel([RetryableError("retry"), Message.assistant("Success after retry")])
    agent = ChatModelAgent(
        name="RetryTestAgent",
        model=model,
        tools=[NamedTool("fake")],
        model_retry_config=_retry(max_retries=3, is_retryable=_retryable),
    )
    events = _run(agent)
    assert len(events) == 1 and events[0].error is None and events[0].message is not None
    assert events[0].message.content == "Success after retry"
    assert len(model.calls) == 2


def test_non_retryable_error() -> None:
    """chatmodel_retry_test.go TestChatModelAgentRetry_NonRetryableError"""
    model = RecordingModel([NonRetryableError("no")])
    agent = ChatModelAgent(
        name="RetryTestAgent", model=model, model_retry_config=_retry(max_retries=3, is_retryable=_retryable)
    )
    events = _run(agent)
    assert len(events) == 1 and _is(events[0].error, NonRetryableError)
    assert len(model.calls) == 1


def test_max_retries_exhausted() -> None:
    """chatmodel_retry_test.go TestChatModelAgentRetry_MaxRetriesExhausted"""
    model = RecordingModel([RetryableError("retry")], repeat_last=True)
    agent = ChatModelAgent(
        name="RetryTestAgent", model=model, model_retry_config=_retry(max_retries=3, is_retryable=_retryable)
    )
    events = _run(agent)
    assert len(events) == 1
    exhausted = _find(events[0].error, RetryExhaustedError)
    assert exhausted is not None and "exceeds max retries" in str(exhausted)
    assert isinstance(exhausted.last_error, RetryableError)
    assert len(model.calls) == 4


def test_backoff_function() -> None:
    """chatmodel_retry_test.go TestChatModelAgentRetry_BackoffFunction"""
    attempts: list[int] = []
    slept: list[float] = []

    def backoff(attempt: int) -> float:
        attempts.append(attempt)
        return 0.001

    model = RecordingModel([RetryableError("r"), RetryableError("r"), Message.assistant("Success")])
    agent = ChatModelAgent(
        name="RetryTestAgent",
        model=model,
        model_retry_config=ModelRetryConfig(
            max_retries=3, is_retryable=_retryable, backoff=backoff, sleep=slept.append
        ),
    )
    events = _run(agent)
    assert events[-1].error is None
    assert attempts == [1, 2]
    assert slept == [0.001, 0.001]


def test_no_retry_config() -> None:
    """chatmodel_retry_test.go TestChatModelAgentRetry_NoRetryConfig"""
    model = RecordingModel([RetryableError("r")])
    events = _run(ChatModelAgent(name="TestAgent", model=model))
    assert len(events) == 1 and _is(events[0].error, RetryableError)
    assert len(model.calls) == 1


def test_default_is_retryable() -> None:
    """chatmodel_retry_test.go TestChatModelAgentRetry_DefaultIsRetryAble"""
    model = RecordingModel([RuntimeError("any error should be retried"), Message.assistant("Success")])
    events = _run(
        ChatModelAgent(name="RetryTestAgent", model=model, model_retry_config=_retry(max_retries=3))
    )
    assert events[-1].error is None and len(model.calls) == 2


def test_default_backoff() -> None:
    """chatmodel_retry_test.go TestDefaultBackoff"""
    assert 0.1 <= default_backoff(1) < 0.15
    assert 0.2 <= default_backoff(2) < 0.3
    assert 0.4 <= default_backoff(3) < 0.6
    assert 10 <= default_backoff(10) <= 15
    assert 10 <= default_backoff(100) <= 15


def test_will_retry_error_unwrap() -> None:
    """chatmodel_retry_test.go TestWillRetryError_Unwrap"""
    original = RuntimeError("internal error")
    will_retry = WillRetryError(original, 1)
    assert _is(will_retry, original) and str(will_retry) == "internal error"


def test_will_retry_error_reject_reason() -> None:
    """chatmodel_retry_test.go TestWillRetryError_RejectReason (nil when not set / value when set)"""
    assert WillRetryError(RuntimeError("x"), 1).reject_reason is None
    assert WillRetryError(RuntimeError("x"), 1, reject_reason={"why": "bad"}).reject_reason == {"why": "bad"}


def _should_retry_agent(model: Any, should_retry: Any, max_retries: int = 3, **kwargs: Any) -> ChatModelAgent:
    return ChatModelAgent(
        name="ShouldRetryAgent",
        instruction="You are a helpful assistant.",
        model=model,
        model_retry_config=_retry(max_retries=max_retries, should_retry=should_retry, **kwargs),
    )


def test_should_retry_retry_context_fields() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Generate/RetryContext_Fields: the options are the model
    call's (the agent's tool list: "should have default options")"""
    seen: list[RetryContext] = []

    def decide(ctx: RetryContext) -> RetryDecision:
        seen.append(ctx)
        bad = ctx.output_message is not None and ctx.output_message.content == "bad"
        return RetryDecision(retry=bad)

    _run(_should_retry_agent(RecordingModel([Message.assistant("bad"), Message.assistant("good")]), decide))
    assert len(seen) == 2
    assert seen[0].retry_attempt == 1 and len(seen[0].input_messages) == 2
    assert len(seen[0].options) > 0, "should have default options"
    assert (
        seen[0].output_message is not None
        and seen[0].output_message.content == "bad"
        and seen[0].error is None
    )
    assert seen[1].retry_attempt == 2
    assert (
        seen[1].output_message is not None
        and seen[1].output_message.content == "good"
        and seen[1].error is None
    )


def test_should_retry_rewrite_error_on_message() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Generate/RewriteError_OnMessage"""
    fatal = RuntimeError("fatal: unrecoverable model output")

    def decide(ctx: RetryContext) -> RetryDecision:
        if ctx.output_message is not None and "unrecoverable" in ctx.output_message.content:
            return RetryDecision(retry=False, rewrite_error=fatal)
        return RetryDecision()

    model = RecordingModel([Message.assistant("unrecoverable bad message")])
    events = _run(_should_retry_agent(model, decide, max_retries=2))
    assert any(_is(e.error, fatal) for e in events)
    assert len(model.calls) == 1


def test_should_retry_rewrite_error_on_error() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Generate/RewriteError_OnError"""
    wrapped = RuntimeError("wrapped: original transient error with more context")

    def decide(ctx: RetryContext) -> RetryDecision:
        return RetryDecision(retry=False, rewrite_error=wrapped) if ctx.error is not None else RetryDecision()

    events = _run(
        _should_retry_agent(RecordingModel([RuntimeError("original transient error")]), decide, max_retries=2)
    )
    assert any(_is(e.error, wrapped) for e in events)


def test_should_retry_modified_input_messages_no_persist() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Generate/ModifiedInputMessages_NoPersist"""

    def decide(ctx: RetryContext) -> RetryDecision:
        if ctx.error is not None:
            compressed = [Message.system("compressed instruction"), Message.user("Hello")]
            return RetryDecision(retry=True, modified_input_messages=compressed)
        return RetryDecision()

    model = RecordingModel([RetryableError("r"), Message.assistant("success")])
    events = _run(_should_retry_agent(model, decide))
    assert len(events) == 1 and events[0].error is None
    assert len(model.calls) == 2
    assert model.calls[1][0].content == "compressed instruction"


def test_should_retry_backoff() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Generate/Backoff (the decision's backoff is what the
    injected sleep is asked to wait, instead of timing a real sleep)"""
    slept: list[float] = []

    def decide(ctx: RetryContext) -> RetryDecision:
        return RetryDecision(retry=True, backoff=0.05) if ctx.error is not None else RetryDecision()

    model = RecordingModel([RetryableError("r"), Message.assistant("success")])
    events = _run(_should_retry_agent(model, decide, sleep=slept.append))
    assert events[-1].error is None and slept == [0.05] and len(model.calls) == 2


def test_should_retry_backoff_real_wait() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Generate/Backoff, timed: without an injected `sleep` the
    run really waits the decision's 50 ms (Go: elapsed >= the backoff; its upper bound, 200 ms more, is
    left to the injected-clock test above, a loaded machine being no clock)."""

    def decide(ctx: RetryContext) -> RetryDecision:
        return RetryDecision(retry=True, backoff=0.05) if ctx.error is not None else RetryDecision()

    model = RecordingModel([RetryableError("r"), Message.assistant("success")])
    agent = ChatModelAgent(
        name="BackoffTestAgent",
        model=model,
        model_retry_config=ModelRetryConfig(max_retries=3, should_retry=decide),
    )
    started = time.monotonic()
    events = _run(agent)
    elapsed = time.monotonic() - started
    assert events[0].error is None
    assert 0.05 <= elapsed < 5.0  # generous: the machine may be loaded
    assert len(model.calls) == 2


def test_should_retry_suppress_flag_rejected_no_event() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Generate/SuppressFlag_Rejected_NoEvent"""

    def decide(ctx: RetryContext) -> RetryDecision:
        return RetryDecision(
            retry=ctx.output_message is not None and ctx.output_message.content == "rejected"
        )

    model = RecordingModel([Message.assistant("rejected"), Message.assistant("accepted")])
    events = _run(_should_retry_agent(model, decide))
    assert [e.message.content for e in events if e.message is not None] == ["accepted"]


def test_should_retry_suppress_flag_all_rejected_no_events() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Generate/SuppressFlag_AllRejected_NoEvents"""
    model = RecordingModel([Message.assistant("rejected")], repeat_last=True)
    events = _run(_should_retry_agent(model, lambda _c: RetryDecision(retry=True), max_retries=2))
    assert [e for e in events if e.message is not None] == []
    assert _find(events[-1].error, RetryExhaustedError) is not None
    assert len(model.calls) == 3


def test_should_retry_suppress_flag_accepted_first_attempt() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Generate/SuppressFlag_Accepted_FirstAttempt"""
    events = _run(_should_retry_agent(RecordingModel([Message.assistant("ok")]), lambda _c: RetryDecision()))
    assert [e.message.content for e in events if e.message is not None] == ["ok"]


def test_attack_should_retry_nil_decision_on_every_call() -> None:
    """chatmodel_retry_test.go TestAttack_ShouldRetry_NilDecisionOnEveryCall: None accepts as is"""
    model = RecordingModel([Message.assistant("ok")])
    events = _run(_should_retry_agent(model, lambda _c: None))
    assert events[-1].error is None and len(model.calls) == 1


def test_attack_should_retry_max_retries_zero_reject_first_attempt() -> None:
    """chatmodel_retry_test.go TestAttack_ShouldRetry_MaxRetriesZero_RejectFirstAttempt"""
    model = RecordingModel([Message.assistant("bad")], repeat_last=True)
    events = _run(_should_retry_agent(model, lambda _c: RetryDecision(retry=True), max_retries=0))
    exhausted = _find(events[-1].error, RetryExhaustedError)
    assert exhausted is not None and "rejected by ShouldRetry at attempt 1" in str(exhausted)
    assert len(model.calls) == 1


def test_attack_should_retry_retry_true_with_rewrite_error_ignores_rewrite() -> None:
    """chatmodel_retry_test.go TestAttack_ShouldRetry_RetryTrueWithRewriteError_IgnoresRewrite"""
    calls: list[int] = []

    def decide(ctx: RetryContext) -> RetryDecision:
        calls.append(ctx.retry_attempt)
        if ctx.retry_attempt == 1:
            return RetryDecision(retry=True, rewrite_error=RuntimeError("ignored"))
        return RetryDecision()

    events = _run(
        _should_retry_agent(RecordingModel([Message.assistant("a"), Message.assistant("b")]), decide)
    )
    assert events[-1].error is None and calls == [1, 2]
    assert [e.message.content for e in events if e.message is not None] == ["b"]


def test_new_chat_model_agent_failover_config_validation() -> None:
    """chatmodel_test.go TestNewChatModelAgent_FailoverConfigValidation (both subtests)"""
    model = RecordingModel([])
    missing_get = ModelFailoverConfig(should_failover=lambda _m, _e: True, get_failover_model=None)  # type: ignore[arg-type]
    with pytest.raises(GraphBuildError, match="GetFailoverModel is required"):
        ChatModelAgent(name="a", model=model, model_failover_config=missing_get)
    missing_should = ModelFailoverConfig(should_failover=None, get_failover_model=lambda _c: (model, None))  # type: ignore[arg-type]
    with pytest.raises(GraphBuildError, match="ShouldFailover is required"):
        ChatModelAgent(name="a", model=model, model_failover_config=missing_should)


class FirstFailed(Exception):
    pass


def test_failover_to_second_model() -> None:
    """failover_chatmodel_test.go TestFailoverModelWrapper_Generate/failover to second model (through
    the agent: the configured model is the first one tried, as Eino's failoverLastSuccessModel)"""
    m1 = RecordingModel([FirstFailed("first failed")])
    m2 = RecordingModel([Message.assistant("ok")])
    should: list[BaseException] = []
    contexts: list[FailoverContext] = []

    def should_failover(_out: Message | None, err: BaseException) -> bool:
        should.append(err)
        return isinstance(err, FirstFailed)

    def get_model(ctx: FailoverContext) -> tuple[Any, list[Message] | None]:
        contexts.append(ctx)
        return m2, None

    agent = ChatModelAgent(
        name="FailoverAgent",
        model=m1,
        model_failover_config=ModelFailoverConfig(
            should_failover=should_failover, get_failover_model=get_model, max_retries=1
        ),
    )
    events = _run(agent)
    assert [e.message.content for e in events if e.message is not None] == ["ok"]
    assert len(m1.calls) == 1 and len(m2.calls) == 1 and len(should) == 1
    assert [c.failover_attempt for c in contexts] == [1]


def test_failover_should_failover_false_stops() -> None:
    """failover_chatmodel_test.go TestFailoverModelWrapper_Generate/canceled error delegates to
    ShouldFailover (ShouldFailover says no: the error is returned after one call)"""
    m1 = RecordingModel([FirstFailed("canceled")], repeat_last=True)
    should: list[int] = []
    agent = ChatModelAgent(
        name="FailoverAgent",
        model=m1,
        model_failover_config=ModelFailoverConfig(
            should_failover=lambda _o, _e: should.append(1) is not None,
            get_failover_model=lambda _c: (m1, None),
            max_retries=5,
        ),
    )
    events = _run(agent)
    assert _is(events[-1].error, FirstFailed) and should == [1] and len(m1.calls) == 1


def test_failover_stops_when_get_failover_model_errors() -> None:
    """failover_chatmodel_test.go TestFailoverModelWrapper_Generate/stops when GetFailoverModel returns
    error"""
    wanted = RuntimeError("get model failed")

    def get_model(_ctx: FailoverContext) -> tuple[Any, list[Message] | None]:
        raise wanted

    agent = ChatModelAgent(
        name="FailoverAgent",
        model=RecordingModel([FirstFailed("x")]),
        model_failover_config=ModelFailoverConfig(
            should_failover=lambda _o, _e: True, get_failover_model=get_model, max_retries=3
        ),
    )
    assert _is(_run(agent)[-1].error, wanted)


def test_failover_stops_when_get_failover_model_returns_none() -> None:
    """failover_chatmodel_test.go TestFailoverModelWrapper_Generate/stops when GetFailoverModel returns
    nil model"""
    agent = ChatModelAgent(
        name="FailoverAgent",
        model=RecordingModel([FirstFailed("x")]),
        model_failover_config=ModelFailoverConfig(
            should_failover=lambda _o, _e: True, get_failover_model=lambda _c: (None, None), max_retries=3
        ),
    )
    error = _run(agent)[-1].error
    assert error is not None and "returned nil model at attempt 1" in str(
        _find(error, Exception) and _chain_text(error)
    )


def _chain_text(error: BaseException) -> str:
    parts: list[str] = []
    seen: BaseException | None = error
    while seen is not None:
        parts.append(str(seen))
        seen = seen.__cause__
    return " | ".join(parts)
