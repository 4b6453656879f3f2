"""What a drawing cannot know from the graph's code, said once for every export's legend.

Some routes are decided only at run time: a `Send` fan-out starts one task per `Send` its condition
returns (how many is the run's business), a condition without a path map may name any node, and a
node that builds `Command`s without declaring their destinations may `goto` any node. An
adapter marks such branch edges with a `branch_kind` from this module instead of guessing; every drawing
(DOT, Mermaid, the terminal, the TUI) reads the same sentences from `static_notes` into its legend. A
topology without such edges has no notes, so graph_core drawings are unchanged.
"""

from __future__ import annotations

from graph_core.topology import END, Topology, TopologyEdge

__all__ = [
    "ANY_TARGET",
    "SEND",
    "SEND_ANY_TARGET",
    "SEND_LABEL",
    "UNDECLARED_GOTO",
    "is_any_target",
    "is_send",
    "static_notes",
]

SEND = "send"
"""A branch whose condition returns `Send`s: one task of the target per `Send`, all in the next step."""
ANY_TARGET = "conditional-any"
"""A condition without a path map (or a `Literal` return type): every node is drawn as a possible target."""
SEND_ANY_TARGET = "send-any"
"""Both: a condition that returns `Send`s and has no path map."""
UNDECLARED_GOTO = "command-undeclared"
"""On a node's implicit edge into END: the node builds `Command`s without declaring where their `goto`
leads, so only that edge is drawn."""
SEND_LABEL = "Send ×n"
"""The label of a fan-out edge: `n` tasks, a number known only at run time."""


def is_send(edge: TopologyEdge) -> bool:
    return edge.branch_kind in (SEND, SEND_ANY_TARGET)


def is_any_target(edge: TopologyEdge) -> bool:
    return edge.branch_kind in (ANY_TARGET, SEND_ANY_TARGET)


def static_notes(topology: Topology, /) -> tuple[str, ...]:
    """One sentence per source node whose routes are decided at run time, nested graphs' nodes as
    `graph/node`, in edge order; empty when everything drawn is known from the code."""
    notes: list[str] = []
    _collect(topology, "", notes)
    return tuple(notes)


def _collect(topology: Topology, prefix: str, notes: list[str]) -> None:
    groups: dict[tuple[str, int | None], list[TopologyEdge]] = {}
    for edge in topology.edges:
        if is_send(edge) or is_any_target(edge) or edge.branch_kind == UNDECLARED_GOTO:
            groups.setdefault((edge.source, edge.branch_index), []).append(edge)
    for (source, _), edges in groups.items():
        notes.append(_note(f"{prefix}{source}", edges, prefix))
    for node in topology.nodes:
        if node.graph is not None:
            _collect(node.graph, f"{prefix}{node.key}/", notes)


def _note(where: str, edges: list[TopologyEdge], prefix: str) -> str:
    """The sentence for one branch of `where` whose routes are left to the run."""
    kind = edges[0].branch_kind
    if kind == UNDECLARED_GOTO:
        return (
            f"{where} returns Command(goto=...) to destinations it does not declare: where it goes is known "
            "only at run time (only its implicit end is drawn)"
        )
    if kind == SEND_ANY_TARGET:
        return (
            f"{where} fans out with Send ({SEND_LABEL}) and has no path map: how many tasks, and of which "
            f"of the {len(edges)} targets drawn, is known only at run time"
        )
    if kind == SEND:
        targets = ", ".join(f"{prefix}{e.target}" for e in edges if e.target != END)
        return (
            f"{where} fans out with Send ({SEND_LABEL}): how many {targets} tasks run in parallel is "
            "known only at run time"
        )
    return (
        f"{where}'s condition has no path map: all {len(edges)} possible targets are drawn; which it "
        "takes is known only at run time"
    )
