"""`Replay`: a pure model of stepping through a recorded run (no Textual; the TUI only draws it).

Positions are 0-based indexes into `run.steps` (equal to the step index in a top-level run). The cursor
is always a valid position of a run with at least one step; a run without steps has cursor 0 and
`current` None. Everything else (states, diffs, visits, search, breakpoints) is computed from the run
on demand, so a replay over a 100,000-step file costs no more to open than the file itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from graph_core.schema import Message
from graph_core.topology import END, START
from inspector.recording.format import BudgetRecord
from inspector.recording.reader import Run, Step, TextCandidates, to_messages
from inspector.recording.statediff import Change, Path
from inspector.recording.valuelist import LISTS, json_default

__all__ = ["Change", "Replay", "StatePredicate"]

StatePredicate = Callable[[Any], bool]
_MISSING = object()


def _parse_path(path: str | Iterable[str | int]) -> Path:
    if isinstance(path, str):
        return tuple(
            int(p) if p.isdigit() else p for p in path.replace("[", ".").replace("]", "").split(".") if p
        )
    return tuple(path)


def _get(value: Any, path: Path) -> Any:
    for part in path:
        if isinstance(value, dict):
            if part not in value:
                return _MISSING
            value = value[part]  # pyright: ignore[reportUnknownVariableType]
        elif isinstance(value, LISTS) and isinstance(part, int) and -len(value) <= part < len(value):  # pyright: ignore[reportUnknownArgumentType]
            value = value[part]  # pyright: ignore[reportUnknownVariableType]
        else:
            return _MISSING
    return value  # pyright: ignore[reportUnknownVariableType]


class Replay:
    """A cursor over `run.steps` with the questions a debugger asks of a recorded run."""

    def __init__(self, run: Run, *, cursor: int = 0) -> None:
        self.run = run
        self.cursor = 0
        self._breakpoints: set[str] = set()
        self._predicates: list[StatePredicate] = []
        self._nodes: list[tuple[str, ...]] | None = None
        self._search_memo: tuple[str, TextCandidates | None] | None = None
        self._path_memo: tuple[int, frozenset[str], frozenset[tuple[str, str]], tuple[str, ...]] | None = None
        self.go(cursor)

    def __len__(self) -> int:
        return len(self.run.steps)

    @property
    def current(self) -> Step | None:
        return self.run.steps[self.cursor] if len(self) else None

    # --- moving ---------------------------------------------------------------------------------

    def go(self, i: int) -> int:
        """Move to position `i` (negative counts from the end), clamped to the run; returns the cursor."""
        n = len(self)
        if i < 0:
            i += n
        self.cursor = max(0, min(i, n - 1)) if n else 0
        return self.cursor

    def forward(self) -> int:
        return self.go(self.cursor + 1)

    def back(self) -> int:
        return self.go(max(self.cursor - 1, 0))

    def first(self) -> int:
        return self.go(0)

    def last(self) -> int:
        return self.go(len(self) - 1)

    # --- state ----------------------------------------------------------------------------------

    def state_at(self, i: int) -> Any:
        """State after step `i`; None for graphs without state. Shared with the run: do not mutate."""
        return self.run.state_at(self._pos(i))

    def _pos(self, i: int) -> int:
        n = len(self)
        j = i + n if i < 0 else i
        if not 0 <= j < n:
            raise IndexError(f"step {i} out of range (the run has {n} steps)")
        return j

    def diff(self, a: int, b: int) -> list[Change]:
        """What changed in state from after step `a` to after step `b`; `a = -1` means before the run."""
        return self.run.state_changes(a if a == -1 else self._pos(a), self._pos(b))

    def changes_at(self, i: int) -> list[Change]:
        """What step `i` changed in state."""
        return self.diff(self._pos(i) - 1, i)

    def messages_at(self, i: int) -> list[Message]:
        """Messages in the state after step `i` (the state's `messages` key), else []."""
        return to_messages(self.state_at(i))

    def budget_series(self) -> list[BudgetRecord]:
        """The budget after every step, in order (reads only the step_finished lines)."""
        return [self.run.budget_at(i) for i in range(len(self))]

    def nodes_at(self, i: int) -> tuple[str, ...]:
        """The nodes of step `i`, from a list built once (cheap even for very long runs)."""
        if self._nodes is None:
            self._nodes = [tuple(self.run.finished_event(k).nodes) for k in range(len(self))]
        return self._nodes[self._pos(i)]

    # --- visits and paths -----------------------------------------------------------------------

    def visit_counts(self, upto: int | None = None) -> dict[str, int]:
        """How many times each node ran in steps 0..`upto` (inclusive; default: the cursor)."""
        last = self.cursor if upto is None else self._pos(upto)
        counts: dict[str, int] = {}
        for i in range(last + 1):
            for node in self.nodes_at(i):
                counts[node] = counts.get(node, 0) + 1
        return counts

    def executed_path(self, upto: int | None = None) -> tuple[set[str], set[tuple[str, str]]]:
        """Nodes that ran and edges taken in steps 0..`upto` (START and END included when reached).

        With a topology, an edge counts as taken when its source ran in one step and its target in the
        next (a branch edge only when no plain edge explains the target), which needs no step parsing;
        without one, the recorded branch decisions say which targets were chosen. Results are extended
        incrementally, so moving the cursor forward costs only the new steps.
        """
        if not len(self):
            return set(), set()
        last = self.cursor if upto is None else self._pos(upto)
        memo = self._path_memo
        if memo is not None and memo[0] <= last:
            first, nodes, taken, previous = memo[0] + 1, set(memo[1]), set(memo[2]), memo[3]
        else:
            first, nodes, taken, previous = 0, {START}, set[tuple[str, str]](), (START,)
        topology = self.run.topology
        plain, branch = self._edges()
        for i in range(first, last + 1):
            current = self.nodes_at(i)
            chosen = set[tuple[str, str]]()
            if topology is None and i > 0:
                chosen = {(b.source, t) for b in self.run.steps[i - 1].branches for t in b.chosen}
            for node in current:
                nodes.add(node)
                explained = [p for p in previous if (p, node) in plain or (p, node) in chosen]
                if not explained:  # a branch edge, or (without a topology) whatever ran before
                    explained = [p for p in previous if (p, node) in branch] if topology else list(previous)
                taken.update((p, node) for p in explained)
            previous = current
        self._path_memo = (last, frozenset(nodes), frozenset(taken), previous)
        finished = self.run.finished_event(last)
        if finished.ended:
            nodes = {*nodes, END}
            if topology is None:
                ends = {(b.source, END) for b in self.run.steps[last].branches if END in b.chosen}
                ends.update((n, END) for n in previous if not self.run.steps[last].branches)
            else:
                ends = {(n, END) for n in previous if (n, END) in plain or (n, END) in branch}
            taken = taken | ends
        return set(nodes), set(taken)

    def _edges(self) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
        topology = self.run.topology
        if topology is None:
            return set(), set()
        plain = {(e.source, e.target) for e in topology.edges if e.kind == "edge"}
        branch = {(e.source, e.target) for e in topology.edges if e.kind == "branch"}
        return plain, branch

    def next_visit(self, node: str) -> int | None:
        """The next position after the cursor where `node` runs."""
        for i in range(self.cursor + 1, len(self)):
            if node in self.nodes_at(i):
                return i
        return None

    def prev_visit(self, node: str) -> int | None:
        """The previous position before the cursor where `node` ran."""
        for i in range(self.cursor - 1, -1, -1):
            if node in self.nodes_at(i):
                return i
        return None

    def next_change(self, path: str | Iterable[str | int]) -> int | None:
        """The next position after the cursor whose step changed the state at `path`.

        `path` is a tuple of keys and indexes, or text like `"messages"` or `"a.b[2]"`."""
        key = _parse_path(path)
        before = _get(self.state_at(self.cursor), key) if len(self) else _MISSING
        for i in range(self.cursor + 1, len(self)):
            now = _get(self.state_at(i), key)
            if now is not before and now != before:
                return i
            before = now
        return None

    # --- search ---------------------------------------------------------------------------------

    def search(self, text: str) -> list[int]:
        """Positions whose step matches `text` (any case): a node key, a node's output, a state key or
        value that the step changed (messages included), or an error message. Reads every step that
        could match; `find_next` stops at the first hit."""
        needle = text.lower()
        if not needle:
            return []
        candidates = self._candidates(text)
        return [
            i
            for i in range(len(self))
            if (candidates is None or i in candidates) and self._matches(i, self.run.steps[i], needle)
        ]

    def find_next(self, text: str, start: int | None = None) -> int | None:
        """The first position after `start` (default: the cursor) whose step matches `text` as in
        `search`, or None. Steps whose lines cannot contain the text are skipped without being read,
        and the scan stops at the first hit, so a search in a 100,000-step run stays interactive."""
        return self._find(text, self.cursor if start is None else start, 1)

    def find_prev(self, text: str, start: int | None = None) -> int | None:
        """The last position before `start` (default: the cursor) whose step matches `text`, or None."""
        return self._find(text, self.cursor if start is None else start, -1)

    def _find(self, text: str, start: int, direction: int) -> int | None:
        needle = text.lower()
        if not needle or not len(self):
            return None
        candidates = self._candidates(text)
        stop = len(self) if direction > 0 else -1
        for i in range(start + direction, stop, direction):
            if (candidates is None or i in candidates) and self._matches(i, self.run.steps[i], needle):
                return i
        return None

    def matches(self, i: int, text: str) -> bool:
        """Whether step `i` matches `text` as in `search`, read directly: no prefilter over the file
        (which scans all of it once), so one step costs only reading that step."""
        needle = text.lower()
        j = self._pos(i)
        return bool(needle) and self._matches(j, self.run.steps[j], needle)

    def _candidates(self, text: str) -> TextCandidates | None:
        key = text.lower()
        if self._search_memo is None or self._search_memo[0] != key:
            self._search_memo = (key, self.run.text_candidates(text))
        return self._search_memo[1]

    def _matches(self, i: int, step: Step, needle: str) -> bool:
        if any(needle in node.lower() for node in step.nodes):
            return True
        for node_run in step.node_runs:
            if node_run.error is not None and needle in node_run.error.message.lower():
                return True
            if node_run.output is not None and needle in _text(node_run.output).lower():
                return True
        for change in self.changes_at(i):
            if any(needle in str(p).lower() for p in change.path):
                return True
            if needle in _text(change.new).lower():
                return True
        return False

    # --- breakpoints ----------------------------------------------------------------------------

    @property
    def breakpoints(self) -> frozenset[str]:
        return frozenset(self._breakpoints)

    def add_breakpoint(self, node: str) -> None:
        self._breakpoints.add(node)

    def remove_breakpoint(self, node: str) -> None:
        self._breakpoints.discard(node)

    def toggle_breakpoint(self, node: str) -> bool:
        """Flip the breakpoint on `node`; returns whether it is now set."""
        if node in self._breakpoints:
            self._breakpoints.discard(node)
            return False
        self._breakpoints.add(node)
        return True

    def add_predicate(self, predicate: StatePredicate) -> StatePredicate:
        """Break where `predicate(state_after_step)` is true; returns it, for `remove_predicate`."""
        self._predicates.append(predicate)
        return predicate

    def remove_predicate(self, predicate: StatePredicate) -> None:
        self._predicates = [p for p in self._predicates if p is not predicate]

    def clear_breakpoints(self) -> None:
        self._breakpoints.clear()
        self._predicates.clear()

    def hits(self, i: int) -> bool:
        """Whether position `i` stops a `continue_()`."""
        if self._breakpoints.intersection(self.nodes_at(i)):
            return True
        if self._predicates:
            state = self.state_at(i)
            for predicate in self._predicates:
                try:
                    if predicate(state):
                        return True
                except Exception:  # a predicate that does not fit this state simply does not match
                    continue
        return False

    def continue_(self) -> int | None:
        """Move to the next position after the cursor that hits a breakpoint; None (cursor kept) if none."""
        for i in range(self.cursor + 1, len(self)):
            if self.hits(i):
                return self.go(i)
        return None


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=json_default)
    except (TypeError, ValueError):
        return str(value)
