"""`Walker`: the replay app's side of the background walk, and of the freeze of a long run's opening.

A long run's diagnostics and visit counts read every step: seconds at 100,000 steps, which must never
hold a key. One child process walks the steps for both (`Session.walk_separately`, the child side in
`background.py`) and reports as it goes; the app takes its reports in here, and ends the child when the
app closes. The freeze keeps the garbage collector's full collections, which walk every object still
tracked, off the objects alive after the first frame: the ~100,000 a long run's opening leaves, and
Textual's own widgets, styles and modules, which are most of them on a short run. While the app runs,
full collections also come ten times less often (`FULL_COLLECTION_EVERY`): what a key makes and keeps
(strips in line caches, laid-out messages) piles up past the freeze, and a full collection walking
it took 10-25 ms of a key by the end of the bench's fifteen presses.
"""

from __future__ import annotations

import contextlib
import gc
from typing import TYPE_CHECKING

from textual.worker import WorkerCancelled, WorkerFailed

from inspector.tui import paths

if TYPE_CHECKING:
    from inspector.tui.host import ReplayHost

__all__ = ["FULL_COLLECTION_EVERY", "Walker"]

FULL_COLLECTION_EVERY = 100
"""Collections of the middle generation per full collection while the app runs (CPython's is 10)."""


class Walker:
    """The background walk of one app's run, and whether the opening's objects are frozen."""

    def __init__(self, app: ReplayHost) -> None:
        self.app = app
        self.frozen = False
        self._thresholds: tuple[int, int, int] | None = None  # the collector's, put back by `stop`

    def start(self) -> None:
        """Start what is computed off the keys for a long run: its diagnostics and its visit counts, in
        one child process walking the steps; it replaces any still running for an earlier reading."""
        app = self.app
        session = app.session
        count = app.count_in_background and len(session) > paths.REACH and not session.paths_done
        if session.diagnostics is None or count:
            app.run_worker(self._walk(count=count), exclusive=True, group="background")

    async def _walk(self, *, count: bool) -> None:
        """Take in the walk's reports: the graph shows the cursor's counts as soon as the count comes
        within reach of it, the diagnostics once they are found."""
        app = self.app
        session = app.session
        async with contextlib.aclosing(session.walk_separately(count=count)) as walk:  # ends the child
            async for update in walk:
                if app.session is not session or not app.is_running:  # another run, or closing
                    return
                if update[0] == "diagnostics":
                    if session.diagnostics is None:
                        session.diagnostics = update[1]
                        app.show_cursor()
                elif app.graph_counting and session.paths_counted + paths.REACH >= app.replay.cursor:
                    app.show_cursor()
        if app.graph_counting and app.session is session and app.is_running:
            app.show_cursor()

    def freeze_after_first_frame(self) -> None:
        """Freeze the objects alive after the next frame, once, whatever the run's length."""
        if not self.frozen:
            self.app.call_after_refresh(self.freeze)

    def freeze(self) -> None:
        """Move every object alive now (the reader's index of a long run, Textual's styles and widgets,
        the modules) out of the cyclic garbage collector's generations.

        On a 100,000-step run the collections that landed in a key took 35-95 ms of CPU each (10-20 ms
        once frozen). Frozen objects are still freed when nothing refers to them; only cyclic garbage
        among them waits until `stop` unfreezes them. No collection first: it would cost a collection
        right when the first keys come, and what it would free is a one-off.

        Full collections then come every `FULL_COLLECTION_EVERY` collections of the middle generation
        instead of every 10; the younger generations keep their thresholds."""
        self.frozen = True
        gc.freeze()
        self._thresholds = gc.get_threshold()
        young, middle, _ = self._thresholds
        gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)

    async def stop(self) -> None:
        """End the child processes of the walk and of a search before the app's loop closes (a
        cancelled worker kills its child and reaps it, which takes a few turns of the loop), and give
        what the app froze back to the collector, with its thresholds as they were."""
        app = self.app
        children = [w for w in app.workers if w.group in ("background", "search") and w.is_running]
        for worker in children:
            worker.cancel()
        for worker in children:
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await worker.wait()
        if self.frozen:
            gc.unfreeze()
            self.frozen = False
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None
