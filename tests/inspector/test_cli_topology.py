"""`inspector topology`: every format, files, the real ReAct agent, and wrong TARGETs."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from graph_core.topology import END, START
from inspector.cli import main
from inspector.export import from_json, to_json
from inspector.layout import draw
from tests.inspector.test_export_shapes import react_topology

AGENTS = textwrap.dedent(
    '''
    from graph_core.agents.react import ReActAgent
    from graph_core.models import ScriptedChatModel
    from graph_core.tools import tool


    @tool
    def get_weather(city: str) -> str:
        """Current weather in a city."""
        return "sunny"


    agent = ReActAgent(model=ScriptedChatModel([]), tools=[get_weather])


    def make_direct():
        model = ScriptedChatModel([])
        return ReActAgent(model=model, tools=[get_weather], tool_return_directly=["get_weather"])
    '''
)


@pytest.fixture
def target(tmp_path: Path) -> str:
    path = tmp_path / "agents.py"
    path.write_text(AGENTS)
    return f"{path}:agent"


def test_text_is_the_default_and_matches_the_sketch_shape(
    target: str, capsys: pytest.CaptureFixture[str], snapshot: SnapshotAssertion
) -> None:
    assert main(["topology", target]) == 0
    out = capsys.readouterr().out
    assert out == snapshot
    assert out == draw(react_topology())  # the real agent has exactly the documented shape


def test_json_of_the_real_agent_round_trips(target: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topology", target, "--format", "json"]) == 0
    out = capsys.readouterr().out
    topology = from_json(out)
    assert [n.key for n in topology.nodes] == [START, "chat", "tools", "direct_return", END]
    assert [(e.source, e.target) for e in topology.back_edges] == [("tools", "chat")]
    assert to_json(topology) == out


@pytest.mark.parametrize(("fmt", "marker"), [("dot", "digraph ReActAgent {"), ("mermaid", "flowchart TD")])
def test_text_formats(target: str, capsys: pytest.CaptureFixture[str], fmt: str, marker: str) -> None:
    assert main(["topology", target, "-f", fmt]) == 0
    assert capsys.readouterr().out.startswith(marker)


def test_output_file_and_images(target: str, tmp_path: Path) -> None:
    assert main(["topology", target, "--format", "json", "-o", str(tmp_path / "t.json")]) == 0
    assert from_json((tmp_path / "t.json").read_text()).name == "ReActAgent"
    assert main(["topology", target, "--format", "svg", "-o", str(tmp_path / "t.svg")]) == 0
    assert b"<svg" in (tmp_path / "t.svg").read_bytes()
    assert main(["topology", target, "--format", "png", "-o", str(tmp_path / "t.png")]) == 0
    assert (tmp_path / "t.png").read_bytes().startswith(b"\x89PNG")


def test_highlight_expand_and_factory_targets(target: str, capsys: pytest.CaptureFixture[str]) -> None:
    factory = target.replace(":agent", ":make_direct")
    assert main(["topology", factory, "--highlight", "tools", "--names"]) == 0
    out = capsys.readouterr().out
    assert "┃ tools (Tools) ┣" in out and "chat (ChatModel)" in out


def test_png_without_dot_is_a_one_paragraph_error(
    target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert main(["topology", target, "--format", "png", "-o", str(tmp_path / "t.png")]) == 2
    err = capsys.readouterr().err
    assert "apt-get install graphviz" in err and "Traceback" not in err
    assert not (tmp_path / "t.png").exists()
    assert main(["topology", target, "--format", "dot"]) == 0


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_module_xyz:agent", "was not found"),
        ("missing-colon", "must look like"),
        ("inspector.errors:nothing", "has no attribute"),
    ],
)
def test_wrong_target_is_one_paragraph_and_status_2(
    spec: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["topology", spec]) == 2
    captured = capsys.readouterr()
    assert message in " ".join(captured.err.split())
    assert captured.err.startswith("inspector: error:") and "Traceback" not in captured.err
    assert "\n\n" not in captured.err.strip()
    assert captured.out == ""
