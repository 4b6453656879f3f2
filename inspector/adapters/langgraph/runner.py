"""`LangGraphTarget`: a LangGraph graph behind the interface the CLI and the recorder use for graph_core.

`inspector record`, the debugger-free commands and the pytest fixtures call `topology()`,
`invoke(value, callbacks=[...], checkpoint_id=..., resume_data=...)` and `stream(...)` on what a TARGET
resolved to, and read `checkpoint_store`. This class answers those for a compiled LangGraph graph: a run
streams with `stream_mode=["tasks", "values"]` (and `subgraphs=True` when it has compiled subgraphs as
nodes) and a `StepTranslator` turns the
events into the callbacks graph_core's runner would have made, so a `Recorder` writes the usual run file.

A run that stops at an interrupt raises graph_core's `InterruptError` where LangGraph returns, so
callers handle both engines' interrupts alike. A `checkpoint_id` is LangGraph's `thread_id`. Resuming
sends `Command(resume=resume_data)` to that thread (input None without resume data, which continues
after a static interrupt), and the recording of the resumed run is a new segment of the interrupted
run's file (`Recorder(path, resume=True)`), as for graph_core.

A run with a debugger among its callbacks (a handler with `wants_boundary`, the `DebugController`'s)
is driven by `inspector.adapters.langgraph.live.LiveDriver`: held between supersteps through
LangGraph's `interrupt_before` and a checkpointer (the graph's own, else an in-memory one on a copy).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from graph_core.interrupt import InterruptInfo
from graph_core.topology import Topology
from inspector.adapters.langgraph.live import LiveDriver, live_graph
from inspector.adapters.langgraph.recording import StepTranslator
from inspector.adapters.langgraph.topology import LG_END, langgraph_topology, recursion_limit

__all__ = ["LangGraphTarget", "ThreadStore", "output_of", "stopped_at"]

_MODES = ["tasks", "values"]


class ThreadStore:
    """The graph's checkpointer as the CLI's checkpoint store: `get(thread_id)` is the thread's latest
    state snapshot, or None when the thread has no checkpoint."""

    def __init__(self, graph: Any) -> None:
        self._graph = graph

    def get(self, thread_id: str) -> Any:
        snapshot = self._graph.get_state({"configurable": {"thread_id": thread_id}})
        return snapshot if snapshot.created_at is not None else None


class LangGraphTarget:
    """A compiled LangGraph graph (`graph`), run and inspected the way graph_core graphs are."""

    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self._topology: Topology | None = None
        self._live: Any = None

    @property
    def name(self) -> str:
        return str(getattr(self.graph, "name", "") or "LangGraph")

    @property
    def checkpoint_store(self) -> ThreadStore | None:
        return None if getattr(self.graph, "checkpointer", None) is None else ThreadStore(self.graph)

    def input_from_text(self, text: str) -> dict[str, Any]:
        """`inspector record --input TEXT`: the input state with one user message under `messages`
        (LangGraph's message reducer accepts it as a dict)."""
        return {"messages": [{"role": "user", "content": text}]}

    def topology(self) -> Topology:
        if self._topology is None:
            self._topology = langgraph_topology(self.graph)
        return self._topology

    def invoke(
        self,
        input: Any,
        *,
        callbacks: Sequence[Any] = (),
        config: Mapping[str, Any] | None = None,
        checkpoint_id: str | None = None,
        resume_data: Any = None,
    ) -> Any:
        """Run to the end and return what LangGraph's `invoke` returns: the final state, or the part of it
        the graph's `output_schema` names. Errors propagate as LangGraph raised them, after
        the callbacks heard of them; a run that stops at an interrupt raises graph_core's
        `InterruptError` (LangGraph itself returns), as a graph_core graph's run does, with `.info`
        naming the interrupted nodes and `.checkpoint_id` the thread to resume."""
        final: Any = None
        for state in self._run(input, callbacks, config, checkpoint_id, resume_data):
            final = state
        return output_of(self.graph, final)

    def stream(
        self,
        input: Any,
        *,
        callbacks: Sequence[Any] = (),
        config: Mapping[str, Any] | None = None,
        checkpoint_id: str | None = None,
        resume_data: Any = None,
    ) -> Iterator[Any]:
        """The state after every step, as LangGraph's `values` stream mode gives it."""
        return self._run(input, callbacks, config, checkpoint_id, resume_data)

    def _run(
        self,
        input: Any,
        callbacks: Sequence[Any],
        config: Mapping[str, Any] | None,
        checkpoint_id: str | None,
        resume_data: Any,
    ) -> Iterator[Any]:
        run_config: dict[str, Any] = dict(config or {})
        configurable = dict(run_config.get("configurable") or {})
        thread = checkpoint_id or configurable.get("thread_id")
        resumed_from = None
        hooks = [cb for cb in callbacks if callable(getattr(cb, "wants_boundary", None))]
        graph = self._live_graph() if hooks else self.graph
        if graph.checkpointer is not None:
            if thread is None:
                thread = uuid.uuid4().hex  # a checkpointer needs a thread; this run's own
            elif input is None or resume_data is not None:
                resumed_from = str(thread)
            configurable["thread_id"] = thread
        if configurable:
            run_config["configurable"] = configurable
        limit = run_config.get("recursion_limit") or recursion_limit(self.graph)
        run_config["recursion_limit"] = limit
        topology = self.topology()
        if topology.max_run_steps != limit:
            topology = topology.model_copy(update={"max_run_steps": limit})
        extras: dict[str, Any] = {"topology": topology}
        if resumed_from is not None:
            extras["resumed_from"] = resumed_from
        if checkpoint_id is not None:
            extras["checkpoint_id"] = checkpoint_id
        if resume_data is not None:
            from langgraph.types import Command

            value: Any = Command(resume=resume_data)
        else:
            value = input
        translator = StepTranslator(
            callbacks,
            topology=topology,
            limit=int(limit),
            extras=extras,
            output=lambda state: output_of(self.graph, state),
        )
        translator.start(input)
        # nested graphs' events only when there are nested graphs: `subgraphs=True` costs LangGraph
        # about a seventh of a ReAct run's time even without any
        nested = any(node.graph is not None for node in topology.nodes)
        if hooks:  # a boundary handler (the debugger): LangGraph's loop held where it asks
            nodes = [n.key for n in topology.nodes if n.kind not in ("start", "end")]
            driver = LiveDriver(graph, hooks, translator, nodes=nodes, nested=nested, limit=int(limit))
            events = driver.events(value, run_config)
        elif nested:
            events = graph.stream(value, run_config, stream_mode=_MODES, subgraphs=True)
        else:
            events = _top_level(graph.stream(value, run_config, stream_mode=_MODES))
        try:
            for namespace, mode, chunk in events:
                translator.feed(namespace, mode, chunk)
                if mode == "values" and not namespace:
                    yield chunk
        except Exception as error:
            translator.fail(error)
            raise
        interrupted = stopped_at(graph, translator, run_config, declared=self.graph)
        if interrupted is None:
            translator.finish()
            return
        info, next_nodes = interrupted
        raise translator.finish(next_nodes=next_nodes, interrupted=info)

    def _live_graph(self) -> Any:
        """The graph a debugged run runs: `graph` when it has a checkpointer, else one copy of it with
        an in-memory checkpointer, kept for the target's later runs (a resumed interrupt's thread)."""
        if self._live is None:
            self._live = live_graph(self.graph)
        return self._live


def stopped_at(
    graph: Any, translator: StepTranslator, config: dict[str, Any], *, declared: Any = None
) -> tuple[InterruptInfo, list[str]] | None:
    """Where a run of `graph` on the thread `config` stopped, when it stopped at an interrupt: the
    interrupt (the nodes held before or after by the interrupt lists of `declared`, default `graph`,
    and those that paused in `interrupt()`) and the thread's pending nodes; None when it ran to its
    end or keeps no checkpoints."""
    paused = translator.interrupted_nodes()
    if graph.checkpointer is None:
        return None
    pending = [str(n) for n in graph.get_state(config).next if n != LG_END]
    if not pending and not paused:
        return None
    lists = graph if declared is None else declared
    before = _names(getattr(lists, "interrupt_before_nodes", ()))
    after = _names(getattr(lists, "interrupt_after_nodes", ()))
    ran = translator.last_nodes()
    info = InterruptInfo(
        before_nodes=[n for n in pending if n not in paused and (n in before or "*" in before)],
        after_nodes=[] if paused else [n for n in ran if n in after or "*" in after],
        rerun_nodes=paused,
    )
    return info, pending


def output_of(graph: Any, state: Any) -> Any:
    """What `graph.invoke()` returns for the final `state` (what the `values` stream gave last): the
    keys of the graph's output channels that hold a value. They are the whole state unless the graph
    was built with an `output_schema` (`StateGraph(State, output_schema=Out)`); a single channel (a
    graph whose state is not a dict) is the state itself."""
    channels = getattr(graph, "output_channels", None)
    if not isinstance(state, Mapping) or isinstance(channels, str) or channels is None:
        return state
    keys = [str(k) for k in channels]  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    return {k: state[k] for k in keys if k in state}


def _top_level(events: Iterator[tuple[str, Any]]) -> Iterator[tuple[tuple[str, ...], str, Any]]:
    """A stream without `subgraphs=True`, in the shape of one with it (an empty namespace)."""
    for mode, chunk in events:
        yield (), mode, chunk


def _names(value: Any) -> list[str]:
    if value == "*":
        return ["*"]
    return [str(v) for v in value or ()]
