"""Per-call options (`graph_core.call_options`) on every entry point, and their merging rules."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from graph_core import END, START, Graph
from graph_core.call_options import (
    ChatModelOptions,
    chat_model_options,
    node_options,
    tool_options,
    with_callbacks,
    with_lambda_options,
)
from graph_core.interrupt import address_segment
from graph_core.tools import ToolsNodeOptions


def _nested() -> Graph:
    inner = Graph()
    inner.add_lambda_node("x", lambda v: [*v, *node_options()])
    inner.add_edge(START, "x")
    inner.add_edge("x", END)
    outer = Graph()
    outer.add_lambda_node("a", lambda v: [*v, *node_options()])
    outer.add_graph_node("sub", inner)
    outer.add_edge(START, "a")
    outer.add_edge("a", "sub")
    outer.add_edge("sub", END)
    return outer


OPTIONS = [
    with_lambda_options("everywhere"),
    with_lambda_options("inner").designate_node_with_path(("sub", "x")),
    with_lambda_options("sub").designate_node("sub"),  # a nested graph hands it to its nodes
]
EXPECTED = ["everywhere", "everywhere", "inner", "sub"]


def test_async_entry_points_hand_options_to_nested_nodes() -> None:
    compiled = _nested().compile()

    async def run() -> tuple[Any, list[Any]]:
        invoked = await compiled.ainvoke([], options=OPTIONS)
        streamed = [chunk async for chunk in compiled.astream([], options=OPTIONS)]
        return invoked, streamed

    invoked, streamed = asyncio.run(run())
    assert invoked == EXPECTED
    assert [item for chunk in streamed for item in chunk] == EXPECTED
    assert compiled.invoke([], options=OPTIONS) == EXPECTED


def test_without_options_components_get_none() -> None:
    assert _nested().compile().invoke([]) == []
    assert node_options() == [] and tool_options() == []  # outside any run
    assert chat_model_options(ChatModelOptions(model="m")).model == "m"


def test_chat_model_options_merge_in_order() -> None:
    merged = ChatModelOptions(model="a", top_p=0.5).merged(ChatModelOptions(model="b", temperature=0.1))
    assert (merged.model, merged.top_p, merged.temperature) == ("b", 0.5, 0.1)


def test_tools_node_options_merge_as_eino_applies_them() -> None:
    first = ToolsNodeOptions(tool_list=["a"], tool_options=[1])
    merged = first.merged(ToolsNodeOptions(tool_aliases={}, tool_options=[2]))
    assert merged.tool_list == ["a"] and merged.tool_aliases == {} and merged.tool_options == [1, 2]


def test_designated_stream_callbacks_close_the_copies_they_do_not_want() -> None:
    closed: list[str] = []

    class Watcher:
        def on_start_with_stream_input(self, info: Any, stream: Any) -> None:
            closed.append(info.name)
            list(stream)

    graph = Graph()
    graph.add_lambda_node("a", lambda v: v, name="a")
    graph.add_lambda_node("b", lambda v: v, name="b")
    graph.add_edge(START, "a")
    graph.add_edge("a", "b")
    graph.add_edge("b", END)
    out = list(graph.compile().stream(1, options=[with_callbacks(Watcher()).designate_node("b")]))
    assert out == [1]
    assert closed == ["b"]


@pytest.mark.parametrize(("kind", "ident"), [("", "x"), ("a:b", "x"), ("a;b", "x"), ("process", "p;0")])
def test_an_address_segment_must_keep_the_address_readable(kind: str, ident: str) -> None:
    with pytest.raises(ValueError, match="an address segment needs"), address_segment(kind, ident):
        pass


def test_a_run_inside_another_runs_node_addresses_its_own_nodes() -> None:
    """With `parent_path` (a run shown as a node's nested graph) node paths start with that path; a
    designation still names the run's own nodes."""
    seen: list[str] = []

    class Seen:
        def on_start(self, info: Any, input: Any) -> None:
            seen.append("/".join(info.path))

    out = (
        _nested()
        .compile()
        .invoke(
            [],
            parent_path=("outer", "tool"),
            options=[
                with_lambda_options("inner").designate_node_with_path(("sub", "x")),
                with_callbacks(Seen()).designate_node("sub"),
            ],
        )
    )
    assert out == ["inner"]
    assert seen == ["outer/tool/sub", "outer/tool/sub/x"]
