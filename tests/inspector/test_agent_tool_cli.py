"""An agent used as a tool, from the command line: `record`, `show`, `topology`, `diff` and `replay`.

The recording keeps the inner agent's run as a nested run of its tool call; `show` lists it under the
step that ran the call; the topology draws the inner agent's graph nested in the outer `ToolNode` in
every format; two recordings of the same run are equivalent; the replay debugger opens the nested run
with `o` (driven in a real terminal, tmux, as a person would).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fixtures.agent_tool import QUESTION, build_agent, build_expert
from inspector.cli import main
from inspector.recording import read_run
from tests.terminal import EXITED, open_terminal

ROOT = Path(__file__).resolve().parents[2]
TARGET = "fixtures.agent_tool:agent"


def _record(path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "record", TARGET, "--input", QUESTION, "-o", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert "recorded 7 steps" in done.stdout + done.stderr


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("agent_tool")
    a, b = folder / "a.jsonl", folder / "b.jsonl"
    _record(a)
    _record(b)
    return a, b


def _tool_node(document: dict[str, Any]) -> dict[str, Any]:
    return next(n for n in document["topology"]["nodes"] if n["key"] == "ToolNode")


def test_record_keeps_the_inner_run_and_show_lists_it(
    recorded: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    run = read_run(recorded[0])
    assert [tuple(r.path) for r in run.steps[3].nested] == [("ToolNode", "weather_expert:call_expert")] * 7
    assert main(["show", str(recorded[0])]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("    nested run at ToolNode › weather_expert:call_expert")
    assert lines[at + 1].startswith("      step 0  Init  [steps 1/2147483647, model 1, tools 1")
    assert (
        "        tool get_weather (call_weather): 'Hangzhou: light rain, 18°C, humidity 85%, wind 3 m/s'"
        in lines
    )
    assert any(
        line.startswith("      step 6  ChatModel  [") and "iterations left 18" in line for line in lines
    )


def test_topology_json_nests_the_inner_agent_under_the_tool(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topology", TARGET, "-f", "json"]) == 0
    tool_node = _tool_node(json.loads(capsys.readouterr().out))
    assert [t["name"] for t in tool_node["tools"]] == ["weather_expert"]
    tools = tool_node["graph"]
    assert [(n["key"], n["kind"]) for n in tools["nodes"]] == [
        ("start", "start"),
        ("weather_expert", "Agent"),
        ("end", "end"),
    ]
    expert = tools["nodes"][1]["graph"]
    assert expert == build_expert().compiled.topology().model_dump(mode="json")
    assert [(e["source"], e["target"], e["kind"]) for e in tools["edges"]] == [
        ("start", "weather_expert", "branch"),
        ("weather_expert", "end", "edge"),
    ]


def test_a_recordings_topology_is_the_targets(
    recorded: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["topology", TARGET, "-f", "json"]) == 0
    from_target = capsys.readouterr().out
    assert main(["topology", str(recorded[0]), "-f", "json"]) == 0
    assert capsys.readouterr().out == from_target


def test_mermaid_dot_and_the_terminal_draw_the_inner_agent_inside_the_tools_node(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["topology", TARGET, "-f", "mermaid"]) == 0
    mermaid = capsys.readouterr().out.splitlines()
    tools = mermaid.index('    subgraph n4["ToolNode"]')
    expert = mermaid.index('        subgraph n4_1["weather_expert"]')
    assert tools < expert < mermaid.index("        end", expert) < mermaid.index("    end", tools)
    assert '            n4_1_4[["ToolNode<br/>get_weather(city: string)"]]' in mermaid
    assert main(["topology", TARGET, "-f", "dot"]) == 0
    dot = capsys.readouterr().out
    assert "subgraph cluster_n4 {" in dot and "subgraph cluster_n4_1 {" in dot
    assert main(["topology", TARGET, "--expand"]) == 0
    text = capsys.readouterr().out
    assert "▾ ToolNode" in text and "▾ weather_expert" in text
    assert main(["topology", TARGET]) == 0
    assert "▸ ToolNode" in capsys.readouterr().out  # collapsed unless --expand


def test_two_recordings_are_equivalent(
    recorded: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", str(recorded[0]), str(recorded[1])]) == 0
    assert "result: equivalent" in capsys.readouterr().out


def test_the_topology_snapshot_holds_the_nested_agent(topology_snapshot: Any) -> None:
    assert topology_snapshot == build_agent()


def test_replay_opens_the_nested_run_in_a_terminal(recorded: tuple[Path, Path]) -> None:
    with open_terminal("agent-tool-nested") as terminal:
        terminal.start("-m", "inspector", "replay", str(recorded[0]), "--step", "3", width=160, height=50)
        terminal.wait_for("step 3 of 7")
        terminal.keys("o")
        terminal.wait_for("▸ nested run at ToolNode › weather_expert:call_expert")
        screen = terminal.wait_for("║ CancelCheck ║")  # the inner graph, its nodes drawn as ran
        assert "7 steps  graph weather_expert" in screen
        assert "step 3: 1 nested run" in screen
        terminal.keys("Escape")
        terminal.wait_gone("nested run at")
        terminal.wait_for("─ graph ─")
        terminal.keys("n", "o")
        terminal.wait_for("no nested runs in this step")
        terminal.keys("q")
        terminal.wait_for(f"{EXITED} 0")
