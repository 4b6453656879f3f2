"""The walk over a run's steps that the listing cannot do from its tail: nodes visited, diagnostics,
per-node durations, tokens and errors, branches taken, the cycle that exhausted the budget.

One pass over `run.steps` feeds both the diagnostics (`inspector.diagnostics.Findings`, as `inspector
show` does) and the statistics, so each step is decoded once. Only the top level of the graph counts
(nested graphs' inner steps are not nodes of the graph a fleet is drawn on), as in `RunOverlay`.
"""

from __future__ import annotations

from typing import Any

from inspector.catalog.record import NodeFacts, RunFacts

__all__ = ["facts_of"]


def facts_of(run: Any) -> RunFacts:
    """Walk `run` (an `inspector.recording.Run`) once."""
    from inspector.diagnostics import Findings

    findings = Findings(run)
    facts = RunFacts()
    nodes = facts.nodes
    steps = run.steps
    segment, previous = 0, 0
    for position in range(len(steps)):
        step = steps[position]
        findings.add(position, step)
        if step.segment != segment:  # a resumed run counts its budget afresh
            segment, previous = step.segment, 0
        total = step.budget.total_tokens or 0
        spent, previous = total - previous, total
        for key in step.nodes:
            node = nodes.get(key)
            if node is None:
                node = nodes[key] = NodeFacts()
            node.visits += 1
            node.tokens += spent
        _node_runs(nodes, step.node_runs)
        for decision in step.branches:
            if decision.path:
                continue
            targets = facts.branches.setdefault(decision.source, {})
            for target in decision.chosen:
                targets[target] = targets.get(target, 0) + 1
    unfinished = run.unfinished
    if unfinished is not None:
        for key in unfinished.nodes:
            node = nodes.get(key)
            if node is None:
                node = nodes[key] = NodeFacts()
            node.visits += 1
        _node_runs(nodes, unfinished.node_runs)
    facts.steps = len(steps)
    facts.visited = sorted(nodes)
    for diagnostic in findings.finish():
        if diagnostic.code not in facts.diagnostics:
            facts.diagnostics.append(diagnostic.code)
        if diagnostic.code == "budget-exhausted" and diagnostic.nodes:
            facts.cycle = list(diagnostic.nodes)
    return facts


def _node_runs(nodes: dict[str, NodeFacts], node_runs: list[Any]) -> None:
    for node_run in node_runs:
        if len(node_run.path) > 1:
            continue
        node = nodes.get(node_run.node)
        if node is None:
            node = nodes[node_run.node] = NodeFacts()
        if node_run.duration is not None:
            node.durations.append(node_run.duration)
        if node_run.error is not None or any(tool.error is not None for tool in node_run.tools):
            node.errors += 1
