"""Live debugging of a LangGraph run: LangGraph's own loop held between supersteps, on demand.

The debugger (`inspector.debug.DebugController`) holds a graph_core run at superstep boundaries
through the `on_step_boundary` hook. A LangGraph run has no such hook, and stopping LangGraph's loop
costs: each stop ends a `graph.stream(...)` call at a checkpoint and the next one starts from it
(about 5x a plain run when it stops at every superstep). So `LiveDriver` stops only where a boundary
handler asks to look, with LangGraph's machinery only:

- the graph runs with a checkpointer: its own, or an `InMemorySaver` on a copy of the compiled graph
  (`live_graph`), so the user's graph object is never changed;
- `interrupt_before` is a `StopList`: LangGraph asks it, before each superstep, whether each task's
  node is in it, and it answers by asking the handlers (`wants_boundary(step, node)`: a breakpoint on
  the node, stepping, a condition to evaluate, a pending abort). Only handlers with that method drive
  a LangGraph run this way (the runner leaves other `on_step_boundary` handlers uncalled, as before).
  The graph's own static `interrupt_before` nodes stay in it and stop the run as before, as
  LangGraph's interrupts (resumed with data by the caller);
- at a stop the open step is ended (`StepTranslator.end_step`), the handlers get a `LiveBoundary`
  built from `get_state` (the state with LangChain messages as graph_core `Message`s, the next nodes),
  and the run goes on with `stream(None, ...)`, the step budget reduced by the steps already run, so
  `recursion_limit` counts the whole run as one `invoke` would. Edits at a stop go through
  `update_state` (see `inspector.adapters.langgraph.live_edits`).

A graph's own `interrupt()` is untouched: the stream ends there and the runner reports it as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, overload

from graph_core.callbacks import Budget
from inspector.adapters.langgraph.live_edits import LiveBoundary, neutral_state
from inspector.adapters.langgraph.live_edits import next_nodes as live_next_nodes
from inspector.adapters.langgraph.recording import StepTranslator
from inspector.errors import DebugError

__all__ = ["LiveDriver", "StopList", "live_graph"]

_MODES = ["tasks", "values"]

Wants = Callable[[int, str], bool]


def live_graph(graph: Any) -> Any:
    """`graph` when it has a checkpointer (it keeps it), else a copy of it with an `InMemorySaver`."""
    if getattr(graph, "checkpointer", None) is not None:
        return graph
    from langgraph.checkpoint.memory import InMemorySaver

    copy = graph.copy(update={"checkpointer": InMemorySaver()})
    copy.inspector_supplied = True  # (see `LiveDriver`: written only where the run stops)
    return copy


class StopList(Sequence[str]):
    """The `interrupt_before` LangGraph is given: a live answer to "stop before a task of NODE?".

    LangGraph reads `interrupt_before` at every superstep (`task.name in interrupt_before`, only when
    the state changed since the last stop), so answering there costs one call per task and a
    breakpoint set while the run goes takes effect at the next superstep. It names the graph's nodes
    (never empty: an empty list would make LangGraph use the graph's own list instead); hidden tasks
    (`__start__`) are never stopped at. `ours` and `static` say which nodes it stopped before, for the
    handlers or as the graph's own `interrupt_before`."""

    def __init__(self, nodes: Sequence[str], static: Any, wants: Callable[[str], bool]) -> None:
        self._nodes = tuple(nodes)
        self._known = frozenset(nodes)
        self._static: Any = static if static == "*" else frozenset(str(n) for n in static or ())
        self._wants = wants
        self.ours: list[str] = []
        self.static: list[str] = []

    def __len__(self) -> int:
        return len(self._nodes)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self._nodes[index]

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str) or name not in self._known:
            return False
        if self._static == "*" or name in self._static:
            self.static.append(name)
            return True
        if self._wants(name):
            self.ours.append(name)
            return True
        return False


class LiveDriver:
    """Runs `graph` (with a checkpointer) under `hooks`, feeding `translator` as the plain runner does;
    `events` is the stream the runner consumes. A hook has `on_step_boundary(boundary)` and
    `wants_boundary(step, node)` (the debug controller's hooks)."""

    def __init__(
        self,
        graph: Any,
        hooks: Sequence[Any],
        translator: StepTranslator,
        *,
        nodes: Sequence[str],
        nested: bool,
        limit: int,
    ) -> None:
        self.graph = graph
        self.translator = translator
        self._hooks = tuple(hooks)
        self._wanters: tuple[Wants, ...] = tuple(hook.wants_boundary for hook in hooks)
        self._nodes = tuple(nodes)
        self._nested = nested
        self._limit = limit
        # a checkpointer the inspector supplied is written only where the loop stops (LangGraph saves
        # the checkpoint when `stream` returns): a checkpoint per superstep cost about half a plain
        # run's time. A graph's own checkpointer is written as the graph has it written.
        self._durability: Any = "exit" if getattr(graph, "inspector_supplied", False) else None

    def _wants(self, node: str) -> bool:
        step = self.translator.next_index()
        if step >= self._limit:  # the budget is spent: stop, and fail as LangGraph would (`events`)
            self._spent = True
            return True
        return any(wants(step, node) for wants in self._wanters)

    def events(self, value: Any, config: dict[str, Any]) -> Iterator[tuple[tuple[str, ...], str, Any]]:
        """The run's stream events, across the `stream` calls its stops split it into.

        LangGraph gives each `stream` call from a checkpoint at step S the steps up to
        `S + recursion_limit + 2`; a fresh run's last step is `recursion_limit`. A resumed call gets
        `recursion_limit - S - 2`, so the run's last step stays where one `invoke` would have it (and
        `RemainingSteps` reads the same). LangGraph takes no limit under 1: held within the last two
        steps, the driver itself stops before a step past the budget and raises LangGraph's
        `GraphRecursionError` there."""
        limit = self._limit
        self._spent = False
        while True:
            stops = StopList(self._nodes, getattr(self.graph, "interrupt_before_nodes", ()), self._wants)
            run_config = {**config, "recursion_limit": limit}
            if self._nested:
                yield from self.graph.stream(
                    value,
                    run_config,
                    stream_mode=_MODES,
                    subgraphs=True,
                    interrupt_before=stops,
                    durability=self._durability,
                )
            else:
                for mode, chunk in self.graph.stream(
                    value, run_config, stream_mode=_MODES, interrupt_before=stops, durability=self._durability
                ):
                    yield (), mode, chunk
            if self._spent and not stops.static:
                raise _recursion_error(self._limit)
            if not stops.ours or stops.static:
                return  # over, or stopped by the graph itself: the runner reports it
            step = self._hold(config)
            limit = max(self._limit - step - 2, 1)
            value = None

    def _hold(self, config: dict[str, Any]) -> int:
        """The loop stopped before a step a handler asked to see: end the step before it, hand the
        boundary to the handlers (they may block, edit, or raise to end the run). Returns LangGraph's
        step of the checkpoint the run goes on from (an edit's `update_state` made a newer one)."""
        snapshot = self.graph.get_state(config)
        next_nodes = live_next_nodes(snapshot)
        self.translator.end_step(next_nodes)
        step = self.translator.next_index()
        boundary = LiveBoundary(
            step,
            Budget.of(step, self._limit),
            [(n, None) for n in dict.fromkeys(next_nodes)],
            neutral_state(snapshot.values),
        )
        boundary.attach(self.graph, config, snapshot, self.translator.last_nodes())
        for hook in self._hooks:
            hook.on_step_boundary(boundary)
        if boundary.presets:
            raise DebugError(
                "a LangGraph run cannot take preset node outputs at a boundary (`boundary.presets`): "
                "its nodes run as LangGraph schedules them"
            )
        return int(boundary.snapshot.metadata["step"])


def _recursion_error(limit: int) -> Exception:
    """The error LangGraph raises when a run reaches `recursion_limit`, with LangGraph's own text."""
    from langgraph.errors import ErrorCode, GraphRecursionError, create_error_message

    return GraphRecursionError(
        create_error_message(
            message=(
                f"Recursion limit of {limit} reached without hitting a stop condition. You can increase "
                "the limit by setting the `recursion_limit` config key."
            ),
            error_code=ErrorCode.GRAPH_RECURSION_LIMIT,
        )
    )
