"""The debugger's lines in a run file: `edit` (a person changed the run between steps) and `aborted`.

They are out-of-band lines (see `format.StateEdited`, `format.RunAborted`) that the step reader skips;
this module reads them for the views that show them (`inspector show`, the TUI), with their values
resolved like step values. They are found by line prefix in the bytes the run read at open, so runs
without them cost one pass of `bytes.find` each.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from inspector.recording.format import RunAborted, StateEdited, decode_event, replace
from inspector.recording.reader import Run
from inspector.recording.valuelist import plain

__all__ = ["DebugLines", "read_debug_lines"]

_EDIT = b'{"kind":"edit"'
_ABORTED = b'{"kind":"aborted"'


@dataclass(frozen=True)
class DebugLines:
    """The edits in file order (values resolved), and the abort, if the run was aborted."""

    edits: list[StateEdited] = field(default_factory=lambda: [])
    aborted: RunAborted | None = None

    def edits_before(self, step: int) -> list[StateEdited]:
        return [edit for edit in self.edits if edit.step == step]


def read_debug_lines(run: Run) -> DebugLines:
    """The `edit` and `aborted` lines of `run`'s file."""
    edits: list[StateEdited] = []
    for line in run.lines_starting(_EDIT):
        edit = decode_event(line)
        if isinstance(edit, StateEdited):
            old, new = plain(run.resolve(edit.old)), plain(run.resolve(edit.new))  # record fields: plain
            edits.append(replace(edit, old=old, new=new))
    aborted: RunAborted | None = None
    for line in run.lines_starting(_ABORTED):
        event = decode_event(line)
        aborted = event if isinstance(event, RunAborted) else aborted
    return DebugLines(edits, aborted)
