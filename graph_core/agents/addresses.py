"""A ChatModelAgent's user-facing interrupt addresses (Eino's ADK `Address`): `agent:<name>`, then the
tool call, as in `agent:assistant;tool:lookup:call_1`.

The agent runs a graph, whose engine addresses read `runnable:<name>;node:ToolNode;tool:lookup:call_1`;
Eino's ADK shows only its agent and tool segments, so the graph and node segments are dropped here and
the agent segment leads. Points that become one agent address (the graph, its ToolsNode, a node that
interrupted) are one context: a root cause among them makes it a root cause with its info, else it is
the parent of the tool calls, with the graph's info (its state). `to_engine` maps resume data keyed
by agent addresses back onto the checkpoint's engine addresses.

An ADK-level interrupt (`adk_interrupt`: a custom agent's own) keeps only the agent and tool segments of
its address (`adk_address`, Eino's allowed segment types), and `signal_contexts` turns its signal tree
into contexts the way Eino's `ToInterruptContexts` does with that filter.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from graph_core.interrupt import InterruptContext, InterruptSignal, root_address

__all__ = ["adk_address", "agent_address", "agent_contexts", "signal_contexts", "to_engine"]

AGENT_PREFIX = "agent:"
_ADK_SEGMENTS = (AGENT_PREFIX, "tool:")  # Eino allowedAddressSegmentTypes


def agent_address(engine_address: str, agent_name: str) -> str:
    """The agent address of an engine address of the agent's graph (see the module docstring)."""
    kept = [s for s in engine_address.split(";")[1:] if not s.startswith(("node:", "runnable:"))]
    return ";".join([AGENT_PREFIX + agent_name, *kept])


def adk_address(address: str) -> str:
    """`address` with only its agent and tool segments: `runnable:root;agent:a;node:n;tool:t:1` is
    `agent:a;tool:t:1` (Eino strips the other segment types from the addresses an agent reports)."""
    return ";".join(s for s in address.split(";") if s.startswith(_ADK_SEGMENTS))


def signal_contexts(signal: InterruptSignal) -> list[InterruptContext]:
    """The root causes of `signal`'s tree (its points without parts), each linked to the enclosing
    points that are an agent or a tool call, with ADK addresses (Eino `ToInterruptContexts` with the
    agent and tool segment types allowed: a parent whose last segment is another type is skipped)."""
    roots: list[InterruptContext] = []

    def walk(point: InterruptSignal, parent: InterruptContext | None) -> None:
        root = not point.children
        context = parent
        if root or point.address.rsplit(";", 1)[-1].startswith(_ADK_SEGMENTS):
            address = adk_address(point.address)
            above = parent.address if parent is not None else None
            context = InterruptContext(address, address, point.info, root, above, parent)
        if root and context is not None:
            roots.append(context)
        for child in point.children.values():
            walk(child, context)

    walk(signal, None)
    return roots


@dataclass(slots=True)
class _Merged:
    info: Any
    root: bool
    parent: str | None


def agent_contexts(contexts: Iterable[InterruptContext], agent_name: str) -> list[InterruptContext]:
    """The root causes with agent addresses, each linked to its (agent-address) parents."""
    merged: dict[str, _Merged] = {}
    roots: list[str] = []
    for context in contexts:
        parent: str | None = None
        for point in context.outermost_first():
            address = agent_address(point.address, agent_name)
            if address == parent:  # collapses into its parent: a root cause lends its info
                if point.is_root_cause:
                    merged[address].info, merged[address].root = point.info, True
                continue
            if address not in merged:
                merged[address] = _Merged(point.info, point.is_root_cause, parent)
            elif point.is_root_cause:
                merged[address].info, merged[address].root = point.info, True
            parent = address
        if parent is not None and parent not in roots:
            roots.append(parent)
    built: dict[str, InterruptContext] = {}

    def build(address: str) -> InterruptContext:
        if address not in built:
            entry = merged[address]
            outer = build(entry.parent) if entry.parent is not None else None
            built[address] = InterruptContext(address, address, entry.info, entry.root, entry.parent, outer)
        return built[address]

    return [build(address) for address in roots]


def to_engine(resume_data: Any, engine_addresses: Iterable[str], agent_name: str) -> Any:
    """Resume data keyed by agent addresses, re-keyed by the engine addresses they stand for.

    Data for an agent address reaches every engine point behind it except the graph itself, whose
    data would replace its state (it gets the data only when it is the sole point there: a cancel or
    static interrupt). Other data, or a mapping with other keys, is returned as it is.
    """
    if not isinstance(resume_data, Mapping) or not resume_data:
        return resume_data
    items: list[tuple[Any, Any]] = list(resume_data.items())  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
    if not all(isinstance(key, str) and key.startswith(AGENT_PREFIX) for key, _ in items):
        return resume_data
    graph = root_address(agent_name)
    behind: dict[str, list[str]] = {}
    for engine in engine_addresses:
        behind.setdefault(agent_address(engine, agent_name), []).append(engine)
    out: dict[str, Any] = {}
    for key, value in items:
        engines = behind.get(key)
        if engines is None:
            out[key] = value  # not a point of the checkpoint: the engine reports it
            continue
        points = [e for e in engines if e != graph] or engines
        for engine in points:
            out[engine] = value
    return out
