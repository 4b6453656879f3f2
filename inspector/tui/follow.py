"""Follow mode (`inspector replay --follow`): wait for a run file to appear, then pick up what the
recorder appends, polled every `poll_interval` seconds by the app's timer.

`inspector.recording` has no incremental reader, so a poll that sees the file grow re-reads it (an
index of line offsets, no parsing); a poll that sees the same size reads nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from inspector.tui.literal import one_line
from inspector.tui.session import Session
from inspector.tui.timeline import Timeline

if TYPE_CHECKING:
    from inspector.tui.host import ReplayHost

__all__ = ["poll", "waiting_text"]


def waiting_text(path: Path | None, poll_interval: float) -> Text:
    """What the screen says while the run file has no complete header yet."""
    name = path.name if path is not None else "the run file"
    text = Text("waiting for ", style="bold")
    text.append_text(one_line(name, limit=80, style="bold magenta"))
    text.append("\n\n")
    text.append_text(one_line(str(path), limit=None, style="dim"))
    text.append(
        f"\nchecked every {poll_interval:g} s; the run opens once the recorder has written",
        style="dim",
    )
    text.append(" its header line (q quits)", style="dim")
    return text


async def poll(app: ReplayHost) -> None:
    """Open the file once it has a header (the screen is then composed for it), or re-read it when it
    grew: new steps, the cursor following the end when it was there, diagnostics and counts again."""
    if not app.has_session:
        assert app.path is not None
        if app.screen is not app.default_screen:
            return  # help or the palette is open: `recompose` would build the panes on it, so
            # the run opens once the waiting screen is on top again
        session = Session.try_open(app.path, lenient=app.lenient)
        if session is None:
            return
        app.session = session
        await app.recompose()
        app.begin()
        return
    session = app.session
    if session.reload():
        if session.problem is not None:
            app.notify(session.problem_detail, severity="error", timeout=30, markup=False)
        timelines = app.query(Timeline)
        if not timelines:  # the app is closing: its panes are already gone
            return
        timeline = timelines.first()
        timeline.session = session
        app.sync_columns()
        timeline.sync_size()
        app.start_background_walk()
        app.show_cursor()
