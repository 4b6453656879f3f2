"""`Session`: what the TUI needs from a recorded run, on top of `Replay`, without any Textual.

The replay model answers questions about one position; a screen asks the same questions at every
keypress and wants them fast on a 100,000-step run. So this adapter adds:

- the executed path and visit counts as a running total with checkpoints (`paths.PathCounter`), so
  stepping forward costs one step, and a jump far into a long run is answered once the background
  count gets there (`walk_separately`: a child process, with the diagnostics) rather than by reading
  every step on the key;
- timeline rows built from the step records alone;
- where an error or incomplete run should open, and the stop report (error, node path, diagnostics);
- `reload()` for `--follow`: re-read a run file that is still growing, keeping cursor and breakpoints.

The engine is never involved: a session only reads a file.
"""

from __future__ import annotations

import contextlib
import os
import stat
import warnings
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from pathlib import Path

from graph_core.topology import END, START
from inspector.conversation import Conversation
from inspector.diagnostics import Diagnostic, diagnose
from inspector.recording.format import BudgetRecord, ErrorRecord
from inspector.recording.reader import NodeRun, Run, RunFileWarning, read_run
from inspector.replay import Replay
from inspector.tui import background
from inspector.tui.interrupts import InterruptMark, interrupt_at, is_interrupt, stop_mark
from inspector.tui.paths import PathCounter, PathSoFar

__all__ = ["SYNC_DIAGNOSE_LIMIT", "PathSoFar", "Session", "StopReport", "TimelineRow"]

SYNC_DIAGNOSE_LIMIT = 5_000
"""Runs up to this many steps are diagnosed when opened; longer ones by `walk_separately` (slow)."""


@dataclass(frozen=True)
class TimelineRow:
    """One superstep as the timeline shows it."""

    position: int
    index: int
    nodes: tuple[str, ...]
    budget: BudgetRecord
    duration: float | None
    failed: bool
    ended: bool
    interrupt: InterruptMark | None = None
    resumed_from: str | None = None
    segment: int = 0


@dataclass(frozen=True)
class StopReport:
    """Why a run did not finish normally: its status, the error and where, and the diagnostics."""

    status: str
    error: ErrorRecord | None
    node_path: tuple[str, ...]
    failed: tuple[NodeRun, ...]
    diagnostics: tuple[Diagnostic, ...]
    unfinished_nodes: tuple[str, ...] = field(default=())
    interrupt: InterruptMark | None = None


class Session:
    """A `Replay` plus caches and follow-mode reloading; the TUI's only view of a run."""

    def __init__(self, run: Run) -> None:
        self.replay = Replay(run)
        self.diagnostics: list[Diagnostic] | None = (
            diagnose(run) if len(run.steps) <= SYNC_DIAGNOSE_LIMIT else None
        )
        self._paths = PathCounter(run)
        self.conversation = Conversation(run)
        self._size = _size(run.path)
        self.problem: str | None = None
        """Why the last follow-mode reload could not read the file (a corrupt line); the steps shown
        are the good prefix read before it. None while the file reads cleanly."""
        self.problem_detail = ""
        """The reader's whole message for `problem` (path, line, what is wrong)."""

    @classmethod
    def open(cls, path: str | Path, *, lenient: bool = False) -> Session:
        return cls(read_run(path, lenient=lenient))

    @classmethod
    def try_open(cls, path: str | Path, *, lenient: bool = False) -> Session | None:
        """The session, or None while there is nothing to read yet: no file, or no complete header
        line (a recorder that has just started). Anything else wrong with the file still raises."""
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO or a device: the reader refuses it
                return cls.open(path, lenient=lenient)
            with open(path, "rb") as file:
                first = file.readline()
        except FileNotFoundError:
            return None
        if not first.endswith(b"\n"):
            return None
        return cls.open(path, lenient=lenient)

    @property
    def run(self) -> Run:
        return self.replay.run

    def __len__(self) -> int:
        return len(self.replay)

    def node_keys(self) -> tuple[str, ...] | None:
        """The nodes a step can run (every segment's topology, START and END left out: they never run
        as a step), in drawing order; None when the run recorded no topology to check names against."""
        topologies = [s.topology for s in self.run.segments if s.topology is not None]
        if self.run.topology is not None:
            topologies.insert(0, self.run.topology)
        if not topologies:
            return None
        keys = (n.key for t in topologies for n in t.nodes if n.key not in (START, END))
        return tuple(dict.fromkeys(keys))

    # --- where to start -------------------------------------------------------------------------

    def opening_position(self) -> int:
        """Step 0 for a run that ended normally; the last step for one that failed or stopped early;
        the step that interrupted for an interrupted run."""
        if self.run.status == "interrupted":
            for position in range(len(self) - 1, max(len(self) - 3, -1), -1):
                if self.run.steps[position].interrupted:
                    return position
        if self.run.status in ("error", "incomplete", "interrupted"):
            return max(len(self) - 1, 0)
        return 0

    def interrupt_at(self, position: int) -> InterruptMark | None:
        """The interrupt (or cancel) at step `position`, if the run stopped or paused a node there."""
        return interrupt_at(self.run, position)

    def stop_report(self) -> StopReport | None:
        """Why the run stopped, when it did not end `ok`; None for a normal run."""
        run = self.run
        if run.status == "ok":
            return None
        unfinished = run.unfinished
        failed = tuple(unfinished.failed_nodes) if unfinished is not None else ()
        if not failed and len(run.steps):
            failed = tuple(run.steps[-1].failed_nodes)
        failed = tuple(r for r in failed if not is_interrupt(r.error))
        node_path: tuple[str, ...] = ()
        if run.error is not None and run.error.node_path:
            node_path = tuple(run.error.node_path)
        elif failed:
            node_path = (*failed[0].path[:-1], failed[0].node) if failed[0].path else (failed[0].node,)
        return StopReport(
            status=run.status,
            error=run.error,
            node_path=node_path,
            failed=failed,
            diagnostics=tuple(self.diagnostics or ()),
            unfinished_nodes=() if unfinished is None else unfinished.nodes,
            interrupt=stop_mark(run) if run.status == "interrupted" else None,
        )

    async def walk_separately(self, *, count: bool = True) -> AsyncGenerator[background.Update, None]:
        """Diagnose the run (unless done already) and, with `count`, count its visits on from where the
        count stands, in one child process walking every step (seconds on a 100,000-step run: see
        `background`). The counts are taken in here as they arrive (`path_known` reaches further);
        each report is yielded too, the diagnostics for the caller to keep."""
        counter = self._paths if count and not self._paths.done else None
        run = self.run
        walk = background.walk_separately(
            counter, str(run.path), lenient=run.lenient, diagnose=self.diagnostics is None
        )
        async with contextlib.aclosing(walk):  # closing this closes the walk: its child ends at once
            async for update in walk:
                if update[0] == "paths":
                    self._paths.adopt(update[1], update[2])
                yield update

    def budget_cycle(self) -> str | None:
        """The diagnostics' account of which cycle spent the budget, if the budget ran out."""
        for diagnostic in self.diagnostics or ():
            if diagnostic.code == "budget-exhausted":
                return diagnostic.message
        return None

    @property
    def iterations_max(self) -> int | None:
        """An ADK agent's iterations at the start of the run (its first step, before any model call)."""
        steps = self.run.steps
        return steps[0].budget.iterations_remaining if len(steps) else None

    def iterations_max_at(self, position: int) -> int | None:
        """`iterations_max` for the segment holding `position`: a resumed run's budget starts afresh."""
        steps = self.run.steps
        if not 0 <= position < len(steps):
            return self.iterations_max
        start = self.run.segments[steps[position].segment].start
        return steps[start].budget.iterations_remaining

    def segment_at(self, position: int) -> int:
        """The segment (0 for the first run, 1 after the first resume, ...) holding step `position`;
        the last one for a position past the end."""
        if not len(self):
            return len(self.run.segments) - 1
        return self.run.segment_of(max(0, min(position, len(self) - 1)))

    def consuming_cycle(
        self, position: int, *, lookback: int = 200, so_far: PathSoFar | None = None
    ) -> tuple[str, int] | None:
        """The loop spending the budget up to `position`: `("chat -> tools -> chat", rounds)`, from the
        topology's back edge whose target was visited most, walked back over the last round (at most
        `lookback` steps). None without back edges taken twice. `so_far` is the path at `position`
        when the caller has it (else it is worked out)."""
        topology = self.run.topology
        if topology is None or not len(self):
            return None
        position = max(0, min(position, len(self) - 1))
        visits = (so_far if so_far is not None else self.path_at(position)).visits
        taken = [(e.source, e.target) for e in topology.back_edges if visits.get(e.source, 0) >= 1]
        taken = [edge for edge in taken if visits.get(edge[1], 0) >= 2]
        if not taken:
            return None
        source, target = max(taken, key=lambda edge: visits.get(edge[1], 0))
        steps = self.run.steps
        seen: list[int] = []
        first = self.run.segments[steps[position].segment].start  # the budget restarts at a resume
        for i in range(position, max(position - lookback, first - 1), -1):
            if target in steps[i].nodes:
                seen.append(i)
                if len(seen) == 2:
                    break
        if len(seen) < 2:
            return None
        later, earlier = seen
        loop = [
            n[0] if len(n) == 1 else "{" + ", ".join(n) + "}"
            for n in (steps[i].nodes for i in range(earlier, later))
        ]
        return " -> ".join([*loop, target]), visits.get(source, 0)

    # --- rows -----------------------------------------------------------------------------------

    def row(self, i: int) -> TimelineRow:
        run = self.run
        step = run.steps[i]
        segment = run.segments[step.segment]
        interrupted = bool(step.interrupted) or (i == segment.stop - 1 and segment.interrupt is not None)
        return TimelineRow(
            position=i,
            index=step.index,
            nodes=step.nodes,
            budget=step.budget,
            duration=step.duration,
            failed=bool(step.errors)
            or any(r.error is not None and not is_interrupt(r.error) for r in step.node_runs),
            ended=step.ended,
            interrupt=interrupt_at(run, i) if interrupted else None,
            resumed_from=segment.resumed_from if i == segment.start else None,
            segment=step.segment,
        )

    # --- executed path --------------------------------------------------------------------------

    def path_at(self, i: int) -> PathSoFar:
        """Visits, nodes and edges taken in steps 0..`i` (START and END included when reached); walks as
        far as it must (seconds far into a long run: the screen asks `path_known` instead)."""
        return self._paths.at(i)

    def path_known(self, i: int) -> PathSoFar | None:
        """`path_at(i)` when it costs no more than a key may spend, else None until `count_paths` has
        counted far enough."""
        return self._paths.known(i)

    def count_paths(self, seconds: float) -> bool:
        """Count visits ahead for about `seconds` (the background count); True once every step is."""
        return self._paths.count_for(seconds)

    def path_partial(self, i: int) -> PathSoFar:
        """While `path_known(i)` is None: the nodes and edges known taken by step `i` (those taken by
        the last step counted before it), without visit counts, which are not known yet."""
        return self._paths.partial(i)

    @property
    def paths_done(self) -> bool:
        """Whether the background count of visits has reached the last step."""
        return self._paths.done

    @property
    def paths_counted(self) -> int:
        """How far the background count of visits has got (a position; -1 before it starts)."""
        return self._paths.counted

    # --- follow ---------------------------------------------------------------------------------

    def reload(self) -> bool:
        """Re-read the run file if it changed size; returns whether there is anything new to show.

        The cursor stays where it was, or follows the end when it was on the last step; breakpoints
        are kept. A file that turns out corrupt (a bad line appended in the middle) keeps the steps
        already shown, the good prefix, and says why in `problem` (True once, to show it).
        """
        size = _size(self.run.path)
        if size == self._size:
            return False
        try:
            with warnings.catch_warnings():  # skipped lines were reported when the file was opened
                warnings.simplefilter("ignore", RunFileWarning)
                run = read_run(self.run.path, lenient=self.run.lenient)
        except ValueError as exc:
            self._size = size  # read again only once the file changes again
            line = getattr(exc, "line_no", None)
            problem = f"line {line} is corrupt" if line is not None else "the file no longer reads"
            self.problem_detail = " ".join(str(exc).split())
            changed, self.problem = problem != self.problem, problem
            return changed
        self.problem = None
        old = self.replay
        rewritten = size < self._size  # the Recorder truncates: a new run started in the same file
        at_end = old.cursor >= len(old) - 1
        cursor = len(run.steps) - 1 if at_end and not rewritten else old.cursor
        replay = Replay(run, cursor=cursor)
        for node in old.breakpoints:
            replay.add_breakpoint(node)
        self.replay = replay
        self.conversation = Conversation(run)
        self.diagnostics = diagnose(run) if len(run.steps) <= SYNC_DIAGNOSE_LIMIT else None
        self._size = size
        self._paths.use(run, rewritten=rewritten)
        return True


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1
