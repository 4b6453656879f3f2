"""An agent used as a tool, recorded: the inner agent's run is kept as a nested run of the tool call.

The inner run's steps are nested steps of the outer step that ran the call (the concierge's `ToolNode`
step), under the path `ToolNode`, `<tool name>:<call id>`, each with the inner graph's own step budget
and the inner agent's own iterations left; the outer run's steps, budgets and output are what they are
without a recorder watching.
"""

from __future__ import annotations

import threading
from pathlib import Path

from fixtures.agent_tool import ANSWER, EXPERT_ANSWER, QUESTION, build_agent
from fixtures.runs import fixed_clock
from graph_core.agents.adk import ChatModelAgent
from graph_core.agents.adk_runner import AgentTool
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from inspector.cli.show import timeline
from inspector.conversation import Conversation
from inspector.recording import Recorder, read_run
from inspector.tui.node_detail import render_detail

CALL = ("ToolNode", "weather_expert:call_expert")
INNER_NODES = [
    ("Init",),
    ("ChatModel",),
    ("CancelCheck",),
    ("ToolNode",),
    ("AfterToolCalls",),
    ("AfterToolCallsCancelCheck",),
    ("ChatModel",),
]


def _record(path: Path) -> Message:
    recorder = Recorder(path, clock=fixed_clock(), run_id="agent_tool")
    return build_agent().invoke([Message.user(QUESTION)], callbacks=[recorder])


def test_the_inner_run_is_nested_under_the_step_that_ran_the_tool_call(tmp_path: Path) -> None:
    output = _record(tmp_path / "run.jsonl")
    assert output.content == ANSWER
    run = read_run(tmp_path / "run.jsonl")
    assert run.status == "ok"
    outer = [s.nodes for s in run.steps]
    assert outer == [
        ("Init",),
        ("ChatModel",),
        ("CancelCheck",),
        ("ToolNode",),
        ("AfterToolCalls",),
        ("AfterToolCallsCancelCheck",),
        ("ChatModel",),
    ]
    assert [len(s.nested) for s in run.steps] == [0, 0, 0, 7, 0, 0, 0]
    tool_step = run.steps[3]
    assert [tuple(r.path) for r in tool_step.nested] == [CALL] * 7
    assert [tuple(r.nodes) for r in tool_step.nested] == [tuple(n) for n in INNER_NODES]
    # linked to the tool call: the path's last segment names the call the outer ToolNode made
    calls = tool_step.node_run("ToolNode")
    assert calls is not None
    assert [(t.name, t.tool_call_id, t.output) for t in calls.tools] == [
        ("weather_expert", "call_expert", EXPERT_ANSWER)
    ]
    assert CALL[1] == f"{calls.tools[0].name}:{calls.tools[0].tool_call_id}"


def test_the_nested_steps_carry_their_own_budget(tmp_path: Path) -> None:
    _record(tmp_path / "run.jsonl")
    run = read_run(tmp_path / "run.jsonl")
    parts = run.steps[3].nested_parts()
    budgets = [budget for _, budget, _ in parts]
    assert [b.steps_used for b in budgets] == [1, 2, 3, 4, 5, 6, 7]  # the inner graph's own steps
    assert [b.iterations_remaining for b in budgets] == [20, 19, 19, 19, 19, 19, 18]  # the expert's
    # the run's counters go on counting the inner model and tool calls
    assert [b.model_calls for b in budgets] == [1, 2, 2, 2, 2, 2, 3]
    assert [b.tool_calls for b in budgets] == [1, 1, 1, 2, 2, 2, 2]
    # the outer steps keep the concierge's iterations, untouched by the expert's
    assert [s.budget.iterations_remaining for s in run.steps] == [20, 19, 19, 19, 19, 19, 18]
    assert run.steps[3].budget.model_calls == 3 and run.steps[-1].budget.model_calls == 4
    inner_runs = [(r.path, r.output) for _, _, runs in parts for r in runs if r.node == "ChatModel"]
    assert [path for path, _ in inner_runs] == [(*CALL, "ChatModel")] * 2
    assert inner_runs[-1][1]["content"] == EXPERT_ANSWER
    weather = [t for _, _, runs in parts for r in runs for t in r.tools]
    assert [(t.name, t.tool_call_id) for t in weather] == [("get_weather", "call_weather")]


def test_two_recordings_are_byte_identical(tmp_path: Path) -> None:
    _record(tmp_path / "a.jsonl")
    _record(tmp_path / "b.jsonl")
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_the_run_without_a_recorder_is_the_same_run() -> None:
    agent = build_agent()
    events = list(agent.run([Message.user(QUESTION)]))
    assert [e.message.content for e in events if e.message is not None][-1] == ANSWER
    assert agent.invoke([Message.user(QUESTION)]).content == ANSWER


def test_parallel_calls_of_one_agent_tool_are_two_nested_runs(tmp_path: Path) -> None:
    started = threading.Barrier(2, timeout=10)

    class Both:
        """Holds each inner run's first model call until both runs are inside it: they overlap."""

        def __init__(self) -> None:
            self.model = ScriptedChatModel([Message.assistant("ok")], cycle=True)

        def generate(self, messages: list[Message], **options: object) -> Message:
            started.wait()
            return self.model.generate(messages)

    helper = ChatModelAgent(name="helper", description="Helps.", model=Both())
    outer = ChatModelAgent(
        name="outer",
        model=ScriptedChatModel(
            [
                Message.assistant(
                    "",
                    tool_calls=[
                        ToolCall("c1", "helper", '{"request": "one"}'),
                        ToolCall("c2", "helper", '{"request": "two"}'),
                    ],
                ),
                Message.assistant("done"),
            ]
        ),
        tools=[AgentTool(helper)],
    )
    outer.invoke([Message.user("go")], callbacks=[Recorder(tmp_path / "run.jsonl")])
    run = read_run(tmp_path / "run.jsonl")
    assert run.status == "ok"
    (tool_step,) = [s for s in run.steps if s.nested]
    by_path: dict[tuple[str, ...], list[tuple[int, tuple[str, ...]]]] = {}
    for record in tool_step.nested:
        by_path.setdefault(tuple(record.path), []).append((record.index, tuple(record.nodes)))
    # a tools-less agent is a two-node chain: one step each, whole in each nested run
    assert by_path == {
        ("ToolNode", "helper:c1"): [(0, ("node_0",)), (1, ("node_1",))],
        ("ToolNode", "helper:c2"): [(0, ("node_0",)), (1, ("node_1",))],
    }
    inputs = {
        tuple(r.path): r.input for _, _, runs in tool_step.nested_parts() for r in runs if r.node == "node_0"
    }
    assert inputs == {
        ("ToolNode", "helper:c1", "node_0"): [{"role": "user", "content": "one"}],
        ("ToolNode", "helper:c2", "node_0"): [{"role": "user", "content": "two"}],
    }


def test_show_lists_the_nested_run_under_its_step(tmp_path: Path) -> None:
    _record(tmp_path / "run.jsonl")
    lines = timeline(read_run(tmp_path / "run.jsonl"))
    at = lines.index("    nested run at ToolNode › weather_expert:call_expert")
    assert lines[at - 1] == f"    tool weather_expert (call_expert): {EXPERT_ANSWER!r}"
    assert lines[at - 2].startswith("step 3  ToolNode  [steps 4/2147483647, model 3, tools 2")
    block = lines[at + 1 : lines.index(next(x for x in lines if x.startswith("step 4  ")))]
    steps = [line.strip() for line in block if line.startswith("      step ")]
    assert [s.split("  [")[0] for s in steps] == [f"step {i}  {n[0]}" for i, n in enumerate(INNER_NODES)]
    assert "steps 1/2147483647, model 1, tools 1, tokens 125, iterations left 20]" in steps[0]
    assert (
        "        tool get_weather (call_weather): 'Hangzhou: light rain, 18°C, humidity 85%, wind 3 m/s'"
        in block
    )
    assert f"        ChatModel said: assistant: {EXPERT_ANSWER}" in block
    # the inner nodes' messages are said in their nested steps, not in the outer step's own lines
    assert not any(line.startswith("    Init said: system: You are a weather expert") for line in lines)


def test_the_tui_node_detail_shows_the_nested_run_step_by_step(tmp_path: Path) -> None:
    _record(tmp_path / "run.jsonl")
    run = read_run(tmp_path / "run.jsonl")
    text = render_detail(run.steps[3], limit=None).plain
    headers = [line for line in text.splitlines() if line.startswith("▸ ")]
    assert [h.split("  ")[0:3] for h in headers] == [
        ["▸ ToolNode › weather_expert:call_expert", "step 0", "Init"],
        ["▸ ToolNode › weather_expert:call_expert", "step 1", "ChatModel"],
        ["▸ ToolNode › weather_expert:call_expert", "step 2", "CancelCheck"],
        ["▸ ToolNode › weather_expert:call_expert", "step 3", "ToolNode"],
        ["▸ ToolNode › weather_expert:call_expert", "step 4", "AfterToolCalls"],
        ["▸ ToolNode › weather_expert:call_expert", "step 5", "AfterToolCallsCancelCheck"],
        ["▸ ToolNode › weather_expert:call_expert", "step 6", "ChatModel"],
    ]
    assert headers[0].endswith("steps 1/2147483647, iterations left 20")
    assert headers[-1].endswith("steps 7/2147483647, iterations left 18")
    assert "      ToolNode  Tool  get_weather  (call_weather)" in text
    assert "ToolNode › weather_expert:call_expert › Init" not in text  # short keys under the header
    # a step without nested runs reads as before
    assert "▸" not in render_detail(run.steps[1]).plain


def test_the_outer_conversation_holds_the_tool_result_not_the_inner_run(tmp_path: Path) -> None:
    # The expert's own conversation (its prompt, its get_weather call and result) is the nested run's;
    # the concierge's reads: input, its call, the tool's result, its answer. The agent's pass-through
    # nodes (CancelCheck, AfterToolCalls, AfterToolCallsCancelCheck) say nothing of their own.
    _record(tmp_path / "run.jsonl")
    run = read_run(tmp_path / "run.jsonl")
    said = Conversation(run).at(len(run.steps) - 1)
    assert [(s.origin, s.position, s.message["role"], s.final) for s in said] == [
        ("Init", 0, "system", False),
        ("Init", 0, "user", False),
        ("ChatModel", 1, "assistant", False),
        ("ToolNode", 3, "tool", False),
        ("ChatModel", 6, "assistant", True),
    ]
    assert said[3].message["content"] == EXPERT_ANSWER
    assert said[-1].message["content"] == ANSWER
    # a window of the newest messages reads the same
    tail = Conversation(run).at(len(run.steps) - 1, last=3)
    assert [(s.origin, s.position, s.final) for s in tail] == [
        ("ChatModel", 1, False),
        ("ToolNode", 3, False),
        ("ChatModel", 6, True),
    ]


def test_show_says_a_pass_through_node_passed_the_message_on(tmp_path: Path) -> None:
    _record(tmp_path / "run.jsonl")
    lines = timeline(read_run(tmp_path / "run.jsonl"))
    call = 'assistant: -> weather_expert({"request": "Will it rain in Hangzhou tomorrow?"})'
    assert f"    ChatModel said: {call}" in lines
    assert f"    CancelCheck passed on: {call}" in lines
    assert not any("CancelCheck said:" in line for line in lines)
