"""Model retry and failover for the ADK `ChatModelAgent` (Eino `adk/retry_chatmodel.go`,
`adk/failover_chatmodel.go`).

Both are layers of the agent's model call chain (`graph_core.agents.adk_model`), outside the event
sender, so a retried or failed-over attempt's output is not reported and the state hooks
(`before_model_rewrite_state`...) run once per model call, not once per attempt, as in Eino:

```
failover -> retry -> event sender -> handlers' wrap_model -> the current model
```

A layer is an endpoint: `messages -> Message`, or on the streaming path `messages -> Iterator[Message]`
(`with_stream_retry`, `with_stream_failover`). Interrupts and `StreamCanceledError` are never retried
nor failed over. Waiting between attempts goes through `ModelRetryConfig.sleep`, so tests inject a
clock; by default it waits on the run's cancel signal, so a cancelled run wakes at once (Eino
`contextAwareSleep`); either way a run cancelled meanwhile makes no further attempt.

The options of an attempt's model call are the run's chat model options and those the agent adds (its
tool list), as `graph_core.call_options.node_options("ChatModel")` gives them to the model;
`RetryContext.options` shows them, and a `RetryDecision`'s `additional_options` are added to every
later attempt's (Eino `AdditionalOptions`).

On the streaming path each attempt's stream reaches the caller as it comes, in its own event
(`adk_stream`); the layers read their copy to the end before deciding, and a `StreamGate` tells the
event sender how each event stream ends (Eino's retry verdict signal): with the model's error, cleanly,
or with a `WillRetryError` when the attempt is retried. Without `should_retry` the gate decides at once
from `is_retryable` and the attempts left (Eino `genErrWrapper`); with it, the event stream's end waits
for the decision.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from graph_core.agents.adk_stream import MessageStream, drain
from graph_core.call_options import added_options, node_options
from graph_core.errors import (
    GraphError,
    InterruptError,
    RetryExhaustedError,
    StreamCanceledError,
    WillRetryError,
)
from graph_core.interrupt import InterruptSignal, interrupt
from graph_core.schema import Message, concat_messages

__all__ = [
    "FailoverContext",
    "ModelFailoverConfig",
    "ModelRetryConfig",
    "RetryContext",
    "RetryDecision",
    "RetryExhaustedError",
    "WillRetryError",
    "default_backoff",
]

Endpoint = Callable[[list[Message]], Message]
StreamEndpoint = Callable[[list[Message]], Iterator[Message]]


@dataclass(frozen=True, slots=True)
class RetryContext:
    """What `should_retry` decides on: the 1-based attempt, its input, its output and/or error, and
    the chat model options its model call had (see the module docstring)."""

    retry_attempt: int
    input_messages: Sequence[Message]
    output_message: Message | None
    error: BaseException | None
    options: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class RetryDecision:
    """`retry`; else `rewrite_error` replaces the result. On a retry, `modified_input_messages` feed the
    next attempt (and the agent's history too with `persist_modified_input_messages`),
    `additional_options` (`ChatModelOptions`) are added to the options of every later attempt; `backoff`
    (seconds, 0 = the config's backoff) and `reject_reason` (carried by the `WillRetryError`)."""

    retry: bool = False
    rewrite_error: BaseException | None = None
    modified_input_messages: list[Message] | None = None
    persist_modified_input_messages: bool = False
    backoff: float = 0.0
    reject_reason: Any = None
    additional_options: Sequence[Any] = ()


def default_backoff(attempt: int) -> float:
    """Eino's default: 100 ms doubling per attempt up to 10 s, plus up to 50% jitter (seconds)."""
    base, cap = 0.1, 10.0
    if attempt <= 0:
        return base
    if attempt > 7:
        return cap + random.uniform(0, cap / 2)
    delay = min(base * (1 << (attempt - 1)), cap)
    return delay + random.uniform(0, delay / 2)


@dataclass(frozen=True, slots=True)
class ModelRetryConfig:
    """Eino `ModelRetryConfig`. `max_retries` extra attempts (0: none). `should_retry` decides from the
    whole result (it wins over `is_retryable`, which looks at errors only; default: every error).
    `backoff(attempt)` gives the wait in seconds before retry `attempt` (1-based); `sleep(seconds)`
    waits (None: wait on the run's cancel signal, so a cancel ends the wait at once)."""

    max_retries: int = 0
    should_retry: Callable[[RetryContext], RetryDecision | None] | None = None
    is_retryable: Callable[[BaseException], bool] | None = None
    backoff: Callable[[int], float] | None = None
    sleep: Callable[[float], None] | None = None


@dataclass(frozen=True, slots=True)
class FailoverContext:
    """What `get_failover_model` is given: the 1-based attempt, the original input, the last result."""

    failover_attempt: int
    input_messages: Sequence[Message]
    last_output_message: Message | None
    last_error: BaseException | None


@dataclass(frozen=True, slots=True)
class ModelFailoverConfig:
    """Eino `ModelFailoverConfig`: after a failure that `should_failover(output, error)` accepts,
    `get_failover_model(ctx)` names the next model (and optionally its input), up to `max_retries` times.
    The model that last succeeded is tried first on the agent's next call."""

    should_failover: Callable[[Message | None, BaseException], bool]
    get_failover_model: Callable[[FailoverContext], tuple[Any, list[Message] | None]]
    max_retries: int = 1


def is_interrupt(exc: BaseException) -> bool:
    return isinstance(exc, InterruptError | InterruptSignal)


def is_final(exc: BaseException) -> bool:
    """Errors no layer retries or fails over: interrupts and an abandoned stream."""
    return is_interrupt(exc) or isinstance(exc, StreamCanceledError)


def partial_message(chunks: list[Message]) -> Message:
    """The concatenation of what a stream gave, an empty assistant message for no chunk (Eino's
    `ConcatMessages` of nothing is an empty message, not nil)."""
    return concat_messages(chunks) if chunks else Message.assistant("")


@dataclass(slots=True)
class RetryHooks:
    """What the retry layer needs from the agent: mute/unmute the event sender, report an accepted
    output, rewrite the state's history (persisted modified input)."""

    suppress: Callable[[bool], None]
    report: Callable[[Message], None]
    set_history: Callable[[list[Message]], None]
    cancel: threading.Event | None = None  # set when the run is cancelled


def pause(config: ModelRetryConfig, hooks: RetryHooks, delay: float) -> None:
    """The wait before the next attempt (Eino `contextAwareSleep`): the injected `sleep`, else a wait
    the run's cancel ends early. A run cancelled by then gets no further attempt: the model node stops
    as at a cancel safe point (an interrupt, so the run ends with its `CancelError` and checkpoint
    whether or not the engine has abandoned the node yet; the model call runs again on resume)."""
    if config.sleep is not None:
        config.sleep(delay)
    elif delay > 0:
        if hooks.cancel is not None:
            hooks.cancel.wait(delay)
        else:
            time.sleep(delay)
    if hooks.cancel is not None and hooks.cancel.is_set():
        interrupt()


def attempt_options(extra: Sequence[Any]) -> tuple[Any, ...]:
    """The chat model options of an attempt's model call, with `extra` added."""
    with added_options("ChatModel", *extra):
        return tuple(node_options("ChatModel"))


def _prepare_next_attempt(
    config: ModelRetryConfig,
    hooks: RetryHooks,
    decision: RetryDecision,
    current: list[Message],
    attempt: int,
    extra: list[Any],
) -> list[Message]:
    """After `attempt` (0-based) was rejected and another one follows: the next attempt's input (the
    decision's modified input, which also becomes the state's history when it is to persist) and its
    added model options (`extra` grows by the decision's `additional_options`), after the decision's
    backoff or the config's for the next attempt (`pause`). Shared by both paths (Eino's `Generate`
    and `Stream` prepare their next attempt alike, `applyDecisionForRetry`)."""
    if decision.modified_input_messages is not None:
        current = decision.modified_input_messages
        if decision.persist_modified_input_messages:
            hooks.set_history(list(current))
    extra.extend(decision.additional_options)
    pause(config, hooks, decision.backoff or (config.backoff or default_backoff)(attempt + 1))
    return current


def with_retry(inner: Endpoint, config: ModelRetryConfig, hooks: RetryHooks) -> Endpoint:
    """The retry layer around `inner` (Eino `typedRetryModelWrapper.Generate`)."""
    backoff = config.backoff or default_backoff

    def legacy(messages: list[Message]) -> Message:
        retryable = config.is_retryable or (lambda _e: True)
        last: BaseException | None = None
        for attempt in range(config.max_retries + 1):
            try:
                return inner(messages)
            except Exception as exc:
                if is_final(exc) or not retryable(exc):
                    raise
                last = exc
            if attempt < config.max_retries:
                pause(config, hooks, backoff(attempt + 1))
        raise RetryExhaustedError(last, config.max_retries) from last

    def decided(messages: list[Message]) -> Message:
        assert config.should_retry is not None
        current = messages
        extra: list[Any] = []
        last: BaseException | None = None
        for attempt in range(config.max_retries + 1):
            out: Message | None = None
            err: Exception | None = None
            hooks.suppress(True)  # nothing is reported before the decision (Eino suppressEventSend)
            try:
                with added_options("ChatModel", *extra):
                    out = inner(current)
            except Exception as exc:
                if is_final(exc):
                    raise
                err = exc
            finally:
                hooks.suppress(False)
            context = RetryContext(attempt + 1, current, out, err, attempt_options(extra))
            decision = config.should_retry(context) or RetryDecision()
            if not decision.retry:
                if decision.rewrite_error is not None:
                    raise decision.rewrite_error
                if err is not None:
                    raise err
                assert out is not None
                hooks.report(out)
                return out
            last = err or RuntimeError(f"model output rejected by ShouldRetry at attempt {attempt + 1}")
            if attempt >= config.max_retries:
                break
            current = _prepare_next_attempt(config, hooks, decision, current, attempt, extra)
        raise RetryExhaustedError(last, config.max_retries) from last

    return decided if config.should_retry is not None else legacy


class StreamGate:
    """How the event stream of the current attempt ends (Eino's verdict signal, `genErrWrapper`).

    The event sender calls `finish(stream, error)` when the model's stream ends; the retry layer sets
    `attempt` before each attempt and, with `should_retry`, `settle(...)` once it has decided."""

    def __init__(self, config: ModelRetryConfig | None) -> None:
        self.config = config
        self.attempt = 0
        self._pending: tuple[MessageStream, BaseException | None] | None = None

    @property
    def deferred(self) -> bool:
        return self.config is not None and self.config.should_retry is not None

    def finish(self, stream: MessageStream, error: BaseException | None) -> None:
        if error is not None and isinstance(error, StreamCanceledError):
            stream.close(error)  # Eino's cancel guard: an abandoned stream is never a retry
        elif self.deferred:
            self._pending = (stream, error)
        elif error is None:
            stream.close()
        else:
            stream.close(self._legacy_error(error))

    def _legacy_error(self, error: BaseException) -> BaseException:
        config = self.config
        if config is None:
            return error
        retryable = config.is_retryable is None or config.is_retryable(error)
        if retryable and self.attempt < config.max_retries:
            return WillRetryError(error, self.attempt)
        return error

    def settle(self, *, retry: WillRetryError | None = None, error: BaseException | None = None) -> None:
        """End the pending event stream: with `retry` (rejected attempt), with `error` (the decision
        failed), else as the model's stream ended."""
        pending, self._pending = self._pending, None
        if pending is None:
            return
        stream, own = pending
        stream.close(retry or error or own)


def with_stream_retry(
    inner: StreamEndpoint, config: ModelRetryConfig, gate: StreamGate, hooks: RetryHooks
) -> StreamEndpoint:
    """The retry layer on the streaming path (Eino `streamWithShouldRetry`, `streamLegacy`)."""
    backoff = config.backoff or default_backoff

    def legacy(messages: list[Message]) -> Iterator[Message]:
        retryable = config.is_retryable or (lambda _e: True)
        last: BaseException | None = None
        for attempt in range(config.max_retries + 1):
            gate.attempt = attempt
            try:
                chunks, err = drain(inner(messages))
            except Exception as exc:
                chunks, err = [], exc
            if err is None:
                return iter(chunks)
            if is_final(err) or not retryable(err):
                raise err
            last = err
            if attempt < config.max_retries:
                pause(config, hooks, backoff(attempt + 1))
        raise RetryExhaustedError(last, config.max_retries) from last

    def decided(messages: list[Message]) -> Iterator[Message]:
        assert config.should_retry is not None
        current = messages
        extra: list[Any] = []
        last: BaseException | None = None
        for attempt in range(config.max_retries + 1):
            gate.attempt = attempt
            opened = True
            try:
                with added_options("ChatModel", *extra):
                    chunks, err = drain(inner(current))
            except Exception as exc:
                opened, chunks, err = False, [], exc
            if err is not None and is_final(err):
                gate.settle()
                raise err
            out = partial_message(chunks) if opened else None
            try:
                context = RetryContext(attempt + 1, current, out, err, attempt_options(extra))
                decision = config.should_retry(context)
            except BaseException as exc:
                gate.settle(error=exc)
                raise
            decision = decision or RetryDecision()
            if not decision.retry:
                gate.settle()
                if decision.rewrite_error is not None:
                    raise decision.rewrite_error
                if err is not None:
                    raise err
                return iter(chunks)
            verdict = err or RuntimeError(f"model output rejected by ShouldRetry at attempt {attempt + 1}")
            gate.settle(retry=WillRetryError(verdict, attempt, decision.reject_reason))
            last = verdict
            if attempt < config.max_retries:
                current = _prepare_next_attempt(config, hooks, decision, current, attempt, extra)
        raise RetryExhaustedError(last, config.max_retries) from last

    return decided if config.should_retry is not None else legacy


CURRENT_MODEL: ContextVar[Any] = ContextVar("graph_core_adk_failover_model", default=None)


@dataclass(slots=True)
class FailoverMemory:
    """The model that last succeeded, kept for one agent run (Eino `failoverLastSuccessModel`)."""

    last_success: Any


def with_failover(inner: Endpoint, config: ModelFailoverConfig, memory: FailoverMemory) -> Endpoint:
    """The failover layer (Eino `failoverModelWrapper.Generate`): `inner` calls `CURRENT_MODEL`."""

    def attempt(model: Any, messages: list[Message]) -> Message:
        token = CURRENT_MODEL.set(model)
        try:
            return inner(messages)
        finally:
            CURRENT_MODEL.reset(token)

    def wants(exc: BaseException) -> bool:
        return not is_final(exc) and config.should_failover(None, exc)

    def endpoint(messages: list[Message]) -> Message:
        if getattr(config, "get_failover_model", None) is None:  # Eino's defensive delegation
            return inner(messages)
        last: BaseException | None = None
        if memory.last_success is not None:
            try:
                return attempt(memory.last_success, messages)
            except Exception as exc:
                if not wants(exc):
                    raise
                last = exc
        for n in range(1, config.max_retries + 1):
            model, new_input = config.get_failover_model(FailoverContext(n, messages, None, last))
            if model is None:
                raise GraphError(f"failover GetFailoverModel returned nil model at attempt {n}")
            try:
                result = attempt(model, new_input if new_input is not None else messages)
            except Exception as exc:
                if not wants(exc):
                    raise
                last = exc
                continue
            memory.last_success = model
            return result
        if last is None:
            raise GraphError("failover: no model was tried (no model succeeded before and MaxRetries is 0)")
        raise last

    return endpoint


def with_stream_failover(
    inner: StreamEndpoint, config: ModelFailoverConfig, memory: FailoverMemory
) -> StreamEndpoint:
    """The failover layer on the streaming path (Eino `failoverModelWrapper.Stream`): each attempt's
    stream is read to its end under its model, so a mid-stream error fails over too."""

    def attempt(model: Any, messages: list[Message]) -> tuple[list[Message], Exception | None, bool]:
        token = CURRENT_MODEL.set(model)
        try:
            try:
                stream = inner(messages)
            except Exception as exc:
                return [], exc, False
            chunks, err = drain(stream)
            return chunks, err, True
        finally:
            CURRENT_MODEL.reset(token)

    def wants(out: Message | None, exc: BaseException) -> bool:
        return not is_final(exc) and config.should_failover(out, exc)

    def endpoint(messages: list[Message]) -> Iterator[Message]:
        if getattr(config, "get_failover_model", None) is None:  # Eino's defensive delegation
            return inner(messages)
        last: BaseException | None = None
        last_out: Message | None = None
        if memory.last_success is not None:
            chunks, err, opened = attempt(memory.last_success, messages)
            if err is None:
                return iter(chunks)
            last_out = partial_message(chunks) if opened else None
            if not wants(last_out, err):
                raise err
            last = err
        for n in range(1, config.max_retries + 1):
            model, new_input = config.get_failover_model(FailoverContext(n, messages, last_out, last))
            if model is None:
                raise GraphError(f"failover GetFailoverModel returned nil model at attempt {n}")
            chunks, err, opened = attempt(model, new_input if new_input is not None else messages)
            if err is None:
                memory.last_success = model
                return iter(chunks)
            last_out = partial_message(chunks) if opened else None
            if not wants(last_out, err):
                raise err
            last = err
        if last is None:
            raise GraphError("failover: no model was tried (no model succeeded before and MaxRetries is 0)")
        raise last

    return endpoint
