"""Turn whatever a user hands us (a `Topology`, a compiled graph, an agent, a `Graph`) into a `Topology`.

Every exporter, the terminal drawing and the lint accept all four, so the rule lives in one place and is
duck-typed: the inspector never needs to import the engine's classes to recognise them.
"""

from __future__ import annotations

from typing import Any

from graph_core.topology import Topology

__all__ = ["as_topology"]


def as_topology(subject: Any, /) -> Topology:
    """Return the `Topology` of a `Topology`, a `CompiledGraph`, an agent (`.compiled`) or a `Graph`."""
    if isinstance(subject, Topology):
        return subject
    compiled = getattr(subject, "compiled", None)
    if compiled is not None and callable(getattr(compiled, "topology", None)):
        return _checked(compiled.topology(), subject)
    if callable(getattr(subject, "topology", None)):
        return _checked(subject.topology(), subject)
    if callable(getattr(subject, "compile", None)) and hasattr(subject, "add_edge"):
        return _checked(subject.compile().topology(), subject)
    raise TypeError(
        f"expected a Topology, a CompiledGraph, a Graph or an agent with `.compiled`, got "
        f"{type(subject).__name__}"
    )


def _checked(result: Any, subject: Any) -> Topology:
    if not isinstance(result, Topology):
        returned = type(result).__name__
        raise TypeError(f"{type(subject).__name__}.topology() returned {returned}, not a Topology")
    return result
