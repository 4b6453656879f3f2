"""`inspector show RUN.jsonl [--json]`: a per-step timeline of a recorded run, the conversation, then
its diagnostics.

Each step lists what its nodes said (`chat said: ...`, the messages they produced) apart from what
changed in the state (`state: + messages[1]: ...`): a ReAct agent's tools node files the model's tool
call into the state a step after the model made it, so a state change names who said the message when
that was another step. The conversation section reads the messages in order, each with the node and
step that produced it, the final answer (the run's output) last.

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
from functools import lru_cache
from typing import Any

from inspector.cli.plain import one_line, one_line_list
from inspector.conversation import Conversation, Said, messages_of, step_name
from inspector.diagnostics import Diagnostic, Findings, diagnose
from inspector.errortext import error_text, without_node_path
from inspector.recording import NodeRun, Run, RunFileWarning, Segment, read_run
from inspector.recording.debug_lines import DebugLines, read_debug_lines
from inspector.recording.format import BudgetRecord, record_dict
from inspector.recording.statediff import Change, format_path
from inspector.recording.valuelist import json_default

__all__ = ["PREVIEW_WIDTH", "preview_line", "register", "run", "step_label", "summary", "timeline"]

PREVIEW_WIDTH = 80

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
    parser.add_argument("--lenient", action="store_true", help="skip corrupt lines instead of failing")
    parser.set_defaults(handler=run)


def _budget_text(budget: BudgetRecord) -> str:
    if budget.steps_max is not None:
        parts = [f"steps {budget.steps_used}/{budget.steps_max}"]
    else:
        parts = [f"steps {budget.steps_used}"]
    if budget.model_calls or budget.tool_calls:
        parts.append(f"model {budget.model_calls}")
        parts.append(f"tools {budget.tool_calls}")
    if budget.total_tokens is not None:
        parts.append(f"tokens {budget.total_tokens}")
    if budget.iterations_remaining is not None:
        parts.append(f"iterations left {budget.iterations_remaining}")
    return ", ".join(parts)


def _preview(value: Any) -> str:
    if isinstance(value, dict) and "role" in value:
        role = value.get("role")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        text = str(value.get("content") or "")  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        calls = value.get("tool_calls")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        # A hand-edited file may hold anything here: only call objects are named.
        calls = [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []  # pyright: ignore[reportUnknownVariableType]
        if calls:
            names = ", ".join([f"{c.get('name')}({c.get('arguments', '')})" for c in calls])  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            text = f"{text} -> {names}" if text else f"-> {names}"
        out = f"{role}: {text}"
    elif isinstance(value, str):
        out = repr(value)
    else:
        out = json.dumps(value, ensure_ascii=False, default=json_default)
    return preview_line(out)


_LOOKED_AT = 2 * PREVIEW_WIDTH
"""Characters of a long text a preview is made from first: enough unless most of them are whitespace."""
_WIDEST_ESCAPE = len(" ⏎ ") + len("\\u200d")  # what one character may become, with a margin


def _on_one_line(text: str) -> str:
    """`one_line(" ".join(text.split()))`, without splitting or escaping the usual text, already on one
    line: in printable text the only whitespace is the space (every other whitespace character is
    unprintable) and `one_line` leaves printable text as it is, so printable text without two spaces in
    a row or at either end is unchanged (C-speed checks, one pass over the text)."""
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return one_line(" ".join(text.split()))


def preview_line(text: str) -> str:
    """`text` on one line, whitespace runs as one space, cut to `PREVIEW_WIDTH` characters with `...`.

    A long text (a tool's result, a document) is previewed from its first `_LOOKED_AT` characters
    when they make a preview on their own: their line is the start of the whole text's line (spaces
    collapse and characters are escaped one by one), except that the last of them may escape
    differently without the character after it, so their line must reach past the cut by the widest
    escape."""
    if len(text) > _LOOKED_AT:
        head = _on_one_line(text[:_LOOKED_AT])
        if len(head) >= PREVIEW_WIDTH + _WIDEST_ESCAPE:
            return head[: PREVIEW_WIDTH - 3] + "..."
    out = _on_one_line(text)
    return out if len(out) <= PREVIEW_WIDTH else out[: PREVIEW_WIDTH - 3] + "..."


class _Previews:
    """`_preview`, worked out once per message object: a recorded message is one object (the value
    table's) wherever it appears, so a long run's timeline would otherwise preview each message three
    times (said by its node, appended to the state a step later, in the conversation at the end)."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[Any, str]] = {}  # by id: the message itself (keeps the id), its text

    def __call__(self, value: Any) -> str:
        if type(value) is not dict or "role" not in value:
            return _preview(value)
        known = self._known.get(id(value))
        if known is not None and known[0] is value:
            return known[1]
        text = _preview(value)
        self._known[id(value)] = (value, text)
        return text


_SIGNS = {"added": "+", "appended": "+", "removed": "-", "changed": "~"}


def _change_text(
    change: Change, run: Run, conversation: Conversation, position: int, preview: _Previews
) -> str:
    value = change.old if change.op == "removed" else change.new
    text = f"state: {_SIGNS[change.op]} {one_line(format_path(change.path))}: {preview(value)}"
    # a message (what `messages_of` takes a dict for) says who said it, when another step did
    if change.op != "removed" and isinstance(value, dict) and isinstance(value.get("role"), str):  # pyright: ignore[reportUnknownMemberType]
        maker = conversation.said_by(value, position)  # pyright: ignore[reportUnknownArgumentType]
        if maker is not None and maker[0] != position:
            text += f"  (said by {_name(maker[1])} in {step_name(run, maker[0])})"
    return text


def _said_lines(node_runs: list[NodeRun], preview: _Previews) -> list[str]:
    """What a step's nodes said: the messages they produced, other than tool results (each tool call
    already has its line)."""
    lines: list[str] = []
    for node_run in node_runs:
        if node_run.error is not None:
            continue
        for message in messages_of(node_run.output):
            if message.get("role") != "tool":
                lines.append(f"    {_name(node_run.node)} said: {preview(message)}")
    return lines


def conversation_lines(run: Run, conversation: Conversation, preview: _Previews | None = None) -> list[str]:
    """The conversation at the end of the run, one message a line, each with who said it and when
    (`preview` reuses the previews of messages the timeline showed)."""
    preview = preview or _Previews()
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
        lines.append(f"  {who:<{width}}  {preview(s.message)}{final}")
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


def _segment_lines(
    run: Run,
    segment: Segment,
    conversation: Conversation,
    debug: DebugLines | None = None,
    findings: Findings | None = None,
    preview: _Previews | None = None,
) -> list[str]:
    """One segment's steps, then the step it did not finish and where it stopped at an interrupt;
    `debug` adds the debugger's edits before the steps they changed (first segment); each step is
    also handed to `findings`, when given."""
    preview = preview or _Previews()
    lines: list[str] = []
    if segment.index > 0:
        lines.append(
            f"— resumed from checkpoint {segment.resumed_from} (segment {segment.index}, "
            f"started {segment.started_at}) —"
        )
    for position in segment.steps:  # one step at a time: a slice would hold every step of a long run
        step = run.step(position)
        if findings is not None:
            findings.add(position, step)
        for edit in debug.edits_before(step.index) if debug is not None else ():
            change = f"{_preview(edit.old)} -> {_preview(edit.new)}"
            lines.append(f"edit before step {edit.step}: {one_line(edit.path)}: {change}")
        duration = f"  {step.duration * 1000:.1f} ms" if step.duration is not None else ""
        lines.append(f"step {step.index}  {_node_list(step.nodes)}  [{_budget_text(step.budget)}]{duration}")
        node_runs = step.node_runs
        for node_run in node_runs:
            for tool in node_run.tools:
                # (a preview is on one line already)
                outcome = f"failed: {one_line(tool.error.message)}" if tool.error else preview(tool.output)
                lines.append(f"    tool {_name(tool.name)} ({one_line(tool.tool_call_id)}): {outcome}")
            if node_run.error is not None and node_run.error.type == "InterruptSignal":
                lines.append(f"    {one_line(node_run.node)} interrupted: {one_line(node_run.error.message)}")
            elif node_run.error is not None and not node_run.tools:
                failed = one_line(error_text(node_run.error.type, node_run.error.message))
                lines.append(f"    {one_line(node_run.node)} failed: {failed}")
        lines.extend(_said_lines(node_runs, preview))
        interrupted = getattr(step, "interrupted", ())
        if interrupted:
            lines.append(f"    interrupt: {one_line_list(interrupted)} (rerun on resume)")
        for change in run.state_changes(step.position - 1, step.position):
            if change.path == () and change.op == "added" and isinstance(change.new, dict):
                for key, value in change.new.items():  # pyright: ignore[reportUnknownVariableType]
                    lines.append(f"    state: + {one_line(key)}: {preview(value)}")
                continue
            lines.append(f"    {_change_text(change, run, conversation, step.position, preview)}")
        for branch in step.branches:
            lines.append(f"    branch {_name(branch.source)} -> {_names(branch.chosen)}")
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


def timeline(run: Run, findings: Findings | None = None) -> list[str]:
    """The text timeline, one block per step, segment by segment. With `findings`, every step is
    handed to it as the timeline reads it, so the diagnostics need no walk of their own."""
    lines: list[str] = []
    head = one_line(run.graph_name or (run.topology.name if run.topology else "") or "(unnamed graph)")
    lines.append(f"{head}  run {run.run_id}  started {run.started_at}  status {run.status}")
    if len(run.segments) > 1:
        lines.append(
            f"{len(run.segments)} segments: the run was interrupted and resumed {len(run.segments) - 1} "
            "time(s); step indices restart in each segment"
        )
    if run.header.resumed_from is not None:
        lines.append(f"resumed from checkpoint {run.header.resumed_from}")
    fork = run.header.meta.get("fork")
    if isinstance(fork, dict):
        lines.append(f"fork of {one_line(fork.get('parent'))} at step {fork.get('step')}")  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
    debug: DebugLines | None = read_debug_lines(run)
    if debug is not None and not debug.edits and debug.aborted is None:
        debug = None  # (the usual run: no step asks for its edits)
    conversation = Conversation(run)
    preview = _Previews()
    for segment in run.segments:
        lines.extend(
            _segment_lines(
                run, segment, conversation, debug if segment.index == 0 else None, findings, preview
            )
        )
    lines.extend(conversation_lines(run, conversation, preview))
    if run.status == "ok":
        lines.append(f"output: {_preview(run.output)}")
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


def run(args: argparse.Namespace) -> int:
    report: dict[str, Any] | None = None
    lines: list[str] = []
    with warnings.catch_warnings(record=True) as caught, _without_cycle_collection():
        warnings.simplefilter("always", RunFileWarning)
        recorded = read_run(args.run_file, lenient=args.lenient)
        if args.json:
            report, diagnostics = summary(recorded, diagnose(recorded)), []
        else:  # one walk over the steps feeds the timeline and the diagnostics
            findings = Findings(recorded)
            lines = timeline(recorded, findings)
            diagnostics = findings.finish()
    for warning in caught:
        print(f"inspector: warning: {warning.message}", file=sys.stderr)
    if report is not None:
        json.dump(report, sys.stdout, ensure_ascii=False, indent=2, default=json_default)
        sys.stdout.write("\n")
        return 0
    lines.append("")
    if diagnostics:
        lines.append("diagnostics:")
        for d in diagnostics:
            where = f" ({step_label(recorded, d.step)})" if d.step is not None else ""
            lines.append(f"  {d.severity}: [{d.code}]{where} {one_line(d.message)}")
    else:
        lines.append("diagnostics: none")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
