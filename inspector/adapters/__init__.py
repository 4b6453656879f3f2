"""Adapters that let the inspector read graphs of other engines as it reads graph_core graphs.

Each adapter produces what graph_core produces: a `graph_core.topology.Topology` and the callback facts
the `Recorder` consumes. Everything downstream (exports, recordings, replay, diagnostics, the TUI) stays
engine-neutral. Adapters import their engine lazily: `is_langgraph` only looks at class and module
names, so recognising a graph costs nothing for a user who does not have LangGraph installed.
"""

from inspector.adapters.detect import is_langgraph

__all__ = ["is_langgraph"]
