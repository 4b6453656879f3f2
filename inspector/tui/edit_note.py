"""Where a person changed a run under the debugger: a status-line note for the step under the cursor.

A recording made by `inspector debug` (or `inspector fork --set`) holds `edit` lines; the replay shows
them on the step they changed ("✎ edited before this step: PATH"), and a fork's parent and step.
"""

from __future__ import annotations

from rich.text import Text

from inspector.recording import Run
from inspector.recording.debug_lines import DebugLines, read_debug_lines
from inspector.recording.reader import Step
from inspector.tui.literal import one_line

__all__ = ["edit_note"]

_CACHE: dict[tuple[str, int], DebugLines] = {}


def _lines(run: Run) -> DebugLines:
    try:
        size = run.path.stat().st_size
    except OSError:
        return DebugLines()
    key = (str(run.path), size)
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) > 16:
            _CACHE.clear()
        found = _CACHE[key] = read_debug_lines(run)
    return found


def edit_note(run: Run, step: Step | None) -> Text:
    """The note for `step` (edits are noted in the first segment), empty when nothing applies."""
    text = Text()
    fork = run.header.meta.get("fork")
    if isinstance(fork, dict):
        text.append_text(one_line(f"  fork of step {fork.get('step')}", limit=40, style="bold magenta"))  # pyright: ignore[reportUnknownMemberType]
    if step is None or step.segment != 0:
        return text
    edits = _lines(run).edits_before(step.index)
    if edits:
        paths = ", ".join(edit.path for edit in edits)
        text.append_text(one_line(f"  ✎ edited before this step: {paths}", limit=80, style="bold yellow"))
    return text
