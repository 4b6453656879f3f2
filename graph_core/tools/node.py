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
import inspect
import itertools
import queue
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from graph_core.astream import OpeningStream
from graph_core.call_options import EXTRAS_KEY as CALL_OPTIONS
from graph_core.call_options import node_options
from graph_core.callbacks import RunInfo
from graph_core.context import current_scope, notify_end, notify_error, notify_start, observers, run_info
from graph_core.interrupt import InterruptSignal
from graph_core.multimodal import ToolResult, concat_tool_results
from graph_core.schema import Message, ToolCall, ToolInfo
from graph_core.tools.alias import ToolAliasConfig, remap_arguments
from graph_core.tools.bridge import run_blocking, submit
from graph_core.tools.composite import interrupt_calls, resumed
from graph_core.tools.context import _TOOL_CALL_ID, tool_call_scope  # pyright: ignore[reportPrivateUsage]
from graph_core.tools.endpoint import BaseTool, Endpoints, ToolInput, ToolMiddleware
from graph_core.tools.errors import ToolCallError, ToolNotFoundError, ToolsNodeInputError, not_text
from graph_core.tools.function import Tool
from graph_core.tools.index import ToolIndex, ToolsNodeOptions

__all__ = ["ArgumentsHandler", "ToolsNode", "UnknownToolsHandler"]

T = TypeVar("T")

UnknownToolsHandler = Callable[[str, str], Any]
"""`(name, arguments) -> str` (or an async function): the result for a call to an unknown tool."""
ArgumentsHandler = Callable[[str, str], Any]
"""`(name, arguments) -> str` (or an async function): rewrites the arguments before the tool runs."""


@dataclass(slots=True)
class _Task:
    index: int
    name: str
    call_id: str
    arguments: str
    endpoints: Endpoints


@dataclass(slots=True)
class _Outcome:
    content: Any = ""  # text, or an enhanced tool's ToolResult
    error: BaseException | None = None


def _whole(parts: Sequence[Any]) -> Any:
    """One call's streamed chunks as its whole result: text joined, or `ToolResult`s concatenated."""
    if parts and isinstance(parts[0], ToolResult):
        return concat_tool_results(parts)
    return "".join(parts)


def _call_sync(fn: Callable[[str, str], Any], name: str, arguments: str) -> str:
    result = fn(name, arguments)
    if inspect.isawaitable(result):
        awaitable = result
        return run_blocking(lambda: _await(awaitable))
    return result


async def _await(awaitable: Any) -> Any:
    return await awaitable


def _handler_endpoints(handler: UnknownToolsHandler) -> Endpoints:
    def invoke(inp: ToolInput) -> str:
        return _call_sync(handler, inp.name, inp.arguments)

    async def ainvoke(inp: ToolInput) -> str:
        result = handler(inp.name, inp.arguments)
        return await result if inspect.isawaitable(result) else result

    async def astream(inp: ToolInput) -> AsyncIterator[str]:
        yield await ainvoke(inp)

    return Endpoints(invoke=invoke, ainvoke=ainvoke, stream=lambda inp: iter([invoke(inp)]), astream=astream)


def _call_direct(method: Callable[[str], Any], call_id: str, arguments: str) -> tuple[Any, Exception | None]:
    """One call on the fast path: the tool's own invoke under its call ID; (result, None) or (None, error)."""
    token = _TOOL_CALL_ID.set(call_id)
    try:
        return method(arguments), None
    except Exception as exc:
        return None, exc
    finally:
        _TOOL_CALL_ID.reset(token)


def _is_interrupt(exc: BaseException) -> bool:
    """Interrupt signals are collected into one composite interrupt, never wrapped as tool failures."""
    return isinstance(exc, InterruptSignal)


def _with_executed(
    tasks: Sequence[_Task], todo: Sequence[_Task], outcomes: list[_Outcome], executed: dict[str, Any]
) -> list[_Outcome]:
    """Outcomes of all calls in call order: the ones run now, and the results saved before an interrupt."""
    if not executed:
        return outcomes
    done = dict(zip((t.call_id for t in todo), outcomes, strict=True))
    return [done.get(t.call_id) or _Outcome(executed[t.call_id]) for t in tasks]


class ToolsNode:
    """Runs the tool calls of one assistant message; see the module docstring for the semantics."""

    def __init__(
        self,
        tools: Sequence[BaseTool | Tool | Callable[..., Any]],
        *,
        execute_sequentially: bool = False,
        unknown_tools_handler: UnknownToolsHandler | None = None,
        tool_arguments_handler: ArgumentsHandler | None = None,
        middlewares: Sequence[ToolMiddleware] = (),
        return_directly: Iterable[str] = (),
        tool_aliases: Mapping[str, ToolAliasConfig] | None = None,
    ) -> None:
        """`return_directly` names the tools whose result the owning agent returns as its answer; the
        node itself does not act on it, it only reports it (`ToolSpec.return_directly` in the topology)."""
        self.alias_configs = dict(tool_aliases) if tool_aliases else None
        self._index = ToolIndex.build(tools, middlewares, self.alias_configs)
        self.tools: list[Any] = self._index.tools
        self.aliases = self._index.aliases
        self.execute_sequentially = execute_sequentially
        self.unknown_tools_handler = unknown_tools_handler
        self.tool_arguments_handler = tool_arguments_handler
        self.middlewares = tuple(middlewares)
        self.return_directly: frozenset[str] = frozenset(return_directly)
        self._unknown = _handler_endpoints(unknown_tools_handler) if unknown_tools_handler else None

    @property
    def tool_infos(self) -> list[ToolInfo]:
        """What to bind to the chat model (`model.with_tools(node.tool_infos)`)."""
        return [t.info for t in self.tools]

    # -- task generation: everything that can fail before a tool runs ---------------------------------

    def _run_index(self, options: ToolsNodeOptions | None) -> ToolIndex:
        """The dispatch table of this run: the node's own, or one built from the run's options."""
        if options is None:
            scope = current_scope()
            if scope is not None:
                options = scope.extras.get("tools_node_options")
                for option in node_options("ToolsNode") if CALL_OPTIONS in scope.extras else ():
                    options = option if options is None else options.merged(option)
        if options is None or (options.tool_list is None and options.tool_aliases is None):
            return self._index
        tools = options.tool_list if options.tool_list is not None else self.tools
        configs = options.tool_aliases if options.tool_aliases is not None else self.alias_configs
        return ToolIndex.build(tools, self.middlewares, configs)

    def _tasks(self, message: Message, options: ToolsNodeOptions | None = None) -> list[_Task]:
        if not isinstance(message, Message):
            raise ToolsNodeInputError(f"ToolsNode input must be a Message, got {type(message).__name__}")
        if message.role != "assistant":
            raise ToolsNodeInputError(f"expected message role is Assistant, got {message.role}")
        if not message.tool_calls:
            raise ToolsNodeInputError("no tool call found in input message")
        tasks: list[_Task] = []
        table = self._run_index(options)
        for index, call in enumerate(message.tool_calls):
            endpoints = table.endpoints.get(call.name)
            arguments = call.arguments
            if endpoints is None:
                if self._unknown is None:
                    raise ToolNotFoundError(
                        f"tool {call.name} not found in toolsNode indexes",
                        tool_name=call.name,
                        tool_call_id=call.id,
                    )
                endpoints = self._unknown
            else:
                canonical = call.name
                if table.aliases is not None:
                    canonical = table.aliases.names.get(call.name, call.name)
                    arguments = remap_arguments(arguments, table.aliases.arguments.get(canonical))
                if self.tool_arguments_handler is not None:
                    arguments = self._handled(canonical, call.name, call.id, arguments)
            tasks.append(_Task(index, call.name, call.id, arguments, endpoints))
        return tasks

    def _handled(self, canonical: str, called: str, call_id: str, arguments: str) -> str:
        assert self.tool_arguments_handler is not None
        try:
            return _call_sync(self.tool_arguments_handler, canonical, arguments)
        except Exception as exc:
            raise ToolCallError(
                f"failed to executed tool[name:{called} arguments:{arguments}] arguments handler: {exc}",
                tool_name=called,
                tool_call_id=call_id,
            ) from exc

    @staticmethod
    def _info(task: _Task) -> RunInfo:
        scope = current_scope()
        path = scope.path if scope is not None else ()
        return run_info(
            path[-1] if path else None,
            task.name,
            "Tool",
            path,
            scope.step if scope is not None else None,
            scope.graph_name if scope is not None else "",
            task.call_id,
        )

    @staticmethod
    def _message(task: _Task, content: Any, verb: str = "invoke") -> Message:
        if type(content) is str and type(task.call_id) is str and type(task.name) is str:
            # nothing left to validate: skip pydantic (it costs as much as the tool call on the hot path)
            return Message.trusted("tool", content, tool_call_id=task.call_id, tool_name=task.name)
        if isinstance(content, ToolResult) and task.endpoints.enhanced:
            try:
                parts = content.to_message_input_parts()
            except ValueError as exc:
                raise ToolsNode._failure(task, exc, verb) from exc
            return Message(
                "tool", "", tool_call_id=task.call_id, tool_name=task.name, user_input_multi_content=parts
            )
        if not isinstance(content, str):
            raise ToolsNode._failure(task, not_text(content), verb)
        return Message("tool", content, tool_call_id=task.call_id, tool_name=task.name)

    @staticmethod
    def _failure(task: _Task, exc: BaseException, verb: str) -> BaseException:
        if _is_interrupt(exc):
            return exc
        error = ToolCallError(
            f"failed to {verb} tool[name:{task.name} id:{task.call_id}]: {exc}",
            tool_name=task.name,
            tool_call_id=task.call_id,
        )
        error.__cause__ = exc
        return error

    def _plan(
        self, message: Message, options: ToolsNodeOptions | None = None
    ) -> tuple[Message, list[_Task], list[_Task], dict[str, Any]]:
        """The calls to run: on a rerun after a composite interrupt the saved input is used and the calls
        completed before it (`executed`, call ID -> result) are left out of `todo`."""
        saved, executed = resumed()
        message = saved if saved is not None else message
        tasks = self._tasks(message, options)
        todo = [t for t in tasks if t.call_id not in executed] if executed else tasks
        return message, tasks, todo, executed

    def _signals(
        self, tasks: Sequence[_Task], errors: Sequence[BaseException | None], verb: str
    ) -> dict[str, InterruptSignal]:
        """The interrupting calls by ID; the first other failure (in call order) is raised instead."""
        signals: dict[str, InterruptSignal] = {}
        for task, error in zip(tasks, errors, strict=True):
            if isinstance(error, InterruptSignal):
                signals[task.call_id] = error
            elif error is not None:
                raise self._failure(task, error, verb)
        return signals

    # -- invoke ----------------------------------------------------------------------------------------

    def _run_invoke(self, task: _Task) -> _Outcome:
        scope = current_scope()
        starts, ends, errors = ((), (), ()) if scope is None else observers(scope)
        if not (starts or ends or errors):  # the common fast path: nobody is listening to tools
            token = _TOOL_CALL_ID.set(task.call_id)  # tool_call_scope without the context manager's cost
            try:
                return _Outcome(task.endpoints.invoke(ToolInput(task.name, task.arguments, task.call_id)))
            except Exception as exc:
                return _Outcome(error=exc)
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
                return _Outcome(error=exc)
            for fn in ends:
                fn(info, content)
            return _Outcome(content=content)
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
        return self._collect(tasks, _with_executed(tasks, todo, outcomes, executed), "invoke", message)

    def _invoke_direct(
        self, message: Message, direct: Mapping[str, Callable[[str], Any]]
    ) -> list[Message] | None:
        """`invoke`'s fast path, or None (nothing run) when it does not apply: a valid message whose every
        call names a tool with a direct invoke (`ToolIndex.direct`), under a scope with no callbacks, no
        resume state and no per-run options (`invoke` checks those). It produces what the general path
        does, without its per-call `_Task`, `_Outcome` and `ToolInput` objects or scope look-ups: a
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

    def _task(self, index: int, call: ToolCall) -> _Task:
        """The general path's task for a call the fast path ran (no alias, no arguments handler)."""
        return _Task(index, call.name, call.id, call.arguments, self._index.endpoints[call.name])

    def _direct_failed(
        self, message: Message, results: Sequence[tuple[Any, BaseException | None]]
    ) -> list[Message]:
        """A fast-path run with failed or interrupted calls, finished as the general path finishes it."""
        tasks = [self._task(i, call) for i, call in enumerate(message.tool_calls)]
        outcomes = [
            _Outcome(error=error) if error is not None else _Outcome(content) for content, error in results
        ]
        return self._collect(tasks, outcomes, "invoke", message)

    def _collect(
        self, tasks: Sequence[_Task], outcomes: Sequence[_Outcome], verb: str, message: Message
    ) -> list[Message]:
        signals = self._signals(tasks, [outcome.error for outcome in outcomes], verb)
        if signals:
            executed = {t.call_id: o.content for t, o in zip(tasks, outcomes, strict=True) if o.error is None}
            interrupt_calls([(t.name, t.call_id) for t in tasks], message, executed, signals)
        return [self._message(t, o.content, verb) for t, o in zip(tasks, outcomes, strict=True)]

    async def _arun_invoke(self, task: _Task) -> _Outcome:
        info = self._info(task)
        with tool_call_scope(task.call_id):
            notify_start(info, task.arguments)
            try:
                content = await task.endpoints.ainvoke(ToolInput(task.name, task.arguments, task.call_id))
            except Exception as exc:
                notify_error(info, exc)
                return _Outcome(error=exc)
            notify_end(info, content)
            return _Outcome(content=content)

    async def ainvoke(self, message: Message) -> list[Message]:
        """Async `invoke`: async tools run concurrently on the loop, sync tools on threads."""
        message, tasks, todo, executed = self._plan(message)
        if self.execute_sequentially or len(todo) <= 1:
            outcomes = [await self._arun_invoke(t) for t in todo]
        else:
            outcomes = list(await asyncio.gather(*(self._arun_invoke(t) for t in todo)))
        return self._collect(tasks, _with_executed(tasks, todo, outcomes, executed), "invoke", message)

    # -- stream ----------------------------------------------------------------------------------------

    def _open_stream(self, task: _Task) -> tuple[Iterator[Any] | None, BaseException | None]:
        """Open one tool's stream and read its first chunk: a generator tool runs up to its first
        `yield`, so an `interrupt()` (or error) before it is the opening's, as a Go StreamableRun
        returns it before any chunk, and the ToolsNode can collect it into its composite interrupt."""
        info = self._info(task)
        with tool_call_scope(task.call_id):
            notify_start(info, task.arguments)
            try:
                chunks = iter(task.endpoints.stream(ToolInput(task.name, task.arguments, task.call_id)))
                first = next(chunks, _NO_CHUNK)
            except Exception as exc:
                notify_error(info, exc)
                return None, exc
        return (chunks if first is _NO_CHUNK else itertools.chain((first,), chunks)), None

    def _drain(self, task: _Task, chunks: Iterator[Any], emit: Callable[[int, Any], None]) -> None:
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
            notify_end(info, _whole(parts))

    def _slot(self, tasks: Sequence[_Task], index: int, chunk: Any) -> list[Message | None]:
        row: list[Message | None] = [None] * len(tasks)
        row[index] = self._message(tasks[index], chunk, "stream")
        return row

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
            completed = {**executed, **{tasks[i].call_id: _whole(list(v)) for i, v in by_index.items()}}
            interrupt_calls([(t.name, t.call_id) for t in tasks], message, completed, signals)
        streams = [by_index[t.index] if t.index in by_index else iter([executed[t.call_id]]) for t in tasks]
        if self.execute_sequentially or len(tasks) == 1:
            return self._stream_in_order(tasks, streams)
        return self._stream_merged(tasks, streams)

    def _stream_in_order(
        self, tasks: Sequence[_Task], streams: Sequence[Iterator[Any]]
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
            notify_end(info, _whole(parts))

    def _stream_merged(
        self, tasks: Sequence[_Task], streams: Sequence[Iterator[Any]]
    ) -> Iterator[list[Message | None]]:
        inbox: queue.Queue[tuple[int, Any] | BaseException | None] = queue.Queue()
        stop = threading.Event()

        def emit(index: int, chunk: str) -> None:
            if stop.is_set():
                raise _Cancelled
            inbox.put((index, chunk))

        def pump(task: _Task, chunks: Iterator[Any]) -> None:
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

    def astream(self, message: Message) -> OpeningStream[list[Message | None]]:
        """Async `stream`: tool streams are read concurrently; chunks are yielded as they arrive.

        The result is an async iterator that may also be awaited first: `await node.astream(m)` opens
        the tools' streams (each tool runs up to its first chunk, so a non-streaming tool runs to the
        end) and raises what opening raises, a composite interrupt included, before any chunk is read,
        as `stream` does. The engine awaits it; iterating directly opens on the first read.
        """
        return OpeningStream(lambda: self._aopen(message))

    async def _aopen_one(self, task: _Task) -> _Opened:
        info = self._info(task)
        with tool_call_scope(task.call_id):
            notify_start(info, task.arguments)
            try:
                chunks = task.endpoints.astream(ToolInput(task.name, task.arguments, task.call_id))
                first = await anext(aiter(chunks), _NO_CHUNK)
            except Exception as exc:
                notify_error(info, exc)
                return _Opened(error=exc)
        return _Opened(first=first, rest=chunks)

    async def _aopen(self, message: Message) -> AsyncIterator[list[Message | None]]:
        message, tasks, todo, executed = self._plan(message)
        if self.execute_sequentially or len(todo) <= 1:
            opened = [await self._aopen_one(t) for t in todo]
        else:
            opened = list(await asyncio.gather(*(self._aopen_one(t) for t in todo)))
        signals = self._signals(todo, [outcome.error for outcome in opened], "stream")
        # keyed by position, not call ID: models may repeat IDs (or leave them empty) within a message
        by_index = {t.index: o for t, o in zip(todo, opened, strict=True)}
        if signals:  # the completed calls' streams are concatenated and saved (Eino)
            completed = dict(executed)
            for task in todo:
                if task.call_id not in signals:
                    parts = [c async for c in self._apump_parts(task, by_index[task.index])]
                    completed[task.call_id] = _whole(parts)
            interrupt_calls([(t.name, t.call_id) for t in tasks], message, completed, signals)
        for task in tasks:
            if task.index not in by_index:  # reused from before the interrupt: one chunk, no callbacks
                by_index[task.index] = _Opened(first=executed[task.call_id], rest=None, reused=True)
        return self._arows(tasks, by_index)

    async def _apump_parts(self, task: _Task, opened: _Opened) -> AsyncIterator[Any]:
        """One tool's chunks from its first; callbacks see the whole content at the end."""
        info = self._info(task)
        parts: list[Any] = []
        if opened.first is not _NO_CHUNK:
            parts.append(opened.first)
            yield opened.first
        if opened.rest is not None and opened.first is not _NO_CHUNK:
            iterator = aiter(opened.rest)
            while True:
                with tool_call_scope(task.call_id):
                    try:
                        chunk = await anext(iterator)
                    except StopAsyncIteration:
                        break
                    except Exception as exc:
                        notify_error(info, exc)
                        raise self._failure(task, exc, "stream") from exc
                parts.append(chunk)
                yield chunk
        if not opened.reused:
            notify_end(info, _whole(parts))

    async def _arows(
        self, tasks: Sequence[_Task], opened: dict[int, _Opened]
    ) -> AsyncIterator[list[Message | None]]:
        if self.execute_sequentially or len(tasks) == 1:
            for task in tasks:
                async for chunk in self._apump_parts(task, opened[task.index]):
                    yield self._slot(tasks, task.index, chunk)
            return
        inbox: asyncio.Queue[tuple[int, Any] | BaseException | None] = asyncio.Queue()

        async def pump(task: _Task) -> None:
            try:
                async for chunk in self._apump_parts(task, opened[task.index]):
                    await inbox.put((task.index, chunk))
            except Exception as exc:
                await inbox.put(exc)
            finally:
                await inbox.put(None)

        runners = [asyncio.ensure_future(pump(t)) for t in tasks]
        try:
            remaining = len(tasks)
            while remaining:
                item = await inbox.get()
                if item is None:
                    remaining -= 1
                elif isinstance(item, BaseException):
                    raise item
                else:
                    yield self._slot(tasks, item[0], item[1])
        finally:
            for runner in runners:
                runner.cancel()
            await asyncio.gather(*runners, return_exceptions=True)

    def __repr__(self) -> str:
        return f"ToolsNode([{', '.join(t.info.name for t in self.tools)}])"


class _Cancelled(Exception):
    """The consumer of a merged stream went away; pumps stop quietly."""


_NO_CHUNK: Any = object()


@dataclass(slots=True)
class _Opened:
    """One tool's opened async stream: its first chunk (`_NO_CHUNK` if none), the rest, or the error."""

    first: Any = _NO_CHUNK
    rest: AsyncIterator[Any] | None = None
    error: BaseException | None = None
    reused: bool = False  # a result saved before an interrupt, replayed without running the tool
