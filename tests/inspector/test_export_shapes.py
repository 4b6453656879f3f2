"""Topologies shaped like the real agents, built with `build_topology`, shared by the export, layout, lint
and CLI tests (and checked here so a wrong fixture cannot silently weaken them)."""

from __future__ import annotations

import itertools

from graph_core.topology import END, START, Topology, TopologyEdge, TopologyNode, TriggerMode, build_topology

HOSTILE_KEYS = (
    'say "hi"',
    "back\\slash",
    "trailing\\",
    "a:b:c",
    "{braces}",
    "<b>bold</b>",
    "line\nbreak",
    "ünïcödé ✓ 漢字",
    "node",
    "edge",
    "graph",
    "subgraph",
    "strict",
    "end ",
    "class",
    "style",
    "#35; & %% `tick`",
    "\\N\\G\\l",
    "&amp;",
    "&lt;tag&gt;",
    "&#65;",
    "&quot;",
    "&nbsp;x",
)


def edge(source: str, target: str) -> TopologyEdge:
    return TopologyEdge(source=source, target=target)


def branch(
    source: str, target: str, *, index: int = 0, kind: str = "stream", label: str | None = None
) -> TopologyEdge:
    return TopologyEdge(
        source=source, target=target, kind="branch", branch_index=index, branch_kind=kind, label=label
    )


def react_topology(*, max_run_steps: int = 13) -> Topology:
    """Eino's flow ReAct agent (eino-semantics §5.2)."""
    return build_topology(
        name="ReActAgent",
        nodes=[
            TopologyNode(key="chat", name="ChatModel", kind="ChatModel", has_pre_handler=True),
            TopologyNode(key="tools", name="Tools", kind="ToolsNode", has_pre_handler=True),
            TopologyNode(key="direct_return", kind="Lambda"),
        ],
        edges=[
            edge(START, "chat"),
            edge("direct_return", END),
            branch("chat", "tools", label="tool calls"),
            branch("chat", END, label="final answer"),
            branch("tools", "chat", label="next round"),
            branch("tools", "direct_return", label="return directly"),
        ],
        max_run_steps=max_run_steps,
        has_state=True,
    )


def adk_topology(*, return_directly: bool = False) -> Topology:
    """Eino's ADK ChatModelAgent ReAct graph (eino-semantics §6.3)."""
    keys = ["Init", "ChatModel", "CancelCheck", "ToolNode", "AfterToolCalls", "AfterToolCallsCancelCheck"]
    kinds = {"ChatModel": "ChatModel", "ToolNode": "ToolsNode"}
    nodes = [TopologyNode(key=k, name=k, kind=kinds.get(k, "Lambda")) for k in keys]
    edges = [
        edge(START, "Init"),
        edge("Init", "ChatModel"),
        branch("ChatModel", "CancelCheck", label="tool calls"),
        branch("ChatModel", END, label="final answer"),
        edge("CancelCheck", "ToolNode"),
        edge("ToolNode", "AfterToolCalls"),
        edge("AfterToolCalls", "AfterToolCallsCancelCheck"),
    ]
    if return_directly:
        nodes.append(TopologyNode(key="ToolNodeToEndConverter", name="ToolNodeToEndConverter", kind="Lambda"))
        edges += [
            branch(
                "AfterToolCallsCancelCheck", "ToolNodeToEndConverter", kind="single", label="return directly"
            ),
            branch("AfterToolCallsCancelCheck", "ChatModel", kind="single", label="next round"),
            edge("ToolNodeToEndConverter", END),
        ]
    else:
        edges.append(edge("AfterToolCallsCancelCheck", "ChatModel"))
    return build_topology(name="Assistant", nodes=nodes, edges=edges, max_run_steps=2**63 - 1, has_state=True)


def nested_topology() -> Topology:
    """A parent graph whose middle node is the ReAct graph."""
    return build_topology(
        name="Outer",
        nodes=[
            TopologyNode(key="prepare", kind="Lambda"),
            TopologyNode(key="agent", name="ReAct", kind="Graph", graph=react_topology()),
            TopologyNode(key="finish", kind="Lambda"),
        ],
        edges=[
            edge(START, "prepare"),
            edge("prepare", "agent"),
            edge("agent", "finish"),
            edge("finish", END),
        ],
        trigger_mode=TriggerMode.ALL_PREDECESSOR,
    )


def hostile_topology() -> Topology:
    """A chain through every hostile key, plus a branch and a back edge between hostile keys."""
    keys = list(HOSTILE_KEYS)
    nodes = [TopologyNode(key=k, name=f"name of {k}", kind="Lambda") for k in keys]
    edges = [edge(START, keys[0])]
    edges += [edge(a, b) for a, b in itertools.pairwise(keys)]
    edges += [edge(keys[-1], END), branch(keys[3], keys[1]), branch(keys[3], keys[5])]
    return build_topology(name='hostile "graph" \\ <x>', nodes=nodes, edges=edges)


def test_react_shape_marks_tools_to_chat_as_the_only_back_edge() -> None:
    topology = react_topology()
    assert [(e.source, e.target) for e in topology.back_edges] == [("tools", "chat")]
    assert [n.key for n in topology.nodes] == [START, "chat", "tools", "direct_return", END]


def test_adk_shape_marks_the_loop_back_to_chat_model() -> None:
    for return_directly in (False, True):
        topology = adk_topology(return_directly=return_directly)
        back = [(e.source, e.target) for e in topology.back_edges]
        assert back == [("AfterToolCallsCancelCheck", "ChatModel")]


def test_hostile_shape_has_a_back_edge_between_hostile_keys() -> None:
    assert [(e.source, e.target) for e in hostile_topology().back_edges] == [("a:b:c", "back\\slash")]
