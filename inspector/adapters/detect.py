"""Recognise another engine's graph by its class, without importing the engine."""

from __future__ import annotations

from typing import Any

__all__ = ["is_langgraph"]

_LANGGRAPH_CLASSES = frozenset({"StateGraph", "CompiledStateGraph", "Pregel", "CompiledGraph"})


def is_langgraph(obj: Any) -> bool:
    """Whether `obj` is a LangGraph `StateGraph` (uncompiled) or a compiled LangGraph graph.

    Checked through the class hierarchy's module and class names, so a graph_core object (or anything
    else) never triggers a LangGraph import.
    """
    for cls in type(obj).__mro__:
        module = getattr(cls, "__module__", "") or ""
        if module.startswith("langgraph.") and cls.__name__ in _LANGGRAPH_CLASSES:
            return True
    return False
