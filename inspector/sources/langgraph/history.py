"""A thread's checkpoints as histories: its branches, the one chosen, and its subgraphs' checkpoints.

A checkpoint's parent is the one it continued from, so a thread's checkpoints form a tree: a fork
(`update_state` on an earlier checkpoint, a replay from one, Studio's "fork") gives a checkpoint a
second child. Each leaf ends a branch (the path from the first checkpoint to it); branches are
numbered 1, 2, ... in the order their leaves were written, so the branch of the latest checkpoint,
the one `get_state` reads and the one opened by default, has the highest number.

A subgraph's checkpoints are under their own `checkpoint_ns`, `NODE:TASK_ID` (nested ones joined with
`|`), where TASK_ID is the task of the parent graph that ran the subgraph: that is how they are nested
under the parent's step.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.errors import RunFileError

__all__ = ["Branch", "Checkpoint", "ThreadInfo", "branches_of", "choose_chain", "missing_thread"]


@dataclass(frozen=True)
class ThreadInfo:
    """One thread of a checkpointer: how many checkpoints (of the top-level graph), its latest
    LangGraph step, when it was last written (the time in its latest checkpoint)."""

    thread_id: str
    checkpoints: int
    last_step: int | None
    last_update: str


@dataclass(frozen=True)
class Checkpoint:
    """One checkpoint, decoded: its channel values and the writes of the tasks that ran from it."""

    id: str
    parent_id: str | None
    step: int
    source: str
    values: dict[str, Any]
    writes: list[tuple[str, str, str, Any]]  # (task id, task path, channel, value), in order
    ts: str
    ns: str = ""  # the subgraph namespace ("" for the top-level graph)
    metadata: dict[str, Any] = field(default_factory=lambda: {})

    @classmethod
    def of(
        cls,
        checkpoint_id: str,
        parent_id: str | None,
        metadata: dict[str, Any],
        values: dict[str, Any],
        writes: list[tuple[str, str, str, Any]],
        ts: str = "",
        ns: str = "",
    ) -> Checkpoint:
        """A checkpoint whose step and source are read from its metadata, as every backend stores them
        (a missing or odd step reads as 0, so a hand-edited row still opens)."""
        step = metadata.get("step")
        return cls(
            id=checkpoint_id,
            parent_id=parent_id,
            step=step if isinstance(step, int) else 0,
            source=str(metadata.get("source", "")),
            values=values,
            writes=writes,
            ts=ts,
            ns=ns,
            metadata=metadata,
        )


@dataclass(frozen=True)
class Branch:
    """One history of a thread: the checkpoints from its first to `leaf`, oldest first."""

    number: int
    chain: tuple[Checkpoint, ...]
    forked_at: int | None  # the LangGraph step of the checkpoint it parts from another branch at

    @property
    def leaf(self) -> Checkpoint:
        return self.chain[-1]

    def summary(self) -> dict[str, Any]:
        """What the run header says of the branch."""
        return {
            "branch": self.number,
            "leaf": self.leaf.id,
            "checkpoints": len(self.chain),
            "last_step": self.leaf.step,
            "forked_at": self.forked_at,
        }


def branches_of(checkpoints: Sequence[Checkpoint]) -> list[Branch]:
    """The branches of one namespace's checkpoints (oldest leaf first)."""
    by_id = {c.id: c for c in checkpoints}
    children: dict[str, int] = {}
    for c in checkpoints:
        if c.parent_id is not None and c.parent_id in by_id:
            children[c.parent_id] = children.get(c.parent_id, 0) + 1
    leaves = sorted((c for c in checkpoints if c.id not in children), key=lambda c: c.id)
    out: list[Branch] = []
    for number, leaf in enumerate(leaves, 1):
        chain = _path_to(leaf, by_id)
        fork = next((c.step for c in reversed(chain[:-1]) if children.get(c.id, 0) > 1), None)
        out.append(Branch(number, tuple(chain), fork))
    return out


def _path_to(leaf: Checkpoint, by_id: dict[str, Checkpoint]) -> list[Checkpoint]:
    chain: list[Checkpoint] = []
    current: Checkpoint | None = leaf
    seen: set[str] = set()
    while current is not None and current.id not in seen:  # a cycle would be a corrupt table
        seen.add(current.id)
        chain.append(current)
        current = by_id.get(current.parent_id or "")
    chain.reverse()
    return chain


def choose_chain(
    where: str,
    thread_id: str,
    checkpoints: Sequence[Checkpoint],
    *,
    branch: int | None = None,
    checkpoint: str | None = None,
) -> tuple[Branch, list[Branch]]:
    """The branch to open (`branch` by number, the history ending at `checkpoint`, a full id or a
    unique end or start of one; by default the branch of the latest checkpoint) and every branch."""
    branches = branches_of(checkpoints)
    if checkpoint is not None:
        found = _find_checkpoint(where, thread_id, checkpoints, checkpoint)
        by_id = {c.id: c for c in checkpoints}
        owner = next((b for b in branches if found in b.chain), branches[-1] if branches else None)
        number = owner.number if owner is not None else 1
        fork = owner.forked_at if owner is not None else None
        return Branch(number, tuple(_path_to(found, by_id)), fork), branches
    if not branches:
        raise RunFileError(f"{where}: thread `{thread_id}` has no checkpoints of its top-level graph")
    if branch is None:
        return branches[-1], branches
    if not 1 <= branch <= len(branches):
        raise RunFileError(
            f"{where}: thread `{thread_id}` has {len(branches)} branch(es), no branch {branch}: "
            + "; ".join(branch_line(b) for b in branches)
        )
    return branches[branch - 1], branches


def branch_line(branch: Branch) -> str:
    """A branch in a sentence: its number, size, last step and where it forked."""
    fork = "" if branch.forked_at is None else f", forked at step {branch.forked_at}"
    return (
        f"branch {branch.number}: {len(branch.chain)} checkpoints to step {branch.leaf.step} "
        f"(checkpoint {branch.leaf.id}{fork})"
    )


def _find_checkpoint(
    where: str, thread_id: str, checkpoints: Sequence[Checkpoint], wanted: str
) -> Checkpoint:
    exact = [c for c in checkpoints if c.id == wanted]
    if exact:
        return exact[0]
    partial = [c for c in checkpoints if c.id.endswith(wanted) or c.id.startswith(wanted)]
    if len(partial) == 1:
        return partial[0]
    ids = [c.id for c in checkpoints]
    near = [c.id for c in partial[:5]] or difflib.get_close_matches(wanted, ids, n=5, cutoff=0.3)
    nearest = f"; the nearest: {', '.join(near)}" if near else ""
    what = "matches several checkpoints" if len(partial) > 1 else "is no checkpoint"
    raise RunFileError(f"{where}: `{wanted}` {what} of thread `{thread_id}`{nearest}")


def missing_thread(where: str, thread_id: str, threads: Sequence[ThreadInfo]) -> RunFileError:
    """The refusal of a thread that does not exist, naming the nearest ids."""
    ids = [t.thread_id for t in threads]
    near = difflib.get_close_matches(thread_id, ids, n=5, cutoff=0.3) or ids[:5]
    nearest = f"; the nearest: {', '.join(near)}" if near else "; it has no threads"
    return RunFileError(f"{where}: no thread `{thread_id}` in this LangGraph checkpointer{nearest}")


def subgraph_chains(checkpoints: Sequence[Checkpoint]) -> dict[str, list[Checkpoint]]:
    """Each subgraph namespace's history (its latest branch): what ran inside the parent's task."""
    by_ns: dict[str, list[Checkpoint]] = {}
    for c in checkpoints:
        if c.ns:
            by_ns.setdefault(c.ns, []).append(c)
    return {ns: list(branches_of(found)[-1].chain) for ns, found in by_ns.items() if found}
