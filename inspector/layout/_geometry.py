"""What a finished terminal drawing is made of: its lines and the cells of every node box and edge route,
so the TUI can colour the active node and the executed path without parsing text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["BoxStyle", "Drawing", "EdgeRoute", "NodeBox", "Path"]

BoxStyle = Literal["plain", "executed", "highlight"]
Path = tuple[str, ...]


@dataclass(frozen=True)
class NodeBox:
    """Where a node's box is, in terminal cells (0-based row and column of its top-left corner).

    `path` is the node's key path, outermost first (one key for top-level nodes).
    """

    path: Path
    row: int
    col: int
    width: int
    height: int
    style: BoxStyle

    @property
    def key(self) -> str:
        return self.path[-1]


@dataclass(frozen=True)
class EdgeRoute:
    """The cells one drawn edge occupies (lines and its arrow head), for styling without re-parsing.

    `graph_path` is the path of the graph the edge belongs to (empty for the top level). Several
    topology edges between the same two nodes share one route.
    """

    graph_path: Path
    source: str
    target: str
    kind: str
    back_edge: bool
    executed: bool
    cells: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Drawing:
    """A finished drawing: text lines plus the geometry of every node box and edge route."""

    lines: tuple[str, ...]
    nodes: tuple[NodeBox, ...]
    edges: tuple[EdgeRoute, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    def box(self, *path: str) -> NodeBox:
        for node in self.nodes:
            if node.path == path:
                return node
        raise KeyError(path)
