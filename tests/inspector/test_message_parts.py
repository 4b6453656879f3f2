"""Multi-part content in recordings: kept by the run file, read as short labels by `show` and the TUI."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.message_parts import media_label, parts_of, tool_result_parts, with_media_labels
from inspector.recording import read_run
from inspector.recording.model import NodeRun
from inspector.tui.messages_pane import render_messages
from inspector.tui.node_detail import _node_run  # pyright: ignore[reportPrivateUsage]

AGENT = '''
from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.multimodal import ToolOutputPart, ToolResult
from graph_core.schema import Message, ToolCall
from graph_core.tools import tool

PNG = "{png}"


@tool
def chart(city: str) -> ToolResult:
    """Draw the week's weather."""
    return ToolResult([
        ToolOutputPart.of_text(city + ": rain"),
        ToolOutputPart.of_media("image", base64_data=PNG, mime_type="image/png"),
    ])


def agent():
    model = ScriptedChatModel([
        Message.assistant(tool_calls=[ToolCall("call_1", "chart", '{{"city": "Hangzhou"}}')]),
        Message.assistant("Take an umbrella."),
    ])
    return ReActAgent(model, tools=[chart])
'''


@pytest.mark.parametrize(
    ("size", "shown"),
    [(8, "[image: image/png, 8 bytes]"), (20_000, "[image: image/png, ~20001 bytes]")],
    ids=["whole", "cut-short-by-max-str"],
)
def test_record_then_show_reads_an_image_part_as_a_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], size: int, shown: str
) -> None:
    png = base64.b64encode(b"\x89PNG" + b"x" * (size - 4)).decode()
    (tmp_path / "agent.py").write_text(AGENT.format(png=png), encoding="utf-8")
    run_file = tmp_path / "run.jsonl"
    assert (
        main(["record", f"{tmp_path / 'agent.py'}:agent", "--input", "weather?", "-o", str(run_file), "-q"])
        == 0
    )

    run = read_run(run_file)  # the run file keeps the parts
    [tools] = [r for s in run.steps for r in s.node_runs if r.node == "tools"]
    [message] = tools.output
    assert message.get("content", "") == ""
    text, image = message["user_input_multi_content"]
    assert text == {"type": "text", "text": "Hangzhou: rain"}
    assert image["type"] == "image_url"
    assert image["image"]["mime_type"] == "image/png"

    capsys.readouterr()
    assert main(["show", str(run_file)]) == 0
    out = capsys.readouterr().out
    assert f"tool: Hangzhou: rain {shown}" in out  # the conversation
    assert f"tool chart (call_1): Hangzhou: rain {shown}" in out  # the tool's own result
    assert png[:40] not in out, "base64 is never printed"


def test_the_messages_pane_shows_parts_as_labels() -> None:
    message = {
        "role": "tool",
        "tool_call_id": "c1",
        "tool_name": "chart",
        "user_input_multi_content": [
            {"type": "text", "text": "rain"},
            {
                "type": "image_url",
                "image": {"base64_data": {"$truncated": "str", "length": 40, "preview": "iVBOR"}},
            },
        ],
    }
    text = render_messages([message]).plain
    assert "rain" in text
    assert "[image: ~30 bytes]" in text
    assert "iVBOR" not in text


def test_media_labels() -> None:
    assert media_label("image", {"base64_data": "iVBORw0KGgo=", "mime_type": "image/png"}) == (
        "[image: image/png, 8 bytes]"
    )
    assert media_label("audio", {"url": "https://example.com/a.wav"}) == "[audio: https://example.com/a.wav]"
    assert media_label("image", {"url": "data:image/gif;base64,R0lGODlh"}) == "[image: image/gif, 6 bytes]"
    assert media_label("file", {"name": "report.pdf", "base64_data": "", "mime_type": "application/pdf"}) == (
        "[file: report.pdf, application/pdf, 0 bytes]"
    )
    long_url = "https://example.com/" + "x" * 100
    assert media_label("video", {"url": long_url}) == f"[video: {long_url[:57]}...]"
    assert media_label("image", None) == "[image]"


def test_parts_of_messages_and_tool_results() -> None:
    assert parts_of({"role": "user", "content": "hi"}) == []
    assert parts_of(
        {"role": "tool", "user_input_multi_content": [{"type": "text", "text": "a"}, "junk"]}
    ) == ["a"]
    assert tool_result_parts({"parts": [{"type": "file", "file": {"url": "u"}}]}) == ["[file: u]"]
    assert tool_result_parts({"parts": [], "other": 1}) is None


def test_node_detail_shows_media_as_labels() -> None:
    """The TUI's node detail (a node run's input and output) never shows the base64 either."""
    png = base64.b64encode(b"x" * 300).decode()
    image = {"type": "image_url", "image": {"base64_data": png, "mime_type": "image/png"}}
    output = [{"role": "tool", "tool_call_id": "c1", "user_input_multi_content": [image]}]
    labelled = with_media_labels(output)
    assert labelled[0]["user_input_multi_content"][0]["image"] == "[image: image/png, 300 bytes]"
    assert output[0]["user_input_multi_content"][0]["image"]["base64_data"] == png  # not changed in place
    result = {"parts": [{"type": "image", "image": {"url": "https://example.com/a.png"}}]}
    assert with_media_labels(result)["parts"][0]["image"] == "[image: https://example.com/a.png]"
    plain = [{"role": "user", "content": "hi"}]
    assert with_media_labels(plain) is plain  # nothing to label: the value itself
    run = NodeRun(node="tools", path=("tools",), output=output, finished=1.0)
    text = _node_run(run, limit=400).plain  # pyright: ignore[reportPrivateUsage]
    assert "[image: image/png, 300 bytes]" in text and png[:40] not in text
