"""`Finder`: the replay app's search. `/` finds the steps matching a text, `]`/`[` move between them.

A short run is searched whole on the key (`Replay.search`: the reader's prefilter over the raw file
takes microseconds there). On a long run nothing that grows with the run may run on the key: the
prefilter alone scans the whole file (half a second at 100,000 steps) and matching reads every
candidate step (seconds). So the key reads steps straight on from the cursor for at most
`SEARCH_SLICE_S` (`Replay.matches`, no prefilter) and moves to the first hit it meets, while a child
process, started after the frame that answers the key, runs the same `Replay.search` over the file
and the hits (timeline marks, the count, `]`/`[`) arrive when it is done. Until then `]`/`[` look on
from the cursor the same bounded way. A new search cancels the one still collecting.
"""

from __future__ import annotations

import asyncio
import bisect
import time
from functools import partial
from typing import TYPE_CHECKING, Literal

from inspector.tui.child import run_python

if TYPE_CHECKING:
    from inspector.tui.host import ReplayHost

__all__ = ["SEARCH_ON_KEY_STEPS", "SEARCH_SLICE_S", "Finder"]

SEARCH_ON_KEY_STEPS = 2_000
"""Runs up to this many steps are searched whole on the key; longer ones as the module says."""
SEARCH_SLICE_S = 0.02
"""How long a key reads steps looking for the next hit of a long run's search."""

_SEARCH_SCRIPT = (
    "import json, sys, warnings\n"
    "from inspector.recording import read_run\n"
    "from inspector.replay import Replay\n"
    "warnings.simplefilter('ignore')\n"
    "run = read_run(sys.argv[1], lenient=sys.argv[2] == 'lenient')\n"
    "print(json.dumps(Replay(run).search(sys.stdin.read())))\n"
)

_PROMPT = "Search steps: node key, text in outputs/state, or state key"


class Finder:
    """The search state of one app: the text, its hits (sorted positions), whether they are still
    being collected."""

    def __init__(self, app: ReplayHost) -> None:
        self.app = app
        self.text = ""
        self.hits: list[int] = []
        self.hit_set: frozenset[int] = frozenset()
        self.collecting = False

    def prompt(self) -> None:
        from inspector.tui.prompt import PromptScreen

        def done(answer: str | None) -> None:
            if answer is not None:
                self.search(answer)

        self.app.push_screen(PromptScreen(_PROMPT, value=self.text), done)

    def _set_hits(self, hits: list[int]) -> None:
        self.hits = hits
        self.hit_set = frozenset(hits)

    def search(self, text: str) -> None:
        """Find the steps matching `text` and move to the first after the cursor (else the first)."""
        app = self.app
        replay = app.replay
        self.text = text
        self.collecting = False
        self._set_hits([])
        if not text or len(replay) <= SEARCH_ON_KEY_STEPS:
            app.workers.cancel_group(app, "search")
            self._set_hits(replay.search(text) if text else [])
            self._found(move=True)
            return
        start = replay.cursor
        first = self.look(start, 1)
        self.collecting = True
        if first is not None:
            self._set_hits([first])
            app.go(first)
        self._tell(f"searching for {text!r}…")
        # a coroutine function, not a coroutine: a worker cancelled before it starts (a new search)
        # then leaves no coroutine never awaited
        app.run_worker(partial(self._collect, text, start, first is None), exclusive=True, group="search")

    def look(self, start: int, direction: int) -> int | None:
        """The nearest step after (`direction` 1) or before (-1) `start` matching the search, read
        directly for at most `SEARCH_SLICE_S`; None when there is none that near."""
        replay = self.app.replay
        deadline = time.perf_counter() + SEARCH_SLICE_S
        i = start + direction
        while 0 <= i < len(replay):
            if replay.matches(i, self.text):
                return i
            if time.perf_counter() >= deadline:
                return None
            i += direction
        return None

    async def _collect(self, text: str, start: int, move: bool) -> None:
        app = self.app
        # After the frame that answers the key: starting the child holds the app's loop for 3-8 ms
        # (the exec), and the child's start competes with that frame for the CPU. (Not Textual's
        # `wait_for_refresh`: on the app it asserts a task that only a test run gives the app.)
        drawn = asyncio.Event()
        app.call_after_refresh(drawn.set)
        await drawn.wait()
        lenient = "lenient" if app.session.run.lenient else "strict"
        found = await run_python(_SEARCH_SCRIPT, str(app.session.run.path), lenient, stdin=text)
        if text != self.text:
            return
        steps = len(app.replay)  # a followed file may have grown since the app read it
        hits = [h for h in found if isinstance(h, int) and h < steps] if isinstance(found, list) else []
        self.collecting = False
        self._set_hits(sorted(hits))
        # a search that found nothing near the cursor moves to its first hit, unless the user has
        # moved since
        self._found(move=move and app.replay.cursor == start)

    def _found(self, *, move: bool) -> None:
        app = self.app
        if not self.hits:
            self._tell(f"no step matches {self.text!r}", severity="warning")
            app.show_cursor()
            return
        self._tell(f"{len(self.hits)} step(s) match {self.text!r}")
        if move:
            later = self._later(app.replay.cursor)
            app.go(later if later is not None else self.hits[0])
        else:
            app.show_cursor()

    def _tell(self, message: str, *, severity: Literal["information", "warning"] = "information") -> None:
        """A toast about the search, shown after the frame that answers the key. `/` is answered in the
        prompt's dismiss callback, while the prompt is still the screen on top: a toast raised there is
        drawn on the prompt (blending the whole screen beneath it) and drawn again when the prompt is
        gone, which cost the Enter more than the search itself."""
        self.app.call_after_refresh(self.app.notify, message, severity=severity, markup=False)

    def _later(self, position: int) -> int | None:
        at = bisect.bisect_right(self.hits, position)
        return self.hits[at] if at < len(self.hits) else None

    def _earlier(self, position: int) -> int | None:
        at = bisect.bisect_left(self.hits, position)
        return self.hits[at - 1] if at > 0 else None

    def next_hit(self, direction: int) -> None:
        """`]` (1) or `[` (-1): the next or previous hit; while hits are still being collected, one
        read directly near the cursor."""
        app = self.app
        cursor = app.replay.cursor
        found = self._later(cursor) if direction > 0 else self._earlier(cursor)
        if found is None and self.collecting:
            found = self.look(cursor, direction)
            if found is None:
                app.notify(f"still searching for {self.text!r}…", markup=False)
                return
        if found is not None:
            app.go(found)
        elif self.hits:
            app.notify(f"no {'later' if direction > 0 else 'earlier'} search hit", markup=False)
