"""LangGraph's `Send` fan-out, conditions without a path map, subgraphs and the prebuilt agents, as every
export and the TUI's graph pane show them: fan-out edges labelled `Send ×n`, what the code leaves to the
run said in the legend (not guessed), subgraphs nested, a prebuilt agent's tools and model listed."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any, TypedDict

import pytest
from langgraph.graph import START, StateGraph
from langgraph.types import Send

from fixtures.weather import agent as weather_agent
from inspector.adapters.langgraph import as_target, langgraph_topology
from inspector.adapters.langgraph.branches import makes_sends
from inspector.export import to_dot, to_json, to_mermaid, to_networkx
from inspector.export._unknowns import static_notes
from inspector.layout import draw
from inspector.recording import Recorder
from inspector.tui import make_app
from inspector.tui.graph_pane import paint_geometry
from inspector.tui.session import PathSoFar
from tests.langgraph.corpus import agents, branching, commands, fanout, subgraphs
from tests.langgraph.graphs import fan_out
from tests.tui.conftest import SIZE, screen_text

_FAN_OUT_NOTE = (
    "plan fans out with Send (Send ×n): how many worker tasks run in parallel is known only at run time"
)


def _pane_text(topology: Any) -> str:
    idle = PathSoFar(0, {}, frozenset(), frozenset())
    return paint_geometry(topology, active=(), so_far=idle).text.plain


def test_a_send_fan_out_is_a_send_branch_labelled_in_every_export() -> None:
    topology = langgraph_topology(fan_out())
    (send,) = [e for e in topology.edges if e.source == "plan"]
    assert (send.target, send.kind, send.branch_kind, send.label) == ("worker", "branch", "send", "Send ×n")
    assert static_notes(topology) == (_FAN_OUT_NOTE,)

    graph = to_networkx(topology)
    assert [(d["branch_kind"], d["label"]) for *_, d in graph.edges("plan", data=True)] == [
        ("send", "Send ×n")
    ]
    document = json.loads(to_json(topology))
    assert [
        (e["branch_kind"], e["label"]) for e in document["topology"]["edges"] if e["source"] == "plan"
    ] == [("send", "Send ×n")]
    dot = to_dot(topology)
    assert 'n1 -> n2 [label=" Send ×n " arrowhead=crow style=dashed]' in dot
    assert "Send fan-out (one task per Send)" in dot and _FAN_OUT_NOTE in dot
    mermaid = to_mermaid(topology)
    assert 'n1 -.->|"Send ×n"| n2' in mermaid
    assert f'legend>"legend<br/>{_FAN_OUT_NOTE}"]' in mermaid
    text = draw(topology)
    assert "Send ×n" in text and f"  note: {_FAN_OUT_NOTE}" in text
    assert f"note {_FAN_OUT_NOTE}" in _pane_text(topology)


def test_the_prebuilt_agents_tool_calls_are_a_send_fan_out() -> None:
    """`create_react_agent` (v2) and `create_agent` send each tool call to `tools` as a task of its own."""
    for graph, model in ((agents.react_agent_search(), "agent"), (agents.create_agent_search(), "model")):
        topology = langgraph_topology(graph)
        kinds = {(e.source, e.target): e.branch_kind for e in topology.edges if e.kind == "branch"}
        assert kinds[(model, "tools")] == "send" and kinds[(model, "end")] == "send"
        assert static_notes(topology) == (
            f"{model} fans out with Send (Send ×n): how many tools tasks run in parallel is known only at "
            "run time",
        )
    hand_built = langgraph_topology(agents.tool_node_loop())  # tools_condition names "tools": no Send
    assert {e.branch_kind for e in hand_built.edges if e.kind == "branch"} == {"conditional"}
    assert static_notes(hand_built) == ()


def test_a_condition_without_a_path_map_says_its_targets_are_possible_not_known() -> None:
    topology = langgraph_topology(branching.no_path_map_function())
    unmapped = [e for e in topology.edges if e.source == "rewriter"]
    assert {e.branch_kind for e in unmapped} == {"conditional-any"}
    note = (
        "rewriter's condition has no path map: all 3 possible targets are drawn; which it takes is known "
        "only at run time"
    )
    assert static_notes(topology) == (note,)
    assert "possible target (no path map)" in to_dot(topology) and note in to_dot(topology)
    assert 'color="#9e9e9e"' in to_dot(topology)
    mermaid = to_mermaid(topology)
    assert "linkStyle 1,2,3 stroke:#9e9e9e" in mermaid and note in mermaid
    assert f"  note: {note}" in draw(topology)


def test_a_send_without_a_path_map_is_both() -> None:
    topology = langgraph_topology(fanout.cond_edge_after_send())
    assert {e.branch_kind for e in topology.edges if e.source == "1"} == {"send-any"}
    assert {e.branch_kind for e in topology.edges if e.source == "2"} == {"conditional"}  # Literal["3"]
    assert static_notes(topology) == (
        "1 fans out with Send (Send ×n) and has no path map: how many tasks, and of which of the 4 targets "
        "drawn, is known only at run time",
    )


def test_an_undeclared_command_goto_is_said_not_drawn() -> None:
    """`test_node_destinations`' child routes its parent with `Command(goto=..., graph=Command.PARENT)`
    and declares nothing; nodes that only test `isinstance(x, Command)` or declare their goto are quiet."""
    topology = langgraph_topology(commands.destinations_tuple())
    child = topology.node("child").graph
    assert child is not None
    (edge,) = [e for e in child.edges if e.source == "node_a"]
    assert (edge.target, edge.kind, edge.branch_kind, edge.label) == (
        "end",
        "edge",
        "command-undeclared",
        "implicit end",
    )
    note = (
        "child/node_a returns Command(goto=...) to destinations it does not declare: where it goes is known "
        "only at run time (only its implicit end is drawn)"
    )
    assert static_notes(topology) == (note,)
    assert note in to_dot(topology) and f"  note: {note}" in draw(topology)
    assert static_notes(langgraph_topology(fanout.send_sequences()))[1:] == ()  # `_Node` only checks
    assert static_notes(langgraph_topology(commands.command_self_loop())) == ()  # Command[Literal[...]]


class _S(TypedDict):
    x: int


def _send_to_b(state: _S) -> list[Send]:
    return []


class _Router:
    def __call__(self, state: _S) -> Any:
        return [Send("b", state) for _ in range(2)]


def test_sends_are_read_from_the_code_the_annotation_or_a_callable_object() -> None:
    assert makes_sends(_send_to_b)  # the return annotation
    assert makes_sends(_Router())  # a comprehension inside a callable object's __call__
    assert makes_sends(lambda s: [Send("b", s)])
    assert not makes_sends(lambda s: "b")
    assert not makes_sends(object())


def test_graph_core_topologies_have_no_notes_and_no_legend_box() -> None:
    assert static_notes(weather_agent.compiled.topology()) == ()
    assert "legend" not in to_mermaid(weather_agent)
    assert "note:" not in draw(weather_agent)


def test_a_hostile_node_key_in_a_note_stays_text() -> None:
    key = 'a<b>&"c\nd'
    graph = StateGraph(_S)
    graph.add_node(key, lambda state: {"x": 1})
    graph.add_node("b", lambda state: {"x": 2})
    graph.add_edge(START, key)
    graph.add_conditional_edges(key, lambda s: [Send("b", s)], ["b"])
    dot = to_dot(graph)
    assert 'a&lt;b&gt;&amp;"c ⏎ d fans out with Send' in dot
    mermaid = to_mermaid(graph)
    assert "a#lt;b#gt;#amp;#quot;c" in mermaid.split("legend>")[1]
    if shutil.which("dot"):  # Graphviz parses the legend's HTML label
        subprocess.run(["dot", "-Tsvg"], input=dot.encode(), capture_output=True, check=True)


def test_subgraphs_are_nested_in_every_export_and_in_the_tui() -> None:
    topology = langgraph_topology(subgraphs.nested_twice())
    gp_two = topology.node("gp_two")
    assert gp_two.kind == "Graph" and gp_two.graph is not None
    assert gp_two.graph.node("p_two").graph is not None
    assert to_networkx(topology).nodes["gp_two"]["graph"] == gp_two.graph
    nested = json.loads(to_json(topology))["topology"]["nodes"][2]["graph"]
    assert [n["key"] for n in nested["nodes"][2]["graph"]["nodes"]] == ["start", "c_one", "c_two", "end"]
    dot = to_dot(topology)
    assert "subgraph cluster_n2 {" in dot and "subgraph cluster_n2_2 {" in dot
    mermaid = to_mermaid(topology)
    assert 'subgraph n2["gp_two"]' in mermaid and 'subgraph n2_2["p_two"]' in mermaid
    expanded = draw(topology, expand_nested=True)
    assert "▾ gp_two" in expanded and "▾ p_two" in expanded and "c_two" in expanded
    pane = _pane_text(topology)
    assert "▾ gp_two" in pane and "▾ p_two" in pane and "│ c_one │" in pane


@pytest.mark.parametrize(
    ("build", "model_node"),
    [(agents.react_agent_search, "agent"), (agents.create_agent_search, "model")],
)
def test_prebuilt_agents_list_their_tools_and_model(build: Any, model_node: str) -> None:
    topology = langgraph_topology(build())
    assert [(n.key, n.kind) for n in topology.nodes] == [
        ("start", "start"),
        (model_node, "ChatModel"),
        ("tools", "ToolsNode"),
        ("end", "end"),
    ]
    (tool,) = topology.node("tools").tools
    assert (tool.name, tool.description) == ("search", "Call to surf the web.")
    assert tool.parameters["properties"] == {"query": {"type": "string"}}
    model = topology.node(model_node).model
    assert model is not None and model.class_name == "ScriptedToolModel"
    assert [(e.source, e.target) for e in topology.back_edges] == [("tools", model_node)]
    assert "search(query: string)" in to_dot(topology) and "search(query: string)" in to_mermaid(topology)


def test_create_agent_names_the_tools_it_binds_to_the_model() -> None:
    """`create_agent` binds its tools at each model call: they are the model's bound tools."""
    model = langgraph_topology(agents.create_agent_search()).node("model").model
    assert model is not None and model.tools == ("search",)


@pytest.mark.anyio
async def test_the_replay_screen_draws_a_subgraph_inside_its_node_and_the_fan_out_note(
    tmp_path: Path,
) -> None:
    path = tmp_path / "nested.jsonl"
    as_target(subgraphs.nested_graph()).invoke({"my_key": "hi"}, callbacks=[Recorder(path)])
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "▾ inner" in text and "│ up │" in text and "side" in text
    path = tmp_path / "fan_out.jsonl"
    as_target(fan_out()).invoke({"topics": ["a", "b"]}, callbacks=[Recorder(path)])
    app = make_app(path)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        assert "note plan fans out with Send (Send ×n)" in screen_text(app)
