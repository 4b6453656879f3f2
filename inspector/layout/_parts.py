"""The working records of one terminal drawing, filled in step by step: boxes, lanes and their ends, the
buses between neighbouring rows and the channels that hold them, and the options of the call.

Why a module of their own: ordering, placement and painting (`_draw`, `_place`, `_paint`) all read and
write these records; none of them owns them. They are mutable on purpose: each step fills in what the
previous one left open (a lane's number, an end's side, a box's row and column).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from graph_core.topology import TopologyEdge, TopologyNode
from inspector.layout._canvas import Canvas
from inspector.layout._geometry import Path

__all__ = ["Box", "Channel", "End", "Lane", "Net", "Options", "Where"]

Where = Literal["side", "top", "bottom"]


@dataclass
class Options:
    highlight: Path | None
    executed_nodes: frozenset[Path]
    executed_edges: frozenset[tuple[Path, str, str]]
    expand_nested: bool
    show_names: bool
    max_width: int
    edge_labels: bool = False
    node_notes: Mapping[str, str] = field(default_factory=lambda: {})
    edge_notes: Mapping[tuple[str, str], str] = field(default_factory=lambda: {})
    key: list[str] = field(default_factory=lambda: [])  # numbered labels that found no room
    margin: int = 0  # left margin the top-level drawing was given for labels (blank columns trimmed)
    styles: set[str] = field(default_factory=lambda: set())  # what the legend must explain


@dataclass(eq=False)
class End:
    """One end of a lane on its box: where it attaches and the row where it meets the lane's column."""

    lane: Lane
    key: str
    outgoing: bool
    where: Where = "side"
    col: int = 0
    row: int = 0
    track: int = 0


@dataclass(eq=False)
class Lane:
    source: str
    target: str
    edges: list[TopologyEdge]
    up: bool
    span: tuple[int, int]
    lane: int = 0
    out: End = field(init=False)
    into: End = field(init=False)

    def __post_init__(self) -> None:
        self.out = End(self, self.source, True)
        self.into = End(self, self.target, False)


@dataclass(eq=False)
class Box:
    node: TopologyNode
    content: Canvas
    width: int
    layer: int
    ends: list[End] = field(default_factory=list)
    side: int = 0
    row: int = 0
    col: int = 0

    @property
    def height(self) -> int:
        return 2 + max(self.content.height, self.side, 1)

    @property
    def centre(self) -> int:
        return self.col + self.width // 2

    @property
    def right(self) -> int:
        return self.col + self.width - 1

    @property
    def bottom(self) -> int:
        return self.row + self.height - 1


@dataclass(eq=False)
class Net:
    """One source's edges into the next row: a bus from the middle of its bottom to each target's top."""

    source: str
    targets: list[tuple[str, list[TopologyEdge]]]
    port: int = 0
    drops: tuple[int, ...] = ()
    track: int = -1

    @property
    def span(self) -> tuple[int, int]:
        cols = (self.port, *self.drops)
        return min(cols), max(cols)


@dataclass(eq=False)
class Channel:
    """The rows between two node rows: tracks where edges turn, then the row of arrow heads."""

    below: list[End] = field(default_factory=list)  # lane ends on the bottom of the row above
    nets: list[Net] = field(default_factory=list)
    above: list[End] = field(default_factory=list)  # lane ends on the top of the row below
    tracks: int = 0
    lead: int = 0
    labelled: bool = False
    top: int = 0
    rows: int = 0

    def track_row(self, track: int) -> int:
        return self.top + self.lead + track

    @property
    def arrow_row(self) -> int:
        return self.top + self.rows - 1
