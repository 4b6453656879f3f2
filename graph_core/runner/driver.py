"""The two drivers of the step logic; they differ only in how tasks execute and awaitables resolve.

Sync driver (Eino's task manager): when nothing else runs, the first task of a submission runs on the
calling thread and the others on their own threads (under a copy of the context); a single-task step
never leaves the thread, which keeps the per-step cost low. Async driver: tasks are asyncio tasks, and
sync components are moved to threads only when they share a step with other tasks.
"""

from __future__ import annotations

import asyncio
import contextvars
import queue
import threading
from typing import Any

from graph_core.context import _SCOPE  # pyright: ignore[reportPrivateUsage]
from graph_core.runner.loop import Effects
from graph_core.runner.run import RunContext, Task, Wait
from graph_core.runner.task import execute_async, execute_sync
from graph_core.stream import run_coroutine

__all__ = ["drive_async", "drive_sync"]


class _ThreadPool:
    """Tasks submitted while others run; completions arrive on one queue in completion order."""

    def __init__(self, rc: RunContext) -> None:
        self.rc = rc
        self.done: queue.SimpleQueue[Task] = queue.SimpleQueue()
        self.running = 0

    def _work(self, task: Task) -> None:
        try:
            execute_sync(task, self.rc)
        except BaseException as exc:  # a dying thread must still report its task
            task.error = exc
        finally:
            self.done.put(task)

    def submit(self, tasks: list[Task], need_all: bool) -> None:
        """Eino: run one task inline only if none runs and it is alone or the step waits for all."""
        inline = tasks[0] if self.running == 0 and tasks and (need_all or len(tasks) == 1) else None
        for task in tasks[1:] if inline is not None else tasks:
            ctx = contextvars.copy_context()
            threading.Thread(target=ctx.run, args=(self._work, task), daemon=True).start()
            self.running += 1
        if inline is not None:
            self.running += 1
            self._work(inline)

    def wait(self, need_all: bool) -> list[Task]:
        if self.running == 0:
            return []
        count = self.running if need_all else 1
        self.running -= count
        return [self.done.get() for _ in range(count)]


def drive_sync(gen: Effects, rc: RunContext) -> Any:
    """Run the step logic to completion on this thread."""
    pool: _ThreadPool | None = None
    token = _SCOPE.set(rc.scope())
    try:
        effect = next(gen)
        while True:
            if type(effect) is Wait:
                tasks = effect.tasks
                if effect.need_all and len(tasks) == 1 and (pool is None or pool.running == 0):
                    execute_sync(tasks[0], rc)
                    effect = gen.send(tasks)
                    continue
                if pool is None:
                    pool = _ThreadPool(rc)
                pool.submit(tasks, effect.need_all)
                effect = gen.send(pool.wait(effect.need_all))
                continue
            try:
                value = run_coroutine(effect.awaitable)  # type: ignore[union-attr, arg-type]
            except Exception as exc:
                effect = gen.throw(exc)
                continue
            effect = gen.send(value)
    except StopIteration as stop:
        return stop.value
    finally:
        gen.close()
        _SCOPE.reset(token)


async def drive_async(gen: Effects, rc: RunContext) -> Any:
    """Run the step logic in invoke mode on the running event loop."""
    running: set[asyncio.Task[Task]] = set()
    token = _SCOPE.set(rc.scope())

    async def work(task: Task, offload: bool) -> Task:
        await execute_async(task, rc, offload=offload)
        return task

    try:
        effect = next(gen)
        while True:
            if type(effect) is Wait:
                tasks = effect.tasks
                if effect.need_all and len(tasks) == 1 and not running:
                    await execute_async(tasks[0], rc, offload=False)
                    effect = gen.send(tasks)
                    continue
                offload = len(tasks) + len(running) > 1
                running.update(asyncio.ensure_future(work(t, offload)) for t in tasks)
                if not running:
                    effect = gen.send([])
                elif effect.need_all:
                    completed = list(await asyncio.gather(*running))
                    running.clear()
                    effect = gen.send(completed)
                else:
                    done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                    first = min(done, key=lambda f: f.result().node.order)
                    running.discard(first)
                    effect = gen.send([first.result()])
                continue
            try:
                value = await effect.awaitable  # type: ignore[union-attr]
            except Exception as exc:
                effect = gen.throw(exc)
                continue
            effect = gen.send(value)
    except StopIteration as stop:
        return stop.value
    finally:
        for pending in running:
            pending.cancel()
        gen.close()
        _SCOPE.reset(token)
