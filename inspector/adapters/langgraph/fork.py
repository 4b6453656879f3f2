"""Forks of LangGraph recordings: `inspector fork RUN --step N` through LangGraph's own checkpoints.

`inspector.debug.fork.plan_fork` and `run_fork` hand a recording whose TARGET is a LangGraph graph to
this module (after the same consent and topology checks as for graph_core). A fork at step N:

1. rebuilds the run at the boundary before step N in LangGraph's checkpoints, on a copy of the graph
   with an in-memory checkpointer, from the recorded input and the recorded outputs of steps 0..N-1:
   no node, model or tool runs (`inspector.adapters.langgraph.rebuild`). The nodes about to run and
   the state are checked against the recording at every boundary; the parent's own `edit` lines are
   applied again where they were made;
2. applies the `--set` edits at that boundary (state paths only: a LangGraph node reads the state), as
   a LangGraph `update_state` written as the nodes of step N-1, and records each as an `edit` line;
3. with `--model-answer`, writes the answer as the output of step N's model node (a LangChain
   `AIMessage`), a step the fork records without running it; the step must be one where the recording
   made a model call, and the model node must run alone in it;
4. runs on live from there (`stream(None, config)` on the forked checkpoint), with the graph's own
   nodes, model and tools, within what is left of the recorded run's step budget (`recursion_limit`).

The run file is the usual one: the replayed steps are fed to the same `StepTranslator` a live run
uses, so they read as the parent's steps, with the parent's counters (model and tool calls, tokens)
carried into step N as for graph_core. It is written to a temporary file next to `-o` and moved into
place when the run is over, so a refused fork writes nothing. `inspector diff PARENT FORK` aligns the
two runs at step N (`meta.fork`).

Not supported (refused with one paragraph): `input.NODE` paths, runs in several segments (resumed after
an interrupt), a replayed step whose node failed or stopped at an interrupt in the recording, and
values the recording did not keep in full.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from graph_core.callbacks import StepInfo
from graph_core.schema import Message
from inspector.adapters.langgraph.rebuild import Rebuild, ReplayedRun, ReplayedStep
from inspector.adapters.langgraph.recording import StepTranslator
from inspector.adapters.langgraph.restore import from_message, to_langchain
from inspector.adapters.langgraph.runner import output_of, stopped_at
from inspector.adapters.langgraph.topology import recursion_limit
from inspector.debug.controller import Edit
from inspector.debug.fork_file import fork_file
from inspector.debug.fork_plan import ForkPlan, ForkResult, decode_value, fork_meta
from inspector.errors import DebugError
from inspector.recording import Recorder, Run, read_run
from inspector.target import LoadedTarget

__all__ = ["plan_langgraph_fork", "run_langgraph_fork"]

_MODES = ["tasks", "values"]


def model_calls(parent: Run, step: int) -> list[str]:
    """The top-level nodes of `step` whose recorded output is a model's answer (an assistant message:
    what the recorder keeps as a model node's output)."""
    nodes: list[str] = []
    for run in parent.steps[step].node_runs:
        output = run.output
        if len(run.path) == 1 and isinstance(output, dict) and output.get("role") == "assistant":  # pyright: ignore[reportUnknownMemberType]
            nodes.append(run.node)
    return nodes


def plan_langgraph_fork(
    parent: Run,
    step: int,
    target: LoadedTarget,
    graph_input: Any,
    *,
    sets: Sequence[tuple[str, Any]],
    model_answer: Message | None,
    recorded_edits: list[tuple[int, str, Any]],
    mode: str,
) -> ForkPlan:
    """The plan of a fork of a LangGraph recording, with what can be refused before anything runs:
    an `input.` path, and a model answer for a step that made no model call."""
    for path, _ in sets:
        if path == "input" or path.startswith("input.") or path.startswith("input["):
            raise DebugError(
                f"--set `{path}`: a LangGraph node reads the state, so there is no node input to edit; "
                "edit the state instead (`state.KEY...`), which the nodes of the step read"
            )
    chat: frozenset[str] = frozenset()
    if model_answer is not None:
        chat = frozenset(model_calls(parent, step))
        if not chat:
            called = [i for i in range(len(parent.steps)) if model_calls(parent, i)]
            where = (
                f"the model answered at step{'s' if len(called) > 1 else ''} "
                f"{', '.join(map(str, called))}: fork at one of them"
                if called
                else "the recording holds no model call at all"
            )
            nodes = ", ".join(parent.steps[step].nodes)
            raise DebugError(
                f"--model-answer: step {step} ran [{nodes}], which made no model call, so there is no "
                f"model answer to replace there; {where}"
            )
        if len(chat) > 1:
            raise DebugError(
                f"--model-answer: step {step} called the model in several nodes ({', '.join(sorted(chat))}); "
                "one answer cannot stand for all of them"
            )
    return ForkPlan(
        parent,
        step,
        target,
        graph_input,
        [],
        list(sets),
        recorded_edits,
        model_answer,
        chat,
        mode,
    )


def _replayed_runs(parent: Run, index: int, commands: dict[str, set[str]]) -> list[ReplayedRun]:
    """Step `index`'s top-level node runs as LangGraph values: the recorded input and output (a model's
    answer as the `{"messages": [AIMessage]}` update its node returned). A nested graph's node runs are
    left out: its graph node's output is replayed whole.

    A node that returns `Command(goto=...)` wrote no state for where it went (the recording holds its
    state update only): when it declared its destinations (`commands`, node -> targets), the nodes
    of the next step among them are where it went, and its output is replayed as that `Command`."""
    from langgraph.types import Command

    following = list(parent.steps[index + 1].nodes) if index + 1 < len(parent.steps) else []
    runs: list[ReplayedRun] = []
    for j, node_run in enumerate(parent.steps[index].node_runs):
        if len(node_run.path) > 1:
            continue
        node = node_run.node
        if node_run.error is not None:
            raise DebugError(
                f"step {index} node `{node}` did not finish in the recording ({node_run.error.type}), so "
                f"the step cannot be replayed: fork at step {index} or before"
            )
        output = decode_value(node_run.output, f"step {index} node `{node}` output")
        if isinstance(output, Message) and output.role == "assistant":
            # LangChain's mark of a model's answer (`lc_run-...`), which the recording reads as one
            seed = uuid.uuid5(uuid.NAMESPACE_URL, f"{parent.run_id}/{index}/{j}")
            update: Any = {"messages": [from_message(output, id=f"lc_run--inspector-replay-{seed}")]}
        else:
            update = to_langchain(output)
        goto = [n for n in following if n in commands.get(node, ())]
        if goto:
            update = Command(update=update or None, goto=goto)
        try:
            given = to_langchain(decode_value(node_run.input, "input"))
        except DebugError:  # an input the recording cut short is shown as it was recorded
            given = node_run.input
        runs.append(ReplayedRun(node, given, update))
    return runs


def _rebuild(plan: ForkPlan) -> tuple[Rebuild, list[Edit], int]:
    """The forked thread, ready to run on from step N (or N+1 after a model answer): the edits made,
    and how many of them are the parent's own, replayed."""
    parent = plan.parent
    rebuild = Rebuild(plan.target.compiled.graph, parent)
    rebuild.start(to_langchain(plan.input))
    edits: list[Edit] = []
    replayed = 0
    commands: dict[str, set[str]] = {}
    for edge in plan.target.topology().edges:
        if edge.branch_kind == "command":
            commands.setdefault(edge.source, set()).add(edge.target)
    for i in range(plan.step + 1):
        if i > 0:
            rebuild.check_state(i - 1)
        before = list(parent.steps[i - 1].nodes) if i > 0 else []
        goto = {node: [n for n in parent.steps[i].nodes if n in commands.get(node, ())] for node in before}
        for edit_step, path, value in plan.recorded_edits:
            if edit_step == i:
                try:
                    edits += rebuild.edit(i, [(path, value)], before, goto)
                except DebugError as exc:
                    raise DebugError(
                        f"the edit recorded before step {i} (`{path}`) cannot be replayed: {exc}"
                    ) from None
                replayed += 1
        rebuild.check_nodes(i)
        if i < plan.step:
            rebuild.replay(i, _replayed_runs(parent, i, commands))
            continue
        if plan.sets:
            edits += rebuild.edit(i, plan.sets, before, goto)
        if plan.model_answer is not None:
            (node,) = plan.chat_nodes
            rebuild.answer(i, node, plan.model_answer)
    return rebuild, edits, replayed


class _CarryCounters:
    """Before the recorder: at the end of each replayed step, its counters are set to the parent's after
    that step (the replay called no model or tool; the parent's counts are what the fork carries on)."""

    def __init__(self, parent: Run, replayed: int) -> None:
        self.parent = parent
        self.replayed = replayed
        self.recorder: Recorder | None = None

    def on_step_end(self, step: StepInfo) -> None:
        if step.path or step.index >= self.replayed or self.recorder is None:
            return
        self.recorder.carry_counters(self.parent.steps[step.index].budget)


def _feed_replayed(translator: StepTranslator, steps: Sequence[ReplayedStep]) -> None:
    """The steps the fork did not run, as the events LangGraph's stream would have given for them."""
    for i, step in enumerate(steps):
        ids = [f"inspector-fork-{i}-{j}" for j in range(len(step.runs))]
        for task_id, run in zip(ids, step.runs, strict=True):
            translator.feed((), "tasks", {"id": task_id, "name": run.node, "input": run.input})
        for task_id, run in zip(ids, step.runs, strict=True):
            payload = {"id": task_id, "name": run.node, "error": None, "result": run.output, "interrupts": []}
            translator.feed((), "tasks", payload)
        translator.feed((), "values", step.state)


def _live(
    graph: Any,
    config: dict[str, Any],
    *,
    nested: bool,
    left: int,
    limit: int,
    order: Sequence[str],
) -> Iterator[tuple[Sequence[str], str, Any]]:
    """The live run from the forked checkpoint, as (namespace, mode, chunk), within `left` steps.

    The state LangGraph emits before the first task (the checkpoint's own, edits included) is left
    out: the step before was recorded with the state it ended with, and the edits as `edit` lines. A
    run resumed from a checkpoint at LangGraph step s stops after step s + `recursion_limit` + 2, so
    `recursion_limit` is `left - 2` (LangGraph's `remaining_steps` then counts down as in the recorded
    run); below 1, which LangGraph refuses, the step that would go past `left` raises LangGraph's own
    `GraphRecursionError` here instead."""
    from langgraph.errors import GraphRecursionError

    run_config = {**config, "recursion_limit": max(1, left - 2)}
    stream = graph.stream(None, run_config, stream_mode=_MODES, subgraphs=nested)
    started = False
    first: list[tuple[Sequence[str], str, Any]] | None = []  # the first step's tasks, until complete
    steps = 0
    batch = False  # inside a top-level step's batch of tasks (LangGraph announces them together)
    try:
        for event in stream:
            namespace, mode, chunk = event if nested else ((), *event)
            top = not namespace
            if top and mode == "tasks" and "result" not in chunk:
                if not batch:
                    batch, steps = True, steps + 1
                    if steps > left:
                        raise GraphRecursionError(
                            f"Recursion limit of {limit} reached without hitting a stop condition "
                            "(the recorded run's step budget, counted from its step 0)"
                        )
            elif top:
                batch = False
            if not started and mode == "values" and top:
                continue
            started = True
            if first is not None:
                if top and mode == "tasks" and "result" not in chunk:
                    first.append((namespace, mode, chunk))
                    continue
                yield from _in_order(first, order)
                first = None
            yield namespace, mode, chunk
        yield from _in_order(first or [], order)
    finally:
        stream.close()


def _in_order(
    tasks: list[tuple[Sequence[str], str, Any]], order: Sequence[str]
) -> list[tuple[Sequence[str], str, Any]]:
    """A step's task announcements in the recorded order of its nodes. A run resumed from a checkpoint
    lists its first step's tasks in the order the nodes were added to the graph, where a running graph
    lists those its last step triggered: the same tasks, run in parallel, which `diff` would otherwise
    report as a different step."""
    rank = {name: i for i, name in enumerate(order)}
    return sorted(tasks, key=lambda event: rank.get(str(event[2].get("name")), len(rank)))


def _record(
    plan: ForkPlan, rebuild: Rebuild, edits: list[Edit], path: Path, options: dict[str, Any]
) -> tuple[Recorder, BaseException | None]:
    """Record the fork into `path`: the replayed steps, the edits, then the live run."""
    parent = plan.parent
    graph = rebuild.graph
    limit = recursion_limit(plan.target.compiled.graph)
    topology = plan.target.topology()
    if topology.max_run_steps != limit:
        topology = topology.model_copy(update={"max_run_steps": limit})
    meta = fork_meta(plan)
    carry = _CarryCounters(parent, plan.step)
    recorder = Recorder(path, topology=topology, meta=meta, **{"report_faults": False, **options})
    carry.recorder = recorder
    translator = StepTranslator(
        [carry, recorder],
        topology=topology,
        limit=limit,
        extras={"topology": topology},
        output=lambda state: output_of(graph, state),
    )
    translator.start(to_langchain(plan.input))
    _feed_replayed(translator, rebuild.steps)
    for edit in edits:
        recorder.append_event(
            {"kind": "edit", "step": edit.step, "path": edit.path, "old": edit.old, "new": edit.new},
            values=("old", "new"),
        )
    thread = {"configurable": dict(rebuild.config["configurable"])}
    thread["configurable"].pop("checkpoint_id", None)
    thread["configurable"].pop("checkpoint_ns", None)
    left = limit - len(rebuild.steps)  # what the recorded budget leaves after the steps not run live
    nested = any(node.graph is not None for node in topology.nodes)
    try:
        steps = parent.steps
        order = list(steps[len(rebuild.steps)].nodes) if len(rebuild.steps) < len(steps) else []
        live = _live(graph, rebuild.config, nested=nested, left=left, limit=limit, order=order)
        for namespace, mode, chunk in live:
            translator.feed(namespace, mode, chunk)
    except Exception as error:
        return recorder, translator.fail(error)
    stopped = stopped_at(graph, translator, thread)
    if stopped is None:
        translator.finish()
        return recorder, None
    info, pending = stopped
    return recorder, translator.finish(next_nodes=pending, interrupted=info)


def run_langgraph_fork(
    plan: ForkPlan, output: str | os.PathLike[str], *, recorder_options: dict[str, Any] | None = None
) -> ForkResult:
    """Run the fork into `output` (see the module docstring); a `DebugError` leaves no file behind."""
    out = Path(output)
    rebuild, edits, replayed = _rebuild(plan)  # every refusal happens here, before any file
    with fork_file(out) as (temp, finish):
        recorder, error = _record(plan, rebuild, edits, temp, dict(recorder_options or {}))
        finish(recorder.fault)
    forked = read_run(out)
    return ForkResult(out, forked.status, len(forked.steps), edits, error, replayed)
