"""The debugger's lines in a run file: `edit` (a person changed the run between steps) and `aborted`.

They are out-of-band lines (see `format.StateEdited`, `format.RunAborted`) that the step reader skips;
this module reads them for the views that show them (`inspector show`, the TUI), with their values
resolved like step values. The file is scanned by line prefix, so runs without them cost one pass of
`bytes.find`.
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
    data = run.path.read_bytes()
    if _EDIT not in data and _ABORTED not in data:
        return DebugLines()
    edits: list[StateEdited] = []
    aborted: RunAborted | None = None
    for line in data.splitlines():
        if line.startswith(_EDIT):
            edit = decode_event(line)
            if not isinstance(edit, StateEdited):
                continue
            old, new = plain(run.resolve(edit.old)), plain(run.resolve(edit.new))  # record fields: plain
            edits.append(replace(edit, old=old, new=new))
        elif line.startswith(_ABORTED):
            event = decode_event(line)
            aborted = event if isinstance(event, RunAborted) else aborted
    return DebugLines(edits, aborted)
