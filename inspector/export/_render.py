"""Render a topology to SVG or PNG through the system Graphviz `dot` binary.

This is the only export that needs more than Python; when `dot` is missing the error says how to install
it, and the text formats (DOT, Mermaid, JSON, terminal drawing) keep working.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from inspector.errors import RenderError
from inspector.export._coerce import as_topology
from inspector.export._dot import to_graphviz

if TYPE_CHECKING:
    from inspector.export._overlay import RunOverlay

__all__ = ["INSTALL_HINT", "render"]

RenderFormat = Literal["svg", "png"]

PNG_DPI = 120
"""Graphviz's default of 96 dpi made small agents a postage stamp (the weather agent was 201x553 px)."""

INSTALL_HINT = (
    "Install Graphviz so the `dot` program is on PATH (Debian/Ubuntu: `sudo apt-get install graphviz`; "
    "macOS: `brew install graphviz`; Windows and others: https://graphviz.org/download/). Text formats "
    "(`--format text|dot|json|mermaid`) work without it."
)


def render(
    subject: Any,
    /,
    *,
    format: RenderFormat = "svg",
    path: str | Path | None = None,
    overlay: RunOverlay | None = None,
) -> bytes:
    """Return the rendered image (and write it to `path` when given). Needs the `dot` binary.

    `overlay` draws a recorded run on the graph (`inspector.export.RunOverlay`)."""
    import graphviz

    if format not in ("svg", "png"):
        raise ValueError(f"format must be `svg` or `png`, not `{format}`")
    source = to_graphviz(as_topology(subject), overlay=overlay)
    if format == "png":
        source.attr("graph", dpi=str(PNG_DPI))
    try:
        data = source.pipe(format=format)
    except graphviz.ExecutableNotFound as exc:
        missing = f"cannot render {format.upper()}: Graphviz's `dot` program was not found."
        raise RenderError(f"{missing} {INSTALL_HINT}") from exc
    except graphviz.CalledProcessError as exc:
        detail = (exc.stderr or b"").decode("utf-8", "replace").strip()
        raise RenderError(f"Graphviz `dot` failed to render {format.upper()}: {detail}") from exc
    if path is not None:
        Path(path).write_bytes(data)
    return data
