"""A thread read step by step: its outline first, then each checkpoint decoded as its step is written.

Reading a whole thread before writing its first step kept `replay`'s screen waiting for all of it
(seconds on a 10,000-checkpoint thread). So `plan_thread` reads only the outline (`Checkpointer.outline`:
ids, parents, metadata, task paths and channels), which is all that choosing the branch, refusing a bad
choice, and the run's header (its checkpoints, branches and observed topology) need; `write_streamed`
then reads the branch's checkpoints in order (`Checkpointer.stream`) and writes each step as the
checkpoint after it is decoded. A subgraph's checkpoints (namespace `NODE:TASK_ID`) are read when the
parent's step that ran the task is written. The run file is the one `run.write_thread_run` writes from
the whole thread read first, byte for byte.
"""

from __future__ import annotations

from collections.abc import Container, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from inspector.sources.langgraph.history import (
    Branch,
    Checkpoint,
    ThreadInfo,
    branches_of,
    choose_chain,
    missing_thread,
)
from inspector.sources.langgraph.run import observed_topology, write_chain

if TYPE_CHECKING:
    from graph_core.topology import Topology

__all__ = ["Checkpointer", "ThreadPlan", "plan_thread", "write_streamed"]


class Checkpointer(Protocol):
    """What every checkpointer kind offers the readers."""

    where: str

    def threads(self) -> list[ThreadInfo]: ...
    def checkpoints(self, thread_id: str) -> list[Checkpoint]: ...
    def outline(self, thread_id: str) -> list[Checkpoint]: ...
    def namespaces(self, thread_id: str) -> list[str]: ...
    def stream(
        self, thread_id: str, ns: str = "", wanted: Container[str] | None = None
    ) -> Iterator[Checkpoint]: ...
    def stamp(self, thread_id: str) -> str: ...
    def close(self) -> None: ...


@dataclass(frozen=True)
class ThreadPlan:
    """A thread's branch chosen from its outline, and what its run file's header says."""

    where: str
    thread_id: str
    branch: Branch  # of outline checkpoints: no values
    branches: list[Branch]
    topology: Topology

    def meta(self) -> dict[str, Any]:
        """The header's `meta.langgraph_thread` fields besides the checkpoints."""
        return {
            "location": self.where,
            "branch": self.branch.number,
            "branches": [b.summary() for b in self.branches],
        }


def choose(
    store: Checkpointer, thread_id: str, top: list[Checkpoint], *, branch: int | None, checkpoint: str | None
) -> tuple[Branch, list[Branch]]:
    """The branch chosen among the top-level checkpoints, and every branch (a thread that has none
    does not exist: refused with the nearest ids)."""
    if not top:
        raise missing_thread(store.where, thread_id, store.threads())
    return choose_chain(store.where, thread_id, top, branch=branch, checkpoint=checkpoint)


def plan_thread(
    store: Checkpointer,
    thread_id: str,
    *,
    branch: int | None = None,
    checkpoint: str | None = None,
    topology: Topology | None = None,
) -> ThreadPlan:
    """Choose the thread's branch from its outline (refused, with the nearest ids, when the thread or
    the branch does not exist); the topology is `topology`, else the one the branch's tasks show."""
    chosen, branches = choose(
        store, thread_id, store.outline(thread_id), branch=branch, checkpoint=checkpoint
    )
    shape = topology or observed_topology(chosen.chain, "LangGraph thread")
    return ThreadPlan(store.where, thread_id, chosen, branches, shape)


def write_streamed(store: Checkpointer, plan: ThreadPlan, out: Path) -> Path:
    """Write the planned branch as a run file at `out`, each step as soon as its checkpoint is read."""
    chain = plan.branch.chain
    wanted = {c.id for c in chain}
    checkpoints = store.stream(plan.thread_id, "", wanted)
    return write_chain(
        checkpoints,
        out,
        outline=chain,
        thread_id=plan.thread_id,
        topology=plan.topology,
        subgraphs=_Subgraphs(store, plan.thread_id),
        meta=plan.meta(),
    )


class _Subgraphs(Mapping[str, list[Checkpoint]]):
    """The subgraph namespaces' histories (each one's latest branch), each read when asked for (once:
    by the step of the task that ran it), so none is held past its step."""

    def __init__(self, store: Checkpointer, thread_id: str) -> None:
        self.store = store
        self.thread_id = thread_id
        self.names = frozenset(store.namespaces(thread_id))

    def __contains__(self, ns: object) -> bool:
        return ns in self.names

    def __getitem__(self, ns: str) -> list[Checkpoint]:
        if ns not in self.names:
            raise KeyError(ns)
        return list(branches_of(list(self.store.stream(self.thread_id, ns)))[-1].chain)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self.names))

    def __len__(self) -> int:
        return len(self.names)
