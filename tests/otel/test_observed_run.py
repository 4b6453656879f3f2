"""Other tracers' plain GenAI spans as an observed run: a `chat` step per model call, one `tools` step
per round of tool calls however long the round, and the topology the steps walked, each edge once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspector.sources.observed_run import observed_lines
from inspector.sources.spans import TraceSpan

TRACE = "ab" * 16
MS = 1_000_000


def _span(span_id: str, name: str, start_ms: int, **attributes: Any) -> TraceSpan:
    """A span of 1 ms starting `start_ms` after the epoch (the root: a second long)."""
    parent, length = ("", 1000) if span_id == "root" else ("root", 1)
    return TraceSpan(TRACE, span_id, parent, name, start_ms * MS, (start_ms + length) * MS, attributes)


def _chat(span_id: str, start: int) -> TraceSpan:
    return _span(span_id, "chat m", start, **{"gen_ai.operation.name": "chat"})


def _tool(span_id: str, start: int) -> TraceSpan:
    attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": f"f{span_id}"}
    return _span(span_id, f"execute_tool f{span_id}", start, **attributes)


def _lines(spans: list[TraceSpan]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in observed_lines(spans, Path("trace.json"))]


def test_a_round_of_tool_calls_is_one_tools_step_with_every_call() -> None:
    root = _span("root", "invoke_agent a", 0, **{"gen_ai.operation.name": "invoke_agent"})
    round_ = [_tool(f"t{i}", 10 + i) for i in range(5)]
    lines = _lines([root, _chat("c1", 1), *round_, _chat("c2", 100), _tool("t9", 200)])
    steps = [line for line in lines if line["kind"] == "step"]
    assert [step["nodes"] for step in steps] == [["chat"], ["tools"], ["chat"], ["tools"]]
    assert [t["name"] for t in steps[1]["runs"][0]["tools"]] == [f"ft{i}" for i in range(5)]
    assert steps[1]["t"] == 0.01 and steps[1]["duration"] == 0.005  # the first call's start to the last's end
    assert [t["name"] for t in steps[3]["runs"][0]["tools"]] == ["ft9"]
    assert steps[-1]["budget"]["tool_calls"] == 6 and steps[-1]["budget"]["model_calls"] == 2


def test_the_observed_topology_has_each_transition_once_in_the_order_walked() -> None:
    root = _span("root", "invoke_agent a", 0, **{"gen_ai.operation.name": "invoke_agent"})
    spans = [root]
    for i in range(50):
        spans += [_chat(f"c{i}", 10 * i + 1), _tool(f"t{i}", 10 * i + 2)]
    header = _lines(spans)[0]
    edges = [(e["source"], e["target"]) for e in header["topology"]["edges"]]
    assert edges == [("start", "chat"), ("chat", "tools"), ("tools", "chat"), ("tools", "end")]
