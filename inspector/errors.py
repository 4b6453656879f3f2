"""Errors the inspector raises on purpose; the CLI turns each into one paragraph and exit status 2.

```
InspectorError
├── TargetError (ValueError)      a TARGET could not be loaded or is not a graph or agent
├── RunFileError (ValueError)     a run file is unreadable; `path` and `line_no` say where
├── RenderError (RuntimeError)    Graphviz rendering failed (for example the `dot` binary is missing)
├── GraphTooWide (ValueError)     a graph has more nodes in one rank than a terminal drawing can show
├── TopologyFormatError (ValueError)  a topology JSON document is malformed or of another version
├── ReportError (ValueError)      a page cannot be made as asked (steps outside the run, too large)
├── DebugError (ValueError)       a debugger command or fork does not fit the run (path, value, step,
│   │                             breakpoint, condition, target); nothing was changed or written
│   └── TargetConsentError        a recording's TARGET that the user did not agree to run (`spec`)
├── RunWriteError (OSError)       a run file could not be written: another process is writing it, its
│                                 folder is read-only, the disk filled; `path` says which file
└── RecorderBusyError (RuntimeError)  a `Recorder` already recording one run was handed another one

graph_core.errors.GraphError
└── RunAborted (RuntimeError)     raised at a step boundary when the person debugging aborts the run:
                                  it ends the run like any run error (recorded as its failure)
```
"""

from __future__ import annotations

from pathlib import Path

from graph_core.errors import GraphError

__all__ = [
    "DebugError",
    "GraphTooWide",
    "InspectorError",
    "RecorderBusyError",
    "RenderError",
    "ReportError",
    "RunAborted",
    "RunFileError",
    "RunWriteError",
    "TargetConsentError",
    "TargetError",
    "TopologyFormatError",
]


class InspectorError(Exception):
    """Base class of every error the inspector raises on purpose."""


class TargetError(InspectorError, ValueError):
    """A TARGET (`module:attr` or `file.py:attr`) could not be resolved to a graph or agent."""


class RunFileError(InspectorError, ValueError):
    """A run file could not be read. `line_no` is 1-based, or None when the problem is not one line."""

    def __init__(self, message: str, *, path: str | Path | None = None, line_no: int | None = None) -> None:
        self.path = None if path is None else Path(path)
        self.line_no = line_no
        where = ""
        if path is not None:
            where = f"{path}:{line_no}: " if line_no is not None else f"{path}: "
        super().__init__(f"{where}{message}")


class RenderError(InspectorError, RuntimeError):
    """Rendering through Graphviz failed; the message says how to fix it."""


class GraphTooWide(InspectorError, ValueError):
    """A graph has more nodes side by side in one rank than the text drawing lays out (`nodes`, `limit`):
    stacked one per row they would need a lane each, a drawing of n^2 cells. The picture formats
    (SVG, PNG, DOT, Mermaid) draw it."""

    def __init__(self, nodes: int, limit: int) -> None:
        self.nodes = nodes
        self.limit = limit
        super().__init__(
            f"graph too wide to draw in a terminal ({nodes} nodes in one rank, limit {limit}): use "
            "--format svg (or png, dot, mermaid)"
        )


class TopologyFormatError(InspectorError, ValueError):
    """A topology JSON document (`inspector.export.from_json`) is malformed or of an unsupported version."""


class ReportError(InspectorError, ValueError):
    """An HTML page cannot be made as asked: a `--steps` range outside the run, a page over the size limit."""


class DebugError(InspectorError, ValueError):
    """A debugger command or a fork does not fit the run: the message names the path, value, step,
    node or topology difference; nothing was changed or written."""


class RunWriteError(InspectorError, OSError):
    """A run file could not be written (another writer holds it, a read-only folder, a full disk); the
    message says which file, why, and what became of what was written. `path` is the file."""

    def __init__(self, message: str, *, path: str | Path) -> None:
        super().__init__(message)
        self.path = Path(path)


class RecorderBusyError(InspectorError, RuntimeError):
    """A `Recorder` recording one run was handed another that started meanwhile (two threads or tasks
    sharing it): that second run is refused, so the first run's file stays a run file. `path` is the
    file the first run is recorded to."""

    def __init__(self, message: str, *, path: str | Path) -> None:
        super().__init__(message)
        self.path = Path(path)


class TargetConsentError(DebugError):
    """A fork would import the TARGET a recording names, and nothing says the user agreed to run that
    code (`inspector.trust`): `spec` is the recorded TARGET, so the CLI can print the command that
    names it with `--target`. Nothing was imported."""

    def __init__(self, message: str, *, spec: str) -> None:
        super().__init__(message)
        self.spec = spec


class RunAborted(GraphError, RuntimeError):
    """Raised at a step boundary when the person debugging aborts the run; ends it like any error.

    A `GraphError` (not an `InspectorError`): it travels through the engine as the run's failure."""
