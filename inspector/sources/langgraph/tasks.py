"""What a checkpoint's pending writes say ran from it: its tasks, each with its node, input, result,
interrupts and error, and the nodes that run next.

A task's writes carry its path: a pulled task's names its node (`~__pregel_pull, NODE`), a pushed one's
its index in the checkpoint's `Send`s (`~__pregel_push, I, ...`). Channels LangGraph writes for itself
(`__interrupt__`, `__error__`, `branch:to:...`) say what the task did, not what it put in the state.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from inspector.sources.langgraph.decode import PUSH, SENDS
from inspector.sources.langgraph.history import Checkpoint

__all__ = ["Task", "exception_of", "next_nodes", "state_of", "tasks_of"]

_INTERNAL_WRITES = ("__interrupt__", "__error__", "__resume__", SENDS, "__no_writes__")
"""Channels LangGraph writes for itself: what a task did, not what it put in the state."""

_PULL = "~__pregel_pull"


def internal(channel: str) -> bool:
    return channel.startswith(("branch:", "join:", "__")) or channel in _INTERNAL_WRITES


@dataclass
class Task:
    """One task that ran from a checkpoint: its node, its `Send`'s input, the channels it wrote, and
    the interrupts it raised or the error it failed with."""

    id: str
    name: str
    input: Any
    result: dict[str, Any]
    interrupts: list[Any]
    error: Any


def tasks_of(parent: Checkpoint, source: str = "loop") -> list[Task]:
    """The tasks that ran from `parent`, from its pending writes, in the order LangGraph prepares them:
    for a checkpoint `update_state` made (`source` "update"), the update's own writes; else the node
    tasks' (a `Command(resume=...)` write belongs to no task and is left out)."""
    sends = parent.values.get(SENDS)
    tasks: dict[str, Task] = {}
    paths: dict[str, str] = {}  # each task's path (the last of its writes', as they all are alike)
    update = source == "update"
    for task_id, task_path, channel, value in parent.writes:
        paths[task_id] = task_path
        is_update = task_path.startswith("~__interrupt__")
        if not task_path or is_update != update:
            continue
        task = tasks.get(task_id)
        if task is None:
            name, arg = ("(update)", None) if is_update else _task_name(task_path, sends)
            task = tasks[task_id] = Task(task_id, name, arg, {}, [], None)
        if channel == "__interrupt__":
            task.interrupts.extend(value if isinstance(value, list) else [value])  # pyright: ignore[reportUnknownArgumentType]
        elif channel == "__error__":
            task.error = value
        elif not internal(channel):
            task.result[channel] = value
    if len(tasks) > 1:
        order = {task_id: _path_order(paths[task_id]) for task_id in tasks}
        found = sorted(tasks.values(), key=lambda t: order[t.id])
    else:
        found = list(tasks.values())
    return [t for t in found if t.name != "__start__"]


def _path_order(task_path: str) -> tuple[int, int, str]:
    """Tasks in the order LangGraph prepares them: `Send`s first, by index, then the nodes the step
    triggered, by name (`prepare_next_tasks`)."""
    parts = [part.strip() for part in task_path.split(",")]
    if parts[0] == PUSH and len(parts) >= 2 and parts[1].isdigit():
        return (0, int(parts[1]), task_path)
    if parts[0] == _PULL and len(parts) >= 2:
        return (1, 0, parts[1])
    return (2, 0, task_path)


def _task_name(task_path: str, sends: Any) -> tuple[str, Any]:
    """A task's node, and its input when a `Send` gave one: a pulled task's path names its node, a
    pushed one's its index in the parent checkpoint's `__pregel_tasks`."""
    parts = [part.strip() for part in task_path.split(",")]
    if len(parts) >= 2 and parts[0] == _PULL:
        return parts[1], None
    if len(parts) >= 2 and parts[0] == PUSH and isinstance(sends, list):
        try:
            send = sends[int(parts[1])]  # pyright: ignore[reportUnknownVariableType]
        except (ValueError, IndexError):
            send = None
        node = getattr(send, "node", None)
        if isinstance(node, str):
            return node, getattr(send, "arg", None)
    return task_path or "(task)", None


def next_nodes(checkpoint: Checkpoint) -> list[str]:
    """The nodes that run from `checkpoint` (LangGraph's `StateSnapshot.next`): those its `branch:to:`
    channels trigger, then those its `Send`s name."""
    found = [k.removeprefix("branch:to:") for k in checkpoint.values if k.startswith("branch:to:")]
    sends = checkpoint.values.get(SENDS)
    for send in sends if isinstance(sends, list) else []:  # pyright: ignore[reportUnknownVariableType]
        node = getattr(send, "node", None)
        if isinstance(node, str):
            found.append(node)
    return list(dict.fromkeys(found))


def state_of(checkpoint: Checkpoint) -> dict[str, Any]:
    """The state a checkpoint holds: its channel values without LangGraph's own channels."""
    return {k: v for k, v in checkpoint.values.items() if not internal(k)}


_REPR = re.compile(r"([A-Za-z_][\w.]*)\((.*)\)", re.DOTALL)


def exception_of(value: Any) -> BaseException:
    """The exception a failed task's `__error__` write stands for. LangGraph stores the exception's
    `repr` (`ValueError('no such city')`): it becomes an exception of that type's name with that
    message, read as a literal, never evaluated (a built-in exception type is itself; any other is a
    class made with its name, since the one the run raised may not be importable here). Text that is
    no such call is a `RuntimeError` with that text."""
    if isinstance(value, BaseException):
        return value
    text = str(value.get("message", value)) if isinstance(value, Mapping) else str(value)  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
    found = _REPR.fullmatch(text.strip())
    if found is None:
        return RuntimeError(text)
    name, args = found.group(1).rsplit(".", 1)[-1], found.group(2)
    try:
        parsed: tuple[Any, ...] = ast.literal_eval(f"({args},)") if args.strip() else ()
    except (ValueError, SyntaxError, MemoryError, RecursionError):  # no call of literals: the text as is
        return RuntimeError(text)
    single = len(parsed) == 1 and isinstance(parsed[0], str)
    message = parsed[0] if single else ", ".join(map(str, parsed))
    known = getattr(builtins, name, None)
    cls = known if isinstance(known, type) and issubclass(known, Exception) else type(name, (Exception,), {})
    try:
        return cls(message)
    except Exception:  # a built-in that wants other arguments (UnicodeDecodeError): its name, all the same
        return type(name, (Exception,), {})(message)
