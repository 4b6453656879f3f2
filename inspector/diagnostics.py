"""Run diagnostics: the mistakes a recorded run shows, found without re-running anything.

- `budget-exhausted`: the step budget (or an ADK agent's max iterations) ran out; names the cycle that
  spent it (`chat -> tools -> chat`, from the topology's back edge) and after how many rounds.
- `unexecuted-tool-calls`: a model answer carried tool calls but the branch after it went to END, so
  they never ran. The classic cause is the first-chunk stream checker seeing text before tool calls.
- `tool-failed`: a tool call (or a ToolsNode) raised.
- `early-end`: a branch chose END right after a model produced an empty answer.
- `incomplete` / `interrupted`: the recording stops early (killed process) or at an interrupt.
- `run-failed`: the run ended in an error none of the above explains (`the run failed in node chat:
  ChatModelConnectionError: ...`), so a failed run never reads as "diagnostics: none".
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from graph_core.topology import END
from inspector.errortext import without_node_path
from inspector.recording.reader import NodeRun, Run, Step

__all__ = ["Diagnostic", "Findings", "FoundInSteps", "Severity", "diagnose"]

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding. `step` is the position in `run.steps` (or the unfinished step's index)."""

    severity: Severity
    code: str
    message: str
    step: int | None = None
    nodes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["nodes"] = list(self.nodes)
        return data


def diagnose(run: Run) -> list[Diagnostic]:
    """Every diagnostic for `run`, in step order within each kind; the steps are read once, in order,
    and none is kept (a long run is walked in time and memory linear in its length)."""
    findings = Findings(run)
    steps = run.steps
    for position in range(len(steps)):
        findings.add(position, steps[position])
    return findings.finish()


@dataclass
class FoundInSteps:
    """What `Findings.add` found in the steps `start` to `stop` (positions), apart from the run: small
    and picklable, so a part of a run read in another process (`inspector show`) sends it back, and the
    parts are taken in order (`Findings.take`)."""

    start: int
    stop: int
    tools: list[Diagnostic] = field(default_factory=lambda: [])
    branches: list[Diagnostic] = field(default_factory=lambda: [])
    # The nodes of the last segment's steps, kept only when the budget ran out (to name the cycle).
    sequence: list[tuple[str, ...]] | None = None


class Findings:
    """Diagnostics gathered in one walk over a run's steps: `add` each step in order, then `finish`.

    A caller that walks the steps anyway (`inspector show` writing its timeline) feeds them here as it
    goes, so each step is read once for both. With `start`, the walk begins at that position: one part
    of a run read in parts, whose `found` the whole run's `Findings` then `take`s."""

    def __init__(self, run: Run, *, start: int = 0) -> None:
        self.run = run
        self.found = FoundInSteps(start, start, sequence=[] if _budget_error(run) is not None else None)

    def add(self, position: int, step: Step) -> None:
        """Take in step `position` (steps must come in order, each once)."""
        found = self.found
        if position != found.stop:
            raise ValueError(f"steps must be added in order: expected {found.stop}, got {position}")
        found.stop += 1
        node_runs = step.node_runs
        found.tools.extend(_tool_findings(position, node_runs))
        found.branches.extend(_branch_findings(self.run, position, step, node_runs))
        if found.sequence is not None and position >= self.run.segments[-1].start:
            found.sequence.append(step.nodes)

    def take(self, part: FoundInSteps) -> None:
        """Take in what a walk over the next steps found (`part.start` is where this walk stopped)."""
        found = self.found
        if part.start != found.stop:
            raise ValueError(f"steps must be added in order: expected {found.stop}, got {part.start}")
        found.stop = part.stop
        found.tools.extend(part.tools)
        found.branches.extend(part.branches)
        if found.sequence is not None and part.sequence is not None:
            found.sequence.extend(part.sequence)

    def finish(self) -> list[Diagnostic]:
        """The diagnostics, once every step was added."""
        run = self.run
        found_in_steps = self.found
        if found_in_steps.start != 0 or found_in_steps.stop != len(run.steps):
            missing = len(run.steps) - (found_in_steps.stop - found_in_steps.start)
            raise ValueError(f"{missing} steps were not added")
        found: list[Diagnostic] = []
        found.extend(_budget(run, found_in_steps.sequence))
        found.extend(found_in_steps.tools)
        unfinished = run.unfinished
        if unfinished is not None:
            found.extend(_tool_findings(len(run.steps), unfinished.node_runs))
        found.extend(found_in_steps.branches)
        found.extend(_ending(run))
        found.extend(_run_failed(run, found))
        return found


def _ending(run: Run) -> list[Diagnostic]:
    """`incomplete` when the recording stops without a last line, `interrupted` at an interrupt."""
    if run.status == "incomplete":
        last = len(run.steps) - 1
        segment = run.segments[-1]
        if len(run.segments) > 1:
            where = (
                f"step {run.steps[last].index} of segment {segment.index} (the run resumed from "
                f"checkpoint {segment.resumed_from})"
                if segment.stop > segment.start
                else f"the start of segment {segment.index} (resumed from checkpoint {segment.resumed_from})"
            )
        elif last >= 0:
            where = f"step {last}"
        else:
            where = None
        stops = (
            f"the recording stops after {where} without a run_finished line"
            if where is not None
            else "the recording has its header but no finished step and no run_finished line"
        )
        return [
            Diagnostic(
                "info",
                "incomplete",
                f"{stops} (the process was killed, or the run is still going)",
                last if last >= 0 else None,
            )
        ]
    if run.status == "interrupted" and run.interrupt is not None:
        where = run.interrupt.rerun_nodes or run.interrupt.before_nodes or run.interrupt.after_nodes
        return [
            Diagnostic("info", "interrupted", f"the run stopped at an interrupt at {', '.join(where)}", None)
        ]
    return []


def _run_failed(run: Run, found: list[Diagnostic]) -> list[Diagnostic]:
    """Where and why a failed run failed, unless a finding above already says (a tool, the budget)."""
    error = run.error
    if run.status != "error" or error is None or any(d.severity == "error" for d in found):
        return []
    if error.cause_type and error.cause_message is not None:
        what = f"{error.cause_type}: {error.cause_message}"
    else:
        what = f"{error.type}: {without_node_path(error.message)}"
    path = tuple(error.node_path or ())
    where = f" in node {' > '.join(path)}" if path else ""
    position = len(run.steps) if run.unfinished is not None else len(run.steps) - 1
    message = f"the run failed{where}: {' '.join(what.split())}"
    return [Diagnostic("error", "run-failed", message, position if position >= 0 else None, path[-1:])]


# --- budget ---------------------------------------------------------------------------------------


def _budget_error(run: Run) -> str | None:
    """`steps` when the run failed because its step budget ran out, `iterations` when an agent's max
    iterations did, else None."""
    error = run.error
    if error is None:
        return None
    text = f"{error.type} {error.message} {error.cause_message or ''}"
    if "exceeds max steps" in text or error.type == "MaxStepsExceededError":
        return "steps"
    if "exceeds max iterations" in text or "ExceedMaxIterations" in text:
        return "iterations"
    return None


def _budget(run: Run, sequence: list[tuple[str, ...]] | None) -> list[Diagnostic]:
    """`budget-exhausted`; `sequence` holds the nodes of the last segment's steps (read as they were
    added to `Findings`)."""
    kind = _budget_error(run)
    if kind is None or sequence is None:
        return []
    steps = kind == "steps"
    cycle, rounds = _cycle(run, sequence)
    last = len(run.steps) - 1
    if steps:
        limit = run.steps[-1].budget.steps_max if len(run.steps) else None
        what = f"the step budget ({limit} supersteps)" if limit is not None else "the step budget"
    else:
        what = "the agent's max iterations"
    if cycle:
        message = f"{what} ran out in the cycle {' -> '.join(cycle)} after {rounds} rounds"
    else:
        message = f"{what} ran out"
    return [Diagnostic("error", "budget-exhausted", message, last if last >= 0 else None, tuple(cycle))]


def _cycle(run: Run, steps: list[tuple[str, ...]]) -> tuple[list[str], int]:
    """The loop that spent the budget: from a taken back edge's target round to its source and back.
    Only the last segment counts (`steps`: its steps' nodes): a resumed run's step budget starts afresh."""
    sequence = list(steps)
    unfinished = run.unfinished
    if unfinished is not None:
        sequence.append(unfinished.nodes)
    flat = [node for nodes in sequence for node in nodes]
    if not flat:
        return [], 0
    back_edges = [] if run.topology is None else [(e.source, e.target) for e in run.topology.back_edges]
    taken = [(s, t) for s, t in back_edges if s in flat and t in flat]
    if taken:
        source, target = max(taken, key=lambda edge: flat.count(edge[1]))
        visits = [i for i, nodes in enumerate(sequence) if target in nodes]
        start = visits[-2] if len(visits) >= 2 else visits[0]
        end = visits[-1] if len(visits) >= 2 else len(sequence) - 1
        loop = [_label(nodes) for nodes in sequence[start:end]]
        return [*loop, target], flat.count(source)
    # no topology: from the previous visit of the last step's nodes back to them
    last = sequence[-1]
    earlier = [i for i, nodes in enumerate(sequence[:-1]) if nodes == last]
    if earlier:
        loop = [_label(nodes) for nodes in sequence[earlier[-1] :]]
        return loop, len(earlier)
    return [], 0


def _label(nodes: tuple[str, ...]) -> str:
    return nodes[0] if len(nodes) == 1 else "{" + ", ".join(nodes) + "}"


# --- tools ----------------------------------------------------------------------------------------


def _paused(node_run: NodeRun) -> bool:
    return node_run.error is not None and node_run.error.type == "InterruptSignal"


def _tool_findings(position: int, node_runs: list[NodeRun]) -> list[Diagnostic]:
    """`tool-failed` for the tools (or ToolsNode runs) that raised in one step."""
    found: list[Diagnostic] = []
    for node_run in node_runs:
        if node_run.error is None and not node_run.tools:
            continue  # the usual node run: nothing failed in it
        failed_tools = [t for t in node_run.tools if t.error is not None and not _paused(t)]
        for tool in failed_tools:
            assert tool.error is not None
            found.append(
                Diagnostic(
                    "error",
                    "tool-failed",
                    f"tool `{tool.name}` (call {tool.tool_call_id}) in `{tool.node}` failed: "
                    f"{tool.error.type}: {tool.error.message}",
                    position,
                    (tool.node,),
                )
            )
        if _paused(node_run):  # an interrupt (rerun on resume) is not a failure
            continue
        if node_run.component == "Tool" and node_run.error is not None:
            found.append(
                Diagnostic(
                    "error",
                    "tool-failed",
                    f"tool `{node_run.name}` failed: {node_run.error.type}: {node_run.error.message}",
                    position,
                    (node_run.node,),
                )
            )
        elif node_run.component == "ToolsNode" and node_run.error is not None and not failed_tools:
            found.append(
                Diagnostic(
                    "error",
                    "tool-failed",
                    f"tools node `{node_run.node}` failed: {node_run.error.type}: {node_run.error.message}",
                    position,
                    (node_run.node,),
                )
            )
    return found


# --- branches -------------------------------------------------------------------------------------


def _tool_calls(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict) and value.get("role") == "assistant":  # pyright: ignore[reportUnknownMemberType]
        calls = value.get("tool_calls")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if isinstance(calls, list):
            return [c for c in calls if isinstance(c, dict)]  # pyright: ignore[reportUnknownVariableType]
    return []


def _branch_findings(run: Run, position: int, step: Step, node_runs: list[NodeRun]) -> list[Diagnostic]:
    """`unexecuted-tool-calls` and `early-end` for one step: a model answer the branch after it ended on."""
    found: list[Diagnostic] = []
    for node_run in node_runs:
        if node_run.component != "ChatModel" or node_run.error is not None or len(node_run.path) > 1:
            continue
        if not _went_to_end(step, node_run.node):
            continue
        calls = _tool_calls(node_run.output)
        output = node_run.output if isinstance(node_run.output, dict) else {}
        if calls:
            names = ", ".join(str(c.get("name", "?")) for c in calls)  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
            text_first = bool(output.get("content"))  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
            why = (
                " The answer has text before its tool calls: the default first-chunk stream tool-call "
                "checker stops at the first non-empty text chunk; give the agent a checker that reads "
                "the whole stream."
                if text_first
                else ""
            )
            found.append(
                Diagnostic(
                    "warning",
                    "unexecuted-tool-calls",
                    f"`{node_run.node}` answered with {len(calls)} tool call(s) ({names}) but the branch "
                    f"went to END at {_at(run, step)}, so they never ran.{why}",
                    position,
                    (node_run.node,),
                )
            )
        elif not output.get("content"):  # pyright: ignore[reportUnknownMemberType]
            found.append(
                Diagnostic(
                    "warning",
                    "early-end",
                    f"the branch after `{node_run.node}` chose END at {_at(run, step)} on an empty answer",
                    position,
                    (node_run.node,),
                )
            )
    return found


def _at(run: Run, step: Step) -> str:
    """`step 3`, or `step 0 of segment 1` in a resumed run (step indices restart per segment)."""
    return f"step {step.index} of segment {step.segment}" if len(run.segments) > 1 else f"step {step.index}"


def _went_to_end(step: Step, source: str) -> bool:
    """Whether a branch from `source` chose END after `step` (none decided: whether the step ended)."""
    decided = False
    for branch in step.branches:  # (a loop, not a generator: asked for every model run of a walk)
        if branch.source == source:
            if END in branch.chosen:
                return True
            decided = True
    return False if decided else step.ended
