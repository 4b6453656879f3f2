"""`NodeDetail`: what each node did in the current step (input, output, error, duration).

At the last step of a run that failed or stopped early it also shows why: the run's error with its
node path, the nodes of the step that never finished, and the diagnostics. Values are clipped unless
expanded (`x`).
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from inspector.recording.format import ErrorRecord
from inspector.recording.reader import NodeRun, Step
from inspector.tui.literal import literal, one_line
from inspector.tui.session import StopReport

__all__ = ["NodeDetail", "render_detail", "render_stop"]

VALUE_LIMIT = 400
_SEVERITY = {"error": "bold red", "warning": "bold yellow", "info": "bold cyan"}


def _error(error: ErrorRecord, *, limit: int | None) -> Text:
    text = Text()
    text.append("error   ", style="bold red")
    text.append_text(one_line(error.type, limit=80, style="bold red"))
    text.append(": ")
    text.append_text(literal(error.message, limit=limit, multiline=True, style="red"))
    if error.node_path:
        text.append("\nat      ", style="bold red")
        text.append_text(one_line(" › ".join(error.node_path), limit=200))
    if error.cause_type:
        text.append("\ncause   ", style="dim")
        text.append_text(one_line(f"{error.cause_type}: {error.cause_message or ''}", limit=limit))
    return text


def _node_run(run: NodeRun, *, limit: int | None, indent: str = "") -> Text:
    text = Text(indent)
    label = " › ".join(run.path) if len(run.path) > 1 else run.node
    text.append_text(one_line(label, limit=80, style="bold"))
    if run.component:
        text.append("  ")
        text.append_text(one_line(run.component, limit=40, style="dim"))
    if run.name and run.name not in (run.node, run.component):
        text.append("  ")
        text.append_text(one_line(run.name, limit=60, style="cyan"))
    if run.tool_call_id:
        text.append_text(one_line(f"  ({run.tool_call_id})", limit=80, style="dim"))
    if run.duration is not None:
        text.append(f"  {run.duration * 1000:.1f} ms", style="dim")
    text.append(f"\n{indent}  input   ", style="dim")
    text.append_text(one_line(run.input, limit=limit))
    if run.error is not None:
        text.append(f"\n{indent}  ")
        text.append_text(_error(run.error, limit=limit))
    elif run.finished is None:
        text.append(f"\n{indent}  (did not finish)", style="yellow")
    else:
        text.append(f"\n{indent}  output  ", style="dim")
        text.append_text(one_line(run.output, limit=limit))
    for tool in run.tools:
        text.append("\n")
        text.append_text(_node_run(tool, limit=limit, indent=indent + "    "))
    return text


def render_stop(report: StopReport, *, limit: int | None = VALUE_LIMIT) -> Text:
    """Why the run stopped: status, error and where, the unfinished step, the diagnostics."""
    text = Text()
    text.append(f"run {report.status}", style="bold red" if report.status == "error" else "bold yellow")
    if report.unfinished_nodes:
        text.append("  in an unfinished step running ")
        text.append_text(one_line(", ".join(report.unfinished_nodes), limit=120, style="bold"))
    if report.node_path:
        text.append("\nnode path  ", style="bold")
        text.append_text(one_line(" › ".join(report.node_path), limit=200))
    if report.error is not None:
        text.append("\n")
        text.append_text(_error(report.error, limit=limit))
    for run in report.failed:
        text.append("\n")
        text.append_text(_node_run(run, limit=limit))
    for diagnostic in report.diagnostics:
        text.append("\n")
        text.append(f"{diagnostic.severity:<8}", style=_SEVERITY.get(diagnostic.severity, "bold"))
        text.append_text(one_line(diagnostic.code, limit=40, style="bold"))
        text.append("  ")
        text.append_text(literal(diagnostic.message, limit=limit))
    return text


def render_detail(
    step: Step | None, *, stop: StopReport | None = None, limit: int | None = VALUE_LIMIT
) -> Text:
    parts: list[Text] = []
    if stop is not None:
        parts.append(render_stop(stop, limit=limit))
    if step is None:
        parts.append(Text("(no complete step to show)", style="dim"))
    else:
        header = Text(f"step {step.index}", style="bold")
        if step.duration is not None:
            header.append(f"  {step.duration * 1000:.1f} ms", style="dim")
        if step.next_nodes:
            header.append("  next ", style="dim")
            header.append_text(one_line(", ".join(step.next_nodes), limit=120))
        if step.ended:
            header.append("  (run ends here)", style="dim")
        parts.append(header)
        parts.extend(_node_run(run, limit=limit) for run in step.node_runs)
        for branch in step.branches:
            line = Text("branch  ", style="dim")
            line.append_text(one_line(f"{branch.source} → {', '.join(branch.chosen) or '∅'}", limit=160))
            if branch.skipped:
                line.append_text(one_line(f"  (not {', '.join(branch.skipped)})", limit=160, style="dim"))
            parts.append(line)
    return Text("\n").join(parts)


class NodeDetail(Static):
    """The app calls `show(step, stop=..., expand=...)` when the cursor moves."""

    DEFAULT_CSS = """
    NodeDetail { height: auto; }
    """

    def show(self, step: Step | None, *, stop: StopReport | None = None, expand: bool = False) -> None:
        self.update(render_detail(step, stop=stop, limit=None if expand else VALUE_LIMIT))
