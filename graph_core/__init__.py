"""graph_core: a faithful Python re-implementation of CloudWeGo Eino's graph engine and ReAct agents.

Headless by design: it imports only the standard library and pydantic (never `inspector`, textual,
networkx or graphviz), so agents can run anywhere and observers attach through callbacks.

The public names below are imported when first used (`from graph_core import Graph` works as ever):
a reader of recorded runs needs `graph_core.schema` and `graph_core.topology` only, and importing the
whole engine (the runner, asyncio, streams) cost every `inspector` command ~30 ms at start-up.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# Imported now, not when first used: the function `interrupt` shares its name with its module, and a
# submodule imported later (by the engine) would otherwise be bound over it as `graph_core.interrupt`.
from graph_core.interrupt import get_interrupt_state, get_resume_data, interrupt

if TYPE_CHECKING:
    from graph_core.branch import Branch
    from graph_core.graph import Graph
    from graph_core.lambda_ import Lambda
    from graph_core.runner.channels import register_values_merge
    from graph_core.runner.compiled import CompiledGraph
    from graph_core.state import process_state, stream_handler
    from graph_core.stream import register_stream_chunk_concat
    from graph_core.topology import END, START, Topology, TriggerMode

__all__ = [
    "END",
    "START",
    "Branch",
    "CompiledGraph",
    "Graph",
    "Lambda",
    "Topology",
    "TriggerMode",
    "get_interrupt_state",
    "get_resume_data",
    "interrupt",
    "process_state",
    "register_stream_chunk_concat",
    "register_values_merge",
    "stream_handler",
]

_HOMES = {
    "END": "graph_core.topology",
    "START": "graph_core.topology",
    "Branch": "graph_core.branch",
    "CompiledGraph": "graph_core.runner.compiled",
    "Graph": "graph_core.graph",
    "Lambda": "graph_core.lambda_",
    "Topology": "graph_core.topology",
    "TriggerMode": "graph_core.topology",
    "process_state": "graph_core.state",
    "register_stream_chunk_concat": "graph_core.stream",
    "register_values_merge": "graph_core.runner.channels",
    "stream_handler": "graph_core.state",
}
"""Each public name's module (but the interrupt functions', imported above)."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value  # found once: later reads skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
