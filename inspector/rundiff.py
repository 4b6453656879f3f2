"""Step-aligned comparison of two recorded runs: where they part, and what differs at each step.

Steps are aligned by position (step 0 with step 0, ...), which is what "the same graph, run again" means
for Pregel and DAG runs alike. At each aligned step four control facts are compared (the nodes that ran,
the branch decisions, the tool calls requested and run, with their arguments, and what failed, by
exception type); the step a run died in is compared the same way. The first step where one
of them differs is the *first divergence*. State and budget are compared at every aligned step too, as
data rather than control: they make two runs differ without being where the paths fork. Timestamps,
durations and run IDs are never compared.

When one run is a fork of the other (`inspector fork`: its header's `meta.fork` names the other's run
ID), the runs are aligned at the fork point: the steps before it were replayed from the parent and are
not compared (a replayed step ran no tools, so it would differ in tool records only), and the first
divergence is searched from the fork step on.

When the two runs come from different topologies the comparison still runs, with a note and the topology
changes at the top, because "what did my change to the graph do to this run" is a normal question.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.recording.format import BudgetRecord
from inspector.recording.reader import NodeRun, Run, Step, UnfinishedStep, read_run
from inspector.recording.statediff import Change
from inspector.recording.valuelist import LISTS, json_default, plain
from inspector.rundiff_state import StatePairs
from inspector.snapshot.topology_diff import TopologyChange, diff_topologies
from inspector.snapshot.trajectory import step_failures
from inspector.terminaltext import visible

__all__ = ["BudgetDelta", "RunDiff", "StepDiff", "diff_runs"]

_BUDGET_FIELDS = (
    "steps_used",
    "steps_max",
    "steps_remaining",
    "model_calls",
    "tool_calls",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "iterations_remaining",
)
_MAX_CHANGES_SHOWN = 5


@dataclass(frozen=True, slots=True)
class BudgetDelta:
    """One budget field that differs: its value in run A and run B; `delta` is B - A when both are set."""

    field: str
    a: int | None
    b: int | None

    @property
    def delta(self) -> int | None:
        return None if self.a is None or self.b is None else self.b - self.a

    def describe(self) -> str:
        delta = self.delta
        sign = "" if delta is None else f" ({delta:+d})"
        return f"{self.field} {self.a} -> {self.b}{sign}"


@dataclass(slots=True)
class StepDiff:
    """What differs at one aligned step. A control fact is `(a, b)` when it differs, else None.

    `index` is the step's position in the runs (0, 1, 2, ... across segments); `where` names it as the
    other views do: `step 3`, or `segment 1 step 0` in a run resumed into its file (indices restart in
    each segment), with both runs' names when they are segmented differently there.
    """

    index: int
    nodes: tuple[list[str], list[str]] | None = None
    branches: tuple[list[str], list[str]] | None = None
    tool_calls: tuple[list[str], list[str]] | None = None
    failures: tuple[list[str], list[str]] | None = None
    state: list[Change] = field(default_factory=lambda: [])
    budget: list[BudgetDelta] = field(default_factory=lambda: [])
    where: str = ""
    segment: int | None = None
    segment_index: int | None = None

    @property
    def diverges(self) -> bool:
        """True when control differs here (nodes, branch decisions, tool calls or failures)."""
        return (
            self.nodes is not None
            or self.branches is not None
            or self.tool_calls is not None
            or self.failures is not None
        )

    @property
    def empty(self) -> bool:
        return not self.diverges and not self.state and not self.budget


@dataclass(slots=True)
class RunDiff:
    """The comparison of run A (the reference) with run B."""

    a: str
    b: str
    topology_changes: list[TopologyChange]
    topology_known: bool
    length: tuple[int, int]
    status: tuple[str, str]
    output_equal: bool
    error: tuple[str | None, str | None]
    steps: list[StepDiff]
    final_budget: list[BudgetDelta]
    end_where: str = ""
    """How the step where the shorter run ended is named (see `StepDiff.where`); empty: `step N`."""
    end_place: tuple[int, int] | None = None
    """That step's (segment, index in segment) when `end_where` names one."""
    fork_step: int | None = None
    """The step where one run forks the other (steps before it not compared); None if neither does."""

    @property
    def first_divergence(self) -> StepDiff | None:
        """The first aligned step where control differs; None if the shorter run is a prefix of the other."""
        return next((s for s in self.steps if s.diverges), None)

    @property
    def graph_changes(self) -> list[TopologyChange]:
        """Topology changes other than the chat model's identity: a replay or a model swap runs the same
        graph, so only these make two runs non-equivalent."""
        return [c for c in self.topology_changes if c.kind != "model_changed"]

    @property
    def equivalent(self) -> bool:
        return (
            not self.graph_changes
            and self.length[0] == self.length[1]
            and self.status[0] == self.status[1]
            and self.error[0] == self.error[1]
            and self.output_equal
            and not self.steps
            and not self.final_budget
        )

    def divergence_text(self) -> str | None:
        """One sentence: where the runs part and how; None when they never do."""
        step = self.first_divergence
        if step is not None:
            for label, fact in (
                ("different nodes ran", step.nodes),
                ("different branch decision", step.branches),
                ("different tool calls", step.tool_calls),
                ("different failures", step.failures),
            ):
                if fact is not None:
                    where = step.where or f"step {step.index}"
                    return f"{where}: {label}: A {_list(fact[0])}, B {_list(fact[1])}"
        n_a, n_b = self.length
        if n_a != n_b:
            longer = "A" if n_a > n_b else "B"
            return (
                f"{self.end_where or f'step {min(n_a, n_b)}'}: run {'B' if longer == 'A' else 'A'} ended "
                f"({self.status[1] if longer == 'A' else self.status[0]}) "
                f"while run {longer} went on ({max(n_a, n_b)} steps)"
            )
        return None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (`inspector diff --json`)."""
        return {
            "a": self.a,
            "b": self.b,
            "equivalent": self.equivalent,
            "topology": {
                "same": not self.topology_changes,
                "known": self.topology_known,
                "changes": [c.describe() for c in self.topology_changes],
            },
            "steps": {"a": self.length[0], "b": self.length[1]},
            "status": {"a": self.status[0], "b": self.status[1]},
            "error": {"a": self.error[0], "b": self.error[1]},
            "output_equal": self.output_equal,
            "fork_step": self.fork_step,
            "first_divergence": _divergence_dict(self),
            "step_differences": [_step_dict(s) for s in self.steps],
            "final_budget": [_budget_dict(d) for d in self.final_budget],
        }

    def to_text(self) -> str:
        """The report `inspector diff` prints: one line per fact, recorded text (node keys, tool calls,
        values, error types, paths) escaped as everywhere on a terminal (`terminaltext.visible`)."""
        lines = [f"A: {self.a}", f"B: {self.b}"]
        if not self.topology_known:
            lines.append("topology: not recorded in one of the runs; steps aligned by index")
        elif self.graph_changes:
            n = len(self.topology_changes)
            lines.append(
                f"topology: the runs come from different topologies ({n} change{'s' if n != 1 else ''}); "
                "steps are still aligned by index:"
            )
            lines.extend(f"  - {c.describe()}" for c in self.topology_changes)
        else:
            lines.append("topology: same")
            lines.extend(f"  note: {c.describe()}" for c in self.topology_changes)
        lines.append(
            f"steps: A {self.length[0]}, B {self.length[1]}; status: A {self.status[0]}, B {self.status[1]}"
        )
        if self.fork_step is not None:
            lines.append(
                f"fork: aligned at step {self.fork_step} (one run forks the other there; the steps before "
                "it were replayed and are not compared)"
            )
        if self.error[0] != self.error[1]:
            lines.append(f"error: A {self.error[0] or 'none'}, B {self.error[1] or 'none'}")
        if not self.output_equal:
            lines.append("output: differs")
        divergence = self.divergence_text()
        lines.append(f"first divergence: {divergence}" if divergence else "first divergence: none")
        for step in self.steps:
            lines.extend(_step_lines(step))
        if self.final_budget:
            lines.append("budget at the end: " + ", ".join(d.describe() for d in self.final_budget))
        lines.append("result: equivalent" if self.equivalent else "result: the runs differ")
        return "".join(f"{visible(line)}\n" for line in lines)


def _list(items: list[str]) -> str:
    return "[" + "; ".join(items) + "]"


def _short(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=json_default)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _change_text(change: Change) -> str:
    if change.op == "changed":
        return f"{change.path_text}: A {_short(change.old)}, B {_short(change.new)}"
    if change.op in ("added", "appended"):
        return f"{change.path_text}: only in B: {_short(change.new)}"
    return f"{change.path_text}: only in A: {_short(change.old)}"


def _step_lines(step: StepDiff) -> list[str]:
    lines = [f"{step.where or f'step {step.index}'}:"]
    for label, fact in (
        ("nodes", step.nodes),
        ("branches", step.branches),
        ("tool calls", step.tool_calls),
        ("failures", step.failures),
    ):
        if fact is not None:
            lines.append(f"  {label}: A {_list(fact[0])}, B {_list(fact[1])}")
    if step.state:
        lines.append(f"  state ({len(step.state)} difference{'s' if len(step.state) != 1 else ''}):")
        lines.extend(f"    {_change_text(c)}" for c in step.state[:_MAX_CHANGES_SHOWN])
        if len(step.state) > _MAX_CHANGES_SHOWN:
            lines.append(f"    ... and {len(step.state) - _MAX_CHANGES_SHOWN} more")
    if step.budget:
        lines.append("  budget: " + ", ".join(d.describe() for d in step.budget))
    return lines


def _budget_dict(d: BudgetDelta) -> dict[str, Any]:
    return {"field": d.field, "a": d.a, "b": d.b, "delta": d.delta}


def _step_dict(step: StepDiff) -> dict[str, Any]:
    out: dict[str, Any] = {
        "index": step.index,
        "segment": step.segment,
        "segment_index": step.segment_index,
        "diverges": step.diverges,
    }
    for name in ("nodes", "branches", "tool_calls", "failures"):
        fact = getattr(step, name)
        out[name] = None if fact is None else {"a": fact[0], "b": fact[1]}
    out["state"] = [
        {"path": c.path_text, "op": c.op, "a": plain(c.old), "b": plain(c.new)} for c in step.state
    ]
    out["budget"] = [_budget_dict(d) for d in step.budget]
    return out


def _divergence_dict(diff: RunDiff) -> dict[str, Any] | None:
    text = diff.divergence_text()
    if text is None:
        return None
    step = diff.first_divergence
    index = step.index if step is not None else min(diff.length)
    out: dict[str, Any] = {"step": index, "description": text}
    if step is not None and step.segment is not None:
        out["segment"], out["segment_index"] = step.segment, step.segment_index
    elif step is None and diff.end_place is not None:
        out["segment"], out["segment_index"] = diff.end_place
    return out


# --- extraction -----------------------------------------------------------------------------------


def _branches(step: Step) -> list[str]:
    return [f"{b.source} -> {', '.join(b.chosen) or '(nothing)'}" for b in step.branches]


def _tool_calls(runs: list[NodeRun]) -> list[str]:
    out: list[str] = []
    for run in runs:
        if len(run.path) > 1:
            continue
        output = run.output
        messages = [output] if isinstance(output, dict) else output if isinstance(output, LISTS) else []
        for message in messages:  # pyright: ignore[reportUnknownVariableType]
            calls = message.get("tool_calls") if isinstance(message, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            if isinstance(calls, list):  # a hand-edited file may hold anything here
                for call in calls:  # pyright: ignore[reportUnknownVariableType]
                    if isinstance(call, dict):
                        out.append(f"{run.node} requested {call.get('name')}({call.get('arguments')})")  # pyright: ignore[reportUnknownMemberType]
        # Parallel tools finish in any order; the order they were requested in is the model's (kept above).
        out.extend(sorted(f"{run.node} ran {tool.name}({tool.input})" for tool in run.tools))
    return out


def _compare_unfinished(index: int, a: UnfinishedStep | None, b: UnfinishedStep | None) -> StepDiff:
    """The step each run died in (after the same number of finished steps): what ran, called and failed."""
    diff = StepDiff(index)
    nodes_a, nodes_b = list(a.nodes) if a else [], list(b.nodes) if b else []
    if nodes_a != nodes_b:
        diff.nodes = (nodes_a, nodes_b)
    runs_a, runs_b = a.node_runs if a else [], b.node_runs if b else []
    calls_a, calls_b = _tool_calls(runs_a), _tool_calls(runs_b)
    if calls_a != calls_b:
        diff.tool_calls = (calls_a, calls_b)
    failures_a, failures_b = step_failures(runs_a), step_failures(runs_b)
    if failures_a != failures_b:
        diff.failures = (failures_a, failures_b)
    return diff


def _budget_deltas(a: BudgetRecord | None, b: BudgetRecord | None) -> list[BudgetDelta]:
    if a is None or b is None:
        return []
    return [
        BudgetDelta(name, getattr(a, name), getattr(b, name))
        for name in _BUDGET_FIELDS
        if getattr(a, name) != getattr(b, name)
    ]


def _compare_step(index: int, a: Step, b: Step, state: list[Change]) -> StepDiff:
    diff = StepDiff(index)
    if a.nodes != b.nodes:
        diff.nodes = (list(a.nodes), list(b.nodes))
    branches_a, branches_b = _branches(a), _branches(b)
    if branches_a != branches_b:
        diff.branches = (branches_a, branches_b)
    calls_a, calls_b = _tool_calls(a.node_runs), _tool_calls(b.node_runs)
    if calls_a != calls_b:
        diff.tool_calls = (calls_a, calls_b)
    failures_a, failures_b = step_failures(a.node_runs), step_failures(b.node_runs)
    if failures_a != failures_b:
        diff.failures = (failures_a, failures_b)
    diff.state = state
    diff.budget = _budget_deltas(a.budget, b.budget)
    return diff


def _where(position: int, run_a: Run, run_b: Run) -> tuple[str, int | None, int | None]:
    """How step `position` is named (text, segment, index in segment); ("", None, None) for `step N`.

    Named only when a run was resumed into its file; a run in one segment places step N at (0, N).
    """
    if len(run_a.segments) < 2 and len(run_b.segments) < 2:
        return "", None, None
    a, b = _place(run_a, position), _place(run_b, position)
    if a is not None and b is not None and a != b:
        return f"step {position} (A segment {a[0]} step {a[1]}, B segment {b[0]} step {b[1]})", None, None
    place = a or b
    if place is None:
        return "", None, None
    return f"segment {place[0]} step {place[1]}", place[0], place[1]


def _place(run: Run, position: int) -> tuple[int, int] | None:
    """(segment, index in segment) of the step at `position`; None past the run's end."""
    if position >= len(run.steps):
        return None
    if len(run.segments) < 2:
        return 0, position
    step = run.steps[position]
    return step.segment, step.index


def _as_run(subject: Run | str | os.PathLike[str]) -> Run:
    return subject if isinstance(subject, Run) else read_run(Path(subject))


def _error_text(run: Run) -> str | None:
    if run.error is None:
        return None
    path = f" at {'/'.join(run.error.node_path)}" if run.error.node_path else ""
    return f"{run.error.type}{path}"


def diff_runs(a: Run | str | os.PathLike[str], b: Run | str | os.PathLike[str], /) -> RunDiff:
    """Compare run A (the reference) with run B, step by step; see the module docstring."""
    run_a, run_b = _as_run(a), _as_run(b)
    known = run_a.topology is not None and run_b.topology is not None
    topology_changes = (
        diff_topologies(run_a.topology, run_b.topology)
        if run_a.topology is not None and run_b.topology is not None
        else []
    )
    n_a, n_b = len(run_a.steps), len(run_b.steps)
    steps: list[StepDiff] = []
    fork_step = _fork_step(run_a, run_b)
    states = StatePairs(run_a, run_b)
    for i in range(fork_step or 0, min(n_a, n_b)):
        step = _compare_step(i, run_a.steps[i], run_b.steps[i], states.changes_at(i))
        if not step.empty:
            step.where, step.segment, step.segment_index = _where(i, run_a, run_b)
            steps.append(step)
    if n_a == n_b and (run_a.unfinished is not None or run_b.unfinished is not None):
        step = _compare_unfinished(n_a, run_a.unfinished, run_b.unfinished)
        if not step.empty:
            died = run_a.unfinished or run_b.unfinished
            if died is not None and (len(run_a.segments) > 1 or len(run_b.segments) > 1):
                step.segment, step.segment_index = died.segment, died.index
                step.where = f"segment {died.segment} step {died.index}"
            steps.append(step)
    end = _where(min(n_a, n_b), run_a, run_b) if n_a != n_b else ("", None, None)
    final_a = run_a.steps[-1].budget if n_a else None
    final_b = run_b.steps[-1].budget if n_b else None
    return RunDiff(
        a=str(run_a.path),
        b=str(run_b.path),
        topology_changes=topology_changes,
        topology_known=known,
        length=(n_a, n_b),
        status=(run_a.status, run_b.status),
        output_equal=run_a.output == run_b.output,
        error=(_error_text(run_a), _error_text(run_b)),
        steps=steps,
        final_budget=_budget_deltas(final_a, final_b),
        end_where=end[0],
        end_place=None if end[1] is None or end[2] is None else (end[1], end[2]),
        fork_step=fork_step,
    )


def _fork_step(a: Run, b: Run) -> int | None:
    """The fork step when one run's header says it forks the other (by run ID), else None."""
    for child, parent in ((b, a), (a, b)):
        fork = child.header.meta.get("fork")
        if isinstance(fork, dict) and fork.get("parent_run_id") == parent.run_id:  # pyright: ignore[reportUnknownMemberType]
            step = fork.get("step")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            if isinstance(step, int):
                return step
    return None
