"""A graph too wide for a terminal drawing: refused with the formats that draw it, before any drawing.

400 parallel nodes took the text drawing 7.3 s and 1.4 GB (n^2 cells: each stacked node's edge on a
lane of its own), the TUI's graph pane 43 s and 2.3 GB at 300. Past `MAX_RANK` nodes in one rank the
drawing is refused: counted here as the canvas cells written (none), not timed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graph_core import END, START, Graph
from graph_core.topology import Topology
from inspector.cli import main
from inspector.errors import GraphTooWide
from inspector.layout import draw, layout
from inspector.layout._canvas import Canvas
from inspector.layout._draw import MAX_RANK
from inspector.tui.graph_pane import _drawing  # pyright: ignore[reportPrivateUsage]

WIDE = """
from graph_core import END, START, Graph


def build():
    graph = Graph()
    for i in range({n}):
        graph.add_lambda_node(f"p{{i}}", lambda x: x)
        graph.add_edge(START, f"p{{i}}")
        graph.add_edge(f"p{{i}}", END)
    return graph.compile()
"""


def wide(n: int) -> Topology:
    graph = Graph()
    for i in range(n):
        graph.add_lambda_node(f"p{i}", lambda x: x)  # pyright: ignore[reportUnknownLambdaType, reportUnknownArgumentType]
        graph.add_edge(START, f"p{i}")
        graph.add_edge(f"p{i}", END)
    return graph.compile().topology()


@pytest.fixture
def cells(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Canvas cells written by drawings (text put on a canvas, a character per cell)."""
    written: list[int] = []
    original = Canvas.put

    def counting(self: Canvas, row: int, col: int, text: str, *args: object, **kwargs: object) -> None:
        written.append(len(text))
        original(self, row, col, text, *args, **kwargs)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(Canvas, "put", counting)
    return written


def test_a_400_wide_graph_is_refused_before_anything_is_drawn(cells: list[int]) -> None:
    with pytest.raises(GraphTooWide) as refused:
        layout(wide(400))
    assert (refused.value.nodes, refused.value.limit) == (400, MAX_RANK)
    assert sum(cells) == 0
    assert str(refused.value) == (
        f"graph too wide to draw in a terminal (400 nodes in one rank, limit {MAX_RANK}): use --format svg "
        "(or png, dot, mermaid)"
    )


def test_a_graph_at_the_limit_is_still_drawn(cells: list[int]) -> None:
    text = draw(wide(MAX_RANK))
    assert "p0" in text and f"p{MAX_RANK - 1}" in text
    assert sum(cells) < 200 * MAX_RANK * MAX_RANK  # stacked with a lane per node: n^2 cells, bounded


def test_the_topology_command_says_so_in_one_paragraph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "wide_graph.py"
    target.write_text(WIDE.format(n=400), encoding="utf-8")
    assert main(["topology", f"{target}:build"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "graph too wide to draw in a terminal (400 nodes in one rank" in " ".join(err.split())
    assert main(["topology", f"{target}:build", "--format", "mermaid"]) == 0  # what it suggests works


def test_the_tui_graph_pane_says_so_instead_of_a_drawing(cells: list[int]) -> None:
    drawing = _drawing(wide(300), None, frozenset(), frozenset())
    text = " ".join(drawing.lines)
    assert "graph too wide to draw in a terminal (300 nodes in one rank" in text
    assert drawing.nodes == () and sum(cells) == 0
