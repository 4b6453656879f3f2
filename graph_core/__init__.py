"""graph_core: a faithful Python re-implementation of CloudWeGo Eino's graph engine and ReAct agents.

Headless by design: it imports only the standard library and pydantic (never `inspector`, textual,
networkx or graphviz), so agents can run anywhere and observers attach through callbacks.
"""

from graph_core.branch import Branch
from graph_core.graph import Graph
from graph_core.interrupt import get_interrupt_state, get_resume_data, interrupt
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
