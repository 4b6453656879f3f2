"""Where a recorded run stopped at an interrupt or a cancel, and why, told from the run file alone.

The recording has the facts in three places: a step's `interrupted` list (nodes that interrupted and
run again on resume, with an `InterruptSignal` error on their node run carrying the address and info),
the run's closing `interrupted` line (`before_nodes`, `after_nodes`, `rerun_nodes`, checkpoint ID), and
the header's `resumed_from` (a resumed run recorded into the same file adds a segment per resume;
each segment ends with its own `interrupted` line). An ADK cancel is an interrupt raised by one of the
agent's two safe-point nodes (`CancelCheck`, `AfterToolCallsCancelCheck`) with a `CancelAfter…` info;
an immediate cancel waits for the running nodes and stops after them (graph_core's `interrupt_event`,
Eino `WithGraphInterrupt` without a timeout; older recordings stop before the next step's nodes), which
in an ADK agent's graph (compiled without static interrupts) can mean nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from inspector.recording.format import ErrorRecord
from inspector.recording.reader import Run, Segment, Step

__all__ = [
    "SAFE_POINTS",
    "InterruptMark",
    "ToolOutcome",
    "interrupt_at",
    "is_interrupt",
    "split_interrupt_message",
    "stop_mark",
]

SAFE_POINTS = {
    "CancelCheck": "after the chat model",
    "AfterToolCallsCancelCheck": "after tool calls",
}
"""The ADK agent's cancel safe points (node keys) and when each takes effect."""

_INTERRUPT_TYPES = frozenset({"InterruptSignal", "InterruptError"})

MarkKind = Literal["interrupt", "cancel", "before", "after"]


@dataclass(frozen=True)
class ToolOutcome:
    """One tool call of a ToolsNode that interrupted: interrupted calls run again on resume, completed
    ones are reused."""

    name: str
    call_id: str | None
    interrupted: bool
    info: str = ""


@dataclass(frozen=True)
class InterruptMark:
    """One step's interrupt: what kind, which nodes, the node's info, checkpoint and cancel safe point.

    `nodes` are the rerun nodes (`interrupt`, `cancel`) or the static interrupt's nodes (`before`,
    `after`); an immediate `cancel` names the nodes it stopped before, or after when `after`.
    `checkpoint_id` is known only at the step where the run stopped.
    """

    kind: MarkKind
    nodes: tuple[str, ...]
    info: tuple[str, ...] = ()
    address: tuple[str, ...] = ()
    checkpoint_id: str | None = None
    safe_point: str | None = None
    tools: tuple[ToolOutcome, ...] = ()
    after: bool = False
    abandoned: bool = False  # an immediate cancel stopped `nodes` while they ran (they rerun on resume)

    @property
    def reason(self) -> str:
        """A short account for a timeline row."""
        nodes = ", ".join(self.nodes)
        if self.kind == "cancel":
            if self.safe_point:
                return f"cancel at {self.safe_point}"
            where = "during" if self.abandoned else "after" if self.after else "before"
            return f"cancel (immediate) {where} {nodes}"
        if self.kind == "before":
            return f"interrupt before {nodes}"
        if self.kind == "after":
            return f"interrupt after {nodes}"
        return f"interrupt: {nodes} (rerun on resume)"


def is_interrupt(error: ErrorRecord | None) -> bool:
    """Whether a node run's error is an interrupt (a pause), not a failure."""
    return error is not None and error.type in _INTERRUPT_TYPES


def split_interrupt_message(message: str) -> tuple[str, str]:
    """`("runnable:root;node:ask", "{'question': 'ok?'}")` from the engine's
    `interrupt at runnable:root;node:ask: {'question': 'ok?'}`; `("", message)` for anything else.
    Addresses use `:` without a space, so the first `": "` ends the address."""
    prefix = "interrupt at "
    if not message.startswith(prefix) or ": " not in message:
        return "", message
    address, _, info = message[len(prefix) :].partition(": ")
    return address, info


def interrupt_at(run: Run, position: int) -> InterruptMark | None:
    """The interrupt at step `position`, if the run interrupted (or was cancelled) there: a node that
    interrupted in that step, or the interrupt its segment stopped at when it is the segment's last."""
    steps = run.steps
    if not 0 <= position < len(steps):
        return None
    step = steps[position]
    segment = run.segments[step.segment]
    last = position == segment.stop - 1
    stop = segment.interrupt if last else None
    checkpoint = stop.checkpoint_id if stop is not None else None
    if step.interrupted:
        return _rerun_mark(step, checkpoint, adk=_is_adk(run))
    return _segment_stop(run, segment) if last else None


def stop_mark(run: Run) -> InterruptMark | None:
    """The interrupt the run stopped at (also for a run interrupted before its first step); of its last
    segment when it was resumed."""
    return _segment_stop(run, run.segments[-1])


def _segment_stop(run: Run, segment: Segment) -> InterruptMark | None:
    """The interrupt `segment` stopped at, if it did."""
    if segment.stop > segment.start and run.steps[segment.stop - 1].interrupted:
        step = run.steps[segment.stop - 1]
        checkpoint = segment.interrupt.checkpoint_id if segment.interrupt is not None else None
        return _rerun_mark(step, checkpoint, adk=_is_adk(run))
    stop = segment.interrupt
    checkpoint = stop.checkpoint_id if stop is not None else None
    if stop is None:
        return None
    if stop.rerun_nodes:
        return InterruptMark("interrupt", tuple(stop.rerun_nodes), checkpoint_id=checkpoint)
    if stop.before_nodes:
        # An ADK agent's graph is compiled without static interrupts: stopping before a node there is
        # an immediate cancel (or a safe-point cancel whose timeout escalated it).
        kind: MarkKind = "cancel" if _is_adk(run) else "before"
        return InterruptMark(kind, tuple(stop.before_nodes), checkpoint_id=checkpoint)
    if stop.after_nodes:
        if _is_adk(run):  # likewise: an immediate cancel that waited for the running nodes
            return InterruptMark("cancel", tuple(stop.after_nodes), checkpoint_id=checkpoint, after=True)
        return InterruptMark("after", tuple(stop.after_nodes), checkpoint_id=checkpoint)
    return None


def _is_adk(run: Run) -> bool:
    keys = {node.key for node in run.topology.nodes} if run.topology is not None else set[str]()
    return all(point in keys for point in SAFE_POINTS)


def _rerun_mark(step: Step, checkpoint: str | None, *, adk: bool = False) -> InterruptMark:
    """The mark of a step whose nodes interrupted. In an ADK agent's run, nodes that stopped without an
    interrupt of their own were abandoned by an immediate cancel (Eino: a graph interrupt with timeout
    0); they run again on resume."""
    infos: list[str] = []
    addresses: list[str] = []
    tools: list[ToolOutcome] = []
    safe_point: str | None = None
    for node in step.interrupted:
        run = step.node_run(node)
        if run is None or not is_interrupt(run.error):
            continue
        assert run.error is not None
        address, info = split_interrupt_message(run.error.message)
        if any(is_interrupt(tool.error) for tool in run.tools):
            for tool in run.tools:
                paused = is_interrupt(tool.error)
                detail = split_interrupt_message(tool.error.message)[1] if tool.error and paused else ""
                tools.append(ToolOutcome(tool.name or tool.node, tool.tool_call_id, paused, detail))
            info = ""  # the composite info repeats every call; the outcomes say it shorter
        else:
            infos.append(info)
        addresses.append(address)
        if node in SAFE_POINTS and "CancelAfter" in info:
            safe_point = node
    kind: MarkKind = "cancel" if safe_point is not None else "interrupt"
    abandoned = adk and not addresses  # no node of the step raised an interrupt: an immediate cancel
    if abandoned:
        kind = "cancel"
    return InterruptMark(
        kind,
        step.interrupted,
        tuple(infos),
        tuple(addresses),
        checkpoint,
        safe_point,
        tuple(tools),
        abandoned=abandoned,
    )
