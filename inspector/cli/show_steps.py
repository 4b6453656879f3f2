"""The parts of `inspector show`'s step block that a nested run's steps share with the top level: the
budget in brackets, each tool call's result, what the nodes said; and the nested runs themselves.

A nested graph's steps (a graph node's nested graph, or the run of an agent used as a tool, recorded
under its tool call's path `ToolNode`, `weather_expert:call_expert`) are written with the top-level
step they ran in. `show` lists them under that step, one block per nested run, each step with its own
budget (the nested graph's own steps, and an agent's own iterations left; model and tool calls count
the whole run so far) and what its nodes did, so a reader sees the inner run where it happened instead
of its node runs mixed into the outer step.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from inspector.cli.plain import one_line, one_line_list
from inspector.cli.preview import Previews
from inspector.conversation import messages_of, passed_on
from inspector.errortext import error_text
from inspector.recording import NodeRun, Run, Step
from inspector.recording.format import BudgetRecord

__all__ = ["budget_text", "nested_lines", "said_lines", "tool_lines"]

_name = lru_cache(maxsize=1024)(one_line)


def budget_text(budget: BudgetRecord) -> str:
    if budget.steps_max is not None:
        parts = [f"steps {budget.steps_used}/{budget.steps_max}"]
    else:
        parts = [f"steps {budget.steps_used}"]
    if budget.model_calls or budget.tool_calls:
        parts.append(f"model {budget.model_calls}")
        parts.append(f"tools {budget.tool_calls}")
    if budget.total_tokens is not None:
        parts.append(f"tokens {budget.total_tokens}")
    if budget.iterations_remaining is not None:
        parts.append(f"iterations left {budget.iterations_remaining}")
    return ", ".join(parts)


def tool_lines(node_runs: Iterable[NodeRun], previews: Previews, indent: str = "    ") -> list[str]:
    """Each tool call's result (or failure), and each node that failed or interrupted."""
    lines: list[str] = []
    for node_run in node_runs:
        for tool in node_run.tools:
            # (a preview is on one line already)
            outcome = f"failed: {one_line(tool.error.message)}" if tool.error else previews(tool.output)
            lines.append(f"{indent}tool {_name(tool.name)} ({one_line(tool.tool_call_id)}): {outcome}")
        if node_run.error is not None and node_run.error.type == "InterruptSignal":
            lines.append(f"{indent}{one_line(node_run.node)} interrupted: {one_line(node_run.error.message)}")
        elif node_run.error is not None and not node_run.tools:
            failed = one_line(error_text(node_run.error.type, node_run.error.message))
            lines.append(f"{indent}{one_line(node_run.node)} failed: {failed}")
    return lines


def said_lines(node_runs: Iterable[NodeRun], previews: Previews, indent: str = "    ") -> list[str]:
    """What a step's nodes said: the messages they produced, other than tool results (each tool call
    already has its line); a node that returned the messages it was given `passed on` them."""
    lines: list[str] = []
    for node_run in node_runs:
        if node_run.error is not None:
            continue
        said = messages_of(node_run.output)
        verb = "passed on" if said and passed_on(node_run.input, node_run.output) else "said"
        for message in said:
            if message.get("role") != "tool":
                lines.append(f"{indent}{_name(node_run.node)} {verb}: {previews(message)}")
    return lines


def nested_lines(run: Run, step: Step, previews: Previews) -> list[str]:
    """The nested runs of `step`, in file order: a `nested run at PATH` line where the path changes,
    then each of its steps (header, tool results, what its nodes said, branch decisions)."""
    lines: list[str] = []
    current: tuple[str, ...] | None = None
    for record in step.nested:
        path = tuple(record.path)
        if path != current:
            current = path
            lines.append(f"    nested run at {' › '.join(map(_name, path))}")
        budget = run.budget_of(record, segment=step.segment)
        duration = f"  {record.duration * 1000:.1f} ms" if record.duration is not None else ""
        nodes = ", ".join(map(_name, record.nodes))
        lines.append(f"      step {record.index}  {nodes}  [{budget_text(budget)}]{duration}")
        node_runs = run.node_runs_of(record, segment=step.segment)
        lines.extend(tool_lines(node_runs, previews, "        "))
        lines.extend(said_lines(node_runs, previews, "        "))
        for branch in run.branches_of(record, segment=step.segment):
            lines.append(f"        branch {_name(branch.source)} -> {one_line_list(branch.chosen)}")
    return lines
