"""Workflow agents: sub-agents run one after another, in a loop, or side by side (Eino
`adk/workflow.go`).

`new_sequential_agent`, `new_loop_agent` and `new_parallel_agent` return a `FlowAgent` (see
`adk_flow`) around a `WorkflowAgent`. Each sub-agent is a flow agent that may not transfer back to the
workflow; it builds its input from the run's root input and the session (so the second agent of a
sequence sees the first one's output, retold "For context: ..."), and records its own events there.

- **Sequential**: each sub-agent in turn, at the run path of the workflow plus every sub-agent that ran
  before it (`(W, first, second)`, Eino `updateRunPathOnly`). A sub-agent's error ends the workflow
  (the error event is the last); so does an `exit` action or an interrupt.
- **Loop**: the sequence again and again, `max_iterations` times (0: until something stops it). A
  `break_loop` action (`new_break_loop_action`) not yet handled stops it: the loop marks it `done`,
  with the iteration it stopped in, so loops further out go on.
- **Parallel**: every sub-agent at once, each on its own thread and its own lane of the session
  (`fork_run_ctx`); events reach the caller as they come, and the lanes join the session in the order
  their events were made once all are done.

The workflow's own callbacks fire once (its `on_start` with the input, its `on_end` with every event of
its sub-agents); the sub-agents report to the same handlers (`nested_callbacks`).

An interrupted sub-agent stops the workflow, which interrupts in turn (Eino): a `CompositeInterrupt` at
its own address, with the sub-agent's signal as its part, its position as its saved state
(`SequentialWorkflowState`: the index; `LoopWorkflowState`: the iteration and index;
`ParallelWorkflowState`: every lane's events) and a `WorkflowInterruptInfo` as the event's `data`. A
sequence or loop sends that event as the sub-agent's (its name and run path); a parallel workflow sends
one event for every interrupted lane, as its own, after the other lanes end. `resume` goes on from the
saved position: the interrupted sub-agents are resumed, the sequence or loop then goes on as before.
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Generator, Iterator, Sequence
from contextvars import copy_context
from dataclasses import dataclass, field, replace
from enum import IntEnum
from typing import Any

from graph_core.agents.adk_flow import FlowAgent, set_sub_agents, to_flow_agent
from graph_core.agents.adk_interrupt import (
    AgentInterruptInfo,
    ResumeInfo,
    agent_composite_interrupt,
    next_resume_agents,
)
from graph_core.agents.adk_run import AgentEvent
from graph_core.agents.adk_runctx import (
    RunContext,
    SessionEvent,
    current_run_ctx,
    fork_run_ctx,
    iterate_in,
    join_run_ctxs,
    new_run_ctx,
    update_run_path_only,
)
from graph_core.errors import GraphRunError
from graph_core.interrupt import InterruptSignal
from graph_core.schema import Message

__all__ = [
    "LoopWorkflowState",
    "ParallelWorkflowState",
    "SequentialWorkflowState",
    "WorkflowAgent",
    "WorkflowInterruptInfo",
    "WorkflowMode",
    "new_loop_agent",
    "new_parallel_agent",
    "new_sequential_agent",
]


class WorkflowMode(IntEnum):
    """Eino `workflowAgentMode`."""

    SEQUENTIAL = 1
    LOOP = 2
    PARALLEL = 3


_TYPES: dict[int, str] = {
    WorkflowMode.SEQUENTIAL: "Sequential",
    WorkflowMode.PARALLEL: "Parallel",
    WorkflowMode.LOOP: "Loop",
}


def _interrupted(event: AgentEvent) -> bool:
    return event.action is not None and event.action.interrupted is not None


@dataclass(slots=True)
class SequentialWorkflowState:
    """Where a sequence stopped (Eino `sequentialWorkflowState`)."""

    interrupt_index: int = 0


@dataclass(slots=True)
class LoopWorkflowState:
    """Where a loop stopped (Eino `loopWorkflowState`)."""

    loop_iterations: int = 0
    sub_agent_index: int = 0


@dataclass(slots=True)
class ParallelWorkflowState:
    """Each lane's recorded events when a parallel workflow stopped (Eino `parallelWorkflowState`)."""

    sub_agent_events: dict[int, list[SessionEvent]] = field(default_factory=lambda: {})


@dataclass(slots=True)
class WorkflowInterruptInfo:
    """A workflow's interrupt `data` (Eino `WorkflowInterruptInfo`): the run's input and the
    interrupted sub-agents' own interrupt infos."""

    orig_input: list[Message] | None = None
    sequential_interrupt_index: int = 0
    sequential_interrupt_info: Any = None
    loop_iterations: int = 0
    parallel_interrupt_info: dict[int, Any] = field(default_factory=lambda: {})


class WorkflowAgent:
    """The agent inside a workflow's `FlowAgent` (Eino `workflowAgent`); see the module docstring."""

    is_workflow = True  # its flow agent reports callbacks for it and records nothing itself

    def __init__(self, name: str, description: str, mode: int, *, max_iterations: int = 0) -> None:
        self.name = name
        self.description = description
        self.mode = mode
        self.max_iterations = max_iterations
        self.sub_agents: list[FlowAgent] = []

    def get_type(self) -> str:
        return _TYPES.get(self.mode, "WorkflowAgent")

    def run(
        self,
        messages: Sequence[Message] | str | None = None,
        *,
        callbacks: Sequence[Any] = (),
        **options: Any,
    ) -> Iterator[AgentEvent]:
        """The sub-agents' events; `messages` is ignored (the sub-agents read the run context)."""
        ctx = current_run_ctx() or new_run_ctx()
        runs: dict[int, Any] = {
            WorkflowMode.SEQUENTIAL: self._run_sequential,
            WorkflowMode.LOOP: self._run_loop,
            WorkflowMode.PARALLEL: self._run_parallel,
        }
        run = runs.get(self.mode)
        if run is None:
            yield AgentEvent("", error=GraphRunError(f"unsupported workflow agent mode: {self.mode}"))
            return
        try:
            yield from run(ctx, list(callbacks), options, None, None)
        except Exception as exc:  # Eino recovers a panic of the workflow into an error event
            yield AgentEvent("", error=exc)

    def resume(
        self, info: ResumeInfo, *, callbacks: Sequence[Any] = (), **options: Any
    ) -> Iterator[AgentEvent]:
        """Go on from the position saved as the interrupt state (Eino `workflowAgent.Resume`)."""
        ctx = current_run_ctx() or new_run_ctx()
        state = info.interrupt_state
        runs: dict[type, Any] = {
            SequentialWorkflowState: self._run_sequential,
            LoopWorkflowState: self._run_loop,
            ParallelWorkflowState: self._run_parallel,
        }
        try:
            if state is None:
                raise GraphRunError(
                    f"workflowAgent.Resume: agent '{self.name}' was asked to resume but has no state"
                )
            run = runs.get(type(state))
            if run is None:
                raise GraphRunError(f"unsupported workflow agent state type: {type(state).__name__}")
            yield from run(ctx, list(callbacks), options, state, info)
        except Exception as exc:
            yield AgentEvent("", error=exc)

    def _start(
        self,
        sub: FlowAgent,
        ctx: RunContext,
        info: ResumeInfo | None,
        callbacks: list[Any],
        options: dict[str, Any],
    ) -> Iterator[AgentEvent]:
        """Run `sub`, or resume it with the interrupt info it sent (Eino: only the first time)."""
        data = info.data if info is not None else None
        if isinstance(data, WorkflowInterruptInfo) and data.sequential_interrupt_info is not None:
            assert info is not None
            sub_info = ResumeInfo(info.enable_streaming, data.sequential_interrupt_info)
            return iterate_in(ctx, sub.resume(sub_info, callbacks=callbacks, **options))
        return iterate_in(ctx, sub.run(None, callbacks=callbacks, **options))

    def _interrupt(self, held: AgentEvent, state: Any, info: WorkflowInterruptInfo, kind: str) -> AgentEvent:
        """The workflow's composite interrupt around a sub-agent's, sent as the sub-agent's event."""
        action = held.action
        assert action is not None
        event = agent_composite_interrupt(f"{kind} workflow interrupted", state, action.internal_interrupted)
        assert event.action is not None and isinstance(event.action.interrupted, AgentInterruptInfo)
        event.action.interrupted.data = info
        return replace(event, agent_name=held.agent_name, run_path=held.run_path)

    # -- sequential and loop ------------------------------------------------------------------------------

    def _run_sequential(
        self,
        ctx: RunContext,
        callbacks: list[Any],
        options: dict[str, Any],
        state: SequentialWorkflowState | None,
        info: ResumeInfo | None,
    ) -> Iterator[AgentEvent]:
        start = state.interrupt_index if state is not None else 0
        seq_ctx = update_run_path_only(ctx, *(s.name for s in self.sub_agents[:start]))
        for index in range(start, len(self.sub_agents)):
            sub = self.sub_agents[index]
            events = self._start(sub, seq_ctx, info, callbacks, options)
            info = None
            seq_ctx = update_run_path_only(seq_ctx, sub.name)
            stop, held = yield from _pass_on(events, iteration=None)
            if held is not None:
                wf = WorkflowInterruptInfo(ctx.root_input, index, _own_info(held))
                yield self._interrupt(held, SequentialWorkflowState(index), wf, "Sequential")
            if stop:
                return

    def _run_loop(
        self,
        ctx: RunContext,
        callbacks: list[Any],
        options: dict[str, Any],
        state: LoopWorkflowState | None,
        info: ResumeInfo | None,
    ) -> Iterator[AgentEvent]:
        if not self.sub_agents:
            return
        first_round, start = (state.loop_iterations, state.sub_agent_index) if state is not None else (0, 0)
        names = [s.name for s in self.sub_agents]
        loop_ctx = update_run_path_only(ctx, *(names * first_round), *names[:start])
        rounds = (
            itertools.count(first_round)
            if self.max_iterations == 0
            else range(first_round, self.max_iterations)
        )
        for iteration in rounds:
            for index in range(start, len(self.sub_agents)):
                sub = self.sub_agents[index]
                events = self._start(sub, loop_ctx, info, callbacks, options)
                info = None
                loop_ctx = update_run_path_only(loop_ctx, sub.name)
                stop, held = yield from _pass_on(events, iteration=iteration)
                if held is not None:
                    wf = WorkflowInterruptInfo(ctx.root_input, index, _own_info(held), iteration)
                    yield self._interrupt(held, LoopWorkflowState(iteration, index), wf, "Loop")
                if stop:
                    return
            start = 0

    # -- parallel -----------------------------------------------------------------------------------------

    def _run_parallel(
        self,
        ctx: RunContext,
        callbacks: list[Any],
        options: dict[str, Any],
        state: ParallelWorkflowState | None,
        info: ResumeInfo | None,
    ) -> Iterator[AgentEvent]:
        if not self.sub_agents:
            return
        resuming: set[str] = set()
        if state is not None:
            resuming = set(next_resume_agents())
            if not resuming:
                raise GraphRunError("no child agents leading to interrupted agent were found")
        children = [fork_run_ctx(ctx) for _ in self.sub_agents]
        for index, child in enumerate(children):
            saved = state.sub_agent_events.get(index) if state is not None else None
            if saved and child.session.lane is not None:
                child.session.lane.events.extend(saved)
        inbox: queue.SimpleQueue[AgentEvent | None] = queue.SimpleQueue()
        interrupts: dict[int, AgentEvent] = {}
        legacy: list[AgentEvent] = []
        data = info.data if info is not None else None

        def events_of(index: int, sub: FlowAgent, child: RunContext) -> Iterator[AgentEvent]:
            if sub.name in resuming:
                assert info is not None
                own = (
                    data.parallel_interrupt_info.get(index)
                    if isinstance(data, WorkflowInterruptInfo)
                    else None
                )
                return iterate_in(
                    child, sub.resume(ResumeInfo(info.enable_streaming, own), callbacks=callbacks, **options)
                )
            if state is not None:
                return iter(())  # a lane that was not interrupted ended before
            return iterate_in(child, sub.run(None, callbacks=callbacks, **options))

        def lane(index: int, sub: FlowAgent, child: RunContext) -> None:
            try:
                for event in events_of(index, sub, child):
                    if event.action is not None and isinstance(
                        event.action.internal_interrupted, InterruptSignal
                    ):
                        interrupts[index] = event
                        break
                    if _interrupted(event):  # an interrupt without a signal: passed on at the end
                        legacy.append(event)
                        break
                    inbox.put(event)
            except Exception as exc:
                inbox.put(AgentEvent("", error=exc))
            finally:
                inbox.put(None)

        threads = [
            threading.Thread(
                target=copy_context().run,
                args=(lane, index, sub, child),
                name=f"parallel-{sub.name}",
                daemon=True,
            )
            for index, (sub, child) in enumerate(zip(self.sub_agents, children, strict=True))
        ]
        for thread in threads:
            thread.start()
        running = len(threads)
        while running:
            event = inbox.get()
            if event is None:
                running -= 1
                continue
            yield event
        for thread in threads:
            thread.join()
        if not interrupts and not legacy:
            join_run_ctxs(ctx, children)
            return
        if not interrupts:
            yield from legacy
            return
        lanes = {
            index: list(child.session.lane.events)
            for index, child in enumerate(children)
            if child.session.lane is not None and child.session.lane.events
        }
        order = sorted(interrupts)
        signals = [interrupts[i].action.internal_interrupted for i in order]  # pyright: ignore[reportOptionalMemberAccess]
        event = agent_composite_interrupt(
            "Parallel workflow interrupted", ParallelWorkflowState(lanes), *signals
        )
        assert event.action is not None and isinstance(event.action.interrupted, AgentInterruptInfo)
        event.action.interrupted.data = WorkflowInterruptInfo(
            ctx.root_input, parallel_interrupt_info={i: _own_info(interrupts[i]) for i in order}
        )
        yield replace(event, agent_name=self.name, run_path=ctx.run_path)


def _own_info(event: AgentEvent) -> Any:
    return event.action.interrupted if event.action is not None else None


def _pass_on(
    events: Iterator[AgentEvent], *, iteration: int | None
) -> Generator[AgentEvent, None, tuple[bool, AgentEvent | None]]:
    """One sub-agent's events, an action's event held until the next event or the end (Eino); returns
    whether the workflow stops (an error, an interrupt, an exit, or in a loop a break) and the last
    event when it is an interrupt carrying a signal (not passed on: the workflow interrupts itself)."""
    held: AgentEvent | None = None
    broke = False
    for event in events:
        if event.error is not None:
            yield event
            return True, None
        if held is not None:
            broke = _take_break(held, iteration) or broke
            yield held
            held = None
        if event.action is not None:
            held = event
            continue
        yield event
    if held is None:
        return broke, None
    broke = _take_break(held, iteration) or broke
    action = held.action
    assert action is not None
    if isinstance(action.internal_interrupted, InterruptSignal):
        return True, held
    yield held
    return broke or action.interrupted is not None or action.exit, None


def _take_break(event: AgentEvent, iteration: int | None) -> bool:
    """In a loop: mark a break action not yet handled as done (Eino mutates the action as well)."""
    action = event.action
    if iteration is None or action is None or action.break_loop is None or action.break_loop.done:
        return False
    action.break_loop.done = True
    action.break_loop.current_iterations = iteration
    return True


def _new_workflow(
    name: str, description: str, sub_agents: Sequence[Any], mode: WorkflowMode, max_iterations: int
) -> FlowAgent:
    """Eino `newWorkflowAgent`: the sub-agents as flow agents that may not transfer to the workflow."""
    workflow = WorkflowAgent(name, description, mode, max_iterations=max_iterations)
    subs = [to_flow_agent(s, disallow_transfer_to_parent=True) for s in sub_agents]
    flow = set_sub_agents(workflow, subs)
    workflow.sub_agents = flow.sub_agents
    return flow


def new_sequential_agent(*, name: str, description: str = "", sub_agents: Sequence[Any]) -> FlowAgent:
    """Eino `NewSequentialAgent`: runs `sub_agents` one after another."""
    return _new_workflow(name, description, sub_agents, WorkflowMode.SEQUENTIAL, 0)


def new_parallel_agent(*, name: str, description: str = "", sub_agents: Sequence[Any]) -> FlowAgent:
    """Eino `NewParallelAgent`: runs `sub_agents` at the same time."""
    return _new_workflow(name, description, sub_agents, WorkflowMode.PARALLEL, 0)


def new_loop_agent(
    *, name: str, description: str = "", sub_agents: Sequence[Any], max_iterations: int = 0
) -> FlowAgent:
    """Eino `NewLoopAgent`: runs `sub_agents` in turn, `max_iterations` times (0: no limit)."""
    return _new_workflow(name, description, sub_agents, WorkflowMode.LOOP, max_iterations)
