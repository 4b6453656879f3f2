"""Ports of `adk/wrappers_retry_failover_test.go` and `adk/wrappers_failover_test.go` (cloudwego/eino):
retry inside failover, as the agent's model chain builds them (`failover -> retry -> event sender ->
model`). Go builds the chain with `buildModelWrappers` and calls it; the ports run a ChatModelAgent
without tools, whose one model call is that chain, and read its result from the run's events. Each test
names its Go test."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graph_core.agents.adk import (
    AgentEvent,
    ChatModelAgent,
    FailoverContext,
    ModelFailoverConfig,
    ModelRetryConfig,
    RetryContext,
    RetryDecision,
    RetryExhaustedError,
)
from graph_core.agents.adk_stream import drain
from graph_core.errors import StreamCanceledError
from graph_core.schema import Message
from tests.eino.test_adk_failover import FakeModel, _raise


def _is(error: BaseException | None, kind: type[BaseException] | BaseException) -> bool:
    seen = error
    while seen is not None:
        if seen is kind or (isinstance(kind, type) and isinstance(seen, kind)):
            return True
        seen = seen.__cause__
    return False


def _retry(**kwargs: Any) -> ModelRetryConfig:
    kwargs.setdefault("sleep", lambda _s: None)
    kwargs.setdefault("backoff", lambda _attempt: 0.0)
    return ModelRetryConfig(**kwargs)


def _failover(get: Any, *, max_retries: int = 1, should: Any = None) -> ModelFailoverConfig:
    return ModelFailoverConfig(
        should_failover=should or (lambda _o, e: e is not None),
        get_failover_model=get,
        max_retries=max_retries,
    )


def _run(
    model: Any, retry: ModelRetryConfig | None, failover: ModelFailoverConfig, *, streaming: bool
) -> list[AgentEvent]:
    agent = ChatModelAgent(
        name="RetryFailoverAgent", model=model, model_retry_config=retry, model_failover_config=failover
    )
    return list(agent.run([Message.user("hi")], streaming=streaming))


def _answer(events: Sequence[AgentEvent]) -> Message | None:
    """What the chain returned: the run ends well and its last event carries it (a stream read whole)."""
    assert events and events[-1].error is None, events[-1].error if events else "no events"
    return events[-1].get_message()


def _fails(messages: list[Message], error: BaseException) -> list[Message | BaseException]:
    return [*messages, error]


# -- TestRetryThenFailover ------------------------------------------------------------------------------


def test_retry_then_failover_generate_retry_exhausted_triggers_failover() -> None:
    """wrappers_retry_failover_test.go TestRetryThenFailover/Generate_RetryExhaustedTriggersFailover"""
    m1 = FakeModel(generate=lambda _m: _raise(RuntimeError("model error")))
    m2 = FakeModel(generate=lambda _m: Message.assistant("ok from m2"))

    def get(ctx: FailoverContext) -> tuple[Any, list[Message] | None]:
        assert ctx.last_error is not None
        return m2, None

    retry = _retry(max_retries=2, is_retryable=lambda _e: True)
    answer = _answer(_run(m1, retry, _failover(get), streaming=False))
    assert answer is not None and answer.content == "ok from m2"
    assert (m1.calls, m2.calls) == (3, 1)  # 1 + 2 retries on m1, then m2 through the retry layer


def test_retry_then_failover_generate_all_exhausted() -> None:
    """wrappers_retry_failover_test.go TestRetryThenFailover/Generate_AllExhausted"""
    m1 = FakeModel(generate=lambda _m: _raise(RuntimeError("always fails")))
    m2 = FakeModel(generate=lambda _m: _raise(RuntimeError("always fails")))
    retry = _retry(max_retries=1, is_retryable=lambda _e: True)
    events = _run(m1, retry, _failover(lambda _c: (m2, None)), streaming=False)
    assert _is(events[-1].error, RetryExhaustedError)  # m2's retry layer's
    assert (m1.calls, m2.calls) == (2, 2)


def test_retry_then_failover_generate_retry_succeeds_no_failover() -> None:
    """wrappers_retry_failover_test.go TestRetryThenFailover/Generate_RetrySucceedsNoFailover"""
    replies: list[Message | BaseException] = [
        RuntimeError("transient error"),
        Message.assistant("ok on retry"),
    ]

    def generate(_messages: list[Message]) -> Message:
        reply = replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return reply

    m1 = FakeModel(generate=generate)
    asked: list[BaseException] = []

    def get(_ctx: FailoverContext) -> tuple[Any, list[Message] | None]:
        raise AssertionError("GetFailoverModel should not be called when retry succeeds")

    failover = _failover(get, should=lambda _o, e: bool(asked.append(e)) or True)
    answer = _answer(_run(m1, _retry(max_retries=2, is_retryable=lambda _e: True), failover, streaming=False))
    assert answer is not None and answer.content == "ok on retry"
    assert m1.calls == 2 and asked == []


def test_retry_then_failover_generate_non_retryable_error_triggers_failover() -> None:
    """wrappers_retry_failover_test.go TestRetryThenFailover/Generate_NonRetryableErrorTriggersFailover"""
    non_retryable = RuntimeError("non-retryable")
    m1 = FakeModel(generate=lambda _m: _raise(non_retryable))
    m2 = FakeModel(generate=lambda _m: Message.assistant("ok from m2"))
    retry = _retry(max_retries=3, is_retryable=lambda e: e is not non_retryable)
    answer = _answer(_run(m1, retry, _failover(lambda _c: (m2, None)), streaming=False))
    assert answer is not None and answer.content == "ok from m2"
    assert (m1.calls, m2.calls) == (1, 1)


def test_retry_then_failover_stream_retry_exhausted_triggers_failover() -> None:
    """wrappers_retry_failover_test.go TestRetryThenFailover/Stream_RetryExhaustedTriggersFailover"""
    m1 = FakeModel(stream=lambda _m: _fails([Message.assistant("partial")], RuntimeError("stream mid error")))
    m2 = FakeModel(stream=lambda _m: [Message.assistant("ok from m2")])

    def get(ctx: FailoverContext) -> tuple[Any, list[Message] | None]:
        assert ctx.last_error is not None
        return m2, None

    retry = _retry(max_retries=1, is_retryable=lambda _e: True)
    answer = _answer(_run(m1, retry, _failover(get), streaming=True))
    assert answer is not None and answer.content == "ok from m2"
    assert (m1.calls, m2.calls) == (2, 1)


def test_retry_then_failover_stream_all_exhausted() -> None:
    """wrappers_retry_failover_test.go TestRetryThenFailover/Stream_AllExhausted"""
    failing = lambda _m: _fails([Message.assistant("p")], RuntimeError("always fails mid-stream"))  # noqa: E731
    m1, m2 = FakeModel(stream=failing), FakeModel(stream=failing)
    retry = _retry(max_retries=1, is_retryable=lambda _e: True)
    events = _run(m1, retry, _failover(lambda _c: (m2, None)), streaming=True)
    assert _is(events[-1].error, RetryExhaustedError)
    assert (m1.calls, m2.calls) == (2, 2)


def _bad_then_good(bad: str) -> Any:
    def should_retry(ctx: RetryContext) -> RetryDecision:
        return RetryDecision(retry=ctx.output_message is not None and ctx.output_message.content == bad)

    return should_retry


def test_retry_then_failover_should_retry_stream_triggers_failover() -> None:
    """wrappers_retry_failover_test.go TestRetryThenFailover/ShouldRetry_Stream_TriggersFailover"""
    m1 = FakeModel(stream=lambda _m: [Message.assistant("bad from m1")])
    m2 = FakeModel(stream=lambda _m: [Message.assistant("good from m2")])
    retry = _retry(max_retries=1, should_retry=_bad_then_good("bad from m1"))
    answer = _answer(_run(m1, retry, _failover(lambda _c: (m2, None)), streaming=True))
    assert answer is not None and answer.content == "good from m2"
    assert (m1.calls, m2.calls) == (2, 1)


def test_retry_then_failover_should_retry_generate_triggers_failover() -> None:
    """wrappers_retry_failover_test.go TestRetryThenFailover/ShouldRetry_Generate_TriggersFailover"""
    m1 = FakeModel(generate=lambda _m: Message.assistant("bad from m1"))
    m2 = FakeModel(generate=lambda _m: Message.assistant("good from m2"))
    retry = _retry(max_retries=1, should_retry=_bad_then_good("bad from m1"))
    answer = _answer(_run(m1, retry, _failover(lambda _c: (m2, None)), streaming=False))
    assert answer is not None and answer.content == "good from m2"
    assert (m1.calls, m2.calls) == (2, 1)


def test_retry_then_failover_stream_get_failover_model_returns_nil_model() -> None:
    """wrappers_retry_failover_test.go TestRetryThenFailover/Stream_GetFailoverModelReturnsNilModel"""
    m1 = FakeModel(stream=lambda _m: _raise(RuntimeError("m1 always fails")))
    retry = _retry(max_retries=0, is_retryable=lambda _e: False)
    events = _run(m1, retry, _failover(lambda _c: (None, None)), streaming=True)
    assert events[-1].error is not None and "returned nil model at attempt" in str(events[-1].error)
    assert m1.calls == 1


# -- TestErrStreamCanceled_Failover ---------------------------------------------------------------------


def _never_get(_ctx: FailoverContext) -> tuple[Any, list[Message] | None]:
    raise AssertionError("GetFailoverModel should not be called for ErrStreamCanceled")


def test_err_stream_canceled_failover_stream_never_failed_over() -> None:
    """wrappers_retry_failover_test.go TestErrStreamCanceled_Failover/Stream_NeverFailedOver"""
    m1 = FakeModel(stream=lambda _m: _fails([Message.assistant("partial")], StreamCanceledError()))
    asked: list[BaseException] = []
    failover = _failover(_never_get, max_retries=2, should=lambda _o, e: bool(asked.append(e)) or True)
    events = _run(m1, None, failover, streaming=True)
    assert _is(events[-1].error, StreamCanceledError)
    assert m1.calls == 1 and asked == []


def test_err_stream_canceled_failover_generate_never_failed_over() -> None:
    """wrappers_retry_failover_test.go TestErrStreamCanceled_Failover/Generate_NeverFailedOver"""
    m1 = FakeModel(generate=lambda _m: _raise(StreamCanceledError()))
    asked: list[BaseException] = []
    failover = _failover(_never_get, max_retries=2, should=lambda _o, e: bool(asked.append(e)) or True)
    events = _run(m1, None, failover, streaming=False)
    assert _is(events[-1].error, StreamCanceledError)
    assert m1.calls == 1 and asked == []


# -- wrappers_failover_test.go ----------------------------------------------------------------------------


def test_state_model_wrapper_generate_with_failover() -> None:
    """wrappers_failover_test.go TestStateModelWrapper_Generate_WithFailover, without the partial output:
    a Go model returns a message together with its error ("partial", which ShouldFailover checks); a
    Python model raises, so ShouldFailover gets no output."""
    want = RuntimeError("first failed")
    m1 = FakeModel(generate=lambda _m: _raise(want))
    m2 = FakeModel(generate=lambda _m: Message.assistant("ok"))
    asked: list[BaseException] = []

    def should(_out: Message | None, error: BaseException) -> bool:
        asked.append(error)
        return True

    def get(ctx: FailoverContext) -> tuple[Any, list[Message] | None]:
        assert ctx.failover_attempt == 1
        return m2, None

    answer = _answer(_run(m1, None, _failover(get, should=should), streaming=False))
    assert answer is not None and answer.content == "ok"
    assert (m1.calls, m2.calls) == (1, 1) and asked == [want]


def test_state_model_wrapper_stream_with_failover() -> None:
    """wrappers_failover_test.go TestStateModelWrapper_Stream_WithFailover"""
    mid = RuntimeError("mid error")
    m1 = FakeModel(stream=lambda _m: _fails([Message.assistant("p1"), Message.assistant("p2")], mid))
    m2 = FakeModel(stream=lambda _m: [Message.assistant("final")])
    seen: list[tuple[BaseException, str | None]] = []

    def should(out: Message | None, error: BaseException) -> bool:
        seen.append((error, out.content if out is not None else None))
        return True

    def get(ctx: FailoverContext) -> tuple[Any, list[Message] | None]:
        assert ctx.failover_attempt == 1
        return m2, None

    events = _run(m1, None, _failover(get, should=should), streaming=True)
    answer = _answer(events)
    assert answer is not None and answer.content == "final"
    assert events[-1].message_stream is not None
    chunks, _ = drain(events[-1].message_stream)
    assert [c.content for c in chunks] == ["final"]  # Go: the returned stream has 1 chunk
    assert (m1.calls, m2.calls) == (1, 1) and seen == [(mid, "p1p2")]
