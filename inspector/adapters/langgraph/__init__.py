"""LangGraph graphs in the inspector: their exact topology, and their runs recorded as run files.

Imported only when a TARGET (or a value handed to an exporter or a snapshot fixture) turns out to be a
LangGraph graph (`inspector.adapters.is_langgraph`); it needs the `langgraph` extra
(`pip install 'graph-inspector[langgraph]'`).

```python
from inspector.adapters.langgraph import LangGraphTarget, langgraph_topology
from inspector.recording import Recorder

langgraph_topology(compiled)                              # a graph_core Topology, read from the builder
LangGraphTarget(compiled).invoke({"messages": [...]}, callbacks=[Recorder("run.jsonl")])
```
"""

from __future__ import annotations

from typing import Any

from inspector.adapters.langgraph.messages import Neutralizer, to_message
from inspector.adapters.langgraph.recording import StepTranslator
from inspector.adapters.langgraph.runner import LangGraphTarget
from inspector.adapters.langgraph.topology import langgraph_topology

__all__ = [
    "LangGraphTarget",
    "Neutralizer",
    "StepTranslator",
    "as_target",
    "langgraph_topology",
    "to_message",
]


def as_target(graph: Any) -> LangGraphTarget:
    """A `LangGraphTarget` for a compiled LangGraph graph, or for a `StateGraph` (compiled here, without a
    checkpointer: compile it yourself to run it with one)."""
    if callable(getattr(graph, "compile", None)) and not hasattr(graph, "builder"):
        graph = graph.compile()
    return LangGraphTarget(graph)
