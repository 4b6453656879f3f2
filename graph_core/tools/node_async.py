"""`ToolsNode.astream`: the node's tool streams read concurrently on an event loop (see `node.py` for
the semantics; sync streaming is there)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from graph_core.astream import OpeningStream
from graph_core.context import notify_end, notify_error, notify_start
from graph_core.schema import Message
from graph_core.tools.composite import interrupt_calls
from graph_core.tools.context import tool_call_scope  # pyright: ignore[reportPrivateUsage]
from graph_core.tools.endpoint import ToolInput
from graph_core.tools.node_base import NO_CHUNK, ToolsNodeBase, ToolTask, whole_result

__all__ = ["AsyncToolsNode"]


class AsyncToolsNode(ToolsNodeBase):
    """`ToolsNodeBase` with `astream`; `ToolsNode` adds invoke and sync streams."""

    def astream(self, message: Message) -> OpeningStream[list[Message | None]]:
        """Async `stream`: tool streams are read concurrently; chunks are yielded as they arrive.

        The result is an async iterator that may also be awaited first: `await node.astream(m)` opens
        the tools' streams (each tool runs up to its first chunk, so a non-streaming tool runs to the
        end) and raises what opening raises, a composite interrupt included, before any chunk is read,
        as `stream` does. The engine awaits it; iterating directly opens on the first read.
        """
        return OpeningStream(lambda: self._aopen(message))

    async def _aopen_one(self, task: ToolTask) -> _Opened:
        info = self._info(task)
        with tool_call_scope(task.call_id):
            notify_start(info, task.arguments)
            try:
                chunks = task.endpoints.astream(ToolInput(task.name, task.arguments, task.call_id))
                first = await anext(aiter(chunks), NO_CHUNK)
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
                    completed[task.call_id] = whole_result(parts)
            interrupt_calls([(t.name, t.call_id) for t in tasks], message, completed, signals)
        for task in tasks:
            if task.index not in by_index:  # reused from before the interrupt: one chunk, no callbacks
                by_index[task.index] = _Opened(first=executed[task.call_id], rest=None, reused=True)
        return self._arows(tasks, by_index)

    async def _apump_parts(self, task: ToolTask, opened: _Opened) -> AsyncIterator[Any]:
        """One tool's chunks from its first; callbacks see the whole content at the end."""
        info = self._info(task)
        parts: list[Any] = []
        if opened.first is not NO_CHUNK:
            parts.append(opened.first)
            yield opened.first
        if opened.rest is not None and opened.first is not NO_CHUNK:
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
            notify_end(info, whole_result(parts))

    async def _arows(
        self, tasks: Sequence[ToolTask], opened: dict[int, _Opened]
    ) -> AsyncIterator[list[Message | None]]:
        if self.execute_sequentially or len(tasks) == 1:
            for task in tasks:
                async for chunk in self._apump_parts(task, opened[task.index]):
                    yield self._slot(tasks, task.index, chunk)
            return
        inbox: asyncio.Queue[tuple[int, Any] | BaseException | None] = asyncio.Queue()

        async def pump(task: ToolTask) -> None:
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


@dataclass(slots=True)
class _Opened:
    """One tool's opened async stream: its first chunk (`NO_CHUNK` if none), the rest, or the error."""

    first: Any = NO_CHUNK
    rest: AsyncIterator[Any] | None = None
    error: BaseException | None = None
    reused: bool = False  # a result saved before an interrupt, replayed without running the tool
