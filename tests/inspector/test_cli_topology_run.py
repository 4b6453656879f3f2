"""`inspector topology RUN.jsonl` draws the recorded graph; `--run RUN.jsonl` draws what the run did on it
(visits, edges taken with counts, how it ended, the loop that burned the budget) in every format."""

from __future__ import annotations

import json
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from graph_core import END, START, Graph
from inspector.cli import main
from inspector.export import HEAT, RunOverlay, from_json, to_dot, to_json, to_mermaid
from inspector.layout import draw
from inspector.recording import Recorder, read_run

RUNS = Path(__file__).resolve().parents[2] / "fixtures" / "runs"
WEATHER, RUNAWAY, ADK = RUNS / "weather.jsonl", RUNS / "runaway.jsonl", RUNS / "adk.jsonl"
SVG = "{http://www.w3.org/2000/svg}"


def _out(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


# -- the recorded topology ----------------------------------------------------------------------------


def test_a_run_file_draws_its_recorded_topology_in_every_text_format(
    capsys: pytest.CaptureFixture[str],
) -> None:
    topology = read_run(WEATHER).topology
    assert topology is not None
    assert _out(capsys, "topology", str(WEATHER)) == draw(topology)
    assert _out(capsys, "topology", str(WEATHER), "-f", "json") == to_json(topology)
    assert _out(capsys, "topology", str(WEATHER), "-f", "dot") == to_dot(topology)
    assert _out(capsys, "topology", str(WEATHER), "-f", "mermaid") == to_mermaid(topology)
    assert from_json(to_json(topology)).node("tools").tools[0].name == "get_weather"


def test_a_run_file_renders_svg_and_png(tmp_path: Path) -> None:
    assert main(["topology", str(WEATHER), "-f", "svg", "-o", str(tmp_path / "g.svg")]) == 0
    ET.parse(tmp_path / "g.svg")
    assert main(["topology", str(WEATHER), "-f", "png", "-o", str(tmp_path / "g.png")]) == 0
    assert (tmp_path / "g.png").read_bytes().startswith(b"\x89PNG")


def test_a_missing_or_foreign_run_file_is_a_one_paragraph_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["topology", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such file" in " ".join(capsys.readouterr().err.split())
    other = tmp_path / "notes.txt"
    other.write_text("hello\n")
    assert main(["topology", str(other)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("inspector: error:") and "Traceback" not in err


# -- a run on its graph ---------------------------------------------------------------------------------


def test_overlay_counts_visits_and_edges_and_names_the_budget_loop() -> None:
    overlay = RunOverlay.from_run(read_run(RUNAWAY))
    assert overlay.visits == {START: 1, "chat": 7, "tools": 6}
    assert overlay.edges == {(START, "chat"): 1, ("chat", "tools"): 6, ("tools", "chat"): 6}
    assert overlay.ended_by == (("chat", "tools"),)  # the move the budget did not allow
    assert overlay.cycle == (("chat", "tools"), ("tools", "chat"))
    assert not overlay.finished
    assert "13/13 steps of budget" in overlay.summary


def test_overlay_of_a_finished_run_ends_at_end() -> None:
    overlay = RunOverlay.from_run(read_run(WEATHER))
    assert overlay.ended_by == (("chat", END),)
    assert overlay.edges[("chat", END)] == 1 and overlay.visits[END] == 1
    assert overlay.cycle == () and overlay.finished
    adk = RunOverlay.from_run(read_run(ADK))
    assert adk.ended_by == (("ToolNodeToEndConverter", END),)
    assert adk.visits["ChatModel"] == 2 and adk.edges[("AfterToolCallsCancelCheck", "ChatModel")] == 1


def _broken(value: int) -> int:
    raise RuntimeError("boom")


def test_overlay_of_a_failed_run_ends_at_the_failing_node(tmp_path: Path) -> None:
    graph = Graph()
    graph.add_lambda_node("ok", lambda x: x)
    graph.add_lambda_node("broken", _broken)
    graph.add_edge(START, "ok")
    graph.add_edge("ok", "broken")
    graph.add_edge("broken", END)
    path = tmp_path / "failed.jsonl"
    with pytest.raises(Exception, match="boom"):
        graph.compile(name="fails").invoke(1, callbacks=[Recorder(path)])
    overlay = RunOverlay.from_run(read_run(path))
    assert overlay.ended_by == (("ok", "broken"),)
    assert overlay.visits == {START: 1, "ok": 1, "broken": 1}
    assert "error" in overlay.summary and "stopped at ok -> broken" in overlay.summary


def test_text_overlay_shows_counts_the_loop_and_the_ending(capsys: pytest.CaptureFixture[str]) -> None:
    out = _out(capsys, "topology", "fixtures.runaway:agent", "--run", str(RUNAWAY))
    assert "║ chat ×7 ║" in out.replace("╟", "║") and "tools ×6" in out
    assert "tool calls ×6 ■" in out  # the ending edge, where it was drawn
    assert "loop that burned the budget: chat -> tools -> chat" in out
    assert "■ marks how the run ended: chat -> tools" in out
    assert "ran out in the cycle chat -> tools -> chat after 6 rounds" in out
    assert "━ taken" in out and "╔═╗ ran" in out


def test_svg_overlay_is_a_heat_map(tmp_path: Path) -> None:
    svg = tmp_path / "run.svg"
    assert main(["topology", str(RUNAWAY), "--run", str(RUNAWAY), "-f", "svg", "-o", str(svg)]) == 0
    root = ET.parse(svg).getroot()
    fills: dict[str, str] = {}
    for group in root.iter(f"{SVG}g"):
        if group.get("class") == "node":
            text = " ".join(t.text or "" for t in group.iter(f"{SVG}text"))
            shapes = [e for e in group.iter() if e.tag in (f"{SVG}path", f"{SVG}polygon", f"{SVG}ellipse")]
            shape = shapes[0] if shapes else None
            if shape is not None:
                fills[text] = shape.get("fill") or ""
    chat = next(k for k in fills if k.startswith("chat"))
    tools = next(k for k in fills if k.startswith("tools"))
    direct = next(k for k in fills if k.startswith("direct_return"))
    assert "ran 7×" in chat and "ran 6×" in tools and "not run" in direct
    assert fills[chat] == HEAT[-1]  # the most visited node is the hottest
    assert fills[tools] in HEAT[1:-1]
    assert fills[direct] == "#f5f5f5"
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert any("loop that burned the budget" in t for t in texts)
    assert any("the run stopped here" in t for t in texts)
    assert any("run runaway.jsonl: error, 13 steps" in t for t in texts)


def test_png_overlay_renders(tmp_path: Path) -> None:
    png = tmp_path / "run.png"
    assert (
        main(["topology", "fixtures.runaway:agent", "--run", str(RUNAWAY), "-f", "png", "-o", str(png)]) == 0
    )
    data = png.read_bytes()
    width, height = struct.unpack(">II", data[16:24])
    assert data.startswith(b"\x89PNG") and width > 800 and height > 800


def test_json_and_mermaid_and_dot_overlays(capsys: pytest.CaptureFixture[str]) -> None:
    document = json.loads(_out(capsys, "topology", str(WEATHER), "--run", str(WEATHER), "-f", "json"))
    assert document["run"]["visits"] == {"chat": 2, "end": 1, "start": 1, "tools": 1}
    assert {"source": "chat", "target": "end", "count": 1} in document["run"]["edges"]
    assert document["run"]["ended_by"] == [{"source": "chat", "target": "end"}]
    assert from_json(json.dumps(document)).name == "ReActAgent"  # still a topology document
    mermaid = _out(capsys, "topology", str(WEATHER), "--run", str(WEATHER), "-f", "mermaid")
    assert '"chat<br/>(ChatModel)<br/>ScriptedChatModel<br/>ran 2×"' in mermaid
    assert '-.->|"final answer ×1"|' in mermaid
    assert "linkStyle" in mermaid and "style n3 fill:#f5f5f5" in mermaid
    dot = _out(capsys, "topology", str(WEATHER), "--run", str(WEATHER), "-f", "dot")
    assert "final answer ×1 · ended the run" in dot


def test_a_run_of_another_graph_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topology", "fixtures.weather:agent", "--run", str(ADK)]) == 2
    err = capsys.readouterr().err
    assert "does not fit the graph" in err and "`ChatModel`" in err and "Traceback" not in err
