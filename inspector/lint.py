"""Static checks of a topology: what can never run, what can never finish, loops, and the step budget.

Runs on the neutral `Topology` (through networkx), so it works on anything `as_topology` accepts.
Agent knowledge that the topology cannot carry (which tools return directly) comes from duck typing
on the object passed in, or from the explicit `never_chosen` hint.

Findings can be silenced by code: per call (`lint(x, ignore=["cycle"])`, `inspector lint --ignore
cycle`), or per graph, next to the code that builds it (`silence(agent, "cycle")`), which then holds
for every lint of that object, the command line's included. Silenced findings are counted, not lost.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any, Literal

import networkx as nx
from pydantic import BaseModel, ConfigDict

from graph_core.topology import END, START, Topology, TriggerMode
from inspector.export import as_topology
from inspector.lint_codes import CODES

__all__ = ["CODES", "Finding", "LintResult", "Severity", "has_errors", "lint", "lint_report", "silence"]

Severity = Literal["error", "warning", "info"]
_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
_UNBOUNDED = 10**9  # budgets above this (ADK uses math.MaxInt) are reported as effectively unlimited
_DEFAULT_EXTRA_STEPS = 10  # Eino: max run steps default to user-added nodes + 10 in Pregel mode


_SILENCED: weakref.WeakKeyDictionary[Any, frozenset[str]] = weakref.WeakKeyDictionary()


class Finding(BaseModel):
    """One problem or fact. `nodes` are keys inside the graph named by `graph_path` (empty: top level)."""

    model_config = ConfigDict(frozen=True)

    severity: Severity
    code: str
    nodes: tuple[str, ...] = ()
    message: str
    graph_path: tuple[str, ...] = ()

    def __str__(self) -> str:
        where = f"[{' / '.join(self.graph_path)}] " if self.graph_path else ""
        return f"{self.severity}: {self.code}: {where}{self.message}"


def has_errors(findings: Iterable[Finding]) -> bool:
    return any(f.severity == "error" for f in findings)


class LintResult(BaseModel):
    """What `lint_report` found: the findings shown, and how many were silenced, by code."""

    model_config = ConfigDict(frozen=True)

    findings: tuple[Finding, ...]
    silenced: dict[str, int]


def _checked_codes(codes: Iterable[str]) -> frozenset[str]:
    chosen = frozenset(codes)
    unknown = sorted(chosen - CODES.keys())
    if unknown:
        known = ", ".join(sorted(CODES))
        raise ValueError(f"unknown lint code(s) {', '.join(unknown)}; the codes are: {known}")
    return chosen


def silence(subject: Any, /, *codes: str) -> Any:
    """Silence finding `codes` for this graph or agent wherever it is linted; returns `subject`.

    Call it where the graph is built (`agent = silence(ReActAgent(...), "cycle")`): the CLI imports that
    module, so `inspector lint` honours it too. Calling it again adds codes. Unknown codes are a
    `ValueError` (a typo must not silence nothing quietly)."""
    chosen = _checked_codes(codes)
    try:
        _SILENCED[subject] = _SILENCED.get(subject, frozenset()) | chosen
    except TypeError as exc:
        raise TypeError(f"cannot silence lint findings on a {type(subject).__name__}: {exc}") from None
    return subject


def _silenced_for(subject: Any) -> frozenset[str]:
    """Codes silenced on the object, on the compiled graph it holds, or on the graph that compiled it."""
    found: frozenset[str] = frozenset()
    for candidate in (subject, getattr(subject, "compiled", None), getattr(subject, "graph", None)):
        if candidate is None:
            continue
        try:
            found |= _SILENCED.get(candidate, frozenset())
        except TypeError:  # unhashable or not weakly referenceable: nothing can have been silenced
            continue
    return found


def lint_report(
    subject: Any, /, *, never_chosen: Iterable[tuple[str, str]] = (), ignore: Iterable[str] = ()
) -> LintResult:
    """`lint` plus how many findings each silenced code hid (per call `ignore` and per graph `silence`)."""
    ignored = _checked_codes(ignore) | _silenced_for(subject)
    hints = set(never_chosen)
    configured = getattr(subject, "tool_return_directly", None)
    if configured is not None and not configured:
        hints.add(("tools", "direct_return"))
    topology = as_topology(subject)
    everything = sorted(_lint_graph(topology, (), hints), key=lambda f: _SEVERITY_ORDER[f.severity])
    silenced: dict[str, int] = {}
    for finding in everything:
        if finding.code in ignored:
            silenced[finding.code] = silenced.get(finding.code, 0) + 1
    kept = tuple(f for f in everything if f.code not in ignored)
    return LintResult(findings=kept, silenced=dict(sorted(silenced.items())))


def lint(
    subject: Any, /, *, never_chosen: Iterable[tuple[str, str]] = (), ignore: Iterable[str] = ()
) -> list[Finding]:
    """Check a topology, compiled graph or agent; findings sorted by severity, then graph order.

    `never_chosen` names branch edges `(source, target)` that can never be taken; an agent with a
    `tool_return_directly` attribute that is empty adds `("tools", "direct_return")` by itself.
    `ignore` leaves out findings with those codes (see `CODES`), as does `silence(subject, ...)`.
    """
    return list(lint_report(subject, never_chosen=never_chosen, ignore=ignore).findings)


def _digraph(topology: Topology) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(n.key for n in topology.nodes)
    graph.add_edges_from((e.source, e.target) for e in topology.edges)
    return graph


def _q(key: str) -> str:
    return f"`{key!s}`" if key.isprintable() else f"`{key!r}`"


def _lint_graph(
    topology: Topology, path: tuple[str, ...], never_chosen: set[tuple[str, str]]
) -> list[Finding]:
    graph = _digraph(topology)
    order = {n.key: i for i, n in enumerate(topology.nodes)}
    findings: list[Finding] = []

    def add(severity: Severity, code: str, nodes: Iterable[str], message: str) -> None:
        findings.append(
            Finding(severity=severity, code=code, nodes=tuple(nodes), message=message, graph_path=path)
        )

    reachable = nx.descendants(graph, START) | {START} if START in graph else set()
    finishing = nx.ancestors(graph, END) | {END} if END in graph else set()
    for node in topology.nodes:
        if node.key not in reachable:
            add("error", "unreachable", [node.key], f"node {_q(node.key)} can never run: no path from START.")
        elif node.key not in finishing:
            add(
                "warning",
                "cannot-reach-end",
                [node.key],
                f"node {_q(node.key)} has no path to END: a run that gets there cannot finish through it.",
            )
    if END not in reachable:
        add("error", "end-unreachable", [END], "END cannot be reached from START: no run can finish.")

    if path == ():
        for source, target in sorted(never_chosen):
            if any(e.source == source and e.target == target and e.kind == "branch" for e in topology.edges):
                add(
                    "info",
                    "branch-target-never-chosen",
                    [source, target],
                    f"branch {_q(source)} -> {_q(target)} is never taken: the agent has no return-directly "
                    "tools (only a tool calling `set_return_directly()` could select it).",
                )

    pregel = topology.trigger_mode == TriggerMode.ANY_PREDECESSOR
    budget = topology.max_run_steps
    if pregel and budget is None:
        budget = sum(1 for n in topology.nodes if n.key not in (START, END)) + _DEFAULT_EXTRA_STEPS
    shortest = _shortest_run(graph)
    cycles = _cycles(graph, order)
    for cycle in cycles:
        loop = " -> ".join(_q(k) for k in [*cycle, cycle[0]])
        if not pregel:
            add(
                "error",
                "dag-cycle",
                cycle,
                f"cycle {loop} in DAG mode (AllPredecessor): DAG graphs must be acyclic.",
            )
            continue
        message = f"Pregel cycle {loop}: each pass costs {len(cycle)} superstep(s)"
        if budget is not None and budget < _UNBOUNDED and shortest is not None:
            # passes that leave room for the shortest way to END: a run may go around once more and
            # then run out of budget (12 steps: 6 agent -> tools rounds, but 5 and the answer)
            passes = max(0, (budget - shortest) // len(cycle))
            message += (
                f"; within the budget of {budget} a run can go around it at most {passes} time(s)"
                " and still reach END"
            )
        add("info", "cycle", cycle, message + ".")

    if not pregel:
        add("info", "step-budget", [], "DAG mode (AllPredecessor): no step limit.")
    elif budget is not None:
        source = "max_run_steps" if topology.max_run_steps is not None else "default: user nodes + 10"
        limit = "effectively unlimited" if budget >= _UNBOUNDED else f"{budget} superstep(s)"
        add("info", "step-budget", [], f"step budget: {limit} ({source}).")
        if shortest is not None and shortest > budget:
            add(
                "error",
                "budget-too-small",
                [],
                f"the shortest run from START to END needs {shortest} supersteps but the budget is {budget}.",
            )
    for node in topology.nodes:
        if node.graph is not None:
            findings.extend(_lint_graph(node.graph, (*path, node.key), set()))
    return findings


def _shortest_run(graph: nx.DiGraph) -> int | None:
    """Supersteps of the shortest START -> END path (START and reaching END are not steps)."""
    try:
        edges = nx.shortest_path_length(graph, START, END)
    except (nx.NetworkXNoPath, nx.NodeNotFound):
        return None
    return max(0, int(edges) - 1)


def _cycles(graph: nx.DiGraph, order: dict[str, int]) -> list[list[str]]:
    """One representative cycle per strongly connected part, starting at its earliest node."""
    result: list[list[str]] = []
    for component in nx.strongly_connected_components(graph):
        members = sorted(component, key=order.__getitem__)
        first = members[0]
        if len(members) == 1 and not graph.has_edge(first, first):
            continue
        edges = nx.find_cycle(graph.subgraph(members), source=first)
        cycle = [u for u, _ in edges]
        pivot = min(range(len(cycle)), key=lambda i: order[cycle[i]])
        result.append(cycle[pivot:] + cycle[:pivot])
    return sorted(result, key=lambda c: order[c[0]])
