"""Many runs on their graph: `inspector topology TARGET --run SOURCE...` with the runs a catalog finds.

    overlay = fleet_overlay(["runs/", "checkpoints.sqlite"], topology, spec="agents.support:agent")

Each SOURCE is what `inspector runs` takes: a folder, a run file, a LangGraph checkpointer (every
thread), an OTLP trace file (every run in it). One run named directly (a run file, or a trace file
holding one run) draws as one run; more are summed (`RunOverlay.combine`): visits and edge counts
added up, each edge with the share of runs that took it, the legend saying how many were summed. A
run named directly that ran nodes the graph does not have is an error, as with one run; such runs
found inside a folder, checkpointer or trace file are left out with a note (a folder often holds
runs of several graphs). Runs are opened in parts on several cores when there are many.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from inspector.catalog.catalog import Catalog, holds_many
from inspector.catalog.source import Found, Skipped, SourceKind
from inspector.errors import InspectorError

if TYPE_CHECKING:
    from graph_core.topology import Topology
    from inspector.export import RunOverlay

__all__ = ["fleet_overlay", "foreign_nodes"]

_PER_PROCESS = 16  # runs a forked reader must have to be worth its start


def foreign_nodes(run: Any, topology: Topology) -> list[str]:
    """The nodes `run`'s steps ran that `topology` does not have (a run of another graph)."""
    keys = {node.key for node in topology.nodes}
    return sorted({node for step in run.steps for node in step.nodes if node not in keys})


def _one(path: str, topology: Topology, spec: str) -> tuple[RunOverlay, str]:
    """The overlay of the one run at `path`, named directly: a run of another graph is an error."""
    from inspector.export import RunOverlay
    from inspector.sources import open_run

    run = open_run(path)
    foreign = foreign_nodes(run, topology)
    if foreign:
        listed = ", ".join(f"`{k}`" for k in foreign[:10])
        raise InspectorError(
            f"run {path} does not fit the graph of `{spec}`: its steps ran {listed}, which the graph does "
            f"not have. Draw the run on its own graph with `inspector topology {path}`."
        )
    return RunOverlay.from_run(run, topology), run.status


def fleet_overlay(sources: Sequence[str], topology: Topology, *, spec: str) -> RunOverlay:
    """The runs `sources` hold on `topology` (see the module docstring); `spec` names the graph in
    messages."""
    from inspector.export import RunOverlay

    if len(sources) == 1 and not holds_many(sources[0]):
        return _one(sources[0], topology, spec)[0]
    overlays: list[RunOverlay] = []
    statuses: list[str] = []
    misfits: list[str] = []
    many = [source for source in sources if holds_many(source)]
    for source in sources:
        if source not in many:
            overlay, status = _one(source, topology, spec)
            overlays.append(overlay)
            statuses.append(status)
    catalog = Catalog(index=None)
    try:
        found = catalog.find(many, Skipped())
    finally:
        catalog.close()
    for (_, run), outcome in zip(found, _read_all(found, topology), strict=True):
        if isinstance(outcome, str):
            misfits.append(run.path if outcome == "misfit" else f"{run.path} ({outcome})")
        else:
            overlays.append(outcome[0])
            statuses.append(outcome[1])
    if misfits:
        print(
            f"inspector: note: left out {len(misfits)} runs that do not fit the graph of `{spec}`: "
            + ", ".join(misfits[:5])
            + (" ..." if len(misfits) > 5 else ""),
            file=sys.stderr,
        )
    if not overlays:
        raise InspectorError(f"--run {' '.join(sources)}: no run of the graph of `{spec}` found there")
    return RunOverlay.combine(overlays, statuses=statuses)


Outcome: TypeAlias = "tuple[RunOverlay, str] | str"
"""A run's overlay and status, or why it is left out."""


def _read_all(found: Sequence[tuple[SourceKind, Found]], topology: Topology) -> list[Outcome]:
    """Each run's overlay and status, or why it is left out (`misfit`: another graph's run;
    `unreadable`), read in parts on several cores when there are many (`inspector.forked`)."""
    from inspector.export import RunOverlay
    from inspector.forked import can_fork, do_in_parts, usable_cpus

    def one(kind: SourceKind, run: Found) -> Outcome:
        try:
            opened = kind.open(run)
        except (InspectorError, OSError, ValueError):
            return "unreadable"
        if foreign_nodes(opened, topology):
            return "misfit"
        return RunOverlay.from_run(opened, topology), opened.status

    parts = max(1, min(min(usable_cpus(), 4) if can_fork() else 1, len(found) // _PER_PROCESS))
    done = do_in_parts(lambda k: [one(kind, run) for kind, run in found[k::parts]], parts)
    out: list[Outcome] = ["unreadable"] * len(found)
    for k, outcomes in enumerate(done):
        out[k::parts] = outcomes
    return out
