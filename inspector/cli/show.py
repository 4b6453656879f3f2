"""`inspector show RUN.jsonl [--json]`: a per-step timeline of a recorded run, the conversation, then
its diagnostics.

Each step lists what its nodes said (`chat said: ...`, the messages they produced) apart from what
changed in the state (`state: + messages[1]: ...`): a ReAct agent's tools node files the model's tool
call into the state a step after the model made it, so a state change names who said the message when
that was another step. In a graph without state each node's input and output are listed instead
(`n0: 'input 0' -> 'output 0'`). The conversation section reads the messages in order, each with the
node and step that produced it, the final answer (the run's output) last.

A fork (`inspector fork`) names its parent; when its target's model is scripted, the first answer the
fork got from it is marked: the script started over (the replayed steps did not call it), so that
answer is no decision of the recorded model.

A run resumed into the same file reads as one timeline: each resumed segment starts with a
`— resumed from checkpoint ID —` line, and each interrupted segment ends with where it stopped.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache, partial
from typing import Any

import msgspec

from inspector.cli.console import write_json, write_text
from inspector.cli.plain import echo, one_line, one_line_list
from inspector.cli.preview import Previews, preview
from inspector.cli.show_steps import budget_text, nested_lines, said_lines, tool_lines
from inspector.conversation import Conversation, Said, messages_of, step_name
from inspector.diagnostics import Diagnostic, Findings, FoundInSteps, diagnose
from inspector.errortext import error_text, without_node_path
from inspector.forked import can_fork, do_in_parts, usable_cpus
from inspector.recording import NodeRun, Run, RunFileWarning, Segment, Step
from inspector.recording.debug_lines import DebugLines, read_debug_lines
from inspector.recording.format import record_dict
from inspector.recording.statediff import Change, format_path
from inspector.recording.valuelist import json_default
from inspector.sources import open_run
from inspector.sources.langgraph import add_thread_options, run_source

__all__ = ["register", "run", "step_label", "summary", "timeline"]

_name = lru_cache(maxsize=1024)(one_line)
"""`one_line` for node keys and tool names, which repeat on every step of a long run."""


@lru_cache(maxsize=1024)
def _node_list(nodes: tuple[str, ...]) -> str:
    return ", ".join(map(_name, nodes))


def _names(items: Iterable[str]) -> str:
    """`one_line_list` of node keys (the same few tuples of them on every step of a long run)."""
    return _node_list(items if type(items) is tuple else tuple(items))


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "show",
        help="print a recorded run: a per-step timeline, then diagnostics",
        description="Print RUN.jsonl as a timeline (step, nodes, budget, state changes, branch decisions) "
        "followed by diagnostics.",
    )
    parser.add_argument("run_file", metavar="RUN.jsonl")
    parser.add_argument("--json", action="store_true", help="machine-readable JSON instead of text")
    add_thread_options(parser)
    parser.add_argument("--lenient", action="store_true", help="skip corrupt lines instead of failing")
    parser.add_argument(
        "--jobs",
        type=_jobs,
        default=None,
        metavar="N",
        help="read a long run's timeline in up to N processes at once, at least "
        f"{STEPS_A_PART} steps each; 1: in this process only (default: one per CPU, at most "
        f"{MAX_AUTO_JOBS}, on Linux; 1 elsewhere)",
    )
    parser.set_defaults(handler=run)


MAX_AUTO_JOBS = 4
"""The most processes `show` starts unasked: each later part reads the steps before it again, so a
fifth process gains little (see `part_bounds`)."""


def _jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"`{text}` is not a number of processes (1 or more)")
    return jobs


def auto_jobs() -> int:
    """How many processes `show` reads a long run in when not told: one per usable CPU, at most
    `MAX_AUTO_JOBS`, where parts can be forked (`forked.can_fork`); else 1."""
    return min(usable_cpus(), MAX_AUTO_JOBS) if can_fork() else 1


_SIGNS = {"added": "+", "appended": "+", "removed": "-", "changed": "~"}


def _change_text(
    change: Change, run: Run, conversation: Conversation, position: int, previews: Previews
) -> str:
    value = change.old if change.op == "removed" else change.new
    text = f"state: {_SIGNS[change.op]} {one_line(format_path(change.path))}: {previews(value)}"
    # a message (what `messages_of` takes a dict for) says who said it, when another step did
    if change.op != "removed" and isinstance(value, dict) and isinstance(value.get("role"), str):  # pyright: ignore[reportUnknownMemberType]
        maker = conversation.said_by(value, position)  # pyright: ignore[reportUnknownArgumentType]
        if maker is not None and maker[0] != position:
            text += f"  (said by {_name(maker[1])} in {step_name(run, maker[0])})"
    return text


def conversation_lines(run: Run, conversation: Conversation, previews: Previews | None = None) -> list[str]:
    """The conversation at the end of the run, one message a line, each with who said it and when
    (`previews` reuses the previews of messages the timeline showed)."""
    previews = previews or Previews()
    if not len(run.steps):
        return []
    said = conversation.at(len(run.steps) - 1)
    if not said:
        return []
    whos = [_who(run, s) for s in said]
    width = max(map(len, whos))
    lines = ["conversation (who said what, in reading order):"]
    for who, s in zip(whos, said, strict=True):
        final = "  (final answer: the run's output)" if s.final else ""
        edited = f"  ({one_line(s.edited)})" if s.edited else ""
        lines.append(f"  {who:<{width}}  {previews(s.message)}{final}{edited}")
    return lines


def _who(run: Run, said: Said) -> str:
    if said.position is None:
        return one_line(said.origin)
    who = f"{step_name(run, said.position)} {_name(said.node or '')}"
    return f"{who} (into the state)" if said.origin == "state" else who


def step_label(run: Run, position: int | None) -> str:
    """`step 4` for a position in `run.steps` (the unfinished step's one past the end); with several
    segments `segment 1 step 0`, since step indices restart in each segment."""
    if position is None:
        return ""
    if len(run.segments) == 1:
        return f"step {position}"
    if 0 <= position < len(run.steps):
        step = run.steps[position]
        return f"segment {step.segment} step {step.index}"
    unfinished = run.unfinished
    index = unfinished.index if unfinished is not None else position
    return f"segment {len(run.segments) - 1} step {index}"


def _flow_lines(node_runs: list[NodeRun], previews: Previews) -> list[str]:
    """What went into and came out of each node run that produced no message: in a graph without
    state these are all there is to read (`n0: 'input 0' -> 'output 0'`)."""
    lines: list[str] = []
    for node_run in node_runs:
        if node_run.error is not None or messages_of(node_run.output):
            continue
        flow = f"{previews(node_run.input)} -> {previews(node_run.output)}"
        lines.append(f"    {_name(node_run.node)}: {flow}")
    return lines


def _stateless(run: Run) -> bool:
    """The run's graph keeps no state (its topology says so, or, without one, no step recorded any)."""
    if run.topology is not None:
        return not run.topology.has_state
    return not len(run.steps) or run.state_at(0) is None


def _step_lines(
    run: Run,
    step: Step,
    conversation: Conversation,
    debug: DebugLines | None,
    previews: Previews,
    *,
    stateless: bool = False,
    restarted: tuple[str, ...] = (),
) -> list[str]:
    """One step's block: the debugger's edits before it (`debug`), its header line, what its tools
    returned and its nodes said (and, in a graph without state, what went in and came out of each
    node), the state changes and the branch decisions."""
    lines: list[str] = []
    for edit in debug.edits_before(step.index) if debug is not None else ():
        change = f"{preview(edit.old)} -> {preview(edit.new)}"
        lines.append(f"edit before step {edit.step}: {one_line(edit.path)}: {change}")
    duration = f"  {step.duration * 1000:.1f} ms" if step.duration is not None else ""
    lines.append(f"step {step.index}  {_node_list(step.nodes)}  [{budget_text(step.budget)}]{duration}")
    # the step's own nodes here; a nested graph's (an agent tool's inner run) in its own block below
    node_runs = [r for r in step.node_runs if len(r.path) <= 1]
    lines.extend(tool_lines(node_runs, previews))
    lines.extend(said_lines(node_runs, previews))
    for node in restarted:
        lines.append(
            f"    {_name(node)}: its scripted model started its script over here (the fork's replayed "
            "steps did not call it): this answer is the script's first, not the recorded model's choice"
        )
    if stateless:
        lines.extend(_flow_lines(node_runs, previews))
    interrupted = getattr(step, "interrupted", ())
    if interrupted:
        lines.append(f"    interrupt: {one_line_list(interrupted)} (rerun on resume)")
    for change in run.state_changes(step.position - 1, step.position):
        if change.path == () and change.op == "added" and isinstance(change.new, dict):
            for key, value in change.new.items():  # pyright: ignore[reportUnknownVariableType]
                lines.append(f"    state: + {one_line(key)}: {previews(value)}")
            continue
        lines.append(f"    {_change_text(change, run, conversation, step.position, previews)}")
    for branch in step.branches:
        lines.append(f"    branch {_name(branch.source)} -> {_names(branch.chosen)}")
    if step.nested:
        lines.extend(nested_lines(run, step, previews))
    return lines


def script_restarts(run: Run) -> dict[int, tuple[str, ...]]:
    """In a fork whose target's model is scripted (`meta.fork.scripted_models`): the step where each
    such node first ran live, by position. A `--model-answer` is the first model run at or after the
    fork step, so the script's first answer is the next one."""
    fork = run.header.meta.get("fork")
    if not isinstance(fork, dict):
        return {}
    fork_info: dict[str, Any] = fork  # pyright: ignore[reportUnknownVariableType]
    nodes = fork_info.get("scripted_models")
    start = fork_info.get("step")
    if not isinstance(nodes, list) or not isinstance(start, int):
        return {}
    waiting = {str(node) for node in nodes}  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    answered = not fork_info.get("model_answer")  # the model answer's run is not the script's
    found: dict[int, tuple[str, ...]] = {}
    for position in range(start, len(run.steps)):
        if not waiting:
            break
        here = [node for node in run.step(position).nodes if node in waiting]
        if here and not answered:
            answered = True
            here = here[1:]
        if here:
            found[position] = tuple(here)
            waiting.difference_update(here)
    return found


def _segment_head(segment: Segment) -> list[str]:
    if segment.index == 0:
        return []
    started = f"segment {segment.index}, started {one_line(segment.started_at)}"
    return [f"— resumed from checkpoint {one_line(segment.resumed_from)} ({started}) —"]


def _segment_tail(segment: Segment, debug: DebugLines | None) -> list[str]:
    """After a segment's steps: the user's abort (first segment), the step it did not finish, and where it
    stopped at an interrupt."""
    lines: list[str] = []
    if debug is not None and debug.aborted is not None and segment.index == 0:
        lines.append(f"aborted by the user before step {debug.aborted.step}")
    unfinished = segment.unfinished
    if unfinished is not None:
        lines.append(f"step {unfinished.index}  {one_line_list(unfinished.nodes)}  (did not finish)")
    stop = segment.interrupt
    if stop is not None:
        parts = [
            f"{label} {one_line_list(nodes)}"
            for label, nodes in (("before", stop.before_nodes), ("after", stop.after_nodes))
            if nodes
        ]
        where = f" ({'; '.join(parts)})" if parts else ""
        checkpoint = f", checkpoint {stop.checkpoint_id}" if stop.checkpoint_id else ", no checkpoint saved"
        lines.append(f"interrupted{where}{checkpoint}")
    return lines


def _run_end_lines(run: Run, conversation: Conversation, previews: Previews) -> list[str]:
    """After the timeline: the conversation, then the output or the error."""
    lines = conversation_lines(run, conversation, previews)
    if run.status == "ok":
        lines.append(f"output: {preview(run.output)}")
    elif run.error is not None:
        message = " ".join(without_node_path(run.error.message).split())
        lines.append(f"error: {one_line(error_text(run.error.type, message))}")
        cause, cause_type = run.error.cause_message, run.error.cause_type
        if cause_type and cause and cause not in run.error.message:  # the engine's own words
            lines.append(f"  caused by {one_line(error_text(cause_type, ' '.join(cause.split())))}")
        elif cause_type and cause_type != run.error.type:
            lines.append(f"  caused by {one_line(cause_type)}")
        if run.error.node_path:
            lines.append(f"node path: {one_line(' > '.join(run.error.node_path))}")
    return lines


STEPS_A_PART = 1_000
"""The fewest steps worth a part of their own (`timeline(jobs=...)`): a forked process costs a few
milliseconds to start, and the steps before its part some reading of their own (see `part_bounds`)."""

_CATCH_UP = 0.4
"""What a step before a part costs that part, against a step of its own: a part's conversation index
and state start from the run's beginning, which reads each earlier step's line and messages but
formats nothing. About 0.4 on the flow ReAct agent's 10,000-round run: with 58% of the steps in the
first part, the second still ended 0.2 s after it."""


def part_bounds(steps: int, parts: int) -> list[int]:
    """Where each of `parts` parts of a `steps`-step timeline starts, then where the last one ends:
    each later part has fewer steps of its own, so that every part, with its catch-up over the steps
    before it, takes about as long (`_CATCH_UP`). At most one part per `STEPS_A_PART` steps."""
    parts = max(1, min(parts, steps // STEPS_A_PART))
    # Part k starts at s_k = C + (1 - c) s_(k-1): its own steps cost C - c s_k, its catch-up c s_k.
    share = steps / sum((1 - _CATCH_UP) ** k for k in range(parts))
    bounds = [0]
    for _ in range(parts - 1):
        bounds.append(round(share + (1 - _CATCH_UP) * bounds[-1]))
    return [*bounds, steps]


def _part_lines(
    run: Run,
    bounds: list[int],
    debug: DebugLines | None,
    diagnose: bool,
    restarted: dict[int, tuple[str, ...]],
    k: int,
) -> tuple[list[str], FoundInSteps | None]:
    """Part `k` of the timeline (`bounds`): its steps, each segment's head with its first step and
    tail with its last (an empty segment's with its position), and after the last part the run's end;
    with `diagnose`, what `Findings` found in its steps. It starts its own conversation index and
    previews: it may run in a process of its own."""
    start, stop = bounds[k], bounds[k + 1]
    last = k == len(bounds) - 2
    conversation, previews = Conversation(run), Previews()
    findings = Findings(run, start=start) if diagnose else None
    lines: list[str] = []
    stateless = _stateless(run)
    for segment in run.segments:
        tail_at = max(segment.start, segment.stop - 1)
        if tail_at < start or (segment.start >= stop and not last):
            continue
        segment_debug = debug if segment.index == 0 else None
        if segment.start >= start:
            lines.extend(_segment_head(segment))
        for position in range(max(start, segment.start), min(stop, segment.stop)):
            step = run.step(position)  # one step at a time: a slice would hold every step of a long run
            if findings is not None:
                findings.add(position, step)
            lines.extend(
                _step_lines(
                    run,
                    step,
                    conversation,
                    segment_debug,
                    previews,
                    stateless=stateless,
                    restarted=restarted.get(position, ()),
                )
            )
        if tail_at < stop or last:
            lines.extend(_segment_tail(segment, segment_debug))
    if last:
        lines.extend(_run_end_lines(run, conversation, previews))
    return lines, None if findings is None else findings.found


def timeline(run: Run, findings: Findings | None = None, *, jobs: int = 1) -> list[str]:
    """The text timeline, one block per step, segment by segment. With `findings`, every step is
    handed to it as the timeline reads it, so the diagnostics need no walk of their own.

    With `jobs` above 1 (and at least `STEPS_A_PART` steps a part), the steps are read in parts, the
    parts after the first each in a forked process at the same time (`forked.do_in_parts`); the lines
    are the same."""
    lines: list[str] = []
    head = one_line(run.graph_name or (run.topology.name if run.topology else "") or "(unnamed graph)")
    lines.append(
        f"{head}  run {one_line(run.run_id)}  started {one_line(run.started_at)}  status {run.status}"
    )
    if len(run.segments) > 1:
        lines.append(
            f"{len(run.segments)} segments: the run was interrupted and resumed {len(run.segments) - 1} "
            "time(s); step indices restart in each segment"
        )
    if run.header.resumed_from is not None:
        lines.append(f"resumed from checkpoint {one_line(run.header.resumed_from)}")
    fork = run.header.meta.get("fork")
    if isinstance(fork, dict):
        lines.append(f"fork of {one_line(fork.get('parent'))} at step {one_line(fork.get('step'))}")  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
    restarted = script_restarts(run)
    debug: DebugLines | None = read_debug_lines(run)
    if debug is not None and not debug.edits and debug.aborted is None:
        debug = None  # (the usual run: no step asks for its edits)
    bounds = part_bounds(len(run.steps), jobs)
    work = partial(_part_lines, run, bounds, debug, findings is not None, restarted)
    for part, found in do_in_parts(work, len(bounds) - 1):
        lines.extend(part)
        if findings is not None and found is not None:
            findings.take(found)
    return lines


def summary(run: Run, diagnostics: list[Diagnostic]) -> dict[str, Any]:
    """The JSON form: header facts, steps (nodes, budget, changes, branches), outcome, diagnostics."""
    steps: list[dict[str, Any]] = []
    for step in run.steps:
        steps.append(
            {
                "index": step.index,
                "segment": step.segment,
                "position": step.position,
                "nodes": list(step.nodes),
                "budget": record_dict(step.budget),
                "duration": step.duration,
                "changes": [
                    {"path": list(c.path), "op": c.op, "old": c.old, "new": c.new}
                    for c in run.state_changes(step.position - 1, step.position)
                ],
                "branches": [{"source": b.source, "chosen": b.chosen} for b in step.branches],
            }
        )
    return {
        "run_id": run.run_id,
        "graph_name": run.graph_name,
        "started_at": run.started_at,
        "status": run.status,
        "resumed_from": run.header.resumed_from,
        "interrupt": None if run.interrupt is None else record_dict(run.interrupt, exclude=("state",)),
        "segments": [segment.to_dict() for segment in run.segments],
        "output": run.output,
        "error": None if run.error is None else record_dict(run.error),
        "steps": steps,
        "conversation": [
            {
                "message": said.message,
                "origin": said.origin,
                "node": said.node,
                "position": said.position,
                "state_index": said.state_index,
                "final": said.final,
                "edited": said.edited,
            }
            for said in (Conversation(run).at(len(run.steps) - 1) if len(run.steps) else [])
        ],
        "diagnostics": [d.to_dict() for d in diagnostics],
    }


@contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """The cycle collector off while a run is read and its timeline written, back as it was after.

    Reading a run leaves no reference cycles (`tests/inspector/test_show_garbage.py` holds every
    fixture's walk, text and JSON, to that): what it stops using, reference counting frees at once.
    The collector would find nothing, yet each of its passes traverses every object made since the
    last, and a long run's reading keeps some (the value table's messages, the conversation's index):
    on 10,000 rounds some 75 ms, 4% of `show`, even when run only every 50,000 allocations."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def indented_json(value: Any) -> str:
    """`json.dumps(value, ensure_ascii=False, indent=2, default=json_default)`, made four times faster:
    with `indent`, the standard library encodes in Python, without it in C, and msgspec then indents
    the compact text, copying every string and number as it is (the same bytes; 1.5 s of a 10,000-round
    run's `show --json` before). A value that is no strict JSON (a NaN or infinite float) is written
    the standard library's way, as it always was."""
    try:
        compact = json.dumps(value, ensure_ascii=False, allow_nan=False, default=json_default)
    except ValueError:
        return json.dumps(value, ensure_ascii=False, indent=2, default=json_default)
    return msgspec.json.format(compact, indent=2)


def run(args: argparse.Namespace) -> int:
    report: dict[str, Any] | None = None
    lines: list[str] = []
    with warnings.catch_warnings(record=True) as caught, _without_cycle_collection():
        warnings.simplefilter("always", RunFileWarning)
        recorded = open_run(
            run_source(
                args.run_file, args.thread, target=args.target, branch=args.branch, checkpoint=args.checkpoint
            ),
            lenient=args.lenient,
        )
        if args.json:
            report, diagnostics = summary(recorded, diagnose(recorded)), []
        else:  # one walk over the steps feeds the timeline and the diagnostics
            findings = Findings(recorded)
            lines = timeline(recorded, findings, jobs=args.jobs or auto_jobs())
            diagnostics = findings.finish()
    for warning in caught:
        echo(f"inspector: warning: {warning.message}", file=sys.stderr)
    if report is not None:
        write_json(indented_json(report) + "\n")
        return 0
    lines.append("")
    if diagnostics:
        lines.append("diagnostics:")
        for d in diagnostics:
            where = f" ({step_label(recorded, d.step)})" if d.step is not None else ""
            lines.append(f"  {d.severity}: [{d.code}]{where} {one_line(d.message)}")
    else:
        lines.append("diagnostics: none")
    write_text("\n".join(lines) + "\n")
    return 0
