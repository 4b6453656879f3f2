"""The fast writers behind `to_json` and `to_dot` write exactly what the standard library and the graphviz
package would: held side by side on plain and hostile values."""

from __future__ import annotations

import json
from typing import Any

import graphviz
import pytest

from inspector.export._dotlines import add_edge, add_node
from inspector.export._escape import dot_text, dot_tooltip
from inspector.export._jsontext import dumps_indented

HOSTILE = [
    "",
    "plain",
    'say "hi"',
    "back\\slash\\",
    "line\nbreak\ttab\r\x00\x1f\x7f",
    "<b>html</b>",
    "{braces} [brackets]",
    "graph",
    "NODE",
    "subgraph",
    "-4.2",
    "é ü 漢字 🙂 \u2028\u2029",
    "&amp; &lt;",
    "a:b:c",
]

JSON_VALUES: list[Any] = [
    {},
    [],
    {"b": 1, "a": [1, 2.5, -0.0, True, False, None, "x"], "c": {"z": {}, "y": []}},
    {"nested": [[{"k": "v"}], [], [[]]], "big": 10**30, "small": 1e-300},
    {key: key for key in HOSTILE},
    {"floats": [float("nan"), float("inf"), -float("inf"), 1.0, 1e16]},
    {1: "int key", 2: "ints sort too"},
    {"tuple": (1, (2, 3)), "deep": {"deeper": {"deepest": {"x": {1: True}}}}},
    "top-level string",
    3,
    None,
]


@pytest.mark.parametrize("value", JSON_VALUES, ids=range(len(JSON_VALUES)))
def test_dumps_indented_matches_json_dumps(value: Any) -> None:
    expected = json.dumps(value, sort_keys=True, ensure_ascii=False, indent=2)
    assert dumps_indented(value) == expected


def _package_lines(node_attrs: dict[str, str | None], edge_attrs: dict[str, str | None]) -> list[str]:
    dot = graphviz.Digraph()
    dot.node("n1", **node_attrs)  # pyright: ignore[reportArgumentType]
    dot.edge("n1", "n2", **edge_attrs)  # pyright: ignore[reportArgumentType]
    return dot.body


def _our_lines(node_attrs: dict[str, str | None], edge_attrs: dict[str, str | None]) -> list[str]:
    dot = graphviz.Digraph()
    add_node(dot, "n1", node_attrs)
    add_edge(dot, "n1", "n2", edge_attrs)
    return dot.body


@pytest.mark.parametrize("text", HOSTILE)
def test_dot_statements_match_the_graphviz_package(text: str) -> None:
    node_attrs: dict[str, str | None] = {
        "tooltip": dot_tooltip(text),
        "label": dot_text(text),
        "shape": "box",
        "style": "rounded,filled",
        "fillcolor": "#bbdefb",
        "penwidth": None,
    }
    edge_attrs: dict[str, str | None] = {
        "style": "dashed",
        "label": dot_text(f" {text} "),
        "color": "#c62828",
    }
    assert _our_lines(node_attrs, edge_attrs) == _package_lines(node_attrs, edge_attrs)


def test_dot_statements_quote_constants_like_the_package_too() -> None:
    """Plain strings (our own attribute values) are cached; an HTML-looking one stays HTML, as in the
    package."""
    attrs: dict[str, str | None] = {"label": "<<B>legend</B>>", "shape": "box", "fontsize": "12"}
    for _ in range(2):  # the second time from the cache
        assert _our_lines(attrs, {}) == _package_lines(attrs, {})
    assert _our_lines({}, {}) == _package_lines({}, {})


def test_dot_edge_with_a_port_goes_through_the_package() -> None:
    dot = graphviz.Digraph()
    add_edge(dot, "n1:p", "n2:q:s", {"label": dot_text("x")})
    expected = graphviz.Digraph()
    expected.edge("n1:p", "n2:q:s", label=dot_text("x"))
    assert dot.body == expected.body
