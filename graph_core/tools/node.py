"""`ToolsNode`: executes the tool calls of one assistant message (Eino's `compose.ToolsNode`).

Input is one assistant message with tool calls; output is one tool message per call, in call order. All
calls are resolved (tool lookup, arguments handler) before any tool runs, so a bad call aborts the node
without side effects. Calls then run in parallel by default: call 0 on the caller's thread and the rest on
worker threads (sync mode), or concurrently on the event loop with sync tools moved to threads (async
mode); `execute_sequentially=True` runs them in order. Every call reports its own callbacks (kind `Tool`,
name = called tool name, `tool_call_id` set) to the run the node belongs to.

Stream mode yields lists of length n (one slot per call) with exactly one non-None partial tool message,
as Eino does; concatenating chunks slot by slot rebuilds the invoke output.

An enhanced tool's `ToolResult` becomes a tool message with empty `content` and the result's parts in
`user_input_multi_content` (Eino), chunk by chunk in stream mode. Chunks of different tools
interleave in arrival order; each tool's own chunks stay in order.
"""

from __future__ import annotations

import asyncio
import itertools
import queue
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from graph_core.call_options import EXTRAS_KEY as CALL_OPTIONS
from graph_core.context import current_scope, notify_end, notify_error, notify_start, observers, run_info
from graph_core.schema import Message, ToolCall
from graph_core.tools.bridge import submit
from graph_core.tools.composite import interrupt_calls
from graph_core.tools.context import _TOOL_CALL_ID, tool_call_scope  # pyright: ignore[reportPrivateUsage]
from graph_core.tools.endpoint import ToolInput
from graph_core.tools.index import ToolsNodeOptions
from graph_core.tools.node_async import AsyncToolsNode
from graph_core.tools.node_base import (
    NO_CHUNK,
    ArgumentsHandler,
    ToolOutcome,
    ToolTask,
    UnknownToolsHandler,
    whole_result,
    with_executed,
)

__all__ = ["ArgumentsHandler", "ToolsNode", "UnknownToolsHandler"]

T = TypeVar("T")


def _call_direct(method: Callable[[str], Any], call_id: str, arguments: str) -> tuple[Any, Exception | None]:
    """One call on the fast path: the tool's own invoke under its call ID; (result, None) or (None, error)."""
    token = _TOOL_CALL_ID.set(call_id)
    try:
        return method(arguments), None
    except Exception as exc:
        return None, exc
    finally:
        _TOOL_CALL_ID.reset(token)


class ToolsNode(AsyncToolsNode):
    """Runs the tool calls of one assistant message; see the module docstring for the semantics."""

    def _run_invoke(self, task: ToolTask) -> ToolOutcome:
        scope = current_scope()
        starts, ends, errors = ((), (), ()) if scope is None else observers(scope)
        if not (starts or ends or errors):  # the common fast path: nobody is listening to tools
            token = _TOOL_CALL_ID.set(task.call_id)  # tool_call_scope without the context manager's cost
            try:
                return ToolOutcome(task.endpoints.invoke(ToolInput(task.name, task.arguments, task.call_id)))
            except Exception as exc:
                return ToolOutcome(error=exc)
            finally:
                _TOOL_CALL_ID.reset(token)
        assert scope is not None
        path = scope.path
        info = run_info(
            path[-1] if path else None, task.name, "Tool", path, scope.step, scope.graph_name, task.call_id
        )
        token = _TOOL_CALL_ID.set(task.call_id)
        try:
            for fn in starts:  # `notify_start`, with the methods already in hand
                fn(info, task.arguments)
            try:
                content = task.endpoints.invoke(ToolInput(task.name, task.arguments, task.call_id))
            except Exception as exc:
                for fn in errors:
                    fn(info, exc)
                return ToolOutcome(error=exc)
            for fn in ends:
                fn(info, content)
            return ToolOutcome(content=content)
        finally:
            _TOOL_CALL_ID.reset(token)

    def invoke(self, message: Message, *, options: ToolsNodeOptions | None = None) -> list[Message]:
        """Run every call of `message`; the tool messages come back in call order.

        If some calls interrupt, the node raises one composite interrupt; when it reruns, the saved
        input is used and only the interrupted calls run again. `options`: this call's tool list and
        aliases (`graph_core.tools.index`; by default the run's `tools_node_options`, if any).
        """
        if options is None and self._index.direct is not None and self.tool_arguments_handler is None:
            scope = current_scope()
            if scope is None or not (
                scope.callbacks
                or scope.resume is not None
                or "tools_node_options" in scope.extras
                or CALL_OPTIONS in scope.extras
            ):
                fast = self._invoke_direct(message, self._index.direct)
                if fast is not None:
                    return fast
        message, tasks, todo, executed = self._plan(message, options)
        if len(tasks) == 1 and not executed:  # the common case: one call, inline, nothing to merge
            outcome = self._run_invoke(tasks[0])
            if outcome.error is None:
                return [self._message(tasks[0], outcome.content)]
            return self._collect(tasks, [outcome], "invoke", message)
        if self.execute_sequentially or len(todo) <= 1:
            outcomes = [self._run_invoke(t) for t in todo]
        else:
            futures = [submit(self._run_invoke, t) for t in todo[1:]]
            first = self._run_invoke(todo[0])
            outcomes = [first, *(f.result() for f in futures)]
        return self._collect(tasks, with_executed(tasks, todo, outcomes, executed), "invoke", message)

    def _invoke_direct(
        self, message: Message, direct: Mapping[str, Callable[[str], Any]]
    ) -> list[Message] | None:
        """`invoke`'s fast path, or None (nothing run) when it does not apply: a valid message whose every
        call names a tool with a direct invoke (`ToolIndex.direct`), under a scope with no callbacks, no
        resume state and no per-run options (`invoke` checks those). It produces what the general path
        does, without its per-call `ToolTask`, `ToolOutcome` and `ToolInput` objects or scope look-ups: a
        failure or interrupt is handed to `_collect` with the objects the general path would have built.
        """
        if type(message) is not Message or message.role != "assistant" or not message.tool_calls:
            return None  # the general path raises the input errors
        calls = message.tool_calls
        if len(calls) == 1:
            call = calls[0]
            method = direct.get(call.name)
            if method is None:
                return None
            content: Any = None
            error: Exception | None = None
            token = _TOOL_CALL_ID.set(call.id)
            try:
                content = method(call.arguments)
            except Exception as exc:
                error = exc
            finally:
                _TOOL_CALL_ID.reset(token)
            if error is not None:  # raised outside the handler, so it has no `__context__`, as in `_collect`
                return self._direct_failed(message, [(None, error)])
            if type(content) is str and type(call.id) is str and type(call.name) is str:
                return [Message.trusted("tool", content, tool_call_id=call.id, tool_name=call.name)]
            return [self._message(self._task(0, call), content)]
        methods: list[Callable[[str], Any]] = []
        for call in calls:
            method = direct.get(call.name)
            if method is None:
                return None
            methods.append(method)
        if self.execute_sequentially:
            results = [_call_direct(m, c.id, c.arguments) for m, c in zip(methods, calls, strict=True)]
        else:
            futures = [
                submit(_call_direct, m, c.id, c.arguments)
                for m, c in zip(methods[1:], calls[1:], strict=True)
            ]
            results = [
                _call_direct(methods[0], calls[0].id, calls[0].arguments),
                *(f.result() for f in futures),
            ]
        if any(error is not None for _, error in results):
            return self._direct_failed(message, results)
        return [
            self._message(self._task(i, c), content)
            for i, (c, (content, _)) in enumerate(zip(calls, results, strict=True))
        ]

    def _task(self, index: int, call: ToolCall) -> ToolTask:
        """The general path's task for a call the fast path ran (no alias, no arguments handler)."""
        return ToolTask(index, call.name, call.id, call.arguments, self._index.endpoints[call.name])

    def _direct_failed(
        self, message: Message, results: Sequence[tuple[Any, BaseException | None]]
    ) -> list[Message]:
        """A fast-path run with failed or interrupted calls, finished as the general path finishes it."""
        tasks = [self._task(i, call) for i, call in enumerate(message.tool_calls)]
        outcomes = [
            ToolOutcome(error=error) if error is not None else ToolOutcome(content)
            for content, error in results
        ]
        return self._collect(tasks, outcomes, "invoke", message)

    def _collect(
        self, tasks: Sequence[ToolTask], outcomes: Sequence[ToolOutcome], verb: str, message: Message
    ) -> list[Message]:
        signals = self._signals(tasks, [outcome.error for outcome in outcomes], verb)
        if signals:
            executed = {t.call_id: o.content for t, o in zip(tasks, outcomes, strict=True) if o.error is None}
            interrupt_calls([(t.name, t.call_id) for t in tasks], message, executed, signals)
        return [self._message(t, o.content, verb) for t, o in zip(tasks, outcomes, strict=True)]

    async def _arun_invoke(self, task: ToolTask) -> ToolOutcome:
        info = self._info(task)
        with tool_call_scope(task.call_id):
            notify_start(info, task.arguments)
            try:
                content = await task.endpoints.ainvoke(ToolInput(task.name, task.arguments, task.call_id))
            except Exception as exc:
                notify_error(info, exc)
                return ToolOutcome(error=exc)
            notify_end(info, content)
            return ToolOutcome(content=content)

    async def ainvoke(self, message: Message) -> list[Message]:
        """Async `invoke`: async tools run concurrently on the loop, sync tools on threads."""
        message, tasks, todo, executed = self._plan(message)
        if self.execute_sequentially or len(todo) <= 1:
            outcomes = [await self._arun_invoke(t) for t in todo]
        else:
            outcomes = list(await asyncio.gather(*(self._arun_invoke(t) for t in todo)))
        return self._collect(tasks, with_executed(tasks, todo, outcomes, executed), "invoke", message)

    # -- stream ----------------------------------------------------------------------------------------

    def _open_stream(self, task: ToolTask) -> tuple[Iterator[Any] | None, BaseException | None]:
        """Open one tool's stream and read its first chunk: a generator tool runs up to its first
        `yield`, so an `interrupt()` (or error) before it is the opening's, as a Go StreamableRun
        returns it before any chunk, and the ToolsNode can collect it into its composite interrupt."""
        info = self._info(task)
        with tool_call_scope(task.call_id):
            notify_start(info, task.arguments)
            try:
                chunks = iter(task.endpoints.stream(ToolInput(task.name, task.arguments, task.call_id)))
                first = next(chunks, NO_CHUNK)
            except Exception as exc:
                notify_error(info, exc)
                return None, exc
        return (chunks if first is NO_CHUNK else itertools.chain((first,), chunks)), None

    def _drain(self, task: ToolTask, chunks: Iterator[Any], emit: Callable[[int, Any], None]) -> None:
        """Read one tool's stream to the end, emitting chunks; callbacks see the whole content at the end."""
        info = self._info(task)
        parts: list[Any] = []
        with tool_call_scope(task.call_id):
            try:
                for chunk in chunks:
                    parts.append(chunk)
                    emit(task.index, chunk)
            except Exception as exc:
                notify_error(info, exc)
                raise self._failure(task, exc, "stream") from exc
            notify_end(info, whole_result(parts))

    def stream(
        self, message: Message, *, options: ToolsNodeOptions | None = None
    ) -> Iterator[list[Message | None]]:
        """Run every call and stream their results as n-slot chunks (see the module docstring).

        Opening the tools' streams (which runs non-streaming tools to completion and streaming ones up to
        their first chunk) happens in this call, so a failing or interrupting tool raises here, as
        Eino's `Stream` returns its error before any chunk. `options` as for `invoke`.
        """
        message, tasks, todo, executed = self._plan(message, options)
        if self.execute_sequentially or len(todo) <= 1:
            opened = [self._open_stream(t) for t in todo]
        else:
            futures = [submit(self._open_stream, t) for t in todo[1:]]
            opened = [self._open_stream(todo[0]), *(f.result() for f in futures)]
        signals = self._signals(todo, [error for _, error in opened], "stream")
        # keyed by position, not call ID: models may repeat IDs (or leave them empty) within a message
        by_index = {t.index: s for t, (s, _) in zip(todo, opened, strict=True) if s is not None}
        if signals:  # the completed calls' streams are concatenated and saved (Eino)
            completed = {**executed, **{tasks[i].call_id: whole_result(list(v)) for i, v in by_index.items()}}
            interrupt_calls([(t.name, t.call_id) for t in tasks], message, completed, signals)
        streams = [by_index[t.index] if t.index in by_index else iter([executed[t.call_id]]) for t in tasks]
        if self.execute_sequentially or len(tasks) == 1:
            return self._stream_in_order(tasks, streams)
        return self._stream_merged(tasks, streams)

    def _stream_in_order(
        self, tasks: Sequence[ToolTask], streams: Sequence[Iterator[Any]]
    ) -> Iterator[list[Message | None]]:
        # The tool-call scope is set only around each read, so it never leaks into the consumer.
        for task, chunks in zip(tasks, streams, strict=True):
            info = self._info(task)
            parts: list[Any] = []
            while True:
                with tool_call_scope(task.call_id):
                    try:
                        chunk = next(chunks)
                    except StopIteration:
                        break
                    except Exception as exc:
                        notify_error(info, exc)
                        raise self._failure(task, exc, "stream") from exc
                parts.append(chunk)
                yield self._slot(tasks, task.index, chunk)
            notify_end(info, whole_result(parts))

    def _stream_merged(
        self, tasks: Sequence[ToolTask], streams: Sequence[Iterator[Any]]
    ) -> Iterator[list[Message | None]]:
        inbox: queue.Queue[tuple[int, Any] | BaseException | None] = queue.Queue()
        stop = threading.Event()

        def emit(index: int, chunk: str) -> None:
            if stop.is_set():
                raise _Cancelled
            inbox.put((index, chunk))

        def pump(task: ToolTask, chunks: Iterator[Any]) -> None:
            try:
                self._drain(task, chunks, emit)
            except _Cancelled:
                pass
            except BaseException as exc:
                inbox.put(exc)
            finally:
                inbox.put(None)

        for task, chunks in zip(tasks, streams, strict=True):
            submit(pump, task, chunks)
        remaining = len(tasks)
        try:
            while remaining:
                item = inbox.get()
                if item is None:
                    remaining -= 1
                elif isinstance(item, BaseException):
                    raise item
                else:
                    yield self._slot(tasks, item[0], item[1])
        finally:
            stop.set()

    def __repr__(self) -> str:
        return f"ToolsNode([{', '.join(t.info.name for t in self.tools)}])"


class _Cancelled(Exception):
    """The consumer of a merged stream went away; pumps stop quietly."""
