"""The two drivers of the step logic; they differ only in how tasks execute and awaitables resolve.

Sync driver (Eino's task manager): when nothing else runs, the first task of a submission runs on the
calling thread and the others on their own threads (under a copy of the context); a single-task step
never leaves the thread, which keeps the per-step cost low. Async driver: tasks are asyncio tasks, and
sync components are moved to threads only when they share a step with other tasks.

Both run the step logic in the run's scope; a run started inside another run's node also leaves that
node's tool call and address segments (`leave_point`), so its own nodes have addresses of their own.
"""

from __future__ import annotations

import asyncio
import contextvars
import queue
import threading
from functools import partial
from typing import Any

from graph_core.context import _SCOPE  # pyright: ignore[reportPrivateUsage]
from graph_core.interrupt import AbandonedTask, GraphInterrupt, leave_point, point_base
from graph_core.runner.loop import Effects
from graph_core.runner.run import RunContext, Task, Wait
from graph_core.runner.task import execute_async, execute_sync
from graph_core.stream import run_coroutine

__all__ = ["drive_async", "drive_sync"]


_WAKE: Any = object()  # put on a pool's queue by `GraphInterrupt.interrupt()`: re-read the deadline


def abandoned(task: Task) -> Task:
    """A stand-in for `task`, still running when the interrupt timeout ran out: a rerun node with its
    original input. A copy, because the abandoned thread still writes to the task it runs."""
    stand_in = Task(task.node, task.input, task.step)
    stand_in.original = task.original
    stand_in.resume = task.resume
    stand_in.error = AbandonedTask(f"node {task.node.key} was still running when the interrupt timed out")
    return stand_in


class _ThreadPool:
    """Tasks submitted while others run; completions arrive on one queue in completion order.

    With a `GraphInterrupt` (`gate`) no task runs on the calling thread, which waits for completions
    only until the interrupt's deadline (Eino: an interruptible graph never runs a task synchronously).
    """

    def __init__(self, rc: RunContext, gate: GraphInterrupt | None = None) -> None:
        self.rc = rc
        self.done: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.running = 0
        self.gate = gate
        self.live: dict[int, Task] = {}  # submitted and not yet received (only tracked with a gate)

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
        if self.gate is not None:
            inline = None
            self.live.update((id(t), t) for t in tasks)
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
        if self.gate is None:
            self.running -= count
            return [self.done.get() for _ in range(count)]
        return self._wait_gated(count)

    def _wait_gated(self, count: int) -> list[Task]:
        """Like `wait`, but tasks still running at the interrupt's deadline come back abandoned."""
        gate = self.gate
        assert gate is not None
        got: list[Task] = []
        while len(got) < count:
            remaining = gate.remaining()
            try:
                item = self.done.get(timeout=remaining) if remaining is not None else self.done.get()
            except queue.Empty:
                got.extend(abandoned(t) for t in self.live.values())
                self.live.clear()
                self.running = 0
                return got
            if item is _WAKE:
                continue
            self.live.pop(id(item), None)
            self.running -= 1
            got.append(item)
        return got


def drive_sync(gen: Effects, rc: RunContext) -> Any:
    """Run the step logic to completion on this thread."""
    pool: _ThreadPool | None = None
    gate = rc.interrupt_event if isinstance(rc.interrupt_event, GraphInterrupt) else None
    unregister = None
    rc.resolve = run_coroutine
    if gate is None:
        rc.run_now = execute_sync
    token = _SCOPE.set(rc.scope())
    back = leave_point() if point_base(rc.extras) is not None else None
    try:
        effect = next(gen)
        while True:
            if type(effect) is Wait:
                tasks = effect.tasks
                if (
                    effect.need_all
                    and len(tasks) == 1
                    and (pool is None or pool.running == 0)
                    and gate is None
                ):
                    execute_sync(tasks[0], rc)
                    effect = gen.send(tasks)
                    continue
                if pool is None:
                    pool = _ThreadPool(rc, gate)
                    if gate is not None:
                        unregister = gate.on_interrupt(partial(pool.done.put, _WAKE))
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
        if unregister is not None:
            unregister()
        gen.close()
        if back is not None:
            back()
        _SCOPE.reset(token)


async def drive_async(gen: Effects, rc: RunContext) -> Any:
    """Run the step logic in invoke mode on the running event loop."""
    running: set[asyncio.Task[Task]] = set()
    gate = rc.interrupt_event if isinstance(rc.interrupt_event, GraphInterrupt) else None
    owners: dict[asyncio.Task[Task], Task] = {}  # only with a gate: the task each future runs
    wake = asyncio.Event()
    unregister = None
    if gate is not None:
        loop = asyncio.get_running_loop()
        unregister = gate.on_interrupt(lambda: loop.call_soon_threadsafe(wake.set))
    token = _SCOPE.set(rc.scope())
    back = leave_point() if point_base(rc.extras) is not None else None

    async def work(task: Task, offload: bool) -> Task:
        await execute_async(task, rc, offload=offload)
        return task

    try:
        effect = next(gen)
        while True:
            if type(effect) is Wait:
                tasks = effect.tasks
                if effect.need_all and len(tasks) == 1 and not running and gate is None:
                    await execute_async(tasks[0], rc, offload=False)
                    effect = gen.send(tasks)
                    continue
                # with a gate, sync components run on threads so the loop can watch the deadline
                offload = gate is not None or len(tasks) + len(running) > 1
                for t in tasks:
                    future = asyncio.ensure_future(work(t, offload))
                    running.add(future)
                    if gate is not None:
                        owners[future] = t
                if not running:
                    effect = gen.send([])
                elif gate is not None:
                    effect = gen.send(await _wait_gated(running, owners, gate, wake, effect.need_all))
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
        if unregister is not None:
            unregister()
        for pending in running:
            pending.cancel()
        gen.close()
        if back is not None:
            back()
        _SCOPE.reset(token)


async def _wait_gated(
    running: set[asyncio.Task[Task]],
    owners: dict[asyncio.Task[Task], Task],
    gate: GraphInterrupt,
    wake: asyncio.Event,
    need_all: bool,
) -> list[Task]:
    """Completed tasks (all, or at least one), or, once the interrupt's deadline passes, those completed
    and the still running ones abandoned (cancelled) as rerun nodes."""
    while True:
        finished = [f for f in running if f.done()]
        if finished and (not need_all or len(finished) == len(running)):
            finished.sort(key=lambda f: f.result().node.order)
            if not need_all:
                finished = finished[:1]
            for future in finished:
                running.discard(future)
                owners.pop(future, None)
            return [f.result() for f in finished]
        remaining = gate.remaining()
        if remaining == 0:
            completed = [f.result() for f in finished]
            left = [owners.pop(f) for f in running if not f.done()]
            for future in running:
                future.cancel()
            running.clear()
            owners.clear()
            return [*completed, *(abandoned(t) for t in left)]
        wake.clear()
        waiter = asyncio.ensure_future(wake.wait())
        pending = [f for f in running if not f.done()]
        await asyncio.wait([*pending, waiter], timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
