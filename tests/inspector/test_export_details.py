"""Exports show what each node runs (tools, model) and what each branch means (labels), literally, even
for hostile names, descriptions and labels; the picture has a legend and a readable size."""

from __future__ import annotations

import html
import re
import struct
import subprocess
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from fixtures.weather import build_agent
from graph_core.topology import (
    END,
    START,
    ModelSpec,
    ToolSpec,
    Topology,
    TopologyEdge,
    TopologyNode,
    build_topology,
)
from inspector.export import from_json, from_networkx, render, to_dot, to_json, to_mermaid, to_networkx

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"

HOSTILE_TEXT = (
    'say "hi"',
    "{braces} [brackets]",
    "line\nbreak",
    "<b>bold</b> <script>",
    "&amp; &lt;x&gt; &#65; &nbsp;y",
    "back\\slash \\N \\l",
    "end",
    "subgraph graph node edge",
    "click style classDef linkStyle",
    "-->|pipe|--> ==> -.-> ;",
    "#35; % `tick`",
)


def _hostile_topology() -> Topology:
    tools = tuple(
        ToolSpec(
            name=f"tool {i} {text}",
            description=f"does {text}",
            parameters={"type": "object", "properties": {f"arg {text}": {"type": "string"}}},
            return_directly=i == 0,
        )
        for i, text in enumerate(HOSTILE_TEXT)
    )
    model = ModelSpec(class_name="Model<T>", settings={"model": 'gpt "4" & <o>'}, tools=("a", "b"))
    nodes = [
        TopologyNode(key="chat", kind="ChatModel", model=model),
        TopologyNode(key="tools", kind="ToolsNode", tools=tools),
    ]
    edges = [TopologyEdge(source=START, target="chat")]
    targets = ["tools", END]
    for i, text in enumerate(HOSTILE_TEXT):
        edges.append(
            TopologyEdge(
                source="chat", target=targets[i % 2], kind="branch", branch_index=i, label=f"label {text}"
            )
        )
    edges.append(TopologyEdge(source="tools", target="chat"))
    return build_topology(name="&bogus; <graph>", nodes=nodes, edges=edges)


def _svg(topology: Topology) -> ET.Element:
    source = to_dot(topology)
    result = subprocess.run(["dot", "-Tsvg"], input=source.encode(), capture_output=True, check=False)
    assert result.returncode == 0, result.stderr.decode()
    assert b"Warning" not in result.stderr, result.stderr.decode()
    return ET.fromstring(result.stdout)  # well-formed XML, or this raises


def _groups(root: ET.Element, cls: str) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if g.get("class") == cls]


def _texts(group: ET.Element) -> list[str]:
    return [t.text or "" for t in group.iter(f"{SVG}text")]


def _title(group: ET.Element) -> str:
    title = group.find(f"{SVG}title")
    return "" if title is None else title.text or ""


def _tooltip(group: ET.Element) -> str:
    return next((a.get(f"{XLINK}title") or "" for a in group.iter(f"{SVG}a")), "")


# -- DOT / SVG --------------------------------------------------------------------------------------------


def test_dot_labels_branch_edges_and_lists_tools_and_model() -> None:
    source = to_dot(build_agent())
    assert 'label=" tool calls "' in source and 'label=" final answer "' in source
    assert 'label=" next round "' in source and 'label=" return directly "' in source
    assert "get_weather(city: string)" in source
    assert "ScriptedChatModel" in source
    assert "legend" in source


def test_real_dot_draws_hostile_tools_labels_and_model_literally() -> None:
    topology = _hostile_topology()
    root = _svg(topology)
    title = root.find(f"{SVG}g/{SVG}title")
    assert title is not None and title.text == "&bogus; <graph>"
    nodes = {_title(g): g for g in _groups(root, "node")}
    tools_lines = _texts(nodes["n2"])
    expected_tools = [f"tool {i} {text}" for i, text in enumerate(HOSTILE_TEXT)]
    drawn = "\n".join(tools_lines)
    for name, text in zip(expected_tools[:8], HOSTILE_TEXT[:8], strict=True):
        assert f"{name}(arg {text}: string)" in drawn
    assert "… and 3 more" in drawn  # long tool lists are cut in the box ...
    tooltip = _tooltip(nodes["n2"])
    for name, text in zip(expected_tools, HOSTILE_TEXT, strict=True):
        assert f": does {text}" in tooltip and name in tooltip  # ... and complete in the tooltip
    assert 'Model<T> gpt "4" & <o>' in "\n".join(_texts(nodes["n1"]))
    edge_labels = ["\n".join(_texts(g)) for g in _groups(root, "edge")]
    for text in HOSTILE_TEXT:
        assert f"label {text}".strip() in [label.strip() for label in edge_labels]


@pytest.mark.parametrize("name", ["&bogus;", "&nbsp;x", "&amp;", "a & b", "<&>"])
def test_entity_looking_graph_names_give_well_formed_svg_showing_the_name(name: str) -> None:
    topology = build_topology(
        name=name,
        nodes=[TopologyNode(key=name, kind="Lambda")],
        edges=[TopologyEdge(source=START, target=name), TopologyEdge(source=name, target=END)],
    )
    root = _svg(topology)
    graph_title = root.find(f"{SVG}g/{SVG}title")
    assert graph_title is not None and graph_title.text == name
    assert _texts(root.find(f"{SVG}g") or root)[0] == name  # the drawn title line
    assert [_texts(g) for g in _groups(root, "node")][:3] == [["start"], [name], ["end"]]


def test_the_legend_names_only_the_styles_the_graph_uses() -> None:
    plain = build_topology(name="p", nodes=[], edges=[TopologyEdge(source=START, target=END)])
    assert "legend" not in to_dot(plain)
    root = _svg(build_agent().compiled.topology())
    legend = next(g for g in _groups(root, "node") if _title(g) == "legend")
    words = " ".join(_texts(legend))
    assert "edge" in words and "branch" in words and "back edge" in words


def test_title_uses_the_node_font() -> None:
    root = _svg(build_agent().compiled.topology())
    graph = root.find(f"{SVG}g")
    assert graph is not None
    title_text = graph.find(f"{SVG}text")
    node_text = next(t for g in _groups(root, "node") for t in g.iter(f"{SVG}text"))
    assert title_text is not None and title_text.text == "ReActAgent"
    assert title_text.get("font-family") == node_text.get("font-family")


def _png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_weather_agent_png_is_readable_by_default() -> None:
    width, height = _png_size(render(build_agent(), format="png"))
    # The picture was 201x553 px before tools, labels and the legend were drawn at 120 dpi.
    assert width >= 2 * 201 and height >= 553
    assert width * height >= 4 * 201 * 553


# -- Mermaid ----------------------------------------------------------------------------------------------

_LINK = re.compile(r'^ {4}(n\d+) (-->|-\.->|==>)(?:\|"([^"]*)"\|)? (n\d+)$')


def _decode(text: str) -> str:
    text = text.replace("<br/>", "\n")
    return re.sub(
        r"#(\w+);",
        lambda m: html.unescape(f"&{m.group(1)};") if not m.group(1).isdigit() else chr(int(m.group(1))),
        text,
    )


def test_mermaid_edge_labels_are_quoted_entities_that_decode_to_the_label() -> None:
    text = to_mermaid(_hostile_topology())
    links = [line for line in text.splitlines() if re.match(r"^ {4}n\d+ (-|=)", line)]
    labels: list[str] = []
    for line in links:
        match = _LINK.match(line)
        assert match, line
        if match.group(3) is not None:
            assert not re.search(r'["|<>`]|%%', match.group(3).replace("<br/>", "")), line
            labels.append(_decode(match.group(3)))
    assert labels == [f"label {t}" for t in HOSTILE_TEXT]


def test_mermaid_weather_agent_labels() -> None:
    text = to_mermaid(build_agent())
    assert '    n1 -.->|"tool calls"| n2' in text
    assert '    n1 -.->|"final answer"| n4' in text
    assert '    n2 -.->|"next round"| n1' in text
    assert "get_weather(city: string)" in text


# -- round trips ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [_hostile_topology, lambda: build_agent().compiled.topology()])
def test_json_and_networkx_round_trip_tools_models_and_labels_exactly(make: Any) -> None:
    topology = make()
    assert from_json(to_json(topology)) == topology
    assert to_json(from_json(to_json(topology))) == to_json(topology)
    graph = to_networkx(topology)
    assert from_networkx(graph) == topology
    tools_key = next(n.key for n in topology.nodes if n.tools)
    assert graph.nodes[tools_key]["tools"] == next(n.tools for n in topology.nodes if n.tools)
    assert {d["label"] for *_, d in graph.edges(data=True)} >= {e.label for e in topology.edges}


def test_version_1_documents_are_still_read() -> None:
    old = (
        '{"format": "graph-inspector/topology", "version": 1, "topology": {"name": "g", "nodes": '
        '[{"key": "start", "kind": "start"}, {"key": "end", "kind": "end"}], "edges": '
        '[{"source": "start", "target": "end"}]}}'
    )
    topology = from_json(old)
    assert topology.edges[0].label is None and topology.nodes[0].tools == ()


def test_entity_looking_cluster_labels_are_shown_literally() -> None:
    inner = build_topology(
        name="&nbsp;inner",
        nodes=[TopologyNode(key="&#65;", kind="Lambda")],
        edges=[TopologyEdge(source=START, target="&#65;"), TopologyEdge(source="&#65;", target=END)],
    )
    outer = build_topology(
        name="outer",
        nodes=[TopologyNode(key="&lt;tag&gt;", name="&amp;", kind="Graph", graph=inner)],
        edges=[
            TopologyEdge(source=START, target="&lt;tag&gt;"),
            TopologyEdge(source="&lt;tag&gt;", target=END),
        ],
    )
    root = _svg(outer)
    clusters = [_texts(g) for g in _groups(root, "cluster")]
    assert ["&lt;tag&gt;", "(&amp;)"] in clusters
    assert ["&#65;"] in [_texts(g) for g in _groups(root, "node")]
