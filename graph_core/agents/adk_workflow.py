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

An interrupted sub-agent ends the workflow with its interrupt event as it is: Eino wraps it in the
workflow's own `CompositeInterrupt` with the index to resume from, and resuming from it is not built
yet, so a workflow cannot be resumed.
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Iterator, Sequence
from contextvars import copy_context
from enum import IntEnum
from typing import Any

from graph_core.agents.adk_flow import FlowAgent, set_sub_agents, to_flow_agent
from graph_core.agents.adk_run import AgentEvent
from graph_core.agents.adk_runctx import (
    RunContext,
    current_run_ctx,
    fork_run_ctx,
    iterate_in,
    join_run_ctxs,
    new_run_ctx,
    update_run_path_only,
)
from graph_core.errors import GraphRunError
from graph_core.schema import Message

__all__ = [
    "WorkflowAgent",
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
            yield from run(ctx, list(callbacks), options)
        except Exception as exc:  # Eino recovers a panic of the workflow into an error event
            yield AgentEvent("", error=exc)

    # -- sequential and loop ------------------------------------------------------------------------------

    def _run_sequential(
        self, ctx: RunContext, callbacks: list[Any], options: dict[str, Any]
    ) -> Iterator[AgentEvent]:
        seq_ctx = ctx
        for sub in self.sub_agents:
            events = iterate_in(seq_ctx, sub.run(None, callbacks=callbacks, **options))
            seq_ctx = update_run_path_only(seq_ctx, sub.name)
            stop = yield from _pass_on(events, iteration=None)
            if stop:
                return

    def _run_loop(
        self, ctx: RunContext, callbacks: list[Any], options: dict[str, Any]
    ) -> Iterator[AgentEvent]:
        if not self.sub_agents:
            return
        loop_ctx = ctx
        rounds = itertools.count() if self.max_iterations == 0 else range(self.max_iterations)
        for iteration in rounds:
            for sub in self.sub_agents:
                events = iterate_in(loop_ctx, sub.run(None, callbacks=callbacks, **options))
                loop_ctx = update_run_path_only(loop_ctx, sub.name)
                stop = yield from _pass_on(events, iteration=iteration)
                if stop:
                    return

    # -- parallel -----------------------------------------------------------------------------------------

    def _run_parallel(
        self, ctx: RunContext, callbacks: list[Any], options: dict[str, Any]
    ) -> Iterator[AgentEvent]:
        if not self.sub_agents:
            return
        children = [fork_run_ctx(ctx) for _ in self.sub_agents]
        inbox: queue.SimpleQueue[AgentEvent | None] = queue.SimpleQueue()
        interrupts: list[AgentEvent] = []

        def lane(sub: FlowAgent, child: RunContext) -> None:
            try:
                for event in iterate_in(child, sub.run(None, callbacks=callbacks, **options)):
                    if _interrupted(event):
                        interrupts.append(event)
                        break
                    inbox.put(event)
            except Exception as exc:
                inbox.put(AgentEvent("", error=exc))
            finally:
                inbox.put(None)

        threads = [
            threading.Thread(
                target=copy_context().run, args=(lane, sub, child), name=f"parallel-{sub.name}", daemon=True
            )
            for sub, child in zip(self.sub_agents, children, strict=True)
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
        if not interrupts:
            join_run_ctxs(ctx, children)
            return
        yield from interrupts  # not resumable yet (see the module docstring)


def _pass_on(events: Iterator[AgentEvent], *, iteration: int | None) -> Iterator[AgentEvent]:
    """One sub-agent's events, an action's event held until the next event or the end (Eino); returns
    whether the workflow stops: an error, an interrupt, an exit, or (in a loop) a break."""
    held: AgentEvent | None = None
    broke = False
    for event in events:
        if event.error is not None:
            yield event
            return True
        if held is not None:
            broke = _take_break(held, iteration) or broke
            yield held
            held = None
        if event.action is not None:
            held = event
            continue
        yield event
    if held is None:
        return broke
    broke = _take_break(held, iteration) or broke
    action = held.action
    assert action is not None
    yield held
    return broke or action.interrupted is not None or action.exit


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
