"""`PathCounter`: visits per node and the nodes and edges taken up to any step, kept as checkpoints.

Visit counts at step `i` depend on every step before it, so the first question far into a long run
would read the whole file (seconds at 100,000 steps). A key must not wait for that. So the counter
answers on the key only what it can reach from what it already knows within `REACH` steps
(`known`), and the rest is counted in the background from the start towards the end: a checkpoint
every `EVERY` steps, each one exact. The app has that count made by the child process that diagnoses
the run (`background.py`), which walks every step anyway, and takes its checkpoints in (`adopt`) as
they arrive; `count_for` counts a slice at a time in this process (tests, small callers). The
screen shows "counting…" until the cursor's position comes within reach. `at` still answers any
position at once, walking as far as it must, for callers that can wait (the CLI, tests).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from graph_core.topology import END, START
from inspector.recording.reader import Run

__all__ = ["EVERY", "REACH", "PathCounter", "PathSoFar", "path_from_json", "path_to_json"]

EVERY = 256
"""Steps between two checkpoints."""
REACH = 600
"""Steps `known` walks on a key (from a checkpoint or the last answer): tens of µs each, so at most
a few tens of ms; anything farther is left to the background count. At least `EVERY`, so that once
the count is done every position is in reach."""


@dataclass(frozen=True)
class PathSoFar:
    """Everything that ran up to and including a position: visits per node, nodes and edges taken."""

    position: int
    visits: dict[str, int]
    nodes: frozenset[str]
    edges: frozenset[tuple[str, str]]
    previous: tuple[str, ...] = ()


_START = PathSoFar(-1, {}, frozenset({START}), frozenset(), (START,))


def path_to_json(path: PathSoFar) -> dict[str, Any]:
    """`path` as JSON (how the counting child process hands its checkpoints back), in a set order."""
    return {
        "position": path.position,
        "visits": path.visits,
        "nodes": sorted(path.nodes),
        "edges": sorted([a, b] for a, b in path.edges),
        "previous": list(path.previous),
    }


def path_from_json(data: dict[str, Any]) -> PathSoFar:
    """The `PathSoFar` that `path_to_json` wrote."""
    return PathSoFar(
        int(data["position"]),
        {str(k): int(v) for k, v in data["visits"].items()},
        frozenset(str(n) for n in data["nodes"]),
        frozenset((str(a), str(b)) for a, b in data["edges"]),
        tuple(str(n) for n in data["previous"]),
    )


class PathCounter:
    """Paths so far over `run.steps`, with checkpoints; `run` may be swapped for a longer reading of
    the same file (follow mode) as long as its first steps are unchanged."""

    def __init__(self, run: Run) -> None:
        self._checkpoints: dict[int, PathSoFar] = {}
        self._last: PathSoFar | None = None
        self._frontier = _START  # how far the background count has got
        self._chosen: dict[int, set[tuple[str, str]]] = {}  # the last step read: its branches' choices
        self.use(run)

    def use(self, run: Run, *, rewritten: bool = False) -> None:
        """Count over `run` from now on; `rewritten` drops everything known (a new run in the file)."""
        self.run = run
        edges = () if run.topology is None else run.topology.edges
        self._edge_set = {(e.source, e.target) for e in edges if e.kind == "edge"}
        self._last = None
        self._chosen = {}
        if rewritten:
            self._checkpoints.clear()
            self._frontier = _START

    def __len__(self) -> int:
        return len(self.run.steps)

    @property
    def counted(self) -> int:
        """The last position the background count has reached (-1: not started)."""
        return self._frontier.position

    @property
    def done(self) -> bool:
        """Whether the background count has reached the last step (every position is then in reach)."""
        return self._frontier.position >= len(self) - 1

    def at(self, i: int) -> PathSoFar:
        """Visits, nodes and edges taken in steps 0..`i` (START and END included when reached), however
        far that has to walk."""
        found = self._walk(i, None)
        assert found is not None
        return found

    def known(self, i: int, *, reach: int | None = None) -> PathSoFar | None:
        """`at(i)` when it is at most `reach` (default `REACH`) steps from a checkpoint or the last
        answer, else None (the background count has not got there yet)."""
        return self._walk(i, REACH if reach is None else reach)

    def partial(self, i: int) -> PathSoFar:
        """What is known at step `i` without walking: the nodes and edges taken by the nearest known
        position before it (all taken by `i` too), without visit counts (those at `i` are unknown)."""
        base = self._base(max(0, min(i, len(self) - 1)))
        return PathSoFar(i, {}, base.nodes, base.edges)

    def count_for(self, seconds: float) -> bool:
        """Advance the background count for about `seconds` (at least one step); True once done."""
        deadline = time.perf_counter() + seconds
        self._count(lambda position: position % 16 == 0 and time.perf_counter() >= deadline)
        return self.done

    def count_to(self, i: int) -> None:
        """Advance the background count up to position `i` (no further than the last step)."""
        self._count(lambda position: position >= i)

    def _count(self, stop: Callable[[int], bool]) -> None:
        """Advance the background count a step at a time until `stop(position)` or the last step."""
        n = len(self)
        if self._frontier.position >= n - 1:
            return
        start = self._frontier
        visits, nodes, edges = dict(start.visits), set(start.nodes), set(start.edges)
        previous = start.previous
        position = start.position
        while position < n - 1:
            position += 1
            previous = self._advance(position, previous, visits, nodes, edges)
            if position % EVERY == 0:
                self._keep(position, visits, nodes, edges, previous)
            if stop(position):
                break
        self._frontier = PathSoFar(position, visits, frozenset(nodes), frozenset(edges), previous)

    @property
    def frontier(self) -> PathSoFar:
        """Where the background count has got: the path at `counted` (START before it begins)."""
        return self._frontier

    def checkpoints_after(self, position: int) -> list[PathSoFar]:
        """The checkpoints past `position`, in order (what a counting child has not handed back yet)."""
        return [self._checkpoints[p] for p in sorted(self._checkpoints) if p > position]

    def adopt(self, checkpoints: Iterable[PathSoFar], frontier: PathSoFar | None = None) -> None:
        """Take in what a count made elsewhere found over the same steps (the counting child's
        checkpoints, and how far it got): the background count then stands at `frontier`. Positions
        this reading of the file does not have are left out."""
        n = len(self)
        for found in checkpoints:
            if found.position < n:
                self._checkpoints.setdefault(found.position, found)
        if frontier is not None and self._frontier.position < frontier.position < n:
            self._frontier = frontier

    def _walk(self, i: int, reach: int | None) -> PathSoFar | None:
        if not len(self):
            return PathSoFar(-1, {}, frozenset(), frozenset())
        i = max(0, min(i, len(self) - 1))
        base = self._base(i)
        if reach is not None and i - base.position > reach:
            return None
        visits, nodes, edges = dict(base.visits), set(base.nodes), set(base.edges)
        previous = base.previous
        for position in range(base.position + 1, i + 1):
            previous = self._advance(position, previous, visits, nodes, edges)
            if position % EVERY == 0:
                self._keep(position, visits, nodes, edges, previous)
        result = PathSoFar(i, visits, frozenset(nodes), frozenset(edges), previous)
        self._last = result
        return result

    def _keep(
        self,
        position: int,
        visits: dict[str, int],
        nodes: set[str],
        edges: set[tuple[str, str]],
        previous: tuple[str, ...],
    ) -> None:
        if position not in self._checkpoints:
            self._checkpoints[position] = PathSoFar(
                position, dict(visits), frozenset(nodes), frozenset(edges), previous
            )

    def _base(self, i: int) -> PathSoFar:
        """The nearest known path at or before `i`: a checkpoint, the background count's frontier, or
        the last answer."""
        mark = (i // EVERY) * EVERY
        best = self._checkpoints.get(mark)
        if best is None:
            best = _START
            below = [p for p in self._checkpoints if p <= i]  # a few hundred at most
            if below:
                best = self._checkpoints[max(below)]
        for other in (self._frontier, self._last):
            if other is not None and best.position <= other.position <= i:
                best = other
        return best

    def _advance(
        self,
        position: int,
        previous: tuple[str, ...],
        visits: dict[str, int],
        nodes: set[str],
        edges: set[tuple[str, str]],
    ) -> tuple[str, ...]:
        steps = self.run.steps
        step = steps[position]
        chosen: set[tuple[str, str]] = set()
        if position > 0:
            before = self._chosen.get(position - 1)
            if before is None:
                before = {(b.source, t) for b in steps[position - 1].branches for t in b.chosen}
            chosen = before
        self._chosen = {position: {(b.source, t) for b in step.branches for t in b.chosen}}
        for node in step.nodes:
            visits[node] = visits.get(node, 0) + 1
            nodes.add(node)
            edges.update((p, node) for p in previous if (p, node) in self._edge_set or (p, node) in chosen)
        if step.ended:
            ends = {(b.source, t) for b in step.branches for t in b.chosen if t == END}
            ends.update((n, END) for n in step.nodes if (n, END) in self._edge_set)
            if ends:
                nodes.add(END)
                edges.update(ends)
        return step.nodes
