"""Enhanced tools: a `ToolResult` of parts becomes the tool message's `user_input_multi_content`."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator

import pytest

from graph_core import END, START, Graph
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import InterruptError
from graph_core.interrupt import get_interrupt_state, interrupt
from graph_core.multimodal import (
    MessageInputPart,
    ToolOutputPart,
    ToolResult,
    concat_input_parts,
    concat_tool_results,
)
from graph_core.schema import Message, ToolCall, concat_messages
from graph_core.tools import ToolCallError, ToolsNode, tool

PNG = "iVBORw0KGgo="  # 8 bytes of base64


@tool
def chart(city: str) -> ToolResult:
    """Draw the week's weather."""
    return ToolResult(
        [
            ToolOutputPart.of_text(f"{city}: rain all week"),
            ToolOutputPart.of_media("image", base64_data=PNG, mime_type="image/png"),
        ]
    )


@tool
def frames(city: str) -> Iterator[ToolResult]:
    """Stream the forecast."""
    yield ToolResult([ToolOutputPart.of_text(f"{city}: ")])
    yield ToolResult([ToolOutputPart.of_text("rain")])
    yield ToolResult([ToolOutputPart.of_media("image", url="https://example.com/map.png")])


def _call(name: str, call_id: str = "c1") -> Message:
    return Message.assistant("", tool_calls=[ToolCall(call_id, name, '{"city": "Hangzhou"}')])


def test_a_tool_annotated_to_return_a_tool_result_is_enhanced() -> None:
    assert chart.enhanced and frames.enhanced
    assert not tool(lambda_text).enhanced  # a text tool stays one


def lambda_text(city: str) -> str:
    return city


def test_the_parts_reach_the_tool_message() -> None:
    [message] = ToolsNode([chart]).invoke(_call("chart"))
    assert message.content == ""
    assert (message.tool_call_id, message.tool_name) == ("c1", "chart")
    text, image = message.user_input_multi_content
    assert (text.type, text.text) == ("text", "Hangzhou: rain all week")
    assert image.type == "image_url"
    assert image.image is not None
    assert (image.image.base64_data, image.image.mime_type) == (PNG, "image/png")


def test_streamed_results_concatenate_as_eino_concatenates_them() -> None:
    chunks = [m for row in ToolsNode([frames]).stream(_call("frames")) for m in row if m is not None]
    assert len(chunks) == 3
    message = concat_messages(chunks)
    assert [p.type for p in message.user_input_multi_content] == ["text", "image_url"]
    assert message.user_input_multi_content[0].text == "Hangzhou: rain"
    # invoke of a streaming enhanced tool concatenates the chunks the same way
    [whole] = ToolsNode([frames]).invoke(_call("frames"))
    assert whole.user_input_multi_content == message.user_input_multi_content


def test_async_runs_give_the_same_messages() -> None:
    node = ToolsNode([chart])

    async def run() -> tuple[list[Message], list[Message]]:
        invoked = await node.ainvoke(_call("chart"))
        streamed = [m async for row in node.astream(_call("chart")) for m in row if m is not None]
        return invoked, streamed

    invoked, streamed = asyncio.run(run())
    assert invoked[0].user_input_multi_content == streamed[0].user_input_multi_content
    assert len(invoked[0].user_input_multi_content) == 2


def test_a_media_part_without_its_media_fails_the_call() -> None:
    @tool
    def broken() -> ToolResult:
        """Forgets the image."""
        return ToolResult([ToolOutputPart(type="image")])

    with pytest.raises(ToolCallError, match="image content is nil for tool part type image"):
        ToolsNode([broken]).invoke(Message.assistant("", tool_calls=[ToolCall("c1", "broken", "{}")]))


def test_an_enhanced_tool_returning_text_is_refused() -> None:
    @tool
    def liar() -> ToolResult:
        """Says it returns parts."""
        return "text"  # type: ignore[return-value]

    with pytest.raises(ToolCallError, match="not a ToolResult"):
        ToolsNode([liar]).invoke(Message.assistant("", tool_calls=[ToolCall("c1", "liar", "{}")]))


def test_concat_tool_results_refuses_one_modality_in_two_chunks() -> None:
    image = ToolOutputPart.of_media("image", url="u")
    with pytest.raises(ValueError, match="conflicting image parts found in chunk 0 and chunk 2"):
        concat_tool_results([ToolResult([image]), None, ToolResult([image])])
    joined = concat_tool_results(
        [
            ToolResult([ToolOutputPart(type="text", text="a", extra={"k": "x"})]),
            ToolResult([]),
            ToolResult([ToolOutputPart(type="text", text="b", extra={"k": "y"})]),
        ]
    )
    assert [(p.text, p.extra) for p in joined.parts] == [("ab", {"k": "xy"})]


def test_concat_input_parts_joins_neighbouring_text_only() -> None:
    parts = [
        MessageInputPart(type="text", text="a"),
        MessageInputPart(type="text", text="b"),
        MessageInputPart.model_validate({"type": "image_url", "image": {"url": "u"}}),
        MessageInputPart(type="text", text="c"),
    ]
    assert [(p.type, p.text) for p in concat_input_parts(parts)] == [
        ("text", "ab"),
        ("image_url", ""),
        ("text", "c"),
    ]


def test_a_completed_enhanced_result_is_saved_across_an_interrupt() -> None:
    """Eino's `ExecutedEnhancedTools`: the completed call's `ToolResult` is in the interrupt info and
    reused (not rerun) on resume, through the checkpoint's codec."""
    runs: Counter[str] = Counter()

    @tool
    def counted(city: str) -> ToolResult:
        """Counts its runs."""
        runs["counted"] += 1
        return ToolResult([ToolOutputPart.of_media("image", base64_data=PNG, mime_type="image/png")])

    @tool
    def ask(city: str) -> str:
        """Interrupts once."""
        if get_interrupt_state() is None:
            interrupt("which city?", state={"asked": True})
        return "ok"

    graph = Graph()
    graph.add_tools_node("tools", ToolsNode([counted, ask]))
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    compiled = graph.compile(checkpoint_store=InMemoryCheckpointStore())
    message = Message.assistant(
        "", tool_calls=[ToolCall("c1", "counted", '{"city": "a"}'), ToolCall("c2", "ask", '{"city": "b"}')]
    )
    with pytest.raises(InterruptError) as caught:
        compiled.invoke(message, checkpoint_id="t")
    extra = caught.value.info.rerun_nodes_extra["tools"]
    assert extra["executed_tools"] == {}
    assert list(extra["executed_enhanced_tools"]) == ["c1"]
    out = compiled.invoke(None, checkpoint_id="t")
    assert runs["counted"] == 1
    assert out[0].user_input_multi_content[0].image.mime_type == "image/png"
    assert out[1].content == "ok"
