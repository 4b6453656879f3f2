"""Forks: run on from step N of a recording, with edits or another model answer, without an LLM.

"Fork at step N" rebuilds the run at the boundary before step N and re-runs step N from there. A
LangGraph TARGET is checked here the same way (consent, topology, the step), then forked by
`inspector.adapters.langgraph.fork` through LangGraph's own checkpoints; for graph_core:

1. The target (`--target`, or the run header's `meta.target` when the user agreed to run it: see
   `inspector.trust`) is loaded and its topology compared with the recorded one; any difference
   refuses the fork, naming it.
2. The target runs from the recorded input. Steps 0..N-1 are replayed: each node of those steps gets
   its recorded output as a preset (graph_core's `Boundary.presets`), so no model or tool is called,
   while the state handlers and branches run for real and rebuild the state, the pending nodes and
   their inputs, and the step budget exactly as the recording had them. The parent's own `edit` lines
   (a run edited under `inspector debug`, or a fork of a fork) are applied again at their boundaries,
   up to and including step N, and written to the fork as `edit` lines too, so every step of an
   edited run can be forked.
3. At every boundary up to step N the rebuilt run is checked against the recording (the nodes about
   to run, and the state after the step before); a difference refuses the fork, naming the first one.
4. The edits (`--set PATH=JSON`, paths of `inspector.debug.paths`) are applied there and recorded as
   `edit` lines; a model answer (`--model-answer`) becomes the output of the first ChatModel node that
   runs from step N on (step N itself when it runs one) instead of calling the model.
5. From step N on the target runs live: its own model and tools, in the mode the parent was recorded
   in (`meta.mode`: invoke or stream).

The replayed steps call no tool, so the fork's counters (model and tool calls, tokens) are set to the
parent's at the end of each replayed step: the fork carries them into step N, and `inspector diff`
compares what the steps after the fork really spent. A scripted model (`ScriptedChatModel`) was not
called in the replayed steps, so when the fork calls it, it answers from the start of its script
(the weather fork asks for the weather again): the header's `meta.fork.scripted_models` names such
nodes, and `inspector show` marks their first live answer as the script's start, not a decision.

A component that changes the state itself (the ADK agent's model node appends its answer) does not run
in a replayed step; when the rebuilt state differs only by such missing list items, the state recorded
after that step is restored (rebuilt and validated against the state's type) before the replay goes on.

The fork is written to a temporary file next to `-o` and moved into place when the run is over, so a
refused fork (bad step, path, value, changed target) writes nothing; nor does one whose file could
not be written (a read-only folder, a full disk, `-o` being recorded to by another process): that is
a `RunWriteError`, and the temporary file is removed. Its header's `meta.fork` names
the parent run (`parent`, `parent_run_id`) and `step`; `inspector diff PARENT FORK` aligns the two runs
there.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from graph_core.callbacks import Boundary, StepInfo
from graph_core.schema import Message
from inspector.adapters.detect import is_langgraph
from inspector.debug.controller import DebugController, apply_edit, assign_state
from inspector.debug.fork_file import fork_file
from inspector.debug.fork_plan import ForkPlan, ForkResult, decode_value, first_difference, fork_meta
from inspector.debug.paths import check_value_depth, parse_path, rebuild_like
from inspector.debug.settled import Settled
from inspector.errors import DebugError, TargetConsentError, TargetError
from inspector.recording import Run, read_run
from inspector.recording.debug_lines import read_debug_lines
from inspector.recording.encode import Encoder
from inspector.recording.redact import make_redaction
from inspector.recording.valuelist import plain
from inspector.snapshot.topology_diff import describe_topology_changes, diff_topologies
from inspector.target import LoadedTarget, TargetSource, load_target, locate_target
from inspector.terminaltext import visible
from inspector.trust import Consent, consent_for, describe_source, recorded_target_error

__all__ = [
    "ForkPlan",
    "ForkResult",
    "decode_value",
    "fork_point",
    "plan_fork",
    "run_fork",
    "scripted_replayed",
]


def _steps_text(run: Run) -> str:
    n = len(run.steps)
    return f"it has steps 0..{n - 1}" if n else "it has no complete step"


def parse_sets(items: Sequence[str]) -> list[tuple[str, Any]]:
    """`PATH=JSON` items (`--set`) as (path, value); the path's syntax and the JSON are checked now."""
    out: list[tuple[str, Any]] = []
    for item in items:
        path, sep, raw = item.partition("=")
        if not sep:
            raise DebugError(f'--set `{item}`: write PATH=JSON, as in `state.messages[0].content="hi"`')
        parse_path(path)
        check_value_depth(raw, f"the value of --set `{path.strip()}`")
        try:
            out.append((path.strip(), json.loads(raw)))
        except ValueError as exc:
            raise DebugError(
                f"--set `{item}`: the value is not valid JSON ({exc}); strings need quotes"
            ) from None
    return out


def parse_model_answer(raw: str) -> Message:
    """`--model-answer`: an assistant message as JSON (tool calls as in the run file)."""
    check_value_depth(raw, "--model-answer")
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise DebugError(f"--model-answer is not valid JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("role") != "assistant":  # pyright: ignore[reportUnknownMemberType]
        raise DebugError(
            '--model-answer must be an assistant message: {"role": "assistant", "content": "..."}'
        )
    try:
        return Message.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise DebugError(f"--model-answer is not a valid message: {problems}") from None


def plan_fork(
    run_path: str | os.PathLike[str],
    step: int,
    *,
    target: str | None = None,
    sets: Sequence[tuple[str, Any]] = (),
    model_answer: Message | None = None,
    confirm: Callable[[TargetSource], bool] | None = None,
) -> ForkPlan:
    """Check a fork of `run_path` at `step` and prepare it; `DebugError` says what does not fit.

    `target` is a TARGET the user named (`--target`); without it the recording's own is used only with
    the user's consent (`_consented_target`): `confirm` is asked when nothing else gives it."""
    parent = read_run(Path(run_path))
    if len(parent.segments) > 1:
        raise DebugError(
            f"{run_path} holds {len(parent.segments)} segments (a run resumed after an interrupt); forks of "
            "such runs are not supported yet: fork a single-segment recording"
        )
    if not -len(parent.steps) <= step < len(parent.steps):
        raise DebugError(f"step {step} is outside the run {run_path}: {_steps_text(parent)}")
    step %= len(parent.steps)  # -1 is the last step, as in `replay --step -1`
    loaded = _consented_target(parent, run_path, target, confirm)
    spec = loaded.spec
    recorded = parent.topology
    if recorded is not None:
        changes = diff_topologies(recorded, loaded.topology())
        if changes:
            lines = "; ".join(describe_topology_changes(changes))
            raise DebugError(
                f"TARGET `{spec}` no longer matches the graph {run_path} recorded, so it cannot be forked "
                f"(topology mismatch: {lines})"
            )
    graph_input = decode_value(parent.resolve(parent.header.input), "the recorded input")
    presets: list[dict[str, Any]] = []
    for index in range(step):
        outputs: dict[str, Any] = {}
        for node_run in parent.steps[index].node_runs:
            if len(node_run.path) > 1:
                continue  # a nested graph's node: its graph node's output is replayed whole
            outputs[node_run.node] = decode_value(
                node_run.output, f"step {index} node `{node_run.node}` output"
            )
        presets.append(outputs)
    mode = "stream" if parent.header.meta.get("mode") == "stream" else "invoke"  # as it was recorded
    recorded_edits = [
        (edit.step, edit.path, edit.new) for edit in read_debug_lines(parent).edits if edit.step <= step
    ]
    if _is_langgraph(loaded):  # forked through LangGraph's own checkpoints
        from inspector.adapters.langgraph.fork import plan_langgraph_fork

        return plan_langgraph_fork(
            parent,
            step,
            loaded,
            graph_input,
            sets=sets,
            model_answer=model_answer,
            recorded_edits=recorded_edits,
            mode=mode,
        )
    chat = frozenset(n.key for n in loaded.topology().nodes if n.kind == "ChatModel")
    if model_answer is not None and not chat:
        raise DebugError(f"--model-answer: TARGET `{spec}` has no ChatModel node to answer for")
    return ForkPlan(
        parent, step, loaded, graph_input, presets, list(sets), recorded_edits, model_answer, chat, mode
    )


def _is_langgraph(loaded: LoadedTarget) -> bool:
    """Whether the TARGET is a LangGraph graph (`inspector.adapters.langgraph.fork` forks those)."""
    return is_langgraph(getattr(loaded.compiled, "graph", None))


def _consented_target(
    parent: Run,
    run_path: str | os.PathLike[str],
    target: str | None,
    confirm: Callable[[TargetSource], bool] | None,
) -> LoadedTarget:
    """The fork's target, loaded only with the user's consent (see `inspector.trust`).

    A TARGET the user named is theirs. The recording's own (`meta.target`) is data from a file that may
    have come from anyone: it is located without running anything, then imported only when this user
    recorded that run here, when it is one of the bundled fixtures (built objects only, no factory
    called), or when `confirm` says yes; otherwise `TargetConsentError`. The standard library is refused
    whoever named it (`inspector.target`)."""
    if target:
        return load_target(target)
    spec = parent.header.meta.get("target")
    if not spec:
        raise DebugError(
            f"{run_path} does not name its TARGET (it was not recorded by `inspector record`/`debug`): "
            "pass --target module:attribute"
        )
    spec = str(spec)
    try:
        source = locate_target(spec)
        consent = consent_for(parent.run_id, source, confirm=confirm)
        if consent is None:
            raise TargetConsentError(
                f"{run_path} names the TARGET `{visible(spec)}`, {visible(describe_source(source))}, "
                "and nothing says you agreed to run it: this run was not recorded by you on this "
                "machine, and you did not name the TARGET yourself. Forking imports that module and "
                "runs its code, so it was not imported",
                spec=spec,
            )
        return load_target(spec, factories=consent is not Consent.BUNDLED)
    except TargetConsentError:
        raise
    except TargetError as exc:
        raise recorded_target_error(exc, run_path) from exc


def _behind(rebuilt: Any, recorded: Any) -> bool:
    """True when `rebuilt` differs from `recorded` only by lists that are shorter prefixes of the
    recorded ones: what a replayed component that appends to the state (and did not run) leaves."""
    if isinstance(rebuilt, dict) and isinstance(recorded, dict):
        a: dict[str, Any] = rebuilt  # pyright: ignore[reportUnknownVariableType]
        b: dict[str, Any] = recorded  # pyright: ignore[reportUnknownVariableType]
        return a.keys() == b.keys() and all(_behind(a[k], b[k]) for k in a)
    if isinstance(rebuilt, list) and isinstance(recorded, list):
        la: list[Any] = rebuilt  # pyright: ignore[reportUnknownVariableType]
        lb: list[Any] = recorded  # pyright: ignore[reportUnknownVariableType]
        return len(la) <= len(lb) and la == lb[: len(la)]
    return rebuilt == recorded


class _ForkHook:
    """The boundary hook of a fork: replay before step N, check and edit at N, answer the model once."""

    def __init__(self, plan: ForkPlan) -> None:
        self.plan = plan
        self.controller: DebugController | None = None
        self.answer = plan.model_answer
        self.encoder = Encoder(redaction=make_redaction(True), intern=False)
        self.settled = Settled(self.encoder)
        self.restored: list[int] = []  # steps after which the state was restored from the recording

    def __call__(self, boundary: Boundary) -> None:
        plan = self.plan
        i = boundary.step
        keys = [key for key, _ in boundary.pending]
        if i <= plan.step:
            recorded = list(plan.parent.steps[i].nodes)
            if keys != recorded:
                raise DebugError(
                    f"the target does not replay the recording: before step {i} it would run "
                    f"[{', '.join(keys)}], the recording ran [{', '.join(recorded)}]"
                )
        if 0 < i <= plan.step:
            self._check_state(boundary, i - 1)
        for step, path, value in plan.recorded_edits:
            if step == i:
                self._edit(boundary, path, value, recorded=True)
        if i < plan.step:
            boundary.presets.update(plan.presets[i])
            return
        if i == plan.step:
            for path, value in plan.sets:
                self._edit(boundary, path, value)
        if self.answer is not None:
            chat = [key for key in keys if key in plan.chat_nodes]
            if chat:
                boundary.presets[chat[0]] = self.answer
                self.answer = None

    def _edit(self, boundary: Boundary, path: str, value: Any, *, recorded: bool = False) -> None:
        """Apply one edit at this boundary and write it to the fork as an `edit` line; `recorded` edits
        are the parent's own, replayed (one that no longer applies refuses the fork, naming it)."""
        try:
            edit = apply_edit(boundary, path, value)
        except DebugError as exc:
            if not recorded:
                raise
            raise DebugError(
                f"the edit recorded before step {boundary.step} (`{path}`) cannot be replayed: {exc}"
            ) from None
        assert self.controller is not None
        self.controller.edits.append(edit)
        recorder = self.controller.recorder
        if recorder is not None:
            recorder.append_event(
                {"kind": "edit", "step": edit.step, "path": edit.path, "old": edit.old, "new": edit.new},
                values=("old", "new"),
            )

    def _encoded(self, state: Any) -> Any:
        return json.loads(json.dumps(self.encoder.encode(state)))

    def _check_state(self, boundary: Boundary, after: int) -> None:
        """The rebuilt state must be the one recorded after step `after`.

        A component that appends to the state itself (the ADK agent's model node appends its answer)
        did not run in a replayed step, so its items are missing: when the rebuilt state differs only
        by such shorter lists, it is restored from the recording (rebuilt and validated against the
        state's type) and checked again. Any other difference refuses the fork, naming the first one.
        The recorded state is read through the state's type first, so a recording made before the type
        gained a field (with a default) still forks.
        """
        if boundary.state is None:
            return
        stored = self.plan.parent.state_at(after)
        if self.settled.same(boundary.state, stored):
            return
        recorded = plain(stored)  # histories as lists, like the rebuilt state
        if isinstance(boundary.state, BaseModel):
            # read through the state's type: a field it gained since the recording takes its default
            # (not of the type at all: the difference below names what)
            with contextlib.suppress(DebugError):
                recorded = self._encoded(rebuild_like(boundary.state, recorded, "state"))
        rebuilt = self._encoded(boundary.state)
        difference = first_difference(rebuilt, recorded)
        if (
            difference is not None
            and isinstance(boundary.state, BaseModel | dict)
            and _behind(rebuilt, recorded)
        ):
            try:
                restored = rebuild_like(boundary.state, recorded, "state")
            except DebugError:
                restored = None
            if restored is not None and first_difference(self._encoded(restored), recorded) is None:
                assign_state(boundary, restored)
                self.restored.append(after)
                return
        if difference is not None:
            raise DebugError(
                f"the rebuilt run does not match the recording after step {after}: {difference}. The "
                f"recorded outputs{' and edits' if self.plan.recorded_edits else ''} of steps 0..{after} "
                "were replayed and the topology matches, so a state handler or branch of the target now "
                "computes something else than when the run was recorded (its code or what it reads "
                "changed, it is not deterministic, or the recording was edited by hand); the run cannot "
                "be forked at that step"
            )


def scripted_replayed(plan: ForkPlan) -> list[str]:
    """The ChatModel nodes running a `ScriptedChatModel` that ran in a replayed step: when the fork
    calls them, their script starts over (the replayed steps did not advance it)."""
    scripted = {
        node.key
        for node in plan.target.topology().nodes
        if node.kind == "ChatModel"
        and node.model is not None
        and node.model.class_name == "ScriptedChatModel"
    }
    ran = {key for preset in plan.presets for key in preset}
    return sorted(scripted & ran)


class _CarryCounters:
    """A handler before the recorder's: at the end of each replayed step, the recorder's counters are
    set to the parent's after that step (the replay calls no tool, and the parent's counts are what
    the fork carries on from)."""

    def __init__(self, plan: ForkPlan, hook: _ForkHook) -> None:
        self.plan = plan
        self.hook = hook

    def on_step_end(self, step: StepInfo) -> None:
        if step.path or step.index >= self.plan.step:
            return  # a nested graph's step, or a step that ran live
        controller = self.hook.controller
        recorder = controller.recorder if controller is not None else None
        if recorder is not None:
            recorder.carry_counters(self.plan.parent.steps[step.index].budget)


def run_fork(
    plan: ForkPlan, output: str | os.PathLike[str], *, recorder_options: dict[str, Any] | None = None
) -> ForkResult:
    """Run the fork into `output` (see the module docstring); a `DebugError` leaves no file behind."""
    if _is_langgraph(plan.target):
        from inspector.adapters.langgraph.fork import run_langgraph_fork

        return run_langgraph_fork(plan, output, recorder_options=recorder_options)
    out = Path(output)
    meta = fork_meta(plan)
    scripted = scripted_replayed(plan)
    if scripted:
        meta["fork"]["scripted_models"] = scripted
    hook = _ForkHook(plan)
    with fork_file(out) as (temp, finish):
        controller = DebugController(
            plan.target.compiled,
            plan.input,
            output=temp,
            topology=plan.target.topology(),
            mode="stream" if plan.mode == "stream" else "invoke",
            meta=meta,
            recorder_options={"report_faults": False, **(recorder_options or {})},
            before_pause=hook,
            callbacks=[_CarryCounters(plan, hook)],
        )
        hook.controller = controller
        controller.start()
        controller.join()
        if isinstance(controller.error, DebugError):
            raise controller.error
        finish(None if controller.recorder is None else controller.recorder.fault)
    forked = read_run(out)
    replayed = sum(1 for edit_step, _, _ in plan.recorded_edits if edit_step <= plan.step)
    return ForkResult(out, forked.status, len(forked.steps), controller.edits, controller.error, replayed)


def fork_point(run: Run) -> tuple[str, int] | None:
    """(parent path, step) when `run` is a fork (its header's `meta.fork`), else None."""
    fork = run.header.meta.get("fork")
    if not isinstance(fork, dict):
        return None
    step = fork.get("step")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    parent = fork.get("parent")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if not isinstance(step, int) or not isinstance(parent, str):
        return None
    return parent, step
