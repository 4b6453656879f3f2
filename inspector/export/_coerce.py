"""Turn whatever a user hands us (a `Topology`, a compiled graph, an agent, a `Graph`) into a `Topology`.

Every exporter, the terminal drawing and the lint accept all four, so the rule lives in one place and is
duck-typed: the inspector never needs to import the engine's classes to recognise them.

A `Graph` is compiled to read its topology, but exporting must not change the user's graph: compiling
freezes it (and every graph nested in it), so their frozen flags are put back afterwards and the user can
keep adding nodes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from graph_core.topology import Topology
from inspector.adapters.detect import is_langgraph

__all__ = ["as_topology"]


def as_topology(subject: Any, /) -> Topology:
    """Return the `Topology` of a `Topology`, a `CompiledGraph`, an agent (`.compiled`), a `Graph`, or a
    LangGraph `StateGraph` or compiled graph."""
    if isinstance(subject, Topology):
        return subject
    if is_langgraph(subject):  # read from its builder by the adapter (imported only now)
        from inspector.adapters.langgraph import langgraph_topology

        return langgraph_topology(subject)
    compiled = getattr(subject, "compiled", None)
    if compiled is not None and callable(getattr(compiled, "topology", None)):
        return _checked(compiled.topology(), subject)
    if callable(getattr(subject, "topology", None)):
        return _checked(subject.topology(), subject)
    if callable(getattr(subject, "compile", None)) and hasattr(subject, "add_edge"):
        return _checked(_compile_untouched(subject).topology(), subject)
    raise TypeError(
        f"expected a Topology, a CompiledGraph, a Graph or an agent with `.compiled`, got "
        f"{type(subject).__name__}"
    )


def _checked(result: Any, subject: Any) -> Topology:
    if not isinstance(result, Topology):
        returned = type(result).__name__
        raise TypeError(f"{type(subject).__name__}.topology() returned {returned}, not a Topology")
    return result


def _compile_untouched(graph: Any) -> Any:
    """`graph.compile()`, then every graph it froze (itself, nested ones) open again as it was before."""
    flags = [(g, g._compiled) for g in _graphs(graph, set())]
    try:
        return graph.compile()
    finally:
        for g, was_compiled in flags:
            g._compiled = was_compiled


def _graphs(graph: Any, seen: set[int]) -> Iterator[Any]:
    """The graph and the graphs nested in its nodes (`NodeSpec.graph`), each once."""
    if id(graph) in seen or not hasattr(graph, "_compiled"):
        return
    seen.add(id(graph))
    yield graph
    for spec in getattr(graph, "nodes", {}).values():
        nested = getattr(spec, "graph", None)
        if nested is not None:
            yield from _graphs(nested, seen)
