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
  rerun on resume; one whose latest checkpoint holds a task's `__error__` write failed in that node,
  with that error (the step it failed in is written unfinished, as a recording of the run would
  have it); one stopped before nodes that have not run, interrupted before them.

`write_chain` writes the steps as the checkpoints arrive, from any iterable (a checkpointer read step
by step, `stream.write_streamed`); what the header needs first (the checkpoints' ids, steps and
sources, the topology) comes from the thread's `outline`, read before the values.

Without `--target`, the topology is what the checkpoints show, named `... (observed from
checkpoints)`: edges between nodes that ran one after the other, which is what the thread saw, not
what the graph declares.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from graph_core.interrupt import InterruptInfo
from graph_core.topology import END, START, Topology, TopologyEdge, TopologyNode, build_topology
from inspector.sources.langgraph.decode import SENDS
from inspector.sources.langgraph.history import Branch, Checkpoint
from inspector.sources.langgraph.tasks import Task, exception_of, next_nodes, state_of, tasks_of

__all__ = ["next_nodes", "observed_topology", "write_chain", "write_thread_run"]


def observed_topology(chain: Sequence[Checkpoint], name: str) -> Topology:
    """The nodes the thread's tasks ran, and an edge between nodes of consecutive steps: what the
    checkpoints show, named as observed (the chain's outline is enough: task paths and channels).
    Without `Send`s, a step's nodes follow from its writes' task paths alone (a pulled task's names
    its node, and orders it), so a loop's steps are worked out once."""
    order: list[str] = []
    edges: dict[tuple[str, str], None] = {}
    previous: list[str] = [START]
    known: dict[tuple[str, ...], list[str]] = {}  # a step's nodes by its writes' task paths (no `Send`)
    for parent in chain:
        paths = tuple(path for _, path, _, _ in parent.writes)
        names = None if SENDS in parent.values else known.get(paths)
        if names is None:
            names = list(dict.fromkeys(t.name for t in tasks_of(parent, "loop")))
            if SENDS not in parent.values:
                known[paths] = names
        if not names:
            continue
        for node in names:
            if node not in order:
                order.append(node)
            for before in previous:
                edges[(before, node)] = None
        previous = names
    if chain and not any(t.interrupts for t in tasks_of(chain[-1])) and previous != [START]:
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

    def chain(self, ns: str, chain: Iterable[Checkpoint]) -> Checkpoint | None:
        """The steps of `chain` (a namespace's history, oldest first) as the stream of its graph would
        give them, each as its checkpoint arrives; the last checkpoint. A step's parent is the
        checkpoint before it (a branch's history is a path), or, in a list, the one its id names."""
        namespace = tuple(ns.split("|")) if ns else ()
        by_id = {c.id: c for c in chain} if isinstance(chain, Sequence) else None
        last: Checkpoint | None = None
        for checkpoint in chain:
            if checkpoint.step >= 1:
                if by_id is not None:
                    parent = by_id.get(checkpoint.parent_id or "")
                else:
                    parent = last if last is not None and last.id == checkpoint.parent_id else None
                self.checkpoint(namespace, checkpoint, parent)
            last = checkpoint
        return last

    def checkpoint(
        self, namespace: tuple[str, ...], checkpoint: Checkpoint, parent: Checkpoint | None
    ) -> None:
        """The step that made `checkpoint` from `parent`."""
        tasks = tasks_of(parent, checkpoint.source) if parent is not None else []
        for task in tasks:  # a later checkpoint exists: its tasks finished (an interrupt was resumed,
            task.interrupts = []  # a failure retried)
            task.error = None
        if not tasks:  # a checkpoint no task wrote (`update_state`): one node run named by its source
            tasks = [Task(checkpoint.id, f"({checkpoint.source})", None, state_of(checkpoint), [], None)]
        if parent is not None:
            self.now[0] = _seconds(parent.ts)
        before = state_of(parent) if parent is not None else {}
        self.step(namespace, checkpoint.step, tasks, before, _seconds(checkpoint.ts))
        self.translator.feed(namespace, "values", state_of(checkpoint))

    def step(
        self, namespace: tuple[str, ...], step: int, tasks: Sequence[Task], before: dict[str, Any], at: float
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
    chain = list(branch.chain) if isinstance(branch, Branch) else list(branch)
    topology = topology or observed_topology(chain, "LangGraph thread")
    return write_chain(
        chain, out, outline=chain, thread_id=thread_id, topology=topology, subgraphs=subgraphs, meta=meta
    )


def write_chain(
    checkpoints: Iterable[Checkpoint],
    out: Path,
    *,
    outline: Sequence[Checkpoint],
    thread_id: str,
    topology: Topology,
    subgraphs: Mapping[str, list[Checkpoint]] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> Path:
    """Write a thread's history as a run file at `out`, each step as soon as `checkpoints` (the chain,
    decoded, oldest first) gives the checkpoint after it. `outline` is the same chain as the header
    needs it before any value is read: ids, steps and sources."""
    from inspector.adapters.langgraph.recording import StepTranslator
    from inspector.recording import Recorder

    steps = [c for c in outline if c.step >= 1]
    header = {
        "thread_id": thread_id,
        **(meta or {}),
        "checkpoints": [{"id": c.id, "step": c.step, "source": c.source} for c in steps],
    }
    chain, head = _opening(checkpoints, next((c.id for c in outline if c.source == "input"), None))
    now = [_seconds(head[0].ts) if head else 0.0]  # each step's time is its checkpoint's
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
    first_input = next((c for c in head if c.source == "input"), None)
    translator.start(first_input.values.get("__start__") if first_input is not None else None)
    feeder = _Feeder(translator, now, subgraphs or {})
    _finish(translator, feeder, feeder.chain("", chain))
    recorder.close()
    return out


def _opening(
    checkpoints: Iterable[Checkpoint], input_id: str | None
) -> tuple[Iterable[Checkpoint], list[Checkpoint]]:
    """The chain, and its checkpoints up to the run's input (the first written with source "input"),
    read ahead: the run starts with that input, at the first checkpoint's time. A list is read whole."""
    if isinstance(checkpoints, Sequence):
        return checkpoints, list(checkpoints)
    stream = iter(checkpoints)
    head: list[Checkpoint] = []
    for checkpoint in stream:
        head.append(checkpoint)
        if input_id is None or checkpoint.id == input_id:
            break
    return _chained(head, stream), head


def _chained(head: list[Checkpoint], rest: Iterator[Checkpoint]) -> Iterator[Checkpoint]:
    yield from head
    yield from rest


def _finish(translator: Any, feeder: _Feeder, last: Checkpoint | None) -> None:
    """How the thread stands: failed in a node, waiting for a resume, stopped before nodes, or finished."""
    tasks = tasks_of(last) if last is not None else []
    failed = [t for t in tasks if t.error is not None]
    paused = [t for t in tasks if t.interrupts]
    waiting = next_nodes(last) if last is not None and last.step >= 0 else []
    if last is not None and failed:  # a node raised: the run failed in that step, with that error
        for task in failed:
            task.error = exception_of(task.error)
        feeder.step((), last.step + 1, tasks, state_of(last), feeder.now[0])
        translator.fail(failed[0].error)
    elif last is not None and paused:  # an `interrupt()` waits for its `Command(resume=...)`
        feeder.step((), last.step + 1, paused, state_of(last), feeder.now[0])
        info = InterruptInfo(rerun_nodes=[t.name for t in paused])
        info.rerun_nodes_extra = {t.name: _interrupt_value(t.interrupts[0]) for t in paused}
        translator.finish(next_nodes=[t.name for t in paused], interrupted=info)
    elif waiting:  # stopped before nodes that have not run (a static interrupt, an update, a crash)
        translator.finish(next_nodes=waiting, interrupted=InterruptInfo(before_nodes=waiting))
    else:
        translator.finish()


def _interrupt_value(item: Any) -> Any:
    return getattr(item, "value", item)


def _seconds(ts: str) -> float:
    """A checkpoint's ISO time as seconds since the epoch (0 when it has none)."""
    try:
        return datetime.fromisoformat(ts).timestamp()
    except ValueError:
        return 0.0


def _result(task: Task) -> dict[str, Any]:
    return {
        "id": task.id,
        "name": task.name,
        "result": task.result,
        "error": task.error,
        "interrupts": [{"value": _interrupt_value(i)} for i in task.interrupts],
    }
