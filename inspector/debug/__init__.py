"""The live debugger and forks: a controller that drives a run (no user interface), paths and
conditions over a paused run, and forks from a recorded step. See docs/debugging.md."""

from inspector.debug.controller import DebugController, Edit, Pause, RunAborted

__all__ = ["DebugController", "Edit", "Pause", "RunAborted"]
