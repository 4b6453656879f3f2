"""Every `add_*_node` takes the same `NodeOptions` and builds the same `NodeSpec` fields from them."""

from __future__ import annotations

from typing import Any

import pytest

from graph_core import Graph
from graph_core.graph import NodeOptions
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message
from graph_core.tools import ToolsNode


def _pre(value: Any, state: Any) -> Any:
    return value


def _post(value: Any, state: Any) -> Any:
    return value


OPTIONS: NodeOptions = {"name": "Shown", "pre": _pre, "post": _post, "input_key": "in", "output_key": "out"}


def _add_each(graph: Graph, **options: Any) -> None:
    nested = Graph()
    graph.add_lambda_node("lambda", lambda x: x, **options)
    graph.add_chat_model_node("model", ScriptedChatModel([Message.assistant("hi")]), **options)
    graph.add_tools_node("tools", ToolsNode([]), **options)
    graph.add_graph_node("graph", nested, **options)


def test_every_node_kind_keeps_its_options() -> None:
    graph = Graph(state=dict)
    _add_each(graph, **OPTIONS)
    for key, kind in [
        ("lambda", "Lambda"),
        ("model", "ChatModel"),
        ("tools", "ToolsNode"),
        ("graph", "Graph"),
    ]:
        spec = graph.nodes[key]
        assert (spec.kind, spec.name, spec.pre, spec.post, spec.input_key, spec.output_key) == (
            kind,
            "Shown",
            _pre,
            _post,
            "in",
            "out",
        )
    assert graph.nodes["graph"].executable is None
    assert graph.nodes["model"].executable is not None


def test_left_out_options_default_to_none_and_an_empty_name() -> None:
    graph = Graph()
    _add_each(graph)
    graph.add_passthrough_node("pass")
    for spec in graph.nodes.values():
        assert (spec.name, spec.pre, spec.post, spec.input_key, spec.output_key) == (
            "",
            None,
            None,
            None,
            None,
        )
    assert graph.nodes["pass"].kind == "Passthrough"


@pytest.mark.parametrize(
    "method", ["add_lambda_node", "add_chat_model_node", "add_tools_node", "add_graph_node"]
)
def test_a_misspelt_option_is_a_type_error_and_leaves_the_graph_usable(method: str) -> None:
    graph = Graph()
    component: Any = {
        "add_lambda_node": lambda x: x,
        "add_chat_model_node": object(),  # would also fail the component check: the keyword wins, as before
        "add_tools_node": ToolsNode([]),
        "add_graph_node": Graph(),
    }[method]
    with pytest.raises(TypeError, match=rf"Graph\.{method}\(\) got an unexpected keyword argument 'nam'"):
        getattr(graph, method)("n", component, nam="x")
    graph.add_passthrough_node("n")  # no sticky build error, nothing registered
    assert list(graph.nodes) == ["n"]
