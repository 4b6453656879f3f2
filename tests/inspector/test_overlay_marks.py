"""What a `--run` picture keeps from the plain one: the back edge's mark beside the run's colours, the
legend's `↩` for a tool that returns directly, and a title that names the graph and the run's file (a
LangGraph run's id is 32 hex digits, which says nothing)."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

from inspector.export import RunOverlay, to_dot
from inspector.export._overlay import BACK_EDGE
from inspector.recording import read_run
from inspector.target import load_target

RUNS = Path(__file__).resolve().parents[2] / "fixtures" / "runs"


def _edge_line(dot: str, label_word: str) -> str:
    return next(line for line in dot.splitlines() if "->" in line and label_word in line)


def test_the_back_edge_keeps_its_mark_beside_the_heat_colour() -> None:
    run = read_run(RUNS / "weather.jsonl")
    dot = to_dot(run.topology, overlay=RunOverlay.from_run(run))
    back = _edge_line(dot, "next round")
    assert f'color="#e65100:{BACK_EDGE}"' in back, "taken orange, with the back edge's red beside it"
    assert "↺ next round ×1" in back
    assert "constraint=false" in back
    assert "back edge (closes a loop" in dot  # in the legend
    forward = _edge_line(dot, "tool calls")
    assert BACK_EDGE not in forward and "↺" not in forward


def test_the_loop_that_burned_the_budget_is_still_marked_as_a_back_edge() -> None:
    run = read_run(RUNS / "runaway.jsonl")
    back = _edge_line(to_dot(run.topology, overlay=RunOverlay.from_run(run)), "next round")
    assert f":{BACK_EDGE}" in back and "↺ next round ×6 · loop that burned the budget" in back


def test_the_legend_explains_the_return_directly_mark() -> None:
    report = load_target("fixtures.report:agent").topology()
    dot = to_dot(report)
    assert "download_report" in dot and "↩" in dot
    assert "returns directly" in dot.split("legend [label=", 1)[1]
    weather = load_target("fixtures.weather:agent").topology()
    assert "returns directly" not in to_dot(weather)


def test_a_langgraph_overlay_is_titled_by_graph_and_file_not_by_its_hex_run_id(tmp_path: Path) -> None:
    hex_id = uuid.UUID(int=7).hex
    text = (RUNS / "langgraph_react.jsonl").read_text(encoding="utf-8")
    copy = tmp_path / "agent_run.jsonl"
    copy.write_text(text.replace('"run_id":"langgraph_react"', f'"run_id":"{hex_id}"', 1), encoding="utf-8")
    run = read_run(copy)
    assert run.run_id == hex_id
    overlay = RunOverlay.from_run(run)
    title = overlay.title(run.topology.name)
    assert hex_id not in title
    assert title.splitlines() == ["LangGraph", title.splitlines()[1]]
    assert re.match(r"run agent_run\.jsonl: ok, 3 steps", title.splitlines()[1])
