"""What the status line and the pane borders say about the run and the cursor, as `Text` built from
run data (literal: see `literal.py`). The app decides when; these say what."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from rich.text import Text

from inspector.tui.edit_note import edit_note
from inspector.tui.literal import one_line
from inspector.tui.session import Session
from inspector.tui.timeline import mark_text

__all__ = ["counting_note", "source_name", "status_text", "stop_note", "timeline_note"]


def source_name(file_name: str, meta: dict[str, Any] | None) -> str:
    """What the run was read from: its file, or for a LangGraph thread (converted into a run file under
    the temporary directory, whose name says nothing) the checkpointer and the thread."""
    thread = (meta or {}).get("langgraph_thread")
    if not isinstance(thread, dict) or not thread.get("location"):  # pyright: ignore[reportUnknownMemberType]
        return file_name
    location = str(thread["location"])  # pyright: ignore[reportUnknownArgumentType]
    shown = location if "://" in location else PurePath(location).name  # a URL is shown without password
    return f"{shown} --thread {thread.get('thread_id')}"  # pyright: ignore[reportUnknownMemberType]


def status_text(
    session: Session,
    *,
    diff_mode: bool,
    speed: float,
    playing: bool,
    follow: bool,
    live: str | None = None,
) -> Text:
    """The status line: the file, the graph, how the run ended, where the cursor is, the modes, and
    what is still being worked out in the background. `live` (`paused`, `running`) says the run is
    going on under the debugger: its file has no last line yet, which is no crash, so the status
    reads `live` and the `incomplete` diagnostic is not counted."""
    run, replay = session.run, session.replay
    text = Text()
    text.append_text(one_line(source_name(run.path.name, run.header.meta), limit=60, style="bold"))
    text.append("  ")
    text.append_text(one_line(run.graph_name or "(graph)", limit=40))
    colour = {"ok": "green", "error": "red", "incomplete": "yellow", "interrupted": "yellow"}[run.status]
    if live is not None and run.status == "incomplete":
        text.append(f"  live, {live}", style="bold cyan")
    else:
        text.append(f"  {run.status}", style=f"bold {colour}")
    if run.interrupt is not None and run.interrupt.checkpoint_id:
        text.append_text(one_line(f" (checkpoint {run.interrupt.checkpoint_id})", limit=50, style=colour))
    total = len(replay)
    segment = run.segments[session.segment_at(replay.cursor)]
    # Step numbers restart at each resume: a multi-segment run counts positions (what `g` and
    # `--step` take) and names the cursor's step by segment and number, as its row shows it.
    word = "position" if len(run.segments) > 1 else "step"
    text.append(f"  {word} {replay.cursor if total else '–'} of {total} ({max(total - 1, 0)} last)")
    # Debugger edits and a fork's origin before the modes: at 120 columns the line ended in
    # `✎ edited before this step:` with the edited path cut off.
    text.append_text(edit_note(run, replay.current))
    if len(run.segments) > 1:
        current = replay.current
        where = f"segment {segment.index}" + (f" step {current.index}" if current is not None else "")
        text.append(f"  {where} ({len(run.segments)} segments)", style="bold cyan")
    if segment.resumed_from is not None:
        text.append("  ↻ ", style="bold cyan")
        text.append_text(
            one_line(f"resumed from checkpoint {segment.resumed_from}", limit=60, style="bold cyan")
        )
    text.append(f"  state: {'diff' if diff_mode else 'full'}", style="dim")
    if playing:
        text.append(f"  ▶ playing {speed:g}/s", style="bold cyan")
    else:
        text.append(f"  speed {speed:g}/s", style="dim")
    if follow and session.problem is not None:
        text.append(f"  stopped following: {session.problem}", style="bold red")
        text.append(f" (showing the {len(replay)} steps read before it)", style="red")
    elif follow:
        text.append("  following", style="bold magenta")
    found = session.diagnostics
    if found is not None and live is not None:
        found = [d for d in found if d.code != "incomplete"]
    if found is None:
        text.append("  diagnosing…", style="dim")
    elif found:
        text.append(f"  {len(found)} diagnostic(s)", style="yellow")
    return text


def timeline_note(session: Session, *, expand: bool) -> Text:
    """The timeline's border note: the cursor row's interrupt or resume note, whole (a row's end can
    be off-screen on a narrow screen), else where the run stopped at an interrupt."""
    replay = session.replay
    stop = stop_note(session, expand=expand)
    if replay.current is not None and not (stop and replay.cursor >= len(replay) - 1):
        note = mark_text(session.row(replay.cursor), expand=expand)
        if note.plain.strip():
            return note[2:]  # without the two spaces that set it off inside a row
    return stop


def stop_note(session: Session, *, expand: bool) -> Text:
    """Where the run stopped at an interrupt, on the timeline's border (row ends can be off-screen).
    A `Text`, not a string: a string border title is parsed as markup, and node keys are run data."""
    stop = session.stop_report() if session.run.status == "interrupted" else None
    mark = stop.interrupt if stop is not None else None
    if mark is None:
        return Text()
    cancel = mark.kind == "cancel"
    where = f"step {len(session) - 1}: " if len(session) else ""
    segment = session.run.segments[-1]
    if len(session.run.segments) > 1:
        where = (
            f"segment {segment.index} step {session.run.steps[segment.stop - 1].index}: "
            if segment.stop > segment.start
            else f"segment {segment.index}: "
        )
    return one_line(
        f"{'⊘' if cancel else '⏸'} {where}{mark.reason}",
        limit=None if expand else 100,
        style=("bold magenta" if cancel else "bold yellow"),
    )


def counting_note(session: Session, *, known: bool) -> str:
    """The graph's border note while the cursor's visit counts are still being counted."""
    if known:
        return ""
    total = max(len(session) - 1, 1)
    return f"counting visits… {100 * max(session.paths_counted, 0) // total}%"
