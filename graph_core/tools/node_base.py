"""What every way of running a `ToolsNode`'s calls shares (`node.py` runs them, `node_async.py` streams
them on an event loop): the node's tools and options, the calls of one message turned into tasks before
any tool runs, the messages and failures a call makes, and the composite interrupt's signals.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graph_core.call_options import EXTRAS_KEY as CALL_OPTIONS
from graph_core.call_options import node_options
from graph_core.callbacks import RunInfo
from graph_core.context import current_scope, run_info
from graph_core.interrupt import InterruptSignal
from graph_core.multimodal import ToolResult, concat_tool_results
from graph_core.schema import Message, ToolInfo
from graph_core.tools.alias import ToolAliasConfig, remap_arguments
from graph_core.tools.bridge import run_blocking
from graph_core.tools.composite import resumed
from graph_core.tools.endpoint import BaseTool, Endpoints, ToolInput, ToolMiddleware
from graph_core.tools.errors import ToolCallError, ToolNotFoundError, ToolsNodeInputError, not_text
from graph_core.tools.function import Tool
from graph_core.tools.index import ToolIndex, ToolsNodeOptions

__all__ = [
    "NO_CHUNK",
    "ArgumentsHandler",
    "ToolOutcome",
    "ToolTask",
    "ToolsNodeBase",
    "UnknownToolsHandler",
    "call_sync",
    "is_interrupt",
    "whole_result",
    "with_executed",
]

UnknownToolsHandler = Callable[[str, str], Any]
"""`(name, arguments) -> str` (or an async function): the result for a call to an unknown tool."""
ArgumentsHandler = Callable[[str, str], Any]
"""`(name, arguments) -> str` (or an async function): rewrites the arguments before the tool runs."""


NO_CHUNK: Any = object()
"""A stream that ended before its first chunk."""


@dataclass(slots=True)
class ToolTask:
    index: int
    name: str
    call_id: str
    arguments: str
    endpoints: Endpoints


@dataclass(slots=True)
class ToolOutcome:
    content: Any = ""  # text, or an enhanced tool's ToolResult
    error: BaseException | None = None


def whole_result(parts: Sequence[Any]) -> Any:
    """One call's streamed chunks as its whole result: text joined, or `ToolResult`s concatenated."""
    if parts and isinstance(parts[0], ToolResult):
        return concat_tool_results(parts)
    return "".join(parts)


def call_sync(fn: Callable[[str, str], Any], name: str, arguments: str) -> str:
    result = fn(name, arguments)
    if inspect.isawaitable(result):
        awaitable = result
        return run_blocking(lambda: _await(awaitable))
    return result


async def _await(awaitable: Any) -> Any:
    return await awaitable


def handler_endpoints(handler: UnknownToolsHandler) -> Endpoints:
    def invoke(inp: ToolInput) -> str:
        return call_sync(handler, inp.name, inp.arguments)

    async def ainvoke(inp: ToolInput) -> str:
        result = handler(inp.name, inp.arguments)
        return await result if inspect.isawaitable(result) else result

    async def astream(inp: ToolInput) -> AsyncIterator[str]:
        yield await ainvoke(inp)

    return Endpoints(invoke=invoke, ainvoke=ainvoke, stream=lambda inp: iter([invoke(inp)]), astream=astream)


def is_interrupt(exc: BaseException) -> bool:
    """Interrupt signals are collected into one composite interrupt, never wrapped as tool failures."""
    return isinstance(exc, InterruptSignal)


def with_executed(
    tasks: Sequence[ToolTask], todo: Sequence[ToolTask], outcomes: list[ToolOutcome], executed: dict[str, Any]
) -> list[ToolOutcome]:
    """Outcomes of all calls in call order: the ones run now, and the results saved before an interrupt."""
    if not executed:
        return outcomes
    done = dict(zip((t.call_id for t in todo), outcomes, strict=True))
    return [done.get(t.call_id) or ToolOutcome(executed[t.call_id]) for t in tasks]


class ToolsNodeBase:
    """A ToolsNode's tools, options and per-call plumbing; `ToolsNode` (in `node.py`) runs the calls."""

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
        self._unknown = handler_endpoints(unknown_tools_handler) if unknown_tools_handler else None

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

    def _tasks(self, message: Message, options: ToolsNodeOptions | None = None) -> list[ToolTask]:
        if not isinstance(message, Message):
            raise ToolsNodeInputError(f"ToolsNode input must be a Message, got {type(message).__name__}")
        if message.role != "assistant":
            raise ToolsNodeInputError(f"expected message role is Assistant, got {message.role}")
        if not message.tool_calls:
            raise ToolsNodeInputError("no tool call found in input message")
        tasks: list[ToolTask] = []
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
            tasks.append(ToolTask(index, call.name, call.id, arguments, endpoints))
        return tasks

    def _handled(self, canonical: str, called: str, call_id: str, arguments: str) -> str:
        assert self.tool_arguments_handler is not None
        try:
            return call_sync(self.tool_arguments_handler, canonical, arguments)
        except Exception as exc:
            raise ToolCallError(
                f"failed to executed tool[name:{called} arguments:{arguments}] arguments handler: {exc}",
                tool_name=called,
                tool_call_id=call_id,
            ) from exc

    @staticmethod
    def _info(task: ToolTask) -> RunInfo:
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
    def _message(task: ToolTask, content: Any, verb: str = "invoke") -> Message:
        if type(content) is str and type(task.call_id) is str and type(task.name) is str:
            # nothing left to validate: skip pydantic (it costs as much as the tool call on the hot path)
            return Message.trusted("tool", content, tool_call_id=task.call_id, tool_name=task.name)
        if isinstance(content, ToolResult) and task.endpoints.enhanced:
            try:
                parts = content.to_message_input_parts()
            except ValueError as exc:
                raise ToolsNodeBase._failure(task, exc, verb) from exc
            return Message(
                "tool", "", tool_call_id=task.call_id, tool_name=task.name, user_input_multi_content=parts
            )
        if not isinstance(content, str):
            raise ToolsNodeBase._failure(task, not_text(content), verb)
        return Message("tool", content, tool_call_id=task.call_id, tool_name=task.name)

    @staticmethod
    def _failure(task: ToolTask, exc: BaseException, verb: str) -> BaseException:
        if is_interrupt(exc):
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
    ) -> tuple[Message, list[ToolTask], list[ToolTask], dict[str, Any]]:
        """The calls to run: on a rerun after a composite interrupt the saved input is used and the calls
        completed before it (`executed`, call ID -> result) are left out of `todo`."""
        saved, executed = resumed()
        message = saved if saved is not None else message
        tasks = self._tasks(message, options)
        todo = [t for t in tasks if t.call_id not in executed] if executed else tasks
        return message, tasks, todo, executed

    def _signals(
        self, tasks: Sequence[ToolTask], errors: Sequence[BaseException | None], verb: str
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

    def _slot(self, tasks: Sequence[ToolTask], index: int, chunk: Any) -> list[Message | None]:
        row: list[Message | None] = [None] * len(tasks)
        row[index] = self._message(tasks[index], chunk, "stream")
        return row
