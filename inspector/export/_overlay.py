"""What a recorded run did, ready to draw on its graph: visits, edges taken, how it ended, the costly loop.

`RunOverlay.from_run(run)` reads only the public `Run`/`Step` facts (each step's nodes, `next_nodes`,
`ended`, the unfinished step) and the run's diagnostics, then the DOT exporter paints it as a heat map
and the text drawing as counts beside boxes and edges. An edge counts as taken when its source ran in
one step and its target in the next (a plain edge first, a branch edge when no plain edge explains the
target), as the TUI's path does.

How the run ended, as an edge: into END for a finished run; into the nodes of the step that failed for
a failed run; for a run stopped by its step budget, the edge it was about to take (the last step's
`next_nodes`), which is the move the budget did not allow.

Many runs: `RunOverlay.combine(overlays)` sums them (a fleet on its graph): visits and edge counts
added up, and for each node and edge how many of the runs took it, so edges read `×812 · 64% of
runs`; the legend and the summary say how many runs were summed. How each run ended is not drawn
(the summary counts the statuses); the loops that burned a budget are.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from graph_core.topology import END, START, Topology, TopologyEdge, TopologyNode
from inspector.terminaltext import visible

__all__ = ["BACK_EDGE", "HEAT", "RunOverlay"]

HEAT = ("#fff7bc", "#fee391", "#fec44f", "#fe9929", "#ec7014", "#cc4c02")
"""Node fills from visited once to the most visited node (a colour-blind-safe yellow-orange ramp)."""
_UNVISITED_FILL, _UNVISITED_TEXT = "#f5f5f5", "#9e9e9e"
_TAKEN, _NOT_TAKEN, _CYCLE, _ENDED = "#e65100", "#bdbdbd", "#b71c1c", "#4a148c"
BACK_EDGE = "#c62828"
"""A back edge's colour (the exporter's); on a run overlay it runs beside the edge's own colour."""

Pair = tuple[str, str]
_UNLIMITED = 10**9  # step budgets above this (the ADK agent's math.MaxInt) are not worth printing


@dataclass(frozen=True)
class RunOverlay:
    """A run's footprint on the top level of its graph (nested graphs' inner steps are not drawn).

    `visits`: node key -> how many steps it ran in (the failing step counts). `edges`: (source, target)
    -> how many times taken. `ended_by`: the edges that ended the run (see the module docstring).
    `cycle`: the edges of the loop that burned the budget, when the diagnostics found one. `summary`:
    one line saying who ran how long and how it ended.
    """

    visits: dict[str, int]
    edges: dict[Pair, int]
    ended_by: tuple[Pair, ...] = ()
    cycle: tuple[Pair, ...] = ()
    summary: str = ""
    notes: tuple[str, ...] = field(default=())
    finished: bool = False
    runs: int = 1
    visit_runs: dict[str, int] = field(default_factory=lambda: {})
    edge_runs: dict[Pair, int] = field(default_factory=lambda: {})

    @classmethod
    def combine(cls, overlays: Sequence[RunOverlay], *, statuses: Sequence[str] = ()) -> RunOverlay:
        """Many runs' overlays summed (see the module docstring); `statuses` are the runs' statuses,
        counted in the summary. One overlay is returned as it is."""
        if len(overlays) == 1:
            return overlays[0]
        visits: dict[str, int] = {}
        edges: dict[Pair, int] = {}
        visit_runs: dict[str, int] = {}
        edge_runs: dict[Pair, int] = {}
        cycle: list[Pair] = []
        exhausted = 0
        for overlay in overlays:
            for key, count in overlay.visits.items():
                visits[key] = visits.get(key, 0) + count
                visit_runs[key] = visit_runs.get(key, 0) + (1 if count else 0)
            for pair, count in overlay.edges.items():
                edges[pair] = edges.get(pair, 0) + count
                edge_runs[pair] = edge_runs.get(pair, 0) + (1 if count else 0)
            cycle.extend(overlay.cycle)
            exhausted += 1 if overlay.cycle or any(n.startswith("budget:") for n in overlay.notes) else 0
        counted = ", ".join(f"{n} {s}" for s, n in sorted(Counter(statuses).items()))
        summary = f"{len(overlays)} runs summed" + (f": {counted}" if counted else "")
        notes = (f"budget: ran out in {exhausted} of {len(overlays)} runs",) if exhausted else ()
        return cls(
            visits,
            edges,
            (),
            tuple(dict.fromkeys(cycle)),
            summary,
            notes,
            runs=len(overlays),
            visit_runs=visit_runs,
            edge_runs=edge_runs,
        )

    def share(self, pair: Pair) -> float:
        """The share of the summed runs that took the edge `pair` (1 run: 1.0 when it was taken)."""
        if self.runs == 1:
            return 1.0 if self.edges.get(pair) else 0.0
        return self.edge_runs.get(pair, 0) / self.runs

    def edge_words(self, pair: Pair, text: str | None) -> str | None:
        """An edge's label with its count (and, for many runs, the share of runs that took it)."""
        count = self.edges.get(pair, 0)
        if not count:
            return text
        words = f"{text or ''} ×{count}".strip()
        return f"{words} · {self.share(pair):.0%} of runs" if self.runs > 1 else words

    def node_words(self, key: str, label: str) -> str:
        """A node's label with how often it ran (and, for many runs, in how many of them)."""
        count = self.visits.get(key, 0)
        if not count:
            return f"{label}\nnot run"
        if self.runs > 1:
            return f"{label}\nran {count}× in {self.visit_runs.get(key, 0)}/{self.runs} runs"
        return f"{label}\nran {count}×"

    # -- building -------------------------------------------------------------------------------------

    @classmethod
    def from_run(cls, run: Any, topology: Topology | None = None) -> RunOverlay:
        """Read `run` (an `inspector.recording.Run`) against `topology` (default: the run's own)."""
        from inspector.diagnostics import diagnose

        shape = topology if topology is not None else run.topology
        plain, branch = _edge_sets(shape)
        steps = list(run.steps)
        sequence: list[tuple[str, ...]] = [tuple(step.nodes) for step in steps]
        unfinished = run.unfinished
        if unfinished is not None:
            sequence.append(tuple(unfinished.nodes))
        visits: dict[str, int] = {}
        edges: dict[Pair, int] = {}
        previous: tuple[str, ...] = (START,)
        last_moves: list[Pair] = []
        for nodes in sequence:
            last_moves = []
            for node in nodes:
                visits[node] = visits.get(node, 0) + 1
                for move in _explained(previous, node, plain, branch):
                    edges[move] = edges.get(move, 0) + 1
                    last_moves.append(move)
            previous = nodes
        ended_by: list[Pair] = []
        status = run.status
        if status == "ok" and steps and steps[-1].ended:
            for node in previous:
                if (node, END) in plain or (node, END) in branch:
                    edges[(node, END)] = edges.get((node, END), 0) + 1
                    ended_by.append((node, END))
            if ended_by:
                visits[END] = 1
        elif unfinished is not None:
            ended_by = last_moves
        elif steps and steps[-1].errors:
            failed = set(steps[-1].errors)
            ended_by = [move for move in last_moves if move[1] in failed] or last_moves
        elif steps:
            ended_by = [
                move for node in steps[-1].next_nodes for move in _explained(previous, node, plain, branch)
            ]
        if sequence:
            visits[START] = 1
        cycle: list[Pair] = []
        notes: list[str] = []
        for diagnostic in diagnose(run):
            if diagnostic.code == "budget-exhausted":
                cycle = [(a, b) for a, b in pairwise(diagnostic.nodes) if (a, b) in plain or (a, b) in branch]
                notes.append(f"budget: {diagnostic.message}")
        budget = steps[-1].budget if steps else None
        used = ""
        if budget is not None and budget.steps_max is not None and budget.steps_max < _UNLIMITED:
            used = f", {budget.steps_used}/{budget.steps_max} steps of budget"
        if budget is not None and budget.iterations_remaining is not None:
            used += f", {budget.iterations_remaining} iterations left"
        summary = f"{_run_name(run)}: {status}, {len(steps)} steps{used}"
        if ended_by:
            verb = "ended by" if status == "ok" else "stopped at"
            summary += f"; {verb} " + ", ".join(f"{a} -> {b}" for a, b in ended_by)
        return cls(
            visits,
            edges,
            tuple(dict.fromkeys(ended_by)),
            tuple(dict.fromkeys(cycle)),
            summary,
            tuple(notes),
            finished=status == "ok",
        )

    # -- drawing (DOT) --------------------------------------------------------------------------------

    def title(self, name: str) -> str:
        return f"{name}\n{self.summary}" if self.summary else name

    def heat(self, key: str) -> str | None:
        """The fill for a node that ran, darker the more it ran; None for a node that never ran."""
        count = self.visits.get(key, 0)
        if count <= 0:
            return None
        top = max((v for k, v in self.visits.items() if k not in (START, END)), default=1)
        if top <= 1:
            return HEAT[1]
        return HEAT[min(len(HEAT) - 1, round((count - 1) * (len(HEAT) - 1) / (top - 1)))]

    def node_style(self, node: TopologyNode, label: str) -> tuple[str, dict[str, str]]:
        """The node's label with its visit count, and the heat-map attributes."""
        count = self.visits.get(node.key, 0)
        if node.key in (START, END) and node.kind in ("start", "end"):
            return (
                (label, {})
                if count
                else (label, {"fillcolor": _UNVISITED_FILL, "fontcolor": _UNVISITED_TEXT})
            )
        fill = self.heat(node.key)
        if fill is None:
            return f"{label}\nnot run", {
                "style": "filled,dashed" if "rounded" not in _style_of(node) else "rounded,filled,dashed",
                "fillcolor": _UNVISITED_FILL,
                "fontcolor": _UNVISITED_TEXT,
                "color": _NOT_TAKEN,
            }
        style = "rounded,filled" if node.kind in ("ChatModel", "Lambda") else "filled"
        darkest = fill in HEAT[-2:]
        return self.node_words(node.key, label), {
            "style": style,
            "fillcolor": fill,
            "penwidth": "2",
            **({"fontcolor": "white"} if darkest else {}),
        }

    def edge_style(self, edge: TopologyEdge, label: str | None) -> dict[str, str]:
        """Width and colour by how often the edge was taken; the ending edge and the costly loop stand out."""
        pair = (edge.source, edge.target)
        count = self.edges.get(pair, 0)
        words = (label or "").strip()
        attrs: dict[str, str] = {"constraint": "false"} if edge.back_edge else {}
        if pair in self.cycle:
            attrs.update(color=_CYCLE, fontcolor=_CYCLE, penwidth=str(self._width(count) + 1), style="bold")
            words = f"{self.edge_words(pair, words) or ''} · loop that burned the budget".strip(" ·")
        elif count:
            attrs.update(color=_TAKEN, fontcolor=_TAKEN, penwidth=str(self._width(count)))
            if edge.kind == "branch":
                attrs["style"] = "dashed"
            words = self.edge_words(pair, words) or ""
        else:
            attrs.update(color=_NOT_TAKEN, fontcolor=_UNVISITED_TEXT, penwidth="1")
        if pair in self.ended_by:
            attrs.update(color=_ENDED, fontcolor=_ENDED, penwidth="4", style="bold")
            ending = "ended the run" if self.finished else "the run stopped here"
            words = f"{words} · {ending}".strip(" ·")
        if edge.back_edge:  # the back-edge mark stays: a red line beside the run's colour, and `↺`
            attrs["color"] = f"{attrs['color']}:{BACK_EDGE}"
            words = f"↺ {words}".strip()
        if words:
            attrs["label"] = f" {words} "
        return attrs

    def _width(self, count: int) -> int:
        top = max(self.edges.values(), default=1)
        return 2 + round(3 * count / top) if count else 1

    def legend_samples(self) -> list[tuple[str, str, str]]:
        summed = [("Σ", "black", f"{self.runs} runs summed")] if self.runs > 1 else []
        samples = [*summed, ("━━━▶", _TAKEN, "taken (width: how often)"), ("───▶", _NOT_TAKEN, "not taken")]
        if self.cycle:
            samples.append(("━━━▶", _CYCLE, "loop that burned the budget"))
        if self.ended_by:
            samples.append(("━━━▶", _ENDED, "how the run ended"))
        samples.append(("■", HEAT[1], "ran once"))
        samples.append(("■", HEAT[-1], "ran most"))
        return samples

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: visits and edge counts in a stable order, the ending edges, the loop, the summary."""
        return {
            "summary": self.summary,
            "visits": dict(sorted(self.visits.items())),
            "edges": [{"source": a, "target": b, "count": n} for (a, b), n in sorted(self.edges.items())],
            "ended_by": [{"source": a, "target": b} for a, b in self.ended_by],
            "cycle": [{"source": a, "target": b} for a, b in self.cycle],
            "notes": list(self.notes),
            "finished": self.finished,
        } | (
            {
                "runs": self.runs,
                "visit_runs": dict(sorted(self.visit_runs.items())),
                "edge_runs": [
                    {"source": a, "target": b, "runs": n, "share": n / self.runs}
                    for (a, b), n in sorted(self.edge_runs.items())
                ],
            }
            if self.runs > 1
            else {}
        )

    def mermaid_link_style(self, source: str, target: str) -> str | None:
        """A Mermaid `linkStyle` body for an edge (None: leave it as exported)."""
        pair = (source, target)
        count = self.edges.get(pair, 0)
        if pair in self.ended_by:
            return f"stroke:{_ENDED},stroke-width:5px"
        if pair in self.cycle:
            return f"stroke:{_CYCLE},stroke-width:{self._width(count) + 1}px"
        if count:
            return f"stroke:{_TAKEN},stroke-width:{self._width(count)}px"
        return f"stroke:{_NOT_TAKEN}"

    def mermaid_node_style(self, key: str) -> str:
        fill = self.heat(key)
        if fill is None:
            return f"fill:{_UNVISITED_FILL},color:{_UNVISITED_TEXT},stroke-dasharray:4"
        return f"fill:{fill},stroke:{_TAKEN},stroke-width:2px"

    # -- drawing (text) -------------------------------------------------------------------------------

    def node_notes(self) -> dict[str, str]:
        return {k: f"×{v}" for k, v in self.visits.items() if k not in (START, END)}

    def edge_notes(self) -> dict[Pair, str]:
        notes = {
            pair: f"×{count} {self.share(pair):.0%}" if self.runs > 1 else f"×{count}"
            for pair, count in self.edges.items()
        }
        for pair in self.ended_by:
            notes[pair] = f"{notes[pair]} ■" if pair in notes else "■"
        return notes

    def key_lines(self) -> list[str]:
        """The lines under a text drawing: the summary, the loop and how the run ended; recorded text
        (run ID, node keys, the budget's message) escaped for the terminal (`terminaltext.visible`)."""
        lines = [self.summary] if self.summary else []
        lines.extend(self.notes)
        if self.cycle:
            loop = [self.cycle[0][0], *(b for _, b in self.cycle)]
            lines.append("loop that burned the budget: " + " -> ".join(loop))
        if self.ended_by:
            lines.append("■ marks how the run ended: " + ", ".join(f"{a} -> {b}" for a, b in self.ended_by))
        return [visible(line) for line in lines]


def _run_name(run: Any) -> str:
    """What the summary calls a run: its file's name (a LangGraph run's id is 32 hex digits, which says
    nothing), else its id when it is a readable one, else just `run`."""
    path = getattr(run, "path", None)
    if path is not None:
        return f"run {Path(path).name}"
    run_id = run.run_id or ""
    if not run_id or (len(run_id) >= 16 and all(c in "0123456789abcdef-" for c in run_id.lower())):
        return "run"
    return f"run {run_id}"


def _style_of(node: TopologyNode) -> str:
    return "rounded" if node.kind in ("ChatModel", "Lambda") else ""


def _edge_sets(topology: Topology | None) -> tuple[set[Pair], set[Pair]]:
    if topology is None:
        return set(), set()
    plain = {(e.source, e.target) for e in topology.edges if e.kind == "edge"}
    branch = {(e.source, e.target) for e in topology.edges if e.kind == "branch"}
    return plain, branch


def _explained(previous: Sequence[str], node: str, plain: set[Pair], branch: set[Pair]) -> Iterable[Pair]:
    moves = [(p, node) for p in previous if (p, node) in plain]
    return moves or [(p, node) for p in previous if (p, node) in branch]
