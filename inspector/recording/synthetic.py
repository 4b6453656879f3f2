"""Drive a `Recorder` with the callbacks a ReAct run would produce, without running an engine.

Used by tests (exact control over every event) and by the recording benchmark (generating very long
runs quickly). It mirrors what the engine reports for Eino's flow ReAct agent: graph `on_start`, then
per superstep `on_step_start`, node (and per-tool) callbacks, `on_step_end` with branch decisions and
the live state; `chat` and `tools` alternate until the model answers without tool calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graph_core.callbacks import BranchDecision, Budget, RunInfo, StepInfo
from graph_core.errors import MaxStepsExceededError
from graph_core.schema import Message, TokenUsage, ToolCall
from graph_core.topology import END, START, TopologyEdge, TopologyNode, build_topology

__all__ = ["ReactState", "react_topology", "simulate_react"]


@dataclass
class ReactState:
    """The flow ReAct agent's state, as the engine keeps it."""

    messages: list[Message] = field(default_factory=lambda: [])
    return_directly_tool_call_id: str = ""


def react_topology(max_run_steps: int = 13) -> Any:
    nodes = [
        TopologyNode(key="chat", name="ChatModel", kind="ChatModel", has_pre_handler=True),
        TopologyNode(key="tools", name="Tools", kind="ToolsNode", has_pre_handler=True),
        TopologyNode(key="direct_return", kind="Lambda"),
    ]
    edges = [
        TopologyEdge(source=START, target="chat"),
        TopologyEdge(source="chat", target="tools", kind="branch", branch_index=0, branch_kind="stream"),
        TopologyEdge(source="chat", target=END, kind="branch", branch_index=0, branch_kind="stream"),
        TopologyEdge(source="tools", target="chat", kind="branch", branch_index=0, branch_kind="stream"),
        TopologyEdge(
            source="tools", target="direct_return", kind="branch", branch_index=0, branch_kind="stream"
        ),
        TopologyEdge(source="direct_return", target=END),
    ]
    return build_topology(
        name="ReActAgent", nodes=nodes, edges=edges, max_run_steps=max_run_steps, has_state=True
    )


def simulate_react(
    recorder: Any,
    rounds: int,
    *,
    max_steps: int | None = None,
    usage: bool = True,
    content: str = "checking the weather",
    final_tool_calls: bool = False,
    tool_error_round: int | None = None,
) -> Any:
    """Feed `recorder` a flow-ReAct run of `rounds` tool rounds and a final answer; return the output.

    `max_steps` (default `2 * rounds + 1`) below what the run needs ends it with `MaxStepsExceededError`
    as the engine would. `final_tool_calls` makes the final answer carry tool calls that never run (text
    first: the first-chunk checker pitfall). `tool_error_round` makes that round's tool fail the run.
    """
    steps_max = 2 * rounds + 1 if max_steps is None else max_steps
    state = ReactState()
    graph = RunInfo(node_key=None, name="ReActAgent", kind="Graph", graph_name="ReActAgent")
    question = [Message.user("What is the weather in Paris?")]
    recorder.on_start(graph, question)
    chat_input: list[Message] = question
    step = 0
    for k in range(rounds + 1):
        final = k == rounds
        # chat step
        if step >= steps_max:
            recorder.on_error(graph, MaxStepsExceededError(steps_max))
            return None
        recorder.on_step_start(StepInfo(index=step, nodes=("chat",), budget=Budget.of(step, steps_max)))
        state.messages.extend(chat_input)
        info = RunInfo(node_key="chat", name="ChatModel", kind="ChatModel", path=("chat",), step=step)
        recorder.on_start(info, state.messages)
        calls = [] if final else [ToolCall(f"call_{k}", "get_weather", f'{{"city": "Paris", "n": {k}}}')]
        if final and final_tool_calls:
            calls = [ToolCall("call_late", "get_weather", '{"city": "Lyon"}')]
        text = "It is sunny in Paris." if final else content
        answer = Message.assistant(text if final or k % 2 else "", tool_calls=calls)
        if usage:
            answer.usage = TokenUsage(
                prompt_tokens=10 * (k + 1), completion_tokens=5, total_tokens=10 * (k + 1) + 5
            )
        recorder.on_end(info, answer)
        goes_to_tools = not final
        chosen, skipped = (("tools",), (END,)) if goes_to_tools else ((END,), ("tools",))
        recorder.on_step_end(
            StepInfo(
                index=step,
                nodes=("chat",),
                budget=Budget.of(step + 1, steps_max),
                state=state,
                branches=(BranchDecision("chat", 0, chosen, skipped),),
                next_nodes=("tools",) if goes_to_tools else (),
                ended=not goes_to_tools,
            )
        )
        step += 1
        if final:
            recorder.on_end(graph, answer)
            return answer
        # tools step
        if step >= steps_max:
            recorder.on_error(graph, MaxStepsExceededError(steps_max))
            return None
        recorder.on_step_start(StepInfo(index=step, nodes=("tools",), budget=Budget.of(step, steps_max)))
        state.messages.append(answer)
        info = RunInfo(node_key="tools", name="Tools", kind="ToolsNode", path=("tools",), step=step)
        recorder.on_start(info, answer)
        tool = RunInfo(
            node_key="tools",
            name="get_weather",
            kind="Tool",
            path=("tools",),
            step=step,
            tool_call_id=f"call_{k}",
        )
        recorder.on_start(tool, calls[0].arguments)
        if tool_error_round == k:
            error = RuntimeError("weather service unavailable")
            recorder.on_error(tool, error)
            recorder.on_error(info, error)
            from graph_core.errors import NodeRunError

            failure = NodeRunError(error, ["tools"])
            failure.__cause__ = error
            recorder.on_error(graph, failure)
            return None
        result = Message.tool(f"sunny, {20 + k} C", tool_call_id=f"call_{k}", tool_name="get_weather")
        recorder.on_end(tool, result.content)
        recorder.on_end(info, [result])
        recorder.on_step_end(
            StepInfo(
                index=step,
                nodes=("tools",),
                budget=Budget.of(step + 1, steps_max),
                state=state,
                branches=(BranchDecision("tools", 0, ("chat",), ("direct_return",)),),
                next_nodes=("chat",),
            )
        )
        step += 1
        chat_input = [result]
    return None
