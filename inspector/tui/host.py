"""`ReplayHost`: the replay app as its helpers (`Arranger`, `Finder`, `Walker`, follow mode) see it.

The helpers run on the app (they query its panes, start its workers, move its cursor), but none of
them imports `app.py`, which imports them: they take a `ReplayHost`, the part of the app they use, and
`ReplayApp` is one. So each helper can be read, tested and replaced without the app, and no import
circle ties them to it (tests/test_import_graph.py).

It is an abstract Textual `App` rather than a `typing.Protocol`: the helpers use Textual's own API of
the app (`query_one`, `run_worker`, `notify`, ...), whose overloads a protocol would have to copy.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.reactive import reactive

from inspector.replay import Replay
from inspector.tui.session import Session

__all__ = ["ReplayHost"]


class ReplayHost(App[None]):
    """What the replay app's helpers use of it, beyond Textual's `App`; `ReplayApp` fills it in."""

    path: Path | None
    """The run file (follow mode waits for it to appear)."""
    lenient: bool
    """Read the run file leniently (skip corrupt lines with a warning)."""
    graph_counting: bool
    """The graph shows no visit counts yet: the background count has not reached the cursor."""
    count_in_background: bool = True
    """Count a long run's visits in the background (tests turn it off to see the screen meanwhile)."""
    expand: reactive[bool] = reactive(False, init=False)
    """Values are shown whole (`x`): the arrangement gives the state pane more width."""

    @property
    def waiting(self) -> bool:
        """Follow mode still waits for the run file to appear."""
        raise NotImplementedError

    @property
    def session(self) -> Session:
        """The open run (raises while follow mode still waits for the file)."""
        raise NotImplementedError

    @session.setter
    def session(self, session: Session) -> None:
        raise NotImplementedError

    @property
    def has_session(self) -> bool:
        """Whether a run is open (follow mode waits for its file first)."""
        raise NotImplementedError

    @property
    def replay(self) -> Replay:
        """The session's cursor over the run."""
        raise NotImplementedError

    def begin(self) -> None:
        """Set up the panes for the session (on mount, or once a followed file appears)."""
        raise NotImplementedError

    def sync_columns(self) -> None:
        """Give the timeline the columns the run has (tokens, ADK iterations)."""
        raise NotImplementedError

    def show_cursor(self) -> None:
        """Push the cursor's position into every pane."""
        raise NotImplementedError

    def go(self, position: int) -> None:
        """Move the cursor to `position` and show it."""
        raise NotImplementedError

    def start_background_walk(self) -> None:
        """Start (again) the background walk that finds a long run's diagnostics and visit counts."""
        raise NotImplementedError
