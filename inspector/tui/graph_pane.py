"""`GraphPane`: the run's topology as a terminal drawing, coloured by where the run is.

The drawing comes from `inspector.layout.layout`, whose geometry (box and edge cells) lets us colour
without parsing glyphs: the active nodes in the accent colour, everything executed so far in green,
nodes with a breakpoint in red, nodes that interrupted (rerun on resume) in yellow. A nested graph (a
LangGraph subgraph, a graph_core graph node) is drawn inside its node's box, and only that box's frame
takes the node's colour.

Visit counts sit in a gutter to the left of each box: lanes only ever run to the right of the boxes
and the spine runs through their middle, so the gutter is the one place a count can never hide an
edge. The gutter's width comes from the run's length, not the current counts, so the drawing does not
shift sideways as counts grow.

The pane does not scroll itself: it reports where the highlighted box is (`focus`), and the app scrolls
its container there, so the active node stays in view however tall the drawing is.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from graph_core.topology import END, Topology
from inspector.errors import GraphTooWide
from inspector.export._unknowns import static_notes
from inspector.layout import Drawing, NodeBox, layout
from inspector.layout._canvas import cell_width, clusters
from inspector.tui.literal import one_line
from inspector.tui.session import PathSoFar

__all__ = ["GraphPane", "Painted", "count_gutter", "paint", "paint_geometry"]

ACTIVE = "bold reverse"
EXECUTED = "green"
BREAKPOINT = "bold red"
FAILED = "bold white on red"
INTERRUPTED = "bold black on yellow"
COUNT = "bold cyan"


_DrawingKey = tuple[int, str | None, frozenset[str], frozenset[tuple[str, str]]]
_drawings: dict[_DrawingKey, tuple[Topology, Drawing]] = {}


@dataclass(frozen=True)
class Painted:
    """A painted drawing: the text, its size in cells, the highlighted box's region (`active`) and the
    region to scroll into view (`focus`: the active box, and END's box too once the run reached it)."""

    text: Text
    width: int
    height: int
    focus: Region | None
    active: Region | None = None


def count_gutter(steps: int) -> int:
    """Cells left of the boxes for `×N` counts: room for the largest count a run of `steps` can reach."""
    return len(str(max(steps, 1))) + 2 if steps > 0 else 0


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
    try:
        drawing = layout(
            topology, highlight=highlight, executed_nodes=nodes, executed_edges=edges, expand_nested=True
        )
    except GraphTooWide as exc:  # the pane says so instead of a drawing that would take minutes
        drawing = Drawing(lines=tuple(textwrap.wrap(f"{exc} (inspector topology)", 40)), nodes=(), edges=())
    _drawings[key] = (topology, drawing)
    return drawing


_Cells = tuple[list[list[tuple[int, int]]], int]
_cells_cache: dict[tuple[int, int], tuple[Drawing, _Cells]] = {}


def _cells(drawing: Drawing, gutter: int) -> _Cells:
    """The cell index of each row of `drawing` shifted right by `gutter`, and its widest row in cells:
    the same for every step that shows this drawing (cached, keyed by identity like `_drawing`)."""
    key = (id(drawing), gutter)
    cached = _cells_cache.get(key)
    if cached is not None and cached[0] is drawing:
        return cached[1]
    if len(_cells_cache) > 256:
        _cells_cache.clear()
    pad = " " * gutter
    found = (
        [_cell_index(pad + line) for line in drawing.lines],
        max((cell_width(pad + line) for line in drawing.lines), default=0),
    )
    _cells_cache[key] = (drawing, found)
    return found


def _cell_index(line: str) -> list[tuple[int, int]]:
    """For each terminal cell of `line`, the characters drawn there (a cluster: a base character with its
    marks or a joined emoji sequence) as a `(start, end)` slice."""
    index: list[tuple[int, int]] = []
    start = 0
    for chars, cells in clusters(line):
        index.extend([(start, start + len(chars))] * cells)
        start += len(chars)
    return index


def paint_geometry(
    topology: Topology,
    *,
    active: tuple[str, ...],
    so_far: PathSoFar,
    breakpoints: frozenset[str] = frozenset(),
    failed: tuple[str, ...] = (),
    interrupted: tuple[str, ...] = (),
    gutter: int | None = None,
) -> Painted:
    """The drawing as styled `Text` with visit counts beside the boxes, plus where the active box is.

    `failed` names nodes of a step that never finished (the run failed in them): drawn white on red.
    `interrupted` names nodes that interrupted (they run again on resume): drawn black on yellow.
    `gutter` is the width kept for counts left of the boxes (default: room for the current counts).
    """
    top_level = {node.key for node in topology.nodes}
    nodes = frozenset(n for n in so_far.nodes if n in top_level)
    edges = frozenset(e for e in so_far.edges if e[0] in top_level and e[1] in top_level)
    highlight = next((n for n in active if n in top_level), None)
    drawing = _drawing(topology, highlight, nodes, edges)
    counts = {key: f"×{count}" for key, count in so_far.visits.items() if key in top_level and count}
    if gutter is None:
        gutter = max((len(label) + 1 for label in counts.values()), default=0)
    gutter = max(gutter, max((len(label) + 1 for label in counts.values()), default=0))
    pad = " " * gutter
    lines = [Text(pad + line) for line in drawing.lines]
    indexes, widest = _cells(drawing, gutter)
    spliced: list[int] = []

    def style_cell(row: int, col: int, style: str) -> None:
        col += gutter
        if 0 <= row < len(lines) and col < len(indexes[row]):
            lines[row].stylize(style, *indexes[row][col])

    nested = {node.key for node in topology.nodes if node.graph is not None}
    for route in drawing.edges:
        if route.executed:
            for row, col in route.cells:
                style_cell(row, col, EXECUTED)
    focus: Region | None = None
    for box in drawing.nodes:
        key = box.path[0]
        if len(box.path) > 1:
            continue
        if key == highlight:
            focus = Region(box.col + gutter, box.row, box.width, box.height)
        label = counts.get(key)
        if label is not None:
            # Every character before a box's left edge on its label row is padding or gutter.
            # Cells map to characters through the row's index (a wide character left of it takes two).
            cells = indexes[box.row + 1]
            at = gutter + box.col - len(label) - 1
            start = cells[at][0] if 0 <= at < len(cells) else at
            row = _splice(lines[box.row + 1], start, label)
            row.stylize(COUNT if key in active else "cyan", start, start + len(label))
            lines[box.row + 1] = row
            spliced.append(box.row + 1)
        if key in failed:
            style = FAILED
        elif key in interrupted:
            style = INTERRUPTED
        elif key in active:
            style = ACTIVE
        elif key in breakpoints:
            style = BREAKPOINT
        elif key in nodes:
            style = EXECUTED
        else:
            continue
        if key in nested:  # a subgraph drawn inside its box: only the border, so its nodes stay legible
            for row, col in _border(box):
                style_cell(row, col, style)
        else:
            for row in range(box.row, box.row + box.height):
                for col in range(box.col, box.col + box.width):
                    style_cell(row, col, style)
        if key in breakpoints and key in active:
            style_cell(box.row, box.col, BREAKPOINT)
    active_region = focus
    if focus is not None and END in nodes:  # the run ended: show where it went too
        end = next((b for b in drawing.nodes if b.path == (END,)), None)
        if end is not None:
            focus = focus.union(Region(end.col + gutter, end.row, end.width, end.height))
    width = max((cell_width(lines[row].plain) for row in spliced), default=widest)
    width = max(width, widest)
    out = Text("\n").join(lines)
    height = len(lines)
    if breakpoints:
        out.append("\n\nbreak ", style="dim")
        out.append_text(one_line(", ".join(sorted(breakpoints)), style=BREAKPOINT))
        height += 2
    notes = static_notes(topology)
    for index, note in enumerate(notes):  # what the drawing cannot know (a Send fan-out's size, ...)
        out.append("\n\nnote " if index == 0 else "\nnote ", style="dim")
        line = one_line(note, style="dim", limit=None)
        out.append_text(line)
        height += 1 + int(index == 0)
        width = max(width, cell_len("note ") + line.cell_len)
    return Painted(out, width, height, focus, active_region)


def _border(box: NodeBox) -> list[tuple[int, int]]:
    """The cells of a box's frame."""
    bottom, right = box.row + box.height - 1, box.col + box.width - 1
    cells = [(row, col) for row in (box.row, bottom) for col in range(box.col, right + 1)]
    cells += [(row, col) for row in range(box.row + 1, bottom) for col in (box.col, right)]
    return cells


def _splice(line: Text, start: int, label: str) -> Text:
    """`line` with `label` written over the (blank) characters from `start`, styles kept."""
    plain = line.plain
    end = start + len(label)
    if plain[start:end].strip():  # never overwrite drawing characters
        return line
    spliced = Text(plain[:start] + label + plain[end:])
    for span in line.spans:
        spliced.stylize(span.style, span.start, span.end)
    return spliced


def paint(
    topology: Topology,
    *,
    active: tuple[str, ...],
    so_far: PathSoFar,
    breakpoints: frozenset[str] = frozenset(),
    failed: tuple[str, ...] = (),
    interrupted: tuple[str, ...] = (),
    gutter: int | None = None,
) -> Text:
    """The drawing as `Text` (see `paint_geometry`)."""
    return paint_geometry(
        topology,
        active=active,
        so_far=so_far,
        breakpoints=breakpoints,
        failed=failed,
        interrupted=interrupted,
        gutter=gutter,
    ).text


class GraphPane(Widget):
    """Shows `paint_geometry(...)`; the app calls `show(...)` when the cursor moves and reads
    `painted` to size and scroll the pane's container.

    Drawn with the Line API, a row at a time: a step moves the highlight and bumps a count or two, so
    most rows of the drawing stay as they were; only the rows whose text or colours changed are
    rendered and repainted, and the screen is laid out again only when the drawing changes size."""

    DEFAULT_CSS = """
    GraphPane { width: auto; height: auto; }
    """

    painted: Painted | None = None

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text = Text()
        self._lines: list[Text] = []
        self._strips: list[Strip] = []
        self._shape = Size(0, 0)
        self.rows_rendered = 0
        """Rows rendered anew so far (tests check that a step renders only the rows it changed)."""
        self._show_text(Text())

    def show(
        self,
        topology: Topology | None,
        *,
        active: tuple[str, ...],
        so_far: PathSoFar,
        breakpoints: frozenset[str] = frozenset(),
        failed: tuple[str, ...] = (),
        interrupted: tuple[str, ...] = (),
        gutter: int | None = None,
    ) -> Painted | None:
        if topology is None:
            text = Text("(this run file has no topology)\n\nactive: ", style="dim")
            text.append_text(one_line(", ".join(active) or "–"))
            self.painted = None
            self._show_text(text)
            return None
        painted = paint_geometry(
            topology,
            active=active,
            so_far=so_far,
            breakpoints=breakpoints,
            failed=failed,
            interrupted=interrupted,
            gutter=gutter,
        )
        self.painted = painted
        self._show_text(painted.text)
        return painted

    def render(self) -> Text:
        """The whole drawing (drawn row by row by `render_line`)."""
        return self._text

    def _show_text(self, text: Text) -> None:
        """Render the rows of `text` that differ from those shown and repaint just them."""
        self._text = text
        lines = list(text.split("\n", allow_blank=True))
        old, old_strips = self._lines, self._strips
        strips: list[Strip] = []
        changed: list[int] = []
        console = self.app.console if self.is_mounted else None
        for y, line in enumerate(lines):
            if y < len(old) and old[y] == line and old[y].style == line.style:
                strips.append(old_strips[y])
                continue
            changed.append(y)
            strips.append(Strip(list(line.render(console, end=""))) if console else Strip([]))
        self.rows_rendered += len(changed)
        self._lines, self._strips = lines, strips
        shape = Size(max((cell_len(line.plain) for line in lines), default=0), len(lines))
        if shape != self._shape:
            self._shape = shape
            self.refresh(layout=True)
        elif changed:
            self.refresh(*(Region(0, y, shape.width, 1) for y in changed))

    def on_mount(self) -> None:
        self._lines = []  # rendered before there was a console to render with: render again
        self._show_text(self._text)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return self._shape.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._shape.height

    def render_line(self, y: int) -> Strip:
        base = self.rich_style
        if 0 <= y < len(self._strips):
            # offsets: where each cell is in `render()`'s text, so the mouse can select it as in a Static
            return self._strips[y].apply_style(base).apply_offsets(0, y)
        return Strip.blank(self.size.width, base)
