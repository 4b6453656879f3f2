"""`GraphPane`: the run's topology as a terminal drawing, coloured by where the run is.

The drawing comes from `inspector.layout.layout`, whose geometry (box and edge cells) lets us colour
without parsing glyphs: the active nodes in the accent colour, everything executed so far in green,
nodes with a breakpoint in red. Visit counts are listed under the drawing, where no lane can hide them.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from graph_core.topology import Topology
from inspector.layout import Drawing, layout
from inspector.layout._canvas import cell_width
from inspector.tui.literal import one_line
from inspector.tui.session import PathSoFar

__all__ = ["GraphPane", "paint"]

ACTIVE = "bold reverse"
EXECUTED = "green"
BREAKPOINT = "bold red"
FAILED = "bold white on red"


_DrawingKey = tuple[int, str | None, frozenset[str], frozenset[tuple[str, str]]]
_drawings: dict[_DrawingKey, tuple[Topology, Drawing]] = {}


def _drawing(
    topology: Topology,
    highlight: str | None,
    nodes: frozenset[str],
    edges: frozenset[tuple[str, str]],
) -> Drawing:
    """Layouts are cached: the executed set stops changing after a few steps, so most moves only
    change the highlight. Keyed by identity; the topology is kept alive with its drawing."""
    key = (id(topology), highlight, nodes, edges)
    cached = _drawings.get(key)
    if cached is not None and cached[0] is topology:
        return cached[1]
    if len(_drawings) > 256:
        _drawings.clear()
    drawing = layout(topology, highlight=highlight, executed_nodes=nodes, executed_edges=edges)
    _drawings[key] = (topology, drawing)
    return drawing


def _cell_index(line: str) -> list[int]:
    """For each terminal cell of `line`, the index of the character drawn there."""
    index: list[int] = []
    for i, ch in enumerate(line):
        index.extend([i] * cell_width(ch))
    return index


def paint(
    topology: Topology,
    *,
    active: tuple[str, ...],
    so_far: PathSoFar,
    breakpoints: frozenset[str] = frozenset(),
    failed: tuple[str, ...] = (),
) -> Text:
    """The drawing as `Text` with styles from the geometry, plus a visits legend.

    `failed` names nodes of a step that never finished (the run failed in them): drawn in red."""
    top_level = {node.key for node in topology.nodes}
    nodes = frozenset(n for n in so_far.nodes if n in top_level)
    edges = frozenset(e for e in so_far.edges if e[0] in top_level and e[1] in top_level)
    highlight = next((n for n in active if n in top_level), None)
    drawing = _drawing(topology, highlight, nodes, edges)
    lines = [Text(line) for line in drawing.lines]
    indexes = [_cell_index(line) for line in drawing.lines]

    def style_cell(row: int, col: int, style: str) -> None:
        if 0 <= row < len(lines) and col < len(indexes[row]):
            i = indexes[row][col]
            lines[row].stylize(style, i, i + 1)

    for route in drawing.edges:
        if route.executed:
            for row, col in route.cells:
                style_cell(row, col, EXECUTED)
    for box in drawing.nodes:
        key = box.path[0]
        if len(box.path) > 1:
            continue
        if key in failed:
            style = FAILED
        elif key in active:
            style = ACTIVE
        elif key in breakpoints:
            style = BREAKPOINT
        elif key in nodes:
            style = EXECUTED
        else:
            continue
        for row in range(box.row, box.row + box.height):
            for col in range(box.col, box.col + box.width):
                style_cell(row, col, style)
        if key in breakpoints and key in active:
            style_cell(box.row, box.col, BREAKPOINT)
    out = Text("\n").join(lines)
    if so_far.visits:
        out.append("\n\nvisits  ", style="dim")
        for i, (node, count) in enumerate(sorted(so_far.visits.items(), key=lambda kv: (-kv[1], kv[0]))):
            if i:
                out.append("  ")
            out.append_text(one_line(node, limit=40, style=BREAKPOINT if node in breakpoints else ""))
            out.append(f" ×{count}", style="bold")
    if breakpoints:
        out.append("\nbreak   ", style="dim")
        out.append_text(one_line(", ".join(sorted(breakpoints)), style=BREAKPOINT))
    return out


class GraphPane(Static):
    """Shows `paint(...)`; the app calls `show(...)` when the cursor moves."""

    DEFAULT_CSS = """
    GraphPane { width: auto; height: auto; }
    """

    def show(
        self,
        topology: Topology | None,
        *,
        active: tuple[str, ...],
        so_far: PathSoFar,
        breakpoints: frozenset[str] = frozenset(),
        failed: tuple[str, ...] = (),
    ) -> None:
        if topology is None:
            text = Text("(this run file has no topology)\n\nactive: ", style="dim")
            text.append_text(one_line(", ".join(active) or "–"))
            self.update(text)
            return
        self.update(paint(topology, active=active, so_far=so_far, breakpoints=breakpoints, failed=failed))
