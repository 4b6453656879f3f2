"""What a checkpoint holds (Eino `checkpoint`): enough of a stopped run to continue it later.

A checkpoint is the run's plain data at the interrupt (channel contents, DAG control reports, skipped
nodes), the tasks to run first on resume with their inputs (static interrupts: every computed next task;
rerun nodes: their original input), the interrupted points' saved records, the nested graphs' own
checkpoints and a copy of the state. Streams are concatenated before they are saved, so a checkpoint
holds values only; a stream-mode resume turns them back into one-chunk streams.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graph_core.interrupt import PointRecord

__all__ = ["Checkpoint"]


@dataclass(slots=True)
class Checkpoint:
    """One graph's stopped run. `sub_graphs[key]` is the checkpoint of the nested graph at node `key`."""

    values: dict[str, dict[str, Any]] = field(default_factory=lambda: {})
    control: dict[str, dict[str, str]] = field(default_factory=lambda: {})
    skipped: list[str] = field(default_factory=lambda: [])
    inputs: list[tuple[str, Any]] = field(default_factory=lambda: [])
    rerun_nodes: list[str] = field(default_factory=lambda: [])
    skip_pre_handler: list[str] = field(default_factory=lambda: [])
    points: dict[str, PointRecord] = field(default_factory=lambda: {})
    sub_graphs: dict[str, Checkpoint] = field(default_factory=lambda: {})
    before_nodes: list[str] = field(default_factory=lambda: [])
    after_nodes: list[str] = field(default_factory=lambda: [])
    has_state: bool = False
    state: Any = None

    def addresses(self, graph_address: str | None = None) -> list[str]:
        """Every interrupt address in this checkpoint and its nested ones (for targeting resume data).

        Given the address of the graph this checkpoint belongs to, a graph that stopped at a static (or
        external) interrupt is a point too: resume data aimed at it replaces the graph's state (Eino).
        So is a graph none of whose nodes is a point (an external interrupt that abandoned its running
        nodes): it is the root cause its interrupt contexts list.
        """
        found: list[str] = []
        if graph_address is not None and (self.before_nodes or self.after_nodes or not self.points):
            found.append(graph_address)
        for record in self.points.values():
            found.extend(_point_addresses(record))
        for key, sub in self.sub_graphs.items():
            found.extend(sub.addresses(None if graph_address is None else f"{graph_address};node:{key}"))
        return found


def _point_addresses(record: PointRecord) -> list[str]:
    """A point's address and its parts', at any depth (a tool call of a ToolsNode, and the points of an
    agent run inside that call: an agent tool's composite interrupt)."""
    found = [record.address]
    for child in record.children.values():
        found.extend(_point_addresses(child))
    return found
