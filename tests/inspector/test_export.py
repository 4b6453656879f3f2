"""Exports: canonical JSON, networkx, DOT (checked with the real `dot` binary), Mermaid, rendering."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from syrupy.assertion import SnapshotAssertion

from graph_core.topology import END, START, Topology
from inspector.errors import RenderError, TopologyFormatError
from inspector.export import (
    as_topology,
    from_json,
    from_networkx,
    render,
    to_dot,
    to_json,
    to_mermaid,
    to_networkx,
)
from tests.inspector.test_export_shapes import (
    HOSTILE_KEYS,
    adk_topology,
    hostile_topology,
    nested_topology,
    react_topology,
)

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` binary not installed")


class FakeCompiled:
    def __init__(self, topology: Topology) -> None:
        self._topology = topology

    def topology(self) -> Topology:
        return self._topology

    def invoke(self, value: Any) -> Any:
        return value


class FakeAgent:
    def __init__(self, topology: Topology) -> None:
        self.compiled = FakeCompiled(topology)


# -- coercion ---------------------------------------------------------------------------------------------


def test_every_exporter_accepts_topology_compiled_graph_and_agent() -> None:
    topology = react_topology()
    for subject in (topology, FakeCompiled(topology), FakeAgent(topology)):
        assert as_topology(subject) == topology
        assert to_json(subject) == to_json(topology)
        assert to_dot(subject) == to_dot(topology)
        assert to_mermaid(subject) == to_mermaid(topology)


def test_coercion_rejects_other_objects_with_a_clear_message() -> None:
    with pytest.raises(TypeError, match="expected a Topology, a CompiledGraph"):
        as_topology(42)


# -- JSON -------------------------------------------------------------------------------------------------


def test_json_is_versioned_sorted_and_snapshot_stable(snapshot: SnapshotAssertion) -> None:
    text = to_json(react_topology())
    assert text.startswith('{\n  "format": "graph-inspector/topology",\n  "topology": {')
    assert '"version": 2' in text
    assert text == snapshot


@pytest.mark.parametrize("make", [react_topology, adk_topology, nested_topology, hostile_topology])
def test_json_round_trips_to_an_equal_topology_and_identical_bytes(make: Any) -> None:
    topology = make()
    text = to_json(topology)
    again = from_json(text)
    assert again == topology
    assert to_json(again) == text
    assert from_json(text.encode()) == topology


def test_json_does_not_depend_on_how_the_topology_was_built() -> None:
    copy = Topology.model_validate(react_topology().model_dump())
    assert to_json(copy) == to_json(react_topology())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "not valid JSON"),
        ('{"format": "other", "version": 1}', "not a topology document"),
        ('{"format": "graph-inspector/topology", "version": 99, "topology": {}}', "version `99`"),
        ('{"format": "graph-inspector/topology", "version": 1, "topology": {"name": 3}}', "invalid"),
    ],
)
def test_from_json_rejects_bad_documents(text: str, message: str) -> None:
    with pytest.raises(TopologyFormatError, match=message):
        from_json(text)


# -- networkx ---------------------------------------------------------------------------------------------


def test_networkx_has_the_contract_attributes() -> None:
    graph = to_networkx(react_topology())
    assert isinstance(graph, nx.MultiDiGraph)
    assert list(graph.nodes) == [START, "chat", "tools", "direct_return", END]
    assert graph.nodes["chat"]["kind"] == "ChatModel"
    assert graph.nodes["chat"]["name"] == "ChatModel"
    assert graph.nodes[START]["kind"] == "start"
    back = [(u, v) for u, v, d in graph.edges(data=True) if d["back_edge"]]
    assert back == [("tools", "chat")]
    kinds = {(u, v): d["kind"] for u, v, d in graph.edges(data=True)}
    assert kinds[(START, "chat")] == "edge"
    assert kinds[("chat", "tools")] == "branch"
    assert graph.graph["max_run_steps"] == 13


def test_networkx_keeps_nested_topologies_on_graph_nodes() -> None:
    graph = to_networkx(nested_topology())
    assert graph.nodes["agent"]["graph"] == react_topology()
    assert "graph" not in graph.nodes["prepare"]


@pytest.mark.parametrize("make", [react_topology, adk_topology, nested_topology, hostile_topology])
def test_networkx_round_trips(make: Any) -> None:
    topology = make()
    assert from_networkx(to_networkx(topology)) == topology


def test_networkx_keeps_parallel_edge_and_branch_between_the_same_nodes() -> None:
    topology = react_topology()
    doubled = topology.model_copy(update={"edges": (*topology.edges, topology.edges[2].model_copy())})
    graph = to_networkx(doubled)
    assert graph.number_of_edges("chat", "tools") == 2
    assert from_networkx(graph) == doubled


def test_from_networkx_completes_a_hand_made_graph() -> None:
    graph = nx.DiGraph(name="hand")
    graph.add_edge(START, "a")
    graph.add_edge("a", "b")
    graph.add_edge("b", "a")
    graph.add_edge("b", END)
    topology = from_networkx(graph)
    assert [n.key for n in topology.nodes] == [START, "a", "b", END]
    assert [(e.source, e.target) for e in topology.back_edges] == [("b", "a")]
    assert topology.node("a").kind == "Lambda"


# -- DOT --------------------------------------------------------------------------------------------------


def test_dot_snapshot_for_the_react_agent(snapshot: SnapshotAssertion) -> None:
    assert to_dot(react_topology()) == snapshot


def test_dot_styles_back_edges_branches_and_terminals_distinctly() -> None:
    source = to_dot(react_topology())
    back = [line for line in source.splitlines() if "n2 -> n1" in line]
    assert len(back) == 1
    assert "constraint=false" in back[0]
    assert "style=dashed" in back[0]
    forward = next(line for line in source.splitlines() if "n0 -> n1" in line)
    assert "constraint" not in forward and "dashed" not in forward
    assert "shape=circle" in source and "shape=doublecircle" in source


def test_dot_draws_nested_graphs_as_clusters() -> None:
    source = to_dot(nested_topology())
    assert "subgraph cluster_n2 {" in source
    assert "lhead=cluster_n2" in source and "ltail=cluster_n2" in source


def _svg_node_labels(svg: bytes) -> list[str]:
    """The text lines Graphviz actually drew in each node, in node order."""
    root = ET.fromstring(svg)
    labels = []
    for group in root.iter("{http://www.w3.org/2000/svg}g"):
        title = group.find("{http://www.w3.org/2000/svg}title")
        if group.get("class") == "node" and (title is None or title.text != "legend"):
            labels.append("\n".join(t.text or "" for t in group.iter("{http://www.w3.org/2000/svg}text")))
    return labels


@needs_dot
def test_real_dot_accepts_hostile_keys_and_shows_them_literally() -> None:
    topology = hostile_topology()
    source = to_dot(topology)
    result = subprocess.run(["dot", "-Tsvg"], input=source.encode(), capture_output=True, check=False)
    assert result.returncode == 0, result.stderr.decode()
    assert b"Warning" not in result.stderr and b"Error" not in result.stderr, result.stderr.decode()
    drawn = _svg_node_labels(result.stdout)
    expected = [START] + [f"{key}\n(name of {key})" for key in HOSTILE_KEYS] + [END]
    assert drawn == expected


@needs_dot
@pytest.mark.parametrize("key", HOSTILE_KEYS)
def test_each_hostile_key_alone_is_accepted_by_dot(key: str) -> None:
    from graph_core.topology import TopologyEdge, TopologyNode, build_topology

    topology = build_topology(
        name=key,
        nodes=[TopologyNode(key=key, kind="Lambda")],
        edges=[TopologyEdge(source=START, target=key), TopologyEdge(source=key, target=END)],
    )
    source = to_dot(topology).encode()
    result = subprocess.run(["dot", "-Tsvg"], input=source, capture_output=True, check=False)
    assert result.returncode == 0, result.stderr.decode()
    assert _svg_node_labels(result.stdout) == [START, key, END]


# -- Mermaid ----------------------------------------------------------------------------------------------

_ENTITY = re.compile(r"#(\w+);")
_NAMED = {"quot": '"', "amp": "&", "lt": "<", "gt": ">"}


def _decode_mermaid(label: str) -> str:
    label = label.replace("<br/>", "\n")
    return _ENTITY.sub(lambda m: _NAMED.get(m.group(1)) or chr(int(m.group(1))), label)


def test_mermaid_snapshot_for_the_react_agent(snapshot: SnapshotAssertion) -> None:
    assert to_mermaid(react_topology()) == snapshot


def test_mermaid_styles_branch_and_back_edges() -> None:
    text = to_mermaid(react_topology())
    assert text.startswith("flowchart TD\n")
    links = [line.strip() for line in text.splitlines() if "-->" in line or "-.->" in line or "==>" in line]
    assert links == [
        "n0 --> n1",
        "n3 --> n4",
        'n1 -.->|"tool calls"| n2',
        'n1 -.->|"final answer"| n4',
        'n2 -.->|"next round"| n1',
        'n2 -.->|"return directly"| n3',
    ]
    assert "linkStyle 4 stroke:#c62828" in text


def test_mermaid_escapes_reserved_words_and_hostile_keys() -> None:
    text = to_mermaid(hostile_topology())
    node_lines = [line.strip() for line in text.splitlines() if re.match(r"\s+n\d+[\[(]", line)]
    labels = []
    for line in node_lines:
        match = re.fullmatch(r'n\d+[\[(]+"([^"]*)"[\])]+', line)
        assert match, line
        labels.append(_decode_mermaid(match.group(1)))
    assert labels == [START] + [f"{key}\n(name of {key})" for key in HOSTILE_KEYS] + [END]
    # No key ever becomes an identifier: every statement starts with a generated id or a keyword.
    for line in text.splitlines()[1:]:
        assert re.match(r"\s+(n\d|subgraph n|end$|classDef |class |linkStyle )", line), line


def test_mermaid_draws_nested_graphs_as_subgraphs() -> None:
    text = to_mermaid(nested_topology())
    assert '    subgraph n2["agent<br/>(ReAct)"]' in text
    assert '        n2_1(("chat<br/>(ChatModel)"))' not in text  # chat is rounded, not a circle
    assert '        n2_1("chat<br/>(ChatModel)")' in text
    assert "    n1 --> n2" in text and "    n2 --> n3" in text


# -- rendering --------------------------------------------------------------------------------------------


@needs_dot
def test_render_svg_and_png(tmp_path: Path) -> None:
    svg = render(react_topology(), format="svg")
    assert b"<svg" in svg
    png = render(react_topology(), format="png", path=tmp_path / "g.png")
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert (tmp_path / "g.png").read_bytes() == png


def test_render_without_dot_says_how_to_install_it_and_text_formats_still_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RenderError, match=r"`dot` program was not found.*apt-get install graphviz"):
        render(react_topology(), format="png")
    assert "digraph" in to_dot(react_topology())
    assert to_mermaid(react_topology()).startswith("flowchart")
    assert from_json(to_json(react_topology())) == react_topology()


def test_render_rejects_unknown_formats() -> None:
    with pytest.raises(ValueError, match="svg` or `png"):
        render(react_topology(), format="gif")  # type: ignore[arg-type]
