"""Ports of the streaming half of `adk/chatmodel_retry_test.go` (cloudwego/eino): model retry when the
agent streams. Each attempt's stream reaches the caller in its own event as it comes; a retried
attempt's event stream ends with a `WillRetryError`, an accepted one cleanly or with the model's error.
Waits go through an injected `sleep`; each test names its Go test."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from graph_core.agents.adk import (
    AgentEvent,
    ChatModelAgent,
    ModelRetryConfig,
    RetryContext,
    RetryDecision,
    RetryExhaustedError,
    WillRetryError,
)
from graph_core.agents.adk_runner import Runner
from graph_core.agents.adk_stream import drain
from graph_core.call_options import ChatModelOptions, node_options
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import StreamCanceledError
from graph_core.interrupt import interrupt
from graph_core.schema import Message, ToolCall, ToolInfo
from tests.eino.adk_fakes import NamedTool

Chunk = Message | BaseException
Entry = BaseException | Sequence[Chunk]


class RetryableError(Exception):
    """Eino's `errRetryAble`."""


class NonRetryableError(Exception):
    """Eino's `errNonRetryAble`."""


class StreamScript:
    """Eino's gomock `Stream` expectations: call N takes entry N (the last one repeats when
    `repeat_last`): an exception is `Stream` returning an error (raised when the stream is opened), a
    sequence is the stream's chunks, where an exception is a mid-stream error. `calls` records each
    call's input messages and `options` the chat model options it had (Go's `opts`); `entry` may also
    be a function of the call number."""

    def __init__(
        self, script: Sequence[Entry | Callable[[int], Entry]], *, repeat_last: bool = False
    ) -> None:
        self.script = list(script)
        self.repeat_last = repeat_last
        self.calls: list[list[Message]] = []
        self.options: list[list[Any]] = []

    def with_tools(self, _infos: Sequence[ToolInfo]) -> StreamScript:
        return self

    def generate(self, _messages: Sequence[Message]) -> Message:
        raise AssertionError("Generate is not expected")

    def stream(self, messages: Sequence[Message]) -> Iterator[Message]:
        self.calls.append(list(messages))
        self.options.append(node_options("ChatModel"))
        index = len(self.calls) - 1
        if index >= len(self.script):
            assert self.repeat_last, f"unexpected Stream call #{index + 1}"
            index = len(self.script) - 1
        entry = self.script[index]
        if callable(entry):
            entry = entry(len(self.calls))
        if isinstance(entry, BaseException):
            raise entry
        return _chunks(entry)


def _chunks(entry: Sequence[Chunk]) -> Iterator[Message]:
    for item in entry:
        if isinstance(item, BaseException):
            raise item
        yield item


def _retry(**kwargs: Any) -> ModelRetryConfig:
    kwargs.setdefault("sleep", lambda _s: None)
    kwargs.setdefault("backoff", lambda _attempt: 0.001)  # Eino's instantBackoff
    return ModelRetryConfig(**kwargs)


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, RetryableError)


def _is(error: BaseException | None, kind: type[BaseException] | BaseException) -> bool:
    """Go's `errors.Is`: the error or one it wraps (`__cause__`) is `kind` (a type or an instance)."""
    seen = error
    while seen is not None:
        if seen is kind or (isinstance(kind, type) and isinstance(seen, kind)):
            return True
        seen = seen.__cause__
    return False


def _agent(model: Any, retry: ModelRetryConfig | None, *, tools: Sequence[Any] = ()) -> ChatModelAgent:
    return ChatModelAgent(
        name="RetryTestAgent",
        instruction="You are a helpful assistant.",
        model=model,
        tools=tools,
        model_retry_config=retry,
    )


def _run(agent: ChatModelAgent) -> list[AgentEvent]:
    return list(agent.run([Message.user("Hello")], streaming=True))


def _drain(events: list[AgentEvent]) -> tuple[list[str | None], list[BaseException | None]]:
    """Eino's `drainStreamingAgentEvents`: each event's stream content (None for a non-stream event)
    and, per stream, how it ended (None: clean EOF)."""
    contents: list[str | None] = []
    ends: list[BaseException | None] = []
    for event in events:
        if event.message_stream is None:
            contents.append(None)
            continue
        chunks, error = drain(event.message_stream)
        contents.append("".join(c.content for c in chunks))
        ends.append(error)
    return contents, ends


def _five(fail_at: int, max_failures: int) -> Callable[[int], Entry]:
    """Eino's `streamErrorModel`: five "chunk" chunks, the first `max_failures` calls failing with
    `errRetryAble` at chunk `fail_at`."""

    def entry(call: int) -> Entry:
        out: list[Chunk] = []
        for i in range(5):
            if i == fail_at and call <= max_failures:
                out.append(RetryableError("retry-able error"))
                break
            out.append(Message.assistant("chunk"))
        return out

    return entry


def test_no_tools_direct_error_stream() -> None:
    """chatmodel_retry_test.go TestChatModelAgentRetry_NoTools_DirectError_Stream"""
    model = StreamScript([RetryableError("retry-able error"), [Message.assistant("Success")]])
    events = _run(_agent(model, _retry(max_retries=3, is_retryable=_retryable)))
    assert len(events) == 1 and events[0].error is None and events[0].is_streaming
    assert len(model.calls) == 2


def test_stream_error_with_tools() -> None:
    """chatmodel_retry_test.go TestChatModelAgentRetry_StreamError/WithTools"""
    model = StreamScript([_five(2, 2)], repeat_last=True)
    events = _run(
        _agent(model, _retry(max_retries=3, is_retryable=_retryable), tools=[NamedTool("test_tool")])
    )
    assert len(events) == 3
    _, ends = _drain(events)
    errors = [e for e in ends if e is not None]
    assert len(errors) == 2 and all(isinstance(e, WillRetryError) for e in errors)
    assert len(model.calls) == 3


def test_stream_error_no_tools() -> None:
    """chatmodel_retry_test.go TestChatModelAgentRetry_StreamError/NoTools"""
    model = StreamScript([_five(2, 2)], repeat_last=True)
    events = _run(_agent(model, _retry(max_retries=3, is_retryable=_retryable)))
    assert len(events) == 3
    _, ends = _drain(events)
    errors = [e for e in ends if e is not None]
    assert len(errors) == 2 and all(isinstance(e, WillRetryError) for e in errors)
    assert len(model.calls) == 3


def test_with_tools_non_retryable_stream_error() -> None:
    """chatmodel_retry_test.go TestChatModelAgentRetry_WithTools_NonRetryAbleStreamError"""
    model = StreamScript([NonRetryableError("non-retry-able error")])
    events = _run(
        _agent(model, _retry(max_retries=3, is_retryable=_retryable), tools=[NamedTool("test_tool")])
    )
    assert len(events) == 1 and _is(events[0].error, NonRetryableError)


def test_no_tools_non_retryable_stream_error() -> None:
    """chatmodel_retry_test.go TestChatModelAgentRetry_NoTools_NonRetryAbleStreamError"""
    model = StreamScript([[Message.assistant("chunk1"), NonRetryableError("non-retry-able error")]])
    events = _run(_agent(model, _retry(max_retries=3, is_retryable=_retryable)))
    assert len(events) == 2
    assert events[0].is_streaming and events[0].message_stream is not None
    _, error = drain(events[0].message_stream)
    assert error is not None and _is(error, NonRetryableError)  # the original error, not WillRetryError
    assert not isinstance(error, WillRetryError)
    assert _is(events[1].error, NonRetryableError)


def test_checkpoint_save_will_retry_error_stream_not_consumed() -> None:
    """chatmodel_retry_test.go TestCheckpointSave_WillRetryError_StreamNotConsumed: a retried stream's
    event, never read, does not keep the interrupted run from saving its checkpoint. (Go's concern is gob
    encoding that event into the Runner's checkpoint; here the checkpoint holds the graph's state, and
    the assertions are Go's: the checkpoint exists, the model streamed twice.)"""
    call = ToolCall(id="call-1", name="interrupt_tool", arguments="{}")
    model = StreamScript(
        [
            [Message.assistant("partial"), RetryableError("retry-able error")],
            [Message.assistant("", tool_calls=[call])],
        ]
    )

    class InterruptTool:
        info = ToolInfo("interrupt_tool", "tool that interrupts")

        def invoke(self, _arguments: str) -> str:
            interrupt("interrupted by tool")
            return ""

    agent = _agent(model, _retry(max_retries=1, is_retryable=_retryable), tools=[InterruptTool()])
    store = InMemoryCheckpointStore()
    runner = Runner(agent, enable_streaming=True, checkpoint_store=store)
    events = list(runner.run([Message.user("hello")], checkpoint_id="ckpt-1"))
    assert events[-1].action is not None and events[-1].action.interrupted is not None
    assert store.get("ckpt-1") is not None
    assert len(model.calls) == 2


def test_should_retry_reject_message_stream() -> None:
    """chatmodel_retry_test.go TestChatModelAgentRetry_ShouldRetry_RejectMessage_Stream"""

    def should_retry(ctx: RetryContext) -> RetryDecision:
        if ctx.error is not None:
            return RetryDecision(retry=True)
        if ctx.output_message is not None and "bad" in ctx.output_message.content:
            return RetryDecision(retry=True)
        return RetryDecision(retry=False)

    model = StreamScript(
        [[Message.assistant("bad stream content")], [Message.assistant("good stream content")]]
    )
    contents, _ = _drain(_run(_agent(model, _retry(max_retries=3, should_retry=should_retry))))
    assert "good stream content" in contents
    assert len(model.calls) == 2


# -- TestShouldRetry_Stream -----------------------------------------------------------------------------


def test_should_retry_stream_error_retry() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Stream/ErrorRetry"""
    model = StreamScript([RuntimeError("stream unavailable"), [Message.assistant("recovered stream")]])
    should = lambda ctx: RetryDecision(retry=ctx.error is not None)  # noqa: E731
    contents, _ = _drain(_run(_agent(model, _retry(max_retries=3, should_retry=should))))
    assert "recovered stream" in contents
    assert len(model.calls) == 2


def test_should_retry_stream_error_rewrite() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Stream/ErrorRewrite"""
    fatal = RuntimeError("fatal: model overloaded, aborting")

    def should_retry(ctx: RetryContext) -> RetryDecision:
        if ctx.error is not None and "overloaded" in str(ctx.error):
            return RetryDecision(retry=False, rewrite_error=fatal)
        return RetryDecision(retry=False)

    model = StreamScript([RuntimeError("model overloaded")])
    events = _run(_agent(model, _retry(max_retries=2, should_retry=should_retry)))
    assert events and any(_is(e.error, fatal) for e in events)
    assert len(model.calls) == 1


def test_should_retry_stream_rewrite_error_on_message() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Stream/RewriteError_OnMessage"""
    fatal = RuntimeError("fatal: hallucinated output detected")

    def should_retry(ctx: RetryContext) -> RetryDecision:
        if ctx.output_message is not None and "hallucinated" in ctx.output_message.content:
            return RetryDecision(retry=False, rewrite_error=fatal)
        return RetryDecision(retry=False)

    model = StreamScript([[Message.assistant("hallucinated garbage output")]])
    events = _run(_agent(model, _retry(max_retries=2, should_retry=should_retry)))
    _drain(events)
    assert events and any(_is(e.error, fatal) for e in events)
    assert len(model.calls) == 1


def test_should_retry_stream_partial_stream_error() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Stream/PartialStreamError: the decision sees the chunks
    received before the mid-stream error."""
    partial = RuntimeError("connection reset mid-stream")
    model = StreamScript(
        [
            [Message.assistant("partial chunk"), partial],
            [Message.assistant("partial chunk"), Message.assistant(" complete")],
        ]
    )
    captured: list[RetryContext] = []

    def should_retry(ctx: RetryContext) -> RetryDecision:
        captured.append(ctx)
        return RetryDecision(retry=ctx.error is not None)

    _drain(_run(_agent(model, _retry(max_retries=3, should_retry=should_retry))))
    assert len(model.calls) == 2 and len(captured) == 2
    assert captured[0].error is not None
    assert captured[0].output_message is not None
    assert captured[0].output_message.content == "partial chunk"


def test_should_retry_stream_modified_inputs_with_persist() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Stream/ModifiedInputsAndOptions_WithPersist: the retry
    gets the modified input and one more model option (`additional_options`)"""
    modified = [Message.system("compressed instruction"), Message.user("summarized history")]

    def should_retry(ctx: RetryContext) -> RetryDecision:
        if ctx.output_message is not None and "too long" in ctx.output_message.content:
            return RetryDecision(
                retry=True,
                modified_input_messages=modified,
                persist_modified_input_messages=True,
                additional_options=[ChatModelOptions(max_tokens=16384)],
            )
        return RetryDecision(retry=False)

    model = StreamScript(
        [[Message.assistant("too long response exceeds limit")], [Message.assistant("good response")]]
    )
    contents, _ = _drain(_run(_agent(model, _retry(max_retries=3, should_retry=should_retry))))
    assert "good response" in contents
    assert len(model.calls) == 2
    assert model.calls[1][0].content == "compressed instruction"
    assert model.calls[1][1].content == "summarized history"
    assert len(model.options[0]) + 1 == len(model.options[1])


def test_should_retry_stream_verdict_signal_clean_stream_rejected() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Stream/VerdictSignal_CleanStream_Rejected"""
    model = StreamScript([[Message.assistant("bad")], [Message.assistant("good")]])
    should = lambda ctx: RetryDecision(  # noqa: E731
        retry=ctx.output_message is not None and ctx.output_message.content == "bad"
    )
    events = _run(_agent(model, _retry(max_retries=1, should_retry=should)))
    _, ends = _drain(events)
    assert len(ends) == 2
    assert isinstance(ends[0], WillRetryError)  # first stream ends with WillRetryError
    assert ends[1] is None  # second stream ends with io.EOF
    assert len(model.calls) == 2


def test_should_retry_stream_verdict_signal_stream_error_rejected() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Stream/VerdictSignal_StreamError_Rejected"""
    model = StreamScript(
        [[Message.assistant("partial"), RuntimeError("mid-stream error")], [Message.assistant("good")]]
    )
    should = lambda ctx: RetryDecision(retry=ctx.error is not None)  # noqa: E731
    _, ends = _drain(_run(_agent(model, _retry(max_retries=1, should_retry=should))))
    assert len(ends) == 2
    assert isinstance(ends[0], WillRetryError)


def test_should_retry_stream_verdict_signal_accepted_first_attempt() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Stream/VerdictSignal_Accepted_FirstAttempt"""
    model = StreamScript([[Message.assistant("perfect")]])
    should = lambda _ctx: RetryDecision(retry=False)  # noqa: E731
    _, ends = _drain(_run(_agent(model, _retry(max_retries=2, should_retry=should))))
    assert ends == [None]


def test_should_retry_stream_verdict_signal_all_rejected_exhausted() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Stream/VerdictSignal_AllRejected_Exhausted"""
    model = StreamScript([[Message.assistant("always bad")]], repeat_last=True)
    should = lambda _ctx: RetryDecision(retry=True)  # noqa: E731
    events = _run(_agent(model, _retry(max_retries=2, should_retry=should)))
    _, ends = _drain(events)
    assert sum(isinstance(e, WillRetryError) for e in ends) == 3
    assert any(_is(e.error, RetryExhaustedError) for e in events)
    assert len(model.calls) == 3


def test_should_retry_stream_should_retry_panics_verdict_still_sent() -> None:
    """chatmodel_retry_test.go TestShouldRetry_Stream/ShouldRetry_Panics_VerdictStillSent: a
    `should_retry` that raises ends the run with its error and leaves no event stream open."""

    def should_retry(_ctx: RetryContext) -> RetryDecision:
        raise RuntimeError("deliberate panic in ShouldRetry")

    model = StreamScript([[Message.assistant("trigger panic")]])
    done = threading.Event()
    events: list[AgentEvent] = []

    def drain() -> None:
        events.extend(_run(_agent(model, _retry(max_retries=1, should_retry=should_retry))))
        _drain(events)
        done.set()

    threading.Thread(target=drain, daemon=True).start()
    assert done.wait(5), "deadlocked: the event stream was not ended after ShouldRetry raised"
    assert events and any(e.error is not None and "panic" in str(e.error) for e in events)


# -- TestErrStreamCanceled --------------------------------------------------------------------------------


def test_err_stream_canceled_stream_should_retry_never_retried() -> None:
    """chatmodel_retry_test.go TestErrStreamCanceled/Stream_ShouldRetry_NeverRetried"""
    calls: list[RetryContext] = []

    def should_retry(ctx: RetryContext) -> RetryDecision:
        calls.append(ctx)
        return RetryDecision(retry=True)

    model = StreamScript([[Message.assistant("partial"), StreamCanceledError()]])
    _drain(_run(_agent(model, _retry(max_retries=3, should_retry=should_retry))))
    assert calls == []
    assert len(model.calls) == 1


def test_err_stream_canceled_stream_legacy_is_retryable_never_retried() -> None:
    """chatmodel_retry_test.go TestErrStreamCanceled/Stream_LegacyIsRetryAble_NeverRetried"""
    asked: list[BaseException] = []

    def is_retryable(exc: BaseException) -> bool:
        asked.append(exc)
        return True

    model = StreamScript([[Message.assistant("partial"), StreamCanceledError()]])
    _drain(_run(_agent(model, _retry(max_retries=3, is_retryable=is_retryable))))
    assert asked == []
    assert len(model.calls) == 1


def test_err_stream_canceled_generate_should_retry_never_retried() -> None:
    """chatmodel_retry_test.go TestErrStreamCanceled/Generate_ShouldRetry_NeverRetried"""
    calls: list[RetryContext] = []

    def should_retry(ctx: RetryContext) -> RetryDecision:
        calls.append(ctx)
        return RetryDecision(retry=True)

    class CanceledModel:
        generated = 0

        def generate(self, _messages: Sequence[Message]) -> Message:
            CanceledModel.generated += 1
            raise StreamCanceledError()

    events = list(
        _agent(CanceledModel(), _retry(max_retries=3, should_retry=should_retry)).run([Message.user("Hello")])
    )
    assert calls == [] and CanceledModel.generated == 1
    assert _is(events[-1].error, StreamCanceledError)


# -- TestAttack_ShouldRetry_Stream_* ----------------------------------------------------------------------


def _within(seconds: float, work: Callable[[], Any]) -> Any:
    """Go's `select { case <-done: case <-time.After(...): t.Fatal("deadlocked") }`."""
    box: list[Any] = []
    thread = threading.Thread(target=lambda: box.append(work()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "deadlocked"
    return box[0]


def test_attack_should_retry_stream_nil_decision_accepts() -> None:
    """chatmodel_retry_test.go TestAttack_ShouldRetry_Stream_NilDecisionAccepts"""
    model = StreamScript([[Message.assistant("stream ok")]])
    contents, ends = _drain(_run(_agent(model, _retry(max_retries=2, should_retry=lambda _c: None))))
    assert "stream ok" in contents
    assert all(end is None for end in ends)


def test_attack_should_retry_stream_max_retries_zero_exhausted() -> None:
    """chatmodel_retry_test.go TestAttack_ShouldRetry_Stream_MaxRetriesZero_Exhausted"""
    model = StreamScript([[Message.assistant("rejected")]])
    agent = _agent(model, _retry(max_retries=0, should_retry=lambda _c: RetryDecision(retry=True)))

    def work() -> list[AgentEvent]:
        events = _run(agent)
        _drain(events)
        return events

    events = _within(10, work)
    assert any(_is(e.error, RetryExhaustedError) for e in events)
    assert len(model.calls) == 1


def test_attack_should_retry_stream_rewrite_error_on_clean_stream() -> None:
    """chatmodel_retry_test.go TestAttack_ShouldRetry_Stream_RewriteErrorOnCleanStream"""
    fatal = RuntimeError("fatal: content policy violation")
    model = StreamScript([[Message.assistant("looks good but bad")]])
    agent = _agent(model, _retry(max_retries=2, should_retry=lambda _c: RetryDecision(rewrite_error=fatal)))

    def work() -> list[AgentEvent]:
        events = _run(agent)
        _drain(events)
        return events

    events = _within(10, work)
    assert any(_is(e.error, fatal) for e in events)
    assert len(model.calls) == 1


def test_attack_should_retry_concat_messages_fails_empty_stream() -> None:
    """chatmodel_retry_test.go TestAttack_ShouldRetry_ConcatMessagesFails_EmptyStream: an empty stream
    gives the decision an (empty) output message and no error."""
    model = StreamScript([[]])
    captured: list[RetryContext] = []

    def should_retry(ctx: RetryContext) -> RetryDecision:
        captured.append(ctx)
        return RetryDecision(retry=False)

    agent = _agent(model, _retry(max_retries=1, should_retry=should_retry))
    _within(10, lambda: _drain(_run(agent)))
    assert len(captured) == 1
    assert captured[0].output_message is not None
    assert captured[0].error is None


def test_attack_should_retry_stream_mid_stream_error_verdict_double_read() -> None:
    """chatmodel_retry_test.go TestAttack_ShouldRetry_Stream_MidStreamError_VerdictDoubleRead: every
    attempt fails mid-stream; every event stream still ends and the run ends."""
    model = StreamScript(
        [[Message.assistant("chunk1"), RuntimeError("mid-stream transient error")]], repeat_last=True
    )
    should = lambda ctx: RetryDecision(retry=ctx.error is not None)  # noqa: E731
    agent = _agent(model, _retry(max_retries=1, should_retry=should))
    _within(10, lambda: _drain(_run(agent)))
    assert len(model.calls) == 2


def test_reject_reason_stream_path() -> None:
    """chatmodel_retry_test.go TestRejectReason_StreamPath"""
    model = StreamScript(
        [[Message.assistant("rejected chunk"), RuntimeError("bad output")], [Message.assistant("accepted")]]
    )

    def should_retry(ctx: RetryContext) -> RetryDecision | None:
        if ctx.error is not None:
            return RetryDecision(
                retry=True, reject_reason={"reason": "output quality too low", "attempt": ctx.retry_attempt}
            )
        return None

    agent = _agent(model, _retry(max_retries=1, should_retry=should_retry))
    reasons: list[Any] = []
    final = ""
    for event in agent.run([Message.user("hello")], streaming=True):
        if event.error is not None or event.message_stream is None:
            continue
        chunks, error = drain(event.message_stream)
        if chunks:
            final = chunks[-1].content
        if isinstance(error, WillRetryError):
            reasons.append(error.reject_reason)
    assert "accepted" in final
    assert reasons, "should have at least one WillRetryError with its reject reason"
    assert all(r == {"reason": "output quality too low", "attempt": 1} for r in reasons)


def test_streamed_model_event_reaches_callback_listeners_and_caller() -> None:
    """Not an Eino test: a streaming run with an agent callback listening (`on_end`) hands the model's
    event stream to the listener and to the caller, each reading it whole (handing it on once read in
    the emitting thread deadlocked the run)."""
    heard: list[AgentEvent] = []
    listening: list[threading.Thread] = []

    class Listener:
        def on_end(self, _info: Any, output: Any) -> None:
            listener = threading.Thread(target=lambda: heard.extend(output.events), daemon=True)
            listening.append(listener)
            listener.start()

    model = StreamScript([[Message.assistant("Hel"), Message.assistant("lo")]])
    agent = _agent(model, None)
    events = _within(
        10, lambda: list(agent.run([Message.user("hi")], streaming=True, callbacks=[Listener()]))
    )
    assert [e.get_message().content for e in events if e.is_streaming] == ["Hello"]  # type: ignore[union-attr]
    assert len(listening) == 1
    _within(
        10, listening[0].join
    )  # the listener has read the events whole (not a read of a list still filling)
    assert [e.get_message().content for e in heard if e.is_streaming] == ["Hello"]  # type: ignore[union-attr]
