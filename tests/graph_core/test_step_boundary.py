"""`on_step_boundary`: a caller holds a run between top-level steps and changes what the next step does."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from graph_core import Graph
from graph_core.callbacks import Boundary
from graph_core.errors import GraphRunError
from tests.helpers import ENTRY_POINTS, run_entry, wire


@dataclass
class Trail:
    seen: list[str] = field(default_factory=list)


def _chain() -> Any:
    graph = Graph(state=Trail)

    def step(key: str) -> Any:
        def run(text: str) -> str:
            return text + key

        return run

    def keep(output: str, state: Trail) -> str:
        state.seen.append(output)
        return output

    for key in "abc":
        graph.add_lambda_node(key, step(key), post=keep)
    wire(graph, "a", "b", "c")
    return graph.compile()


class Hook:
    def __init__(self, change: Any = None) -> None:
        self.seen: list[tuple[int, list[str], int]] = []
        self.change = change

    def on_step_boundary(self, boundary: Boundary) -> None:
        self.seen.append((boundary.step, [k for k, _ in boundary.pending], boundary.budget.steps_used))
        if self.change is not None:
            self.change(boundary)


@ENTRY_POINTS
def test_every_top_level_step_is_announced_with_its_tasks_and_budget(how: str) -> None:
    hook = Hook()
    out = run_entry(_chain(), "x", how, callbacks=[hook])
    assert (out if how in ("invoke", "ainvoke") else "".join(out)) == "xabc"
    assert hook.seen == [(0, ["a"], 0), (1, ["b"], 1), (2, ["c"], 2)]


def test_a_pending_input_can_be_replaced() -> None:
    def change(boundary: Boundary) -> None:
        if boundary.step == 1:
            boundary.pending[0] = ("b", "y")

    assert _chain().invoke("x", callbacks=[Hook(change)]) == "ybc"


def test_a_preset_output_replaces_the_component_but_not_the_handlers() -> None:
    trail: list[Trail] = []

    def change(boundary: Boundary) -> None:
        trail.append(boundary.state)
        if boundary.step == 1:
            boundary.presets["b"] = "preset"

    assert _chain().invoke("x", callbacks=[Hook(change)]) == "presetc"
    assert trail[-1].seen == ["xa", "preset", "presetc"]  # the post-handler saw the preset


def test_the_state_can_be_replaced() -> None:
    def change(boundary: Boundary) -> None:
        if boundary.step == 2:
            boundary.state = Trail(seen=["fresh"])

    hook = Hook(change)
    states: list[Trail] = []
    hook2 = Hook(lambda b: states.append(b.state))
    _chain().invoke("x", callbacks=[hook, hook2])
    assert states[-1].seen == ["fresh", "xabc"]  # step 2's post-handler wrote into the new state


def test_changing_the_next_tasks_or_presetting_an_absent_node_is_an_error() -> None:
    def rename(boundary: Boundary) -> None:
        boundary.pending = [("c", "x")]

    with pytest.raises(GraphRunError, match=r"the next tasks may not change \(were \[a\], now \[c\]\)"):
        _chain().invoke("x", callbacks=[Hook(rename)])

    def preset(boundary: Boundary) -> None:
        boundary.presets["c"] = "x"

    with pytest.raises(GraphRunError, match=r"presets for nodes not in this step: \['c'\]"):
        _chain().invoke("x", callbacks=[Hook(preset)])


def test_raising_ends_the_run_and_is_reported_to_on_error() -> None:
    errors: list[BaseException] = []

    class Stop:
        def on_step_boundary(self, boundary: Boundary) -> None:
            if boundary.step == 1:
                raise RuntimeError("stop here")

        def on_error(self, info: Any, error: BaseException) -> None:
            if info.node_key is None:
                errors.append(error)

    with pytest.raises(RuntimeError, match="stop here"):
        _chain().invoke("x", callbacks=[Stop()])
    assert [str(e) for e in errors] == ["stop here"]


def test_nested_graphs_have_no_boundaries_of_their_own() -> None:
    inner = Graph()
    inner.add_lambda_node("i1", lambda s: s + "1")
    inner.add_lambda_node("i2", lambda s: s + "2")
    wire(inner, "i1", "i2")
    outer = Graph()
    outer.add_graph_node("sub", inner)
    outer.add_lambda_node("after", lambda s: s + "!")
    wire(outer, "sub", "after")
    hook = Hook()
    assert outer.compile().invoke("x", callbacks=[hook]) == "x12!"
    assert hook.seen == [(0, ["sub"], 0), (1, ["after"], 1)]
