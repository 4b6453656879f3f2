"""Recording real runs: the engine, the ReAct and ADK agents and the fixtures, read back with read_run."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from graph_core import END, START, Graph, TriggerMode
from graph_core.errors import InterruptError, MaxStepsExceededError
from graph_core.schema import Message
from inspector.recording import Recorder, read_run


def _clock() -> Any:
    ticks = itertools.count()
    return lambda: 1_700_000_000.0 + next(ticks) * 0.001


def test_weather_agent_round_trip(tmp_path: Path) -> None:
    from fixtures.weather import build_agent

    agent = build_agent()
    path = tmp_path / "run.jsonl"
    answer = agent.invoke([Message.user("Weather in Hangzhou?")], callbacks=[Recorder(path)])
    run = read_run(path)
    assert run.status == "ok"
    assert run.topology == agent.compiled.topology()
    assert [s.nodes for s in run.steps] == [("chat",), ("tools",), ("chat",)]
    assert [s.budget.steps_used for s in run.steps] == [1, 2, 3]
    assert all(s.budget.steps_max == 13 for s in run.steps)
    assert run.steps[-1].budget.steps_remaining == 10
    assert run.output["content"] == answer.content
    roles = [m["role"] for m in run.steps[-1].state["messages"]]
    assert roles == ["user", "assistant", "tool"]  # the final answer is not in state (Eino)
    assert run.steps[-1].budget.model_calls == 2 and run.steps[-1].budget.tool_calls == 1
    tools = run.steps[1].node_run("tools")
    assert tools is not None and [t.name for t in tools.tools] == ["get_weather"]


def test_recordings_of_the_same_run_are_byte_identical(tmp_path: Path) -> None:
    from fixtures.weather import build_agent

    for name in ("a.jsonl", "b.jsonl"):
        recorder = Recorder(tmp_path / name, clock=_clock(), run_id="fixed")
        build_agent().invoke([Message.user("Weather in Hangzhou?")], callbacks=[recorder])
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_stream_mode_is_recorded_with_concatenated_outputs(tmp_path: Path) -> None:
    from fixtures.streaming_pitfall import build_agent

    path = tmp_path / "run.jsonl"
    chunks = list(build_agent().stream([Message.user("Weather?")], callbacks=[Recorder(path)]))
    run = read_run(path)
    assert run.status == "ok" and chunks
    chat = run.steps[0].node_run("chat")
    assert chat is not None and chat.output["role"] == "assistant"
    assert chat.output["tool_calls"]  # chunks concatenated: the tool calls after the text are there


def test_runaway_agent_records_every_step_and_the_error(tmp_path: Path) -> None:
    from fixtures.runaway import build_agent

    path = tmp_path / "run.jsonl"
    with pytest.raises(MaxStepsExceededError):
        build_agent().invoke([Message.user("Go")], callbacks=[Recorder(path)])
    run = read_run(path)
    assert run.status == "error"
    assert run.error is not None and "exceeds max steps" in run.error.message
    assert len(run.steps) == 13 and run.steps[-1].budget.steps_remaining == 0


def test_adk_agent_budget_tracks_remaining_iterations(tmp_path: Path) -> None:
    from fixtures.adk import build_agent

    path = tmp_path / "run.jsonl"
    build_agent().invoke([Message.user("Weather?")], callbacks=[Recorder(path)])
    run = read_run(path)
    assert run.status == "ok"
    remaining = [s.budget.iterations_remaining for s in run.steps]
    chat_steps = [i for i, s in enumerate(run.steps) if s.nodes == ("ChatModel",)]
    assert remaining[0] is not None
    for i in chat_steps:  # each ChatModel run spends one iteration
        before, after = remaining[i - 1], remaining[i]
        assert before is not None and after == before - 1


def test_plain_graph_without_state_and_dag_budget(tmp_path: Path) -> None:
    graph = Graph()
    graph.add_lambda_node("a", lambda x: {"a": x + "a"})
    graph.add_lambda_node("b", lambda x: {"b": x + "b"})
    graph.add_lambda_node("c", lambda d: d["a"] + d["b"])
    graph.add_edge(START, "a")
    graph.add_edge(START, "b")
    graph.add_edge("a", "c")
    graph.add_edge("b", "c")
    graph.add_edge("c", END)
    compiled = graph.compile(trigger_mode=TriggerMode.ALL_PREDECESSOR)
    path = tmp_path / "run.jsonl"
    assert compiled.invoke("x", callbacks=[Recorder(path)]) == "xaxb"
    run = read_run(path)
    assert run.status == "ok" and run.output == "xaxb"
    assert all(s.state is None for s in run.steps)
    assert all(s.budget.steps_max is None and s.budget.steps_remaining is None for s in run.steps)
    assert {n for s in run.steps for n in s.nodes} == {"a", "b", "c"}
    assert run.header.trigger_mode == "AllPredecessor"


def test_secrets_in_real_state_are_masked(tmp_path: Path) -> None:
    class State(BaseModel):
        api_key: str = "sk-live-123"
        notes: list[str] = []

    def remember(x: str, state: State) -> str:
        state.notes.append(f"saw {x}")
        return x

    graph = Graph(state=State)
    graph.add_lambda_node("a", lambda x: x.upper(), pre=remember)
    graph.add_edge(START, "a")
    graph.add_edge("a", END)
    path = tmp_path / "run.jsonl"
    graph.compile().invoke("hi", callbacks=[Recorder(path)])
    text = path.read_text()
    assert "sk-live-123" not in text
    state = read_run(path).steps[0].state
    assert state == {"api_key": "[REDACTED]", "notes": ["saw hi"]}


def test_async_runs_are_recorded(tmp_path: Path) -> None:
    from fixtures.weather import build_agent

    path = tmp_path / "run.jsonl"
    asyncio.run(build_agent().ainvoke([Message.user("Weather?")], callbacks=[Recorder(path)]))
    run = read_run(path)
    assert run.status == "ok" and [s.nodes for s in run.steps] == [("chat",), ("tools",), ("chat",)]


def test_interrupt_is_recorded(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from graph_core.callbacks import RunInfo

    info = SimpleNamespace(before_nodes=["b"], after_nodes=[], rerun_nodes=[], state={"messages": []})

    path = tmp_path / "run.jsonl"
    recorder = Recorder(path, clock=_clock(), run_id="r")
    graph = RunInfo(None, "g", "Graph")
    recorder.on_start(graph, "x")
    recorder.on_error(graph, InterruptError(info, checkpoint_id="cp-1"))
    run = read_run(path)
    assert run.status == "interrupted"
    assert run.interrupt is not None and run.interrupt.before_nodes == ["b"]
    assert run.interrupt.checkpoint_id == "cp-1"


def test_recorder_reused_for_a_second_run_writes_a_fresh_file(tmp_path: Path) -> None:
    from fixtures.weather import build_agent

    path = tmp_path / "run.jsonl"
    recorder = Recorder(path)
    agent = build_agent()
    agent.invoke([Message.user("one")], callbacks=[recorder])
    agent.invoke([Message.user("two")], callbacks=[recorder])
    run = read_run(path)
    assert run.status == "ok" and len(run.steps) == 3
    assert run.steps[0].state["messages"][0]["content"] == "two"


def test_attach_takes_the_topology_from_the_target(tmp_path: Path) -> None:
    from fixtures.weather import build_agent

    agent = build_agent()
    recorder = Recorder(tmp_path / "run.jsonl").attach(agent)
    assert recorder.topology == agent.compiled.topology()


def test_nested_graph_steps_stay_inside_their_parent_step(tmp_path: Path) -> None:
    sub = Graph(state=lambda: {"n": 0})

    def count(x: str, state: dict[str, int]) -> str:
        state["n"] += 1
        return x

    sub.add_lambda_node("s1", lambda x: x + "1", pre=count)
    sub.add_lambda_node("s2", lambda x: x + "2")
    sub.add_edge(START, "s1")
    sub.add_edge("s1", "s2")
    sub.add_edge("s2", END)
    outer = Graph(state=lambda: {"seen": []})

    def note(x: str, state: dict[str, list[str]]) -> str:
        state["seen"].append(x)
        return x

    outer.add_lambda_node("a", lambda x: x + "a", pre=note)
    outer.add_graph_node("sub", sub)
    outer.add_edge(START, "a")
    outer.add_edge("a", "sub")
    outer.add_edge("sub", END)
    path = tmp_path / "run.jsonl"
    assert outer.compile().invoke("x", callbacks=[Recorder(path)]) == "xa12"
    run = read_run(path)
    assert [s.nodes for s in run.steps] == [("a",), ("sub",)]
    assert [s.budget.steps_used for s in run.steps] == [1, 2]
    assert run.steps[1].state == {"seen": ["x"]}
    inner = [(r.path, r.output) for r in run.steps[1].node_runs]
    assert inner == [(("sub",), "xa12"), (("sub", "s1"), "xa1"), (("sub", "s2"), "xa12")]
    assert run.steps[1].node_run("sub") is not None


def test_real_interrupt_and_resume_are_two_recordings(tmp_path: Path) -> None:
    from graph_core.checkpoint import InMemoryCheckpointStore

    graph = Graph(state=lambda: {"n": 0})
    graph.add_lambda_node("a", lambda x: x + "a")
    graph.add_lambda_node("b", lambda x: x + "b")
    graph.add_edge(START, "a")
    graph.add_edge("a", "b")
    graph.add_edge("b", END)
    compiled = graph.compile(interrupt_before=["b"], checkpoint_store=InMemoryCheckpointStore())
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    with pytest.raises(InterruptError):
        compiled.invoke("x", callbacks=[Recorder(first)], checkpoint_id="cp")
    run = read_run(first)
    assert run.status == "interrupted" and [s.nodes for s in run.steps] == [("a",)]
    assert run.interrupt is not None and run.interrupt.before_nodes == ["b"]
    assert compiled.invoke(None, callbacks=[Recorder(second)], checkpoint_id="cp") == "xab"
    resumed = read_run(second)
    assert resumed.status == "ok" and resumed.header.resumed_from == "cp"
    assert [(s.index, s.nodes) for s in resumed.steps] == [(0, ("b",))]
