"""Audit: an error raised while a run is set up (before its first step) still reaches the graph callbacks.

Eino's `runner.run` defers `onGraphStart` (if it has not fired yet) and `onGraphError`, so an observer
sees every run start and fail, including one refused at once: a bad step budget, a checkpoint ID without
a store, a failing state factory or checkpoint load. Each case runs through all four entry points.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from graph_core import Graph, TriggerMode
from graph_core.callbacks import RunInfo
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.checkpoint.codec import CheckpointSerializationError
from graph_core.context import current_scope
from graph_core.errors import GraphRunError, NodeRunError
from graph_core.runner.compiled import CompiledGraph
from graph_core.state import process_state
from tests.helpers import ENTRY_POINTS, run_entry, wire

ENTRIES = ENTRY_POINTS


class Log:
    """Graph- and node-level events; a stream input is read here (each observer gets its own copy)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, RunInfo, Any]] = []
        self.scopes: list[Any] = []

    def on_start(self, info: RunInfo, input: Any) -> None:
        self.scopes.append(current_scope())
        self.events.append(("start", info, input))

    def on_start_with_stream_input(self, info: RunInfo, input: Iterator[Any]) -> None:
        self.scopes.append(current_scope())
        self.events.append(("start_stream", info, list(input)))

    def on_end(self, info: RunInfo, output: Any) -> None:
        self.events.append(("end", info, output))

    def on_end_with_stream_output(self, info: RunInfo, output: Iterator[Any]) -> None:
        self.events.append(("end_stream", info, list(output)))

    def on_error(self, info: RunInfo, error: BaseException) -> None:
        self.events.append(("error", info, error))

    def graph_events(self) -> list[tuple[str, RunInfo, Any]]:
        return [event for event in self.events if event[1].node_key is None]


def _chain(state: Callable[[], Any] | None = None) -> Graph:
    graph = Graph(state=state)
    graph.add_lambda_node("a", lambda x: x + 1)
    return wire(graph, "a")


def _normal_graph_info(compiled: CompiledGraph) -> RunInfo:
    """The RunInfo a successful run of `compiled` reports for the graph itself."""
    log = Log()
    compiled.invoke(1, callbacks=[log])
    return log.graph_events()[0][1]


def _assert_start_then_error(log: Log, how: str, value: Any, raised: BaseException, info: RunInfo) -> None:
    streamed = how in ("stream", "astream")
    assert [(kind, event_info) for kind, event_info, _ in log.events] == [
        ("start_stream" if streamed else "start", info),
        ("error", info),
    ]
    assert log.events[0][2] == ([value] if streamed else value)
    assert log.events[1][2] is raised


@ENTRIES
def test_a_negative_compiled_budget_fires_graph_start_and_error(how: str) -> None:
    compiled = _chain().compile(name="G", max_run_steps=-1)
    log = Log()
    with pytest.raises(GraphRunError, match=r"max run steps limit must be at least 1") as caught:
        run_entry(compiled, 7, how, callbacks=[log])
    info = RunInfo(None, "G", "Graph", (), None, "G")
    _assert_start_then_error(log, how, 7, caught.value, info)


@ENTRIES
def test_a_positive_runtime_budget_on_a_dag_fires_graph_start_and_error(how: str) -> None:
    compiled = _chain().compile(name="D", trigger_mode=TriggerMode.ALL_PREDECESSOR)
    expected = _normal_graph_info(compiled)
    log = Log()
    with pytest.raises(GraphRunError, match=r"^\[GraphRunError\] cannot set max run steps in dag$") as caught:
        run_entry(compiled, 3, how, callbacks=[log], max_steps=2)
    _assert_start_then_error(log, how, 3, caught.value, expected)


@ENTRIES
def test_a_checkpoint_id_without_a_store_fires_graph_start_and_error(how: str) -> None:
    compiled = _chain().compile()
    expected = _normal_graph_info(compiled)
    log = Log()
    with pytest.raises(GraphRunError, match="checkpoint id but have not set checkpoint store") as caught:
        run_entry(compiled, 1, how, callbacks=[log], checkpoint_id="cp")
    _assert_start_then_error(log, how, 1, caught.value, expected)


@ENTRIES
def test_a_failing_state_factory_fires_graph_start_and_error(how: str) -> None:
    def broken() -> Any:
        raise LookupError("no state today")

    compiled = _chain(state=broken).compile(name="S")
    log = Log()
    with pytest.raises(LookupError, match="no state today") as caught:
        run_entry(compiled, 5, how, callbacks=[log])
    _assert_start_then_error(log, how, 5, caught.value, RunInfo(None, "S", "Graph", (), None, "S"))


class _BrokenStore:
    def get(self, checkpoint_id: str) -> bytes | None:
        raise OSError(f"store offline reading {checkpoint_id}")

    def set(self, checkpoint_id: str, data: bytes) -> None:
        raise AssertionError("nothing is written")


@ENTRIES
def test_a_failing_checkpoint_load_fires_graph_start_and_error(how: str) -> None:
    compiled = _chain().compile(checkpoint_store=_BrokenStore())
    log = Log()
    with pytest.raises(OSError, match="store offline reading cp-1") as caught:
        run_entry(compiled, 2, how, callbacks=[log], checkpoint_id="cp-1")
    _assert_start_then_error(log, how, 2, caught.value, RunInfo(None, "", "Graph", (), None, ""))
    # the observer ran inside the run's scope: it can find the compiled graph (the Recorder's topology)
    scope = log.scopes[0]
    assert scope is not None and scope.extras["compiled"] is compiled and scope.path == ()


@ENTRIES
def test_an_unreadable_checkpoint_fires_graph_start_and_error(how: str) -> None:
    store = InMemoryCheckpointStore()
    store.set("bad", b"this is not a checkpoint")
    compiled = _chain().compile(checkpoint_store=store)
    log = Log()
    with pytest.raises(CheckpointSerializationError, match="not a graph_core checkpoint") as caught:
        run_entry(compiled, 4, how, callbacks=[log], checkpoint_id="bad")
    _assert_start_then_error(log, how, 4, caught.value, RunInfo(None, "", "Graph", (), None, ""))


@dataclass
class _Counter:
    seen: list[int] = field(default_factory=lambda: [])


def _interrupted_run(store: InMemoryCheckpointStore) -> CompiledGraph:
    graph = Graph(state=_Counter)
    graph.add_lambda_node("a", lambda x: x + 1)
    compiled = wire(graph, "a").compile(checkpoint_store=store, interrupt_before=("a",))
    with pytest.raises(GraphRunError, match="interrupted"):
        compiled.invoke(1, checkpoint_id="run-1")
    return compiled


@ENTRIES
def test_a_failing_state_modifier_on_resume_fires_graph_start_and_error_with_the_state_in_scope(
    how: str,
) -> None:
    store = InMemoryCheckpointStore()
    compiled = _interrupted_run(store)

    def modifier(state: Any) -> Any:
        raise ValueError("refused")

    seen: list[Any] = []

    class StateReader(Log):
        def on_start(self, info: RunInfo, input: Any) -> None:
            seen.append(process_state(_Counter, lambda s: type(s).__name__))
            super().on_start(info, input)

        def on_start_with_stream_input(self, info: RunInfo, input: Iterator[Any]) -> None:
            seen.append(process_state(_Counter, lambda s: type(s).__name__))
            super().on_start_with_stream_input(info, input)

    log = StateReader()
    with pytest.raises(ValueError, match="refused") as caught:
        run_entry(compiled, 9, how, callbacks=[log], checkpoint_id="run-1", state_modifier=modifier)
    _assert_start_then_error(log, how, 9, caught.value, RunInfo(None, "", "Graph", (), None, ""))
    assert seen == ["_Counter"]  # as in a normal run, on_start can use process_state


@ENTRIES
def test_every_observer_hears_an_early_error_once_in_eino_order(how: str) -> None:
    order: list[str] = []

    class Tagged:
        def __init__(self, tag: str) -> None:
            self.tag = tag

        def on_start(self, info: RunInfo, input: Any) -> None:
            order.append(f"start {self.tag}")

        def on_start_with_stream_input(self, info: RunInfo, input: Iterator[Any]) -> None:
            order.append(f"start {self.tag} {list(input)}")

        def on_error(self, info: RunInfo, error: BaseException) -> None:
            order.append(f"error {self.tag}")

    compiled = _chain().compile(max_run_steps=-2)
    with pytest.raises(GraphRunError):
        run_entry(compiled, 1, how, callbacks=[Tagged("first"), Tagged("second")])
    start = (
        ["start second [1]", "start first [1]"]
        if how in ("stream", "astream")
        else [
            "start second",
            "start first",
        ]
    )
    assert order == [*start, "error first", "error second"]


@ENTRIES
def test_a_failing_graph_on_start_is_what_on_error_hears_and_what_is_raised(how: str) -> None:
    """As in a run that got going: whatever ends the run is reported once and raised."""

    class Refuses(Log):
        def on_start(self, info: RunInfo, input: Any) -> None:
            raise RuntimeError("observer broke")

        def on_start_with_stream_input(self, info: RunInfo, input: Iterator[Any]) -> None:
            raise RuntimeError("observer broke")

    log = Refuses()
    compiled = _chain().compile(max_run_steps=-1)
    with pytest.raises(RuntimeError, match="observer broke") as caught:
        run_entry(compiled, 1, how, callbacks=[log])
    assert [(kind, value) for kind, _, value in log.events] == [("error", caught.value)]
    assert isinstance(caught.value.__context__, GraphRunError)


@ENTRIES
def test_an_unknown_option_is_a_call_error_that_starts_no_run(how: str) -> None:
    """A misspelt keyword fails like any Python call (Eino's typed options cannot be misspelt): no run,
    so no callbacks, even for the observers that were passed correctly."""
    log = Log()
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_step'"):
        run_entry(_chain().compile(), 1, how, callbacks=[log], max_step=3)
    assert log.events == []


@ENTRIES
def test_a_nested_graph_that_fails_its_setup_reports_as_its_parents_node(how: str) -> None:
    inner = _chain().compile(name="Inner", max_run_steps=-1)
    outer = Graph()
    outer.add_graph_node("sub", inner)
    compiled = wire(outer, "sub").compile(name="Outer")
    log = Log()
    with pytest.raises(GraphRunError, match="max run steps limit must be at least 1") as caught:
        run_entry(compiled, 1, how, callbacks=[log])
    graph_level = [(kind, info.name, info.path) for kind, info, _ in log.graph_events()]
    start = "start_stream" if how in ("stream", "astream") else "start"
    assert graph_level == [(start, "Outer", ()), ("error", "Outer", ())]
    node_level = [(kind, info.node_key, info.path) for kind, info, _ in log.events if info.node_key]
    assert node_level == [(start, "sub", ("sub",)), ("error", "sub", ("sub",))]
    assert not isinstance(caught.value, NodeRunError)  # a nested engine error keeps its kind, located
    assert caught.value.node_path == ["sub"]


@ENTRIES
def test_a_run_that_gets_going_still_reports_start_and_end_once(how: str) -> None:
    log = Log()
    run_entry(_chain().compile(name="G"), 1, how, callbacks=[log])
    kinds = [kind for kind, _, _ in log.graph_events()]
    assert kinds == (["start_stream", "end_stream"] if how in ("stream", "astream") else ["start", "end"])


def test_a_cancel_event_set_before_the_run_is_reported_once() -> None:
    """Not a setup error (it is checked at the first step), listed so both paths stay single."""
    cancel = threading.Event()
    cancel.set()
    log = Log()
    with pytest.raises(GraphRunError, match="context has been canceled"):
        _chain().compile().invoke(1, callbacks=[log], cancel_event=cancel)
    assert [kind for kind, _, _ in log.graph_events()] == ["start", "error"]


def test_a_state_lookup_error_reads_like_einos_inside_a_node_error() -> None:
    """Eino: `[NodeRunError] get state from context fail: ...` (ProcessState's error has no tag); it is
    still a GraphRunError for callers that catch the engine's errors."""
    with pytest.raises(GraphRunError) as outside:
        process_state(_Counter, lambda s: s)
    assert str(outside.value) == "get state from context fail: have not set state"

    graph = Graph(state=_Counter)
    graph.add_lambda_node("n", lambda x: process_state(int, lambda s: s))
    with pytest.raises(NodeRunError) as inside:
        wire(graph, "n").compile().invoke(1)
    assert str(inside.value).startswith(
        "[NodeRunError] get state from context fail: cannot find state with type: int in states chain, "
        "current state type: _Counter\n"
    )
