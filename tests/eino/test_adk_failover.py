"""Ports of `adk/failover_chatmodel_test.go` (cloudwego/eino) that drive the failover layer itself, as
the Go tests drive `failoverModelWrapper` around the proxy model that calls the current model
(`graph_core.agents.adk_retry.with_failover` / `with_stream_failover` around an endpoint reading
`CURRENT_MODEL`); the ones through the agent are in `test_adk_retry.py`. Each test names its Go test."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, cast

import pytest

from graph_core.agents.adk_retry import (
    CURRENT_MODEL,
    FailoverContext,
    FailoverMemory,
    ModelFailoverConfig,
    with_failover,
    with_stream_failover,
)
from graph_core.errors import GraphError
from graph_core.schema import Message


class Canceled(Exception):
    """Go's `context.Canceled` returned by a model as an ordinary error."""


class FakeModel:
    """Eino's `fakeChatModel`: `generate` and `stream` are functions; `calls` counts both. A `stream`
    function raising is `Stream` returning an error; one returning chunks where an exception is a
    mid-stream error is `streamWithMidError`."""

    def __init__(
        self,
        *,
        generate: Callable[[list[Message]], Message] | None = None,
        stream: Callable[[list[Message]], Sequence[Message | BaseException]] | None = None,
    ) -> None:
        self._generate = generate
        self._stream = stream
        self.calls = 0
        self.inputs: list[list[Message]] = []

    def generate(self, messages: Sequence[Message]) -> Message:
        self.calls += 1
        assert self._generate is not None, "unused"
        return self._generate(list(messages))

    def stream(self, messages: Sequence[Message]) -> Iterator[Message]:
        self.calls += 1
        self.inputs.append(list(messages))
        assert self._stream is not None, "unused"
        return _chunks(self._stream(list(messages)))


def _chunks(items: Sequence[Message | BaseException]) -> Iterator[Message]:
    for item in items:
        if isinstance(item, BaseException):
            raise item
        yield item


def _proxy(messages: list[Message]) -> Message:
    """Eino's `failoverProxyModel.Generate`: the current model of the failover attempt."""
    return CURRENT_MODEL.get().generate(messages)


def _stream_proxy(messages: list[Message]) -> Iterator[Message]:
    return iter(CURRENT_MODEL.get().stream(messages))


def _raise(exc: BaseException) -> Any:
    raise exc


# -- TestFailoverModelWrapper_Generate (the subtests the agent cannot reach) --------------------------------


def test_failover_generate_delegates_when_get_failover_model_nil() -> None:
    """failover_chatmodel_test.go TestFailoverModelWrapper_Generate/delegates when GetFailoverModel nil"""
    inner = FakeModel(generate=lambda _m: Message.assistant("inner"))
    config = ModelFailoverConfig(
        should_failover=lambda _o, _e: True, get_failover_model=cast(Any, None), max_retries=2
    )
    endpoint = with_failover(inner.generate, config, FailoverMemory(None))
    assert endpoint([Message.user("hi")]).content == "inner"
    assert inner.calls == 1


def test_failover_generate_canceled_error_delegates_to_should_failover() -> None:
    """failover_chatmodel_test.go TestFailoverModelWrapper_Generate/canceled error delegates to
    ShouldFailover"""
    asked: list[BaseException] = []
    m1 = FakeModel(generate=lambda _m: _raise(Canceled("context canceled")))

    def should_failover(_out: Message | None, error: BaseException) -> bool:
        asked.append(error)
        return not isinstance(error, Canceled)

    config = ModelFailoverConfig(
        should_failover=should_failover, get_failover_model=lambda _c: (m1, None), max_retries=5
    )
    with pytest.raises(Canceled):
        with_failover(_proxy, config, FailoverMemory(m1))([Message.user("hi")])
    assert len(asked) == 1


# -- TestFailoverModelWrapper_Stream ----------------------------------------------------------------------


def _drain(chunks: Iterator[Message]) -> list[Message]:
    return list(chunks)


def test_failover_stream_returns_stream_when_first_attempt_succeeds() -> None:
    """failover_chatmodel_test.go TestFailoverModelWrapper_Stream/returns stream when first attempt
    succeeds"""
    asked: list[BaseException] = []
    given = Message.user("hi")

    def stream(messages: list[Message]) -> list[Message | BaseException]:
        assert len(messages) == 1 and messages[0] is given
        return [Message.assistant("a"), Message.assistant("b")]

    m1 = FakeModel(stream=stream)
    config = ModelFailoverConfig(
        should_failover=lambda _o, e: bool(asked.append(e)),
        get_failover_model=lambda _c: (m1, None),
        max_retries=0,
    )
    msgs = _drain(with_stream_failover(_stream_proxy, config, FailoverMemory(m1))([given]))
    assert [m.content for m in msgs] == ["a", "b"]
    assert asked == []


def test_failover_stream_when_stream_returns_error_immediately() -> None:
    """failover_chatmodel_test.go TestFailoverModelWrapper_Stream/failover when Stream returns error
    immediately"""
    want = RuntimeError("stream init failed")
    m1 = FakeModel(stream=lambda _m: _raise(want))
    m2 = FakeModel(stream=lambda _m: [Message.assistant("ok")])
    asked: list[BaseException] = []
    attempts: list[int] = []

    def get_failover_model(ctx: FailoverContext) -> tuple[Any, list[Message] | None]:
        attempts.append(ctx.failover_attempt)
        return m2, None

    def should_failover(_out: Message | None, error: BaseException) -> bool:
        asked.append(error)
        return error is want

    config = ModelFailoverConfig(
        should_failover=should_failover, get_failover_model=get_failover_model, max_retries=1
    )
    msgs = _drain(with_stream_failover(_stream_proxy, config, FailoverMemory(m1))([Message.user("hi")]))
    assert [m.content for m in msgs] == ["ok"]
    assert (m1.calls, m2.calls, len(asked), attempts) == (1, 1, 1, [1])


def test_failover_stream_when_stream_errors_mid_way() -> None:
    """failover_chatmodel_test.go TestFailoverModelWrapper_Stream/failover when stream errors mid-way:
    ShouldFailover sees the chunks received before the error."""
    mid = RuntimeError("mid error")
    m1 = FakeModel(stream=lambda _m: [Message.assistant("p1"), Message.assistant("p2"), mid])
    m2 = FakeModel(stream=lambda _m: [Message.assistant("final")])
    seen: list[str] = []
    asked = 0

    def should_failover(out: Message | None, error: BaseException) -> bool:
        nonlocal asked
        asked += 1
        if error is mid and out is not None:
            seen.append(out.content)
        return error is mid

    def get_failover_model(ctx: FailoverContext) -> tuple[Any, list[Message] | None]:
        assert ctx.failover_attempt == 1
        return m2, None

    config = ModelFailoverConfig(
        should_failover=should_failover, get_failover_model=get_failover_model, max_retries=1
    )
    msgs = _drain(with_stream_failover(_stream_proxy, config, FailoverMemory(m1))([Message.user("hi")]))
    assert [m.content for m in msgs] == ["final"]
    assert seen == ["p1p2"]
    assert (m1.calls, m2.calls, asked) == (1, 1, 1)


def test_failover_stream_stop_when_should_failover_false_for_mid_way_error() -> None:
    """failover_chatmodel_test.go TestFailoverModelWrapper_Stream/stop when ShouldFailover returns false
    for mid-way error"""
    mid = RuntimeError("mid error")
    m1 = FakeModel(stream=lambda _m: [Message.assistant("p"), mid])
    config = ModelFailoverConfig(
        should_failover=lambda _o, _e: False, get_failover_model=lambda _c: (m1, None), max_retries=3
    )
    with pytest.raises(RuntimeError) as raised:
        with_stream_failover(_stream_proxy, config, FailoverMemory(m1))([Message.user("hi")])
    assert raised.value is mid


def test_failover_stream_canceled_mid_way_error_delegates_to_should_failover() -> None:
    """failover_chatmodel_test.go TestFailoverModelWrapper_Stream/canceled mid-way error delegates to
    ShouldFailover"""
    asked = 0
    m1 = FakeModel(stream=lambda _m: [Message.assistant("p"), Canceled("context canceled")])

    def should_failover(_out: Message | None, error: BaseException) -> bool:
        nonlocal asked
        asked += 1
        return not isinstance(error, Canceled)

    config = ModelFailoverConfig(
        should_failover=should_failover, get_failover_model=lambda _c: (m1, None), max_retries=3
    )
    with pytest.raises(Canceled):
        with_stream_failover(_stream_proxy, config, FailoverMemory(m1))([Message.user("hi")])
    assert asked == 1


def test_failover_stream_stop_when_stream_errors_immediately_and_should_failover_false() -> None:
    """failover_chatmodel_test.go TestFailoverModelWrapper_Stream/stop when Stream returns error
    immediately and ShouldFailover returns false"""
    want = RuntimeError("stream init failed")
    m1 = FakeModel(stream=lambda _m: _raise(want))
    asked: list[BaseException] = []

    def should_failover(_out: Message | None, error: BaseException) -> bool:
        asked.append(error)
        return False

    config = ModelFailoverConfig(
        should_failover=should_failover, get_failover_model=lambda _c: (m1, None), max_retries=3
    )
    with pytest.raises(RuntimeError) as raised:
        with_stream_failover(_stream_proxy, config, FailoverMemory(m1))([Message.user("hi")])
    assert raised.value is want
    assert m1.calls == 1 and asked == [want]


def test_failover_stream_stops_when_get_failover_model_returns_nil_model() -> None:
    """failover_chatmodel_test.go TestFailoverModelWrapper_Stream/stops when GetFailoverModel returns nil
    model (no model succeeded before: the first attempt asks GetFailoverModel)"""
    config = ModelFailoverConfig(
        should_failover=lambda _o, _e: True, get_failover_model=lambda _c: (None, None), max_retries=1
    )
    with pytest.raises(GraphError, match="GetFailoverModel returned nil model"):
        with_stream_failover(_stream_proxy, config, FailoverMemory(None))([Message.user("hi")])


def test_failover_stream_stops_when_get_failover_model_returns_error() -> None:
    """failover_chatmodel_test.go TestFailoverModelWrapper_Stream/stops when GetFailoverModel returns
    error"""
    want = RuntimeError("get model failed")
    inner = FakeModel(stream=lambda _m: [Message.assistant("unused")])
    config = ModelFailoverConfig(
        should_failover=lambda _o, _e: True, get_failover_model=lambda _c: _raise(want), max_retries=3
    )
    with pytest.raises(RuntimeError) as raised:
        with_stream_failover(inner.stream, config, FailoverMemory(None))([Message.user("hi")])
    assert raised.value is want
    assert inner.calls == 0
