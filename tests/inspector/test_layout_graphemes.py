"""Keys with combining marks, joiners and zero-width characters: every character reaches the drawing and
box borders stay aligned (widths as Rich, which paints the TUI, measures them)."""

from __future__ import annotations

import itertools

import pytest
from rich.cells import cell_len

from graph_core.topology import END, START, Topology, TopologyEdge, TopologyNode, build_topology
from inspector.export._escape import visible
from inspector.layout import draw, layout
from inspector.layout._canvas import cell_width, clusters

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
KEYS = ["cafe\u0301", f"{FAMILY} fam", "zw\u200bsp", "\u0301lead", "sun \u2600\ufe0f", "漢字"]


def _chain(keys: list[str]) -> Topology:
    edges = [TopologyEdge(source=START, target=keys[0]), TopologyEdge(source=keys[-1], target=END)]
    edges += [TopologyEdge(source=a, target=b) for a, b in itertools.pairwise(keys)]
    return build_topology(name="g", nodes=[TopologyNode(key=k, kind="Lambda") for k in keys], edges=edges)


@pytest.mark.parametrize("key", KEYS)
def test_every_character_of_a_key_reaches_the_drawing(key: str) -> None:
    """Zero-width and bidi characters reach it as `\\uXXXX` escapes (a stray U+200B would hide)."""
    assert visible(key) in draw(_chain([key]))


@pytest.mark.parametrize("key", KEYS)
def test_box_rows_have_the_width_the_terminal_gives_them(key: str) -> None:
    drawing = layout(_chain([key]))
    box = next(b for b in drawing.nodes if b.path == (key,))
    rows = [drawing.lines[r] for r in range(box.row, box.row + box.height)]
    right_edges = {cell_len(row.rstrip()) for row in rows}
    assert right_edges == {box.col + box.width}


def test_clusters_keep_marks_and_joined_sequences_together() -> None:
    assert clusters("e\u0301x") == [("e\u0301", 1), ("x", 1)]
    assert clusters(FAMILY) == [(FAMILY, 2)]
    assert clusters("a\u200bb") == [("a\u200b", 1), ("b", 1)]
    assert clusters("\u0301a") == [("\u0301a", 1)]
    assert cell_width(FAMILY + "漢") == 4
