"""Run format v2 guarantees: size, byte stability with parallel tools, whole steps only, `$` keys, search."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from graph_core import END, START, Graph
from graph_core.agents.react import ReActAgent
from graph_core.callbacks import Budget, RunInfo, StepInfo
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from graph_core.tools import tool
from inspector.recording import Recorder, read_run
from inspector.recording.encode import escape_key, unescape_key
from inspector.recording.synthetic import react_topology, simulate_react
from inspector.replay import Replay


def _constant_clock() -> float:
    return 1_767_225_600.0


@tool
def lookup(n: int) -> str:
    """An instant tool with a realistic-size answer."""
    return f"result {n}: " + "lorem ipsum dolor sit amet " * 8


def test_a_200_round_react_file_stays_within_3x_the_final_state(tmp_path: Path) -> None:
    rounds = 200
    script = [
        Message.assistant(f"Looking up item {i}.", tool_calls=[ToolCall(f"c{i}", "lookup", f'{{"n": {i}}}')])
        for i in range(rounds)
    ]
    agent = ReActAgent(
        ScriptedChatModel([*script, Message.assistant("done")]), tools=[lookup], max_step=2 * rounds + 1
    )
    path = tmp_path / "run.jsonl"
    agent.invoke([Message.user("go")], callbacks=[Recorder(path)])
    run = read_run(path)
    assert run.status == "ok" and len(run.steps) == 2 * rounds + 1
    final = len(json.dumps(run.steps[-1].state, separators=(",", ":"), ensure_ascii=False).encode())
    ratio = path.stat().st_size / final
    assert ratio < 3.0, f"file is {ratio:.2f}x the final state"
    tools_step = run.steps[-2]
    (call,) = tools_step.node_runs[0].tools
    assert (call.name, call.input) == ("lookup", '{"n": 199}')  # derived from the call, not stored twice
    assert call.output == lookup.invoke('{"n": 199}')


def test_growth_is_linear_not_quadratic(tmp_path: Path) -> None:
    sizes = []
    for rounds in (100, 400):
        path = tmp_path / f"r{rounds}.jsonl"
        simulate_react(Recorder(path, topology=react_topology(2 * rounds + 1), clock=_constant_clock), rounds)
        sizes.append(path.stat().st_size)
    assert sizes[1] < 4.4 * sizes[0]


def _parallel_agent(slow_first: bool) -> ReActAgent:
    """Two tool calls in one round; which finishes first is decided by `slow_first`."""
    gate = threading.Event()

    @tool
    def first(city: str) -> str:
        """First tool."""
        if slow_first:
            gate.wait(1.0)
        else:
            gate.set()
        return f"first {city}"

    @tool
    def second(city: str) -> str:
        """Second tool."""
        if slow_first:
            gate.set()
        else:
            gate.wait(1.0)
        return f"second {city}"

    calls = [ToolCall("a", "first", '{"city": "Paris"}'), ToolCall("b", "second", '{"city": "Berlin"}')]
    model = ScriptedChatModel([Message.assistant("", tool_calls=calls), Message.assistant("both done")])
    return ReActAgent(model, tools=[first, second])


def test_parallel_tool_calls_are_written_in_call_order_whatever_finishes_first(tmp_path: Path) -> None:
    files = []
    for slow_first in (True, False):
        path = tmp_path / f"slow_first_{slow_first}.jsonl"
        recorder = Recorder(path, clock=_constant_clock, run_id="r")
        _parallel_agent(slow_first).invoke([Message.user("go")], callbacks=[recorder])
        files.append(path.read_bytes())
    assert files[0] == files[1]
    run = read_run(tmp_path / "slow_first_True.jsonl")
    tools = run.steps[1].node_run("tools")
    assert tools is not None
    assert [(t.tool_call_id, t.output) for t in tools.tools] == [("a", "first Paris"), ("b", "second Berlin")]


def test_the_file_holds_whole_steps_only_between_boundaries(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    recorder = Recorder(path, topology=react_topology(), clock=_constant_clock, run_id="r")
    graph = RunInfo(None, "ReActAgent", "Graph")
    recorder.on_start(graph, [Message.user("hi")])
    node = RunInfo("chat", "ChatModel", "ChatModel", ("chat",), 0)
    recorder.on_step_start(StepInfo(0, ("chat",), Budget.of(0, 13)))
    recorder.on_start(node, [Message.user("hi")])
    recorder.on_end(node, Message.assistant("hello"))
    recorder.on_step_end(StepInfo(0, ("chat",), Budget.of(1, 13), next_nodes=("tools",)))
    after_step = path.read_bytes()
    recorder.on_step_start(StepInfo(1, ("tools",), Budget.of(1, 13)))
    recorder.on_start(RunInfo("tools", "Tools", "ToolsNode", ("tools",), 1), Message.assistant("x"))
    assert path.read_bytes() == after_step  # a process killed now leaves step 0, complete, and nothing else
    recorder.close()
    run = read_run(path)
    assert run.status == "incomplete" and len(run.steps) == 1
    assert run.steps[0].next_nodes == ("tools",)
    assert run.steps[0].node_runs[0].output == {"role": "assistant", "content": "hello"}


def test_a_failed_run_records_its_unfinished_step(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    simulate_react(Recorder(path, clock=_constant_clock, run_id="r"), 3, tool_error_round=1)
    run = read_run(path)
    unfinished = run.unfinished
    assert unfinished is not None and unfinished.nodes == ("tools",) and unfinished.index == 3
    assert unfinished.failed_nodes and unfinished.budget_before.steps_used == 3


HOSTILE = {"$ref": 3, "$refs": [[0, 1]], "$$": "two", "$type": "x", "$repr": {"$truncated": "no"}, "$": 1}


def test_dollar_keys_round_trip_without_being_taken_for_markers(tmp_path: Path) -> None:
    assert [unescape_key(escape_key(k)) for k in HOSTILE] == list(HOSTILE)
    g = Graph(state=lambda: {"data": {}})

    def keep(value: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
        state["data"] = value
        return value

    g.add_lambda_node("n", lambda x: {**x, "nested": [dict(HOSTILE)]}, pre=keep)
    g.add_edge(START, "n")
    g.add_edge("n", END)
    path = tmp_path / "run.jsonl"
    out = g.compile().invoke(dict(HOSTILE), callbacks=[Recorder(path, clock=_constant_clock)])
    run = read_run(path)
    assert run.output == json.loads(json.dumps(out))
    assert run.steps[0].state == {"data": HOSTILE}
    node = run.steps[0].node_run("n")
    assert node is not None and node.input == HOSTILE and node.output == {**HOSTILE, "nested": [HOSTILE]}
    assert '"$$ref"' in path.read_text() and '"$$$"' in path.read_text()


def _long_run(path: Path, rounds: int) -> None:
    recorder = Recorder(path, topology=react_topology(2 * rounds + 1), clock=_constant_clock, run_id="r")
    simulate_react(recorder, rounds)


def test_find_next_and_prev_stop_at_the_nearest_hit(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    _long_run(path, 30)
    replay = Replay(read_run(path))
    hits = replay.search("tools")
    assert hits and all(h % 2 == 1 for h in hits)
    assert replay.find_next("tools") == hits[0]
    assert replay.find_next("TOOLS", start=hits[3]) == hits[4]
    assert replay.find_prev("tools", start=hits[3]) == hits[2]
    assert replay.find_prev("tools", start=0) is None
    assert replay.find_next("no such text anywhere") is None
    assert replay.find_next('with "quotes"') is None  # not pre-filtered, still answered


def test_search_skips_steps_whose_lines_cannot_match(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    _long_run(path, 200)
    run = read_run(path)
    candidates = run.text_candidates("no such text anywhere")
    assert candidates is not None and not candidates.steps and candidates.first_value is None
    assert not any(i in candidates for i in range(len(run.steps)))
    replay = Replay(run)
    replay.go(100)
    found = replay.find_next("checking the weather")  # a message text: found through its value line
    assert found is not None and found > 100
    assert found in replay.search("checking the weather")
