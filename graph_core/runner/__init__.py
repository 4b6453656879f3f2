"""The graph runner: compiled plans, channels, the step logic and its sync and async drivers.

Public entry point is `CompiledGraph` (re-exported by `graph_core`); the rest is internal but kept as
explicit data (`RunData`) so checkpoints can capture a run between steps.
"""

from graph_core.runner.compiled import CompiledGraph
from graph_core.runner.options import RunOptions
from graph_core.runner.run import RunContext, RunData

__all__ = ["CompiledGraph", "RunContext", "RunData", "RunOptions"]
