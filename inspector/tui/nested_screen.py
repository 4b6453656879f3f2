"""`NestedRunScreen`: the nested runs of one step, opened from the replay with `o`.

A step can hold whole runs of other graphs: a graph node's nested graph, or the run of an agent used as
a tool (recorded under its tool call, `ToolNode › weather_expert:call_expert`). The node detail lists
them after the step's own nodes; this screen opens each on its own: its graph drawn (from the run's
topology, `recording.nesting`) with the nodes and edges it went through as ran (double boxes, heavy
edges), then its steps one by one with their own budgets and what each node did. It reads the recording
only; Esc or q goes back to the step.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from graph_core.topology import END, START, Topology
from inspector.errors import GraphTooWide
from inspector.layout import layout
from inspector.recording import Step
from inspector.recording.format import StepRecord
from inspector.recording.nesting import nested_topology
from inspector.tui.literal import one_line
from inspector.tui.node_detail import render_nested

__all__ = ["NestedRunScreen", "nested_runs", "ran_through"]


def nested_runs(step: Step) -> list[tuple[tuple[str, ...], list[StepRecord]]]:
    """The nested runs of `step`, each its path and its step lines, in the order they first appear."""
    runs: dict[tuple[str, ...], list[StepRecord]] = {}
    for record in step.nested:
        runs.setdefault(tuple(record.path), []).append(record)
    return list(runs.items())


def ran_through(records: list[StepRecord]) -> tuple[set[str], set[tuple[str, str]]]:
    """The nodes a nested run's steps ran and the edges between consecutive steps' nodes (from START
    into its first step, into END after the step that ended it), for the drawing."""
    nodes: set[str] = set()
    edges: set[tuple[str, str]] = set()
    before: list[str] = [START]
    for record in records:
        nodes.update(record.nodes)
        edges.update((a, b) for a in before for b in record.nodes)
        before = list(record.nodes)
        if record.ended:
            edges.update((a, END) for a in before)
            nodes.add(END)
    return nodes, edges


def _drawing(topology: Topology, records: list[StepRecord]) -> Text:
    nodes, edges = ran_through(records)
    try:
        drawing = layout(topology, executed_nodes=nodes, executed_edges=edges, expand_nested=True)
    except GraphTooWide as exc:
        return Text(f"{exc} (inspector topology)", style="dim")
    return Text("\n".join(drawing.lines))


class NestedRunScreen(ModalScreen[None]):
    """The nested runs of a step (see the module docstring); escape or q closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "close", "Back to the step")]

    DEFAULT_CSS = """
    NestedRunScreen { align: center middle; }
    NestedRunScreen > VerticalScroll {
        width: 96%; height: 94%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    NestedRunScreen .nested-title { margin-top: 1; }
    """

    def __init__(self, step: Step, topology: Topology | None, *, segments: int = 1) -> None:
        super().__init__()
        self.step = step
        self.topology = topology
        self.segments = segments

    def compose(self) -> ComposeResult:
        step = self.step
        where = f"segment {step.segment} step {step.index}" if self.segments > 1 else f"step {step.index}"
        runs = nested_runs(step)
        with VerticalScroll(id="nested-runs"):
            head = Text(f"{where}: {len(runs)} nested run{'s' if len(runs) != 1 else ''}", style="bold")
            head.append("   (Esc: back to the step)", style="dim")
            yield Static(head)
            for path, records in runs:
                title = Text("▸ nested run at ", style="bold magenta")
                title.append_text(one_line(" › ".join(path), limit=160, style="bold magenta"))
                title.append(f"  {len(records)} step{'s' if len(records) != 1 else ''}", style="dim")
                inner = nested_topology(self.topology, path)
                if inner is not None:
                    title.append("  graph ", style="dim")
                    title.append_text(one_line(inner.name, limit=80, style="bold"))
                yield Static(title, classes="nested-title")
                if inner is not None:
                    yield Static(_drawing(inner, records))
                yield Static(Text("\n").join(render_nested(step, limit=None, path=path)))

    def on_mount(self) -> None:
        self.query_one("#nested-runs", VerticalScroll).focus()  # ↑/↓ and page keys scroll it

    def action_close(self) -> None:
        self.dismiss(None)
