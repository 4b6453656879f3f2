"""Branch labels, the numbered key and the legend in the terminal drawing: every label is shown once,
beside its edge or in the key, literally, deterministically, and `layout()` keeps the TUI's picture."""

from __future__ import annotations

import re

from fixtures.adk import build_agent as build_adk
from fixtures.weather import build_agent
from graph_core.topology import END, START, TopologyEdge, TopologyNode, build_topology
from inspector.layout import draw, layout


def _body_and_footer(text: str) -> tuple[str, list[str]]:
    body, _, footer = text.rstrip("\n").rpartition("\n\n")
    return body, footer.splitlines()


def test_every_react_label_is_beside_its_edge_or_in_the_numbered_key() -> None:
    text = draw(build_agent())
    body, footer = _body_and_footer(text)
    for label in ("tool calls", "final answer", "next round", "return directly"):
        assert (label in body) != any(line.endswith(f": {label}") for line in footer), label
    markers = re.findall(r"\[(\d+)\]", body)
    keyed = [line for line in footer if line.startswith("[")]
    assert [f"[{m}]" for m in markers] == [line.split(" ", 1)[0] for line in keyed]
    assert "[1] tools → chat: next round" in keyed
    assert footer[-1] == "legend: ─ edge   ┆╌ branch   ▲ back edge (closes a loop)"


def test_adk_labels_all_fit_beside_their_edges() -> None:
    body, footer = _body_and_footer(draw(build_adk()))
    for label in ("tool calls", "final answer", "next round", "return directly"):
        assert label in body
    assert footer == ["legend: ─ edge   ┆╌ branch   ▲ back edge (closes a loop)"]


def test_drawing_is_deterministic() -> None:
    assert draw(build_agent()) == draw(build_agent()) == draw(build_agent().compiled.topology())


def test_layout_defaults_keep_the_tui_picture() -> None:
    plain = layout(build_agent())
    assert "tool calls" not in plain.text and "legend" not in plain.text and "[1]" not in plain.text
    assert plain.lines == layout(build_agent(), edge_labels=False, legend=False).lines
    drawn = layout(build_agent(), edge_labels=True, legend=True)
    rows = max(box.row + box.height for box in drawn.nodes)
    assert all(r < rows for route in drawn.edges for r, _ in route.cells)  # key/legend rows are extra
    assert drawn.lines[-1].startswith("legend:")


def test_hostile_labels_are_shown_literally_and_never_break_lines() -> None:
    hostile = ['say "hi" {x}', "line\nbreak", "<b>&amp;</b>", "bidi\u202eevil", "tab\there"]
    nodes = [TopologyNode(key="a", kind="Lambda")]
    edges = [TopologyEdge(source=START, target="a")]
    edges += [
        TopologyEdge(source="a", target=END, kind="branch", branch_index=i, label=text)
        for i, text in enumerate(hostile)
    ]
    text = draw(build_topology(name="h", nodes=nodes, edges=edges))
    for shown in ('say "hi" {x}', "line ⏎ break", "<b>&amp;</b>", "bidi\\u202eevil", "tab\\x09here"):
        assert shown in text
    assert "\u202e" not in text and "\t" not in text
    assert " / " in text  # several labels on one drawn edge are joined


def test_notes_annotate_boxes_and_edges() -> None:
    text = draw(build_agent(), node_notes={"chat": "×7"}, edge_notes={("chat", "tools"): "×6"})
    assert "chat ×7" in text and "tool calls ×6" in text
