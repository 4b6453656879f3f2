"""A thread's history written as a run file, as `inspector record` would have written the run.

The checkpoints become LangGraph debug-stream events that the adapter's `StepTranslator` turns into
the run file:

- LangGraph step N (N >= 1) is the run's step N - 1, as in a recording (step -1 wrote the input, step 0
  passed it through `__start__`); the run's input is what `__start__` wrote;
- a step's node runs are the tasks whose writes made its checkpoint (the parent checkpoint's pending
  writes, grouped by task: a pulled task names its node in its `task_path`, a `Send` its index in the
  parent's `__pregel_tasks`), each node's output the channels it wrote;
- a subgraph's checkpoints (namespace `NODE:TASK_ID`) are fed as the nested events of that task, so
  its steps are nested under the parent's step, as `subgraphs=True` records them;
- the state after a step is the checkpoint's channel values (LangGraph's own channels left out);
- a thread whose latest checkpoint holds an `interrupt()`'s write ends interrupted, with that node to
  rerun on resume; one stopped before nodes that have not run, interrupted before them.

Without `--target`, the topology is what the checkpoints show, named `... (observed from
checkpoints)`: edges between nodes that ran one after the other, which is what the thread saw, not
what the graph declares.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from graph_core.interrupt import InterruptInfo
from graph_core.topology import END, START, Topology, TopologyEdge, TopologyNode, build_topology
from inspector.sources.langgraph.history import Branch, Checkpoint

__all__ = ["next_nodes", "observed_topology", "write_thread_run"]

_INTERNAL_WRITES = ("__interrupt__", "__error__", "__resume__", "__pregel_tasks", "__no_writes__")
"""Channels LangGraph writes for itself: what a task did, not what it put in the state."""


def _internal(channel: str) -> bool:
    return channel.startswith(("branch:", "join:", "__")) or channel in _INTERNAL_WRITES


@dataclass
class _Task:
    id: str
    name: str
    input: Any
    result: dict[str, Any]
    interrupts: list[Any]
    error: Any


def _tasks(parent: Checkpoint, source: str = "loop") -> list[_Task]:
    """The tasks that ran from `parent`, from its pending writes: for a checkpoint `update_state`
    made (`source` "update"), the update's own writes; else the node tasks' (a `Command(resume=...)`
    write belongs to no task and is left out)."""
    sends = parent.values.get("__pregel_tasks")
    tasks: dict[str, _Task] = {}
    for task_id, task_path, channel, value in parent.writes:
        is_update = task_path.startswith("~__interrupt__")
        if not task_path or is_update != (source == "update"):
            continue
        task = tasks.get(task_id)
        if task is None:
            name, arg = ("(update)", None) if is_update else _task_name(task_path, sends)
            task = tasks[task_id] = _Task(task_id, name, arg, {}, [], None)
        if channel == "__interrupt__":
            task.interrupts.extend(value if isinstance(value, list) else [value])  # pyright: ignore[reportUnknownArgumentType]
        elif channel == "__error__":
            task.error = value
        elif not _internal(channel):
            task.result[channel] = value
    order = {task_id: _path_order(path) for task_id, path, _, _ in parent.writes}
    found = sorted(tasks.values(), key=lambda t: order.get(t.id, (3, 0, "")))
    return [t for t in found if t.name != "__start__"]


def _path_order(task_path: str) -> tuple[int, int, str]:
    """Tasks in the order LangGraph prepares them: `Send`s first, by index, then the nodes the step
    triggered, by name (`prepare_next_tasks`)."""
    parts = [part.strip() for part in task_path.split(",")]
    if parts[0] == "~__pregel_push" and len(parts) >= 2 and parts[1].isdigit():
        return (0, int(parts[1]), task_path)
    if parts[0] == "~__pregel_pull" and len(parts) >= 2:
        return (1, 0, parts[1])
    return (2, 0, task_path)


def next_nodes(checkpoint: Checkpoint) -> list[str]:
    """The nodes that run from `checkpoint` (LangGraph's `StateSnapshot.next`): those its `branch:to:`
    channels trigger, then those its `Send`s name."""
    found = [k.removeprefix("branch:to:") for k in checkpoint.values if k.startswith("branch:to:")]
    sends = checkpoint.values.get("__pregel_tasks")
    for send in sends if isinstance(sends, list) else []:  # pyright: ignore[reportUnknownVariableType]
        node = getattr(send, "node", None)
        if isinstance(node, str):
            found.append(node)
    return list(dict.fromkeys(found))


def _task_name(task_path: str, sends: Any) -> tuple[str, Any]:
    """A task's node, and its input when a `Send` gave one: a pulled task's path names its node, a
    pushed one's its index in the parent checkpoint's `__pregel_tasks`."""
    parts = [part.strip() for part in task_path.split(",")]
    if len(parts) >= 2 and parts[0] == "~__pregel_pull":
        return parts[1], None
    if len(parts) >= 2 and parts[0] == "~__pregel_push" and isinstance(sends, list):
        try:
            send = sends[int(parts[1])]  # pyright: ignore[reportUnknownVariableType]
        except (ValueError, IndexError):
            send = None
        node = getattr(send, "node", None)
        if isinstance(node, str):
            return node, getattr(send, "arg", None)
    return task_path or "(task)", None


def _state(checkpoint: Checkpoint) -> dict[str, Any]:
    return {k: v for k, v in checkpoint.values.items() if not _internal(k)}


def _interrupt_value(item: Any) -> Any:
    return getattr(item, "value", item)


def observed_topology(chain: Sequence[Checkpoint], name: str) -> Topology:
    """The nodes the thread's tasks ran, and an edge between nodes of consecutive steps: what the
    checkpoints show, named as observed."""
    order: list[str] = []
    edges: dict[tuple[str, str], None] = {}
    previous: list[str] = [START]
    for parent in chain:
        names = list(dict.fromkeys(t.name for t in _tasks(parent, "loop")))
        if not names:
            continue
        for node in names:
            if node not in order:
                order.append(node)
            for before in previous:
                edges[(before, node)] = None
        previous = names
    if chain and not any(t.interrupts for t in _tasks(chain[-1])) and previous != [START]:
        for before in previous:
            edges[(before, END)] = None
    nodes = [TopologyNode(key=node, kind="Lambda") for node in order]
    return build_topology(
        name=f"{name} (observed from checkpoints)",
        nodes=nodes,
        edges=[TopologyEdge(source=a, target=b) for a, b in edges],
        has_state=True,
    )


class _Feeder:
    """Feeds a chain of checkpoints (and the subgraph chains its tasks ran) to the translator, moving
    the recorder's clock to each checkpoint's time."""

    def __init__(self, translator: Any, now: list[float], subgraphs: Mapping[str, list[Checkpoint]]) -> None:
        self.translator = translator
        self.now = now
        self.subgraphs = subgraphs

    def chain(self, ns: str, chain: Sequence[Checkpoint]) -> None:
        """The steps of `chain` (a namespace's history) as the stream of its graph would give them."""
        namespace = tuple(ns.split("|")) if ns else ()
        by_id = {c.id: c for c in chain}
        for checkpoint in (c for c in chain if c.step >= 1):
            parent = by_id.get(checkpoint.parent_id or "")
            tasks = _tasks(parent, checkpoint.source) if parent is not None else []
            for task in tasks:  # a later checkpoint exists: its tasks finished (an interrupt was resumed)
                task.interrupts = []
            if not tasks:  # a checkpoint no task wrote (`update_state`): one node run named by its source
                tasks = [_Task(checkpoint.id, f"({checkpoint.source})", None, _state(checkpoint), [], None)]
            if parent is not None:
                self.now[0] = _seconds(parent.ts)
            before = _state(parent) if parent is not None else {}
            self.step(namespace, checkpoint.step, tasks, before, _seconds(checkpoint.ts))
            self.translator.feed(namespace, "values", _state(checkpoint))

    def step(
        self, namespace: tuple[str, ...], step: int, tasks: Sequence[_Task], before: dict[str, Any], at: float
    ) -> None:
        """One step's tasks; the state before them again (which makes the translator end the step
        before and start this one, at the parent checkpoint's time); the subgraphs its tasks ran;
        then, at the checkpoint's time, their results."""
        for task in tasks:
            payload = {"id": task.id, "name": task.name, "input": task.input}
            self.translator.feed(namespace, "debug", {"type": "task", "step": step, "payload": payload})
        self.translator.feed(namespace, "values", before)
        for task in tasks:
            inner = "|".join((*namespace, f"{task.name}:{task.id}"))
            if inner in self.subgraphs:
                self.chain(inner, self.subgraphs[inner])
        self.now[0] = at
        for task in tasks:
            self.translator.feed(
                namespace, "debug", {"type": "task_result", "step": step, "payload": _result(task)}
            )


def write_thread_run(
    branch: Branch | Sequence[Checkpoint],
    out: Path,
    *,
    thread_id: str,
    topology: Topology | None = None,
    subgraphs: Mapping[str, list[Checkpoint]] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> Path:
    """Write a thread's history (a `Branch`, or its checkpoints oldest first) as a run file at `out`.
    `subgraphs` holds the subgraph namespaces' chains; `meta` more of the header's
    `meta.langgraph_thread` (where it came from, its branches)."""
    from inspector.adapters.langgraph.recording import StepTranslator
    from inspector.recording import Recorder

    chain = list(branch.chain) if isinstance(branch, Branch) else list(branch)
    topology = topology or observed_topology(chain, "LangGraph thread")
    steps = [c for c in chain if c.step >= 1]
    header = {
        "thread_id": thread_id,
        **(meta or {}),
        "checkpoints": [{"id": c.id, "step": c.step, "source": c.source} for c in steps],
    }
    now = [_seconds(chain[0].ts) if chain else 0.0]  # each step's time is its checkpoint's
    recorder = Recorder(
        out,
        topology=topology,
        run_id=f"thread-{thread_id}",
        clock=lambda: now[0],
        meta={"langgraph_thread": header},
        redact=False,
    )
    limit = max(25, len(steps) + 1)
    translator = StepTranslator([recorder], topology=topology, limit=limit, extras={"topology": topology})
    first_input = next((c for c in chain if c.source == "input"), None)
    translator.start(first_input.values.get("__start__") if first_input is not None else None)
    feeder = _Feeder(translator, now, subgraphs or {})
    feeder.chain("", chain)
    _finish(translator, feeder, chain[-1] if chain else None)
    recorder.close()
    return out


def _finish(translator: Any, feeder: _Feeder, last: Checkpoint | None) -> None:
    """How the thread stands: waiting for a resume, stopped before nodes, or finished."""
    paused = [t for t in _tasks(last) if t.interrupts] if last is not None else []
    waiting = next_nodes(last) if last is not None and last.step >= 0 else []
    if last is not None and paused:  # an `interrupt()` waits for its `Command(resume=...)`
        feeder.step((), last.step + 1, paused, _state(last), feeder.now[0])
        info = InterruptInfo(rerun_nodes=[t.name for t in paused])
        info.rerun_nodes_extra = {t.name: _interrupt_value(t.interrupts[0]) for t in paused}
        translator.finish(next_nodes=[t.name for t in paused], interrupted=info)
    elif waiting:  # stopped before nodes that have not run (a static interrupt, an update, a crash)
        translator.finish(next_nodes=waiting, interrupted=InterruptInfo(before_nodes=waiting))
    else:
        translator.finish()


def _seconds(ts: str) -> float:
    """A checkpoint's ISO time as seconds since the epoch (0 when it has none)."""
    try:
        return datetime.fromisoformat(ts).timestamp()
    except ValueError:
        return 0.0


def _result(task: _Task) -> dict[str, Any]:
    return {
        "id": task.id,
        "name": task.name,
        "result": task.result,
        "error": task.error,
        "interrupts": [{"value": _interrupt_value(i)} for i in task.interrupts],
    }
