"""Running one node task: input key, node callbacks, the component, output key, all inside the run scope.

Order (Eino's, state handlers aside, which the loop runs): extract `input_key` -> `on_start` -> component
-> `on_end`/`on_error` -> wrap as `{output_key: ...}`. Passthrough nodes fire no callbacks. In stream
mode each handler gets a private copy of the stream, and the node's output stream re-enters the node's
scope on every chunk, so lazily produced chunks still see their run scope (state, callbacks, path).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

from graph_core.astream import aconvert_stream
from graph_core.context import _SCOPE, RunScope  # pyright: ignore[reportPrivateUsage]
from graph_core.errors import NodeRunError
from graph_core.interrupt import InterruptSignal
from graph_core.runner import aio
from graph_core.runner.run import RunContext, Task, notify_handlers
from graph_core.stream import NO_VALUE, convert_stream

__all__ = ["execute_async", "execute_sync"]


class InputKeyError(KeyError):
    def __str__(self) -> str:
        return f"cannot find input key: {self.args[0]}"


def stream_failure(exc: Exception, path: tuple[str, ...]) -> Exception:
    """What a reader of node `path`'s output stream sees when producing a chunk raised `exc`.

    Like a failing `invoke`, it is a `NodeRunError` naming the node, with `exc` as `__cause__`. An
    error that already names its node (raised upstream of this node, or inside a nested graph, whose
    own nodes wrap it with the full path) and interrupt signals pass through unchanged.
    """
    if isinstance(exc, NodeRunError | InterruptSignal):
        return exc
    wrapped = NodeRunError(exc, path)
    wrapped.__cause__ = exc
    return wrapped


def _scoped_stream(stream: Iterator[Any], scope: RunScope) -> Iterator[Any]:
    """The node's output stream, read inside its run scope; a failing read names the node."""
    while True:
        token = _SCOPE.set(scope)
        try:
            chunk = next(stream)
        except StopIteration:
            return
        except Exception as exc:
            failure = stream_failure(exc, scope.path)
            if failure is exc:
                raise
            raise failure from exc
        finally:
            _SCOPE.reset(token)
        yield chunk


def _input(task: Task, rc: RunContext) -> Any:
    key = task.node.input_key
    value = task.input
    if key is None:
        return value
    if rc.stream:
        return convert_stream(value, lambda chunk: chunk.get(key, NO_VALUE))
    if not isinstance(value, dict) or key not in value:
        raise InputKeyError(key)
    return value[key]  # type: ignore[index]


def _output(task: Task, rc: RunContext, value: Any) -> Any:
    key = task.node.output_key
    if key is None:
        return value
    if rc.stream:
        return convert_stream(value, lambda chunk: {key: chunk})
    return {key: value}


def _before(task: Task, rc: RunContext) -> tuple[Any, Any]:
    value = _input(task, rc)
    node = task.node
    if node.is_passthrough or not rc.handlers.node:
        return value, None
    info = rc.node_info(node, task.step)
    fns = rc.handlers.start_stream if rc.stream else rc.handlers.start
    if fns:
        value = notify_handlers(fns, info, value, stream=rc.stream)
    return value, info


def _after(task: Task, rc: RunContext, info: Any, value: Any, scope: RunScope) -> None:
    if rc.stream:
        value = _scoped_stream(value, scope)
    if info is not None:
        fns = rc.handlers.end_stream if rc.stream else rc.handlers.end
        if fns:
            value = notify_handlers(fns, info, value, stream=rc.stream)
    task.output = _output(task, rc, value)


def _failed(task: Task, rc: RunContext, info: Any, exc: Exception) -> None:
    task.error = exc
    if info is not None:
        for fn in rc.handlers.error:
            fn(info, exc)


def execute_sync(task: Task, rc: RunContext) -> None:
    """Run one task on the calling thread; the outcome lands in `task.output` or `task.error`."""
    node = task.node
    scope = rc.node_scope(node.key, task.step)
    if task.resume is not None:  # a rerun after an interrupt: the node can read its saved record
        scope = scope.child(resume=task.resume)
    token = _SCOPE.set(scope)
    info = None
    try:
        direct = node.direct
        if direct is not None and not rc.stream and not rc.handlers.node:
            task.output = direct(task.input)  # nothing to extract, notify or wrap: the component alone
            return
        executable = node.executable
        if executable is not None and not rc.stream and node.plain_io:
            handlers = rc.handlers
            if not handlers.node:
                task.output = executable.invoke_sync(task.input)  # nothing to extract, notify or wrap
                return
            if not node.is_passthrough:  # observed, invoke mode: `_before`/`_after` without their checks
                value = task.input
                started = rc.node_info(node, task.step)
                for fn in handlers.start:
                    fn(started, value)
                info = started
                out = executable.invoke_sync(value)
                for fn in handlers.end:
                    fn(info, out)
                task.output = out
                return
        value, info = _before(task, rc)
        if node.is_passthrough:
            out = value
        elif node.graph is not None:
            out = node.graph.run_nested_sync(value, rc, node.key, task.resume)
        elif rc.stream:
            out = node.executable.transform_sync(value)  # type: ignore[union-attr]
        else:
            out = node.executable.invoke_sync(value)  # type: ignore[union-attr]
        _after(task, rc, info, out, scope)
    except Exception as exc:
        _failed(task, rc, info, exc)
    finally:
        _SCOPE.reset(token)


async def _abefore(task: Task, rc: RunContext) -> tuple[Any, Any]:
    """`_before` of an `astream` run: the input is an async stream."""
    key = task.node.input_key
    value = task.input
    if key is not None:
        value = aconvert_stream(value, lambda chunk: chunk.get(key, NO_VALUE))
    node = task.node
    if node.is_passthrough or not rc.handlers.node:
        return value, None
    info = rc.node_info(node, task.step)
    return await aio.anotify(rc.handlers.start_stream, info, value, rc), info


async def _aafter(task: Task, rc: RunContext, info: Any, value: Any, scope: RunScope) -> None:
    value = aio.ascoped_stream(value, scope, stream_failure)
    if info is not None:
        value = await aio.anotify(rc.handlers.end_stream, info, value, rc)
    key = task.node.output_key
    task.output = value if key is None else aconvert_stream(value, lambda chunk: {key: chunk})


async def _execute_astream(task: Task, rc: RunContext, offload: bool, scope: RunScope) -> None:
    node = task.node
    info = None
    try:
        value, info = await _abefore(task, rc)
        if node.is_passthrough:
            out = value
        elif node.graph is not None:
            out = await node.graph.run_nested_async(value, rc, node.key, task.resume)
        else:
            assert node.executable is not None
            out = await aio.transform(node.executable, value, rc, offload)
        await _aafter(task, rc, info, out, scope)
    except Exception as exc:
        _failed(task, rc, info, exc)


async def execute_async(task: Task, rc: RunContext, *, offload: bool) -> None:
    """Run one task on the event loop; sync components go to a thread when `offload`.

    In an `astream` run (`rc.aio`) the task's input and output are async streams.
    """
    node = task.node
    scope = rc.scope(node.key, task.step)
    if task.resume is not None:  # a rerun after an interrupt: the node can read its saved record
        scope = scope.child(resume=task.resume)
    token = _SCOPE.set(scope)
    if rc.aio:
        try:
            await _execute_astream(task, rc, offload, scope)
        finally:
            _SCOPE.reset(token)
        return
    info = None
    try:
        value, info = _before(task, rc)
        if node.is_passthrough:
            out = value
        elif node.graph is not None:
            out = await node.graph.run_nested_async(value, rc, node.key, task.resume)
        else:
            executable = node.executable
            assert executable is not None
            if executable.has_async_invoke or not offload:
                out = await executable.invoke_async(value)
            else:
                out = await asyncio.to_thread(executable.invoke_sync, value)
        _after(task, rc, info, out, scope)
    except Exception as exc:
        _failed(task, rc, info, exc)
    finally:
        _SCOPE.reset(token)
