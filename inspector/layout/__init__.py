"""Terminal drawing of a topology with box-drawing characters; pure Python, no Graphviz needed.

`draw(...)` returns text; `layout(...)` returns a `Drawing` with the same lines plus the cells of every
node box and edge route, so the TUI can colour the active node and the executed path without parsing.
"""

from inspector.layout._draw import Drawing, EdgeRoute, NodeBox, draw, layout

__all__ = ["Drawing", "EdgeRoute", "NodeBox", "draw", "layout"]
