"""The lint finding codes and what each means: a table of its own so that the CLI can list them in
`inspector lint --help` without loading the linter (and networkx) for every other command."""

from __future__ import annotations

__all__ = ["CODES"]

CODES: dict[str, str] = {
    "unreachable": "a node no path from START reaches (error)",
    "end-unreachable": "no run can reach END (error)",
    "cannot-reach-end": "a node with no path to END (warning)",
    "dag-cycle": "a cycle in DAG mode (error)",
    "budget-too-small": "the shortest run needs more supersteps than the budget (error)",
    "branch-target-never-chosen": "an agent branch that only set_return_directly() can take (info)",
    "cycle": "a Pregel loop and how often the budget lets a run go round it (info)",
    "step-budget": "the step budget (info)",
}
"""Every finding code with what it means; `--ignore` and `silence` accept only these."""
