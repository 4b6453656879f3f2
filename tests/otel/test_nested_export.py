"""Nested runs over OpenTelemetry: a subgraph's steps (two deep) and an agent tool's inner run become
spans under the span that ran them, and `show` of the exported trace prints the recording's timeline,
nested blocks included."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

import fixtures.agent_tool
from graph_core import END, START, Graph
from graph_core.schema import Message
from inspector.cli import main
from inspector.recording import Recorder, read_run
from inspector.sources import open_run
from tests.otel.receiver import attrs, otlp_receiver

EXPERT_STEPS = [
    ["Init"],
    ["ChatModel"],
    ["CancelCheck"],
    ["ToolNode"],
    ["AfterToolCalls"],
    ["AfterToolCallsCancelCheck"],
    ["ChatModel"],
]
"""The agent tool's inner run: its steps' nodes."""


def _clock() -> Any:
    ticks = itertools.count()
    return lambda: 1_700_000_000.0 + next(ticks) * 0.25


@pytest.fixture
def content(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")


def record_subgraphs(path: Path) -> Path:
    """outer: sub -> tail; sub: a -> inner -> b; inner: x (so `x` runs two deep, under `sub`'s `inner`)."""
    inner = Graph()
    inner.add_lambda_node("x", lambda text: text + "x")
    inner.add_edge(START, "x")
    inner.add_edge("x", END)
    sub = Graph()
    sub.add_lambda_node("a", lambda text: text + "a")
    sub.add_graph_node("inner", inner)
    sub.add_lambda_node("b", lambda text: text + "b")
    sub.add_edge(START, "a")
    sub.add_edge("a", "inner")
    sub.add_edge("inner", "b")
    sub.add_edge("b", END)
    outer = Graph()
    outer.add_graph_node("sub", sub)
    outer.add_lambda_node("tail", lambda text: text + "!")
    outer.add_edge(START, "sub")
    outer.add_edge("sub", "tail")
    outer.add_edge("tail", END)
    compiled = outer.compile()
    recorder = Recorder(path, topology=compiled.topology(), clock=_clock(), run_id="subgraphs")
    assert compiled.invoke("q", callbacks=[recorder]) == "qaxb!"
    recorder.close()
    return path


def record_agent_tool(path: Path) -> Path:
    agent = fixtures.agent_tool.build_agent()
    recorder = Recorder(path, topology=agent.compiled.topology(), clock=_clock(), run_id="agent-tool")
    agent.invoke([Message.user(fixtures.agent_tool.QUESTION)], callbacks=[recorder])
    recorder.close()
    return path


def _show(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["show", str(path)]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("record", [record_subgraphs, record_agent_tool])
@pytest.mark.usefixtures("content")
def test_an_exported_nested_run_shows_as_recorded(
    record: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_file = record(tmp_path / "run.jsonl")
    assert main(["export", str(run_file), "-o", str(tmp_path / "t.json")]) == 0
    capsys.readouterr()
    shown = _show(run_file, capsys)
    assert "nested run at" in shown
    assert _show(tmp_path / "t.json", capsys) == shown
    recorded, read_back = read_run(run_file), open_run(tmp_path / "t.json")
    for before, after in zip(recorded.steps, read_back.steps, strict=True):
        assert [(r.path, r.index, r.nodes, r.t, r.duration) for r in after.nested] == [
            (r.path, r.index, r.nodes, r.t, r.duration) for r in before.nested
        ]
        assert [(r.path, r.output) for r in after.node_runs] == [(r.path, r.output) for r in before.node_runs]
        assert [recorded.branches_of(r) for r in before.nested] == [
            read_back.branches_of(r) for r in after.nested
        ]


def test_nested_steps_without_content_keep_their_shape(tmp_path: Path) -> None:
    run_file = record_agent_tool(tmp_path / "run.jsonl")
    assert main(["export", str(run_file), "-o", str(tmp_path / "t.json")]) == 0
    (step,) = [s for s in open_run(tmp_path / "t.json").steps if s.nested]
    assert [(tuple(r.path), r.index, r.nodes) for r in step.nested] == [
        (("ToolNode", "weather_expert:call_expert"), i, nodes) for i, nodes in enumerate(EXPERT_STEPS)
    ]


def test_a_subgraphs_node_spans_hang_under_the_node_that_ran_them(tmp_path: Path) -> None:
    run_file = record_subgraphs(tmp_path / "run.jsonl")
    with otlp_receiver() as received:
        assert main(["export", str(run_file), "--otlp", received.url]) == 0
    spans = received.spans
    by_id = {s.span_id: s for s in spans}

    def parent(span: Any) -> tuple[str, tuple[str, ...]]:
        up = by_id[span.parent_span_id]
        return up.name, tuple(attrs(up).get("inspector.node.path", ()))

    nodes = {tuple(attrs(s)["inspector.node.path"]): s for s in spans if s.parent_span_id}
    assert sorted(nodes) == [
        ("sub",),
        ("sub", "a"),
        ("sub", "b"),
        ("sub", "inner"),
        ("sub", "inner", "x"),
        ("tail",),
    ]
    (root,) = [s for s in spans if not s.parent_span_id]
    assert [s.name for s in (nodes[("sub",)], nodes[("sub", "inner")], nodes[("sub", "a")])] == [
        "invoke_agent sub",  # a graph node is an agent node (`inspector.node.type` Graph)
        "invoke_agent inner",
        "invoke_node a",
    ]
    assert nodes[("sub",)].parent_span_id == nodes[("tail",)].parent_span_id == root.span_id
    assert parent(nodes[("sub", "a")]) == ("invoke_agent sub", ("sub",))
    assert parent(nodes[("sub", "inner")]) == ("invoke_agent sub", ("sub",))
    assert parent(nodes[("sub", "b")]) == ("invoke_agent sub", ("sub",))
    assert parent(nodes[("sub", "inner", "x")]) == ("invoke_agent inner", ("sub", "inner"))
    assert attrs(nodes[("sub", "inner", "x")])["inspector.step"] == 0
    assert attrs(nodes[("sub", "b")])["inspector.step"] == 2
    assert attrs(nodes[("sub", "b")])["inspector.node.triggered_by"] == (
        nodes[("sub", "inner")].span_id.hex(),
    )
    nested_events = [
        e for e in root.events if e.name == "inspector.step" and "inspector.step.path" in attrs(e)
    ]
    assert [(attrs(e)["inspector.step.path"], attrs(e)["inspector.step.nodes"]) for e in nested_events] == [
        (("sub",), ("a",)),
        (("sub", "inner"), ("x",)),
        (("sub",), ("inner",)),
        (("sub",), ("b",)),
    ]
    assert attrs(nested_events[1])["inspector.step.spans"] == (nodes[("sub", "inner", "x")].span_id.hex(),)


def test_an_agent_tools_run_hangs_under_its_tool_call(tmp_path: Path) -> None:
    run_file = record_agent_tool(tmp_path / "run.jsonl")
    with otlp_receiver() as received:
        assert main(["export", str(run_file), "--otlp", received.url]) == 0
    spans = received.spans
    by_id = {s.span_id: s for s in spans}
    (call,) = [s for s in spans if s.name == "execute_tool weather_expert"]
    assert attrs(call)["gen_ai.tool.call.id"] == "call_expert"
    assert by_id[call.parent_span_id].name == "invoke_node ToolNode"
    (agent,) = [s for s in spans if s.name == "invoke_agent weather_expert"]
    assert agent.parent_span_id == call.span_id
    agent_attrs = attrs(agent)
    assert agent_attrs["gen_ai.operation.name"] == "invoke_agent"
    assert agent_attrs["gen_ai.agent.name"] == "weather_expert"
    assert agent_attrs["inspector.node.path"] == ("ToolNode", "weather_expert:call_expert")
    inner = [s for s in spans if s.parent_span_id == agent.span_id]
    assert [(s.name, attrs(s)["inspector.step"]) for s in inner] == [
        ("invoke_node Init", 0),
        ("invoke_node ChatModel", 1),
        ("invoke_node CancelCheck", 2),
        ("invoke_node ToolNode", 3),
        ("invoke_node AfterToolCalls", 4),
        ("invoke_node AfterToolCallsCancelCheck", 5),
        ("invoke_node ChatModel", 6),
    ]
    assert all(
        attrs(s)["inspector.node.path"]
        == ("ToolNode", "weather_expert:call_expert", attrs(s)["inspector.node.key"])
        for s in inner
    )
    assert agent.start_time_unix_nano <= inner[0].start_time_unix_nano
    assert agent.end_time_unix_nano >= inner[-1].end_time_unix_nano
    (weather,) = [s for s in spans if s.name == "execute_tool get_weather"]
    assert by_id[weather.parent_span_id] is inner[3]
    chats = [s for s in spans if s.name.startswith("chat ")]
    assert sum(attrs(s)["gen_ai.usage.input_tokens"] for s in chats) == 460  # outer 100+160, inner 80+120
    assert [by_id[s.parent_span_id].parent_span_id for s in chats].count(agent.span_id) == 2
