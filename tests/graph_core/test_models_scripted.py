"""ScriptedChatModel: script entries, chunked streaming, shared bound copies, exhaustion, cycling."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from graph_core.errors import GraphError
from graph_core.models import ChatModel, ScriptedChatModel, ScriptExhaustedError
from graph_core.models.scripted import KEEP_CALLS
from graph_core.schema import Message, TokenUsage, ToolCall, ToolInfo

USER = [Message.user("hi")]


def test_message_entries_are_returned_whole_and_streamed_as_one_chunk() -> None:
    answer = Message.assistant(
        "hello", usage=TokenUsage(prompt_tokens=3, completion_tokens=1, total_tokens=4)
    )
    model = ScriptedChatModel([answer, answer])
    got = model.generate(USER)
    assert got == answer and got is not answer  # a copy: state never aliases the script
    assert got.usage is not None and got.usage.total_tokens == 4
    assert list(model.stream(USER)) == [answer]


def test_chunk_lists_stream_chunk_by_chunk_and_concatenate_for_generate() -> None:
    chunks = [
        Message.assistant("Let me check. "),
        Message.assistant(tool_calls=[ToolCall("c1", "get_weather", '{"city":', index=0)]),
        Message.assistant(tool_calls=[ToolCall("", "", ' "Paris"}', index=0)], finish_reason="tool_calls"),
    ]
    model = ScriptedChatModel([chunks, chunks])
    assert list(model.stream(USER)) == chunks
    whole = model.generate(USER)
    assert whole.content == "Let me check. "
    assert [(c.id, c.name, c.arguments) for c in whole.tool_calls] == [
        ("c1", "get_weather", '{"city": "Paris"}')
    ]
    assert whole.finish_reason == "tool_calls"


def test_exception_entries_are_raised_and_consume_their_slot() -> None:
    model = ScriptedChatModel([TimeoutError("slow"), Message.assistant("ok")])
    with pytest.raises(TimeoutError, match="slow"):
        model.stream(USER)  # raised at call time, before any chunk is read
    assert model.generate(USER).content == "ok"


def test_calls_record_the_messages_received() -> None:
    model = ScriptedChatModel([Message.assistant("a"), Message.assistant("b")])
    model.generate(USER)
    model.stream([*USER, Message.assistant("a"), Message.user("more")])
    assert model.calls == [USER, [*USER, Message.assistant("a"), Message.user("more")]]


def test_running_past_the_end_is_a_clear_error() -> None:
    model = ScriptedChatModel([Message.assistant("only")])
    model.generate(USER)
    with pytest.raises(ScriptExhaustedError, match="call #2 but the script has only 1 entry") as caught:
        model.generate(USER)
    assert isinstance(caught.value, GraphError)
    assert model.remaining == 0


def test_with_tools_returns_a_copy_sharing_position_and_calls() -> None:
    model = ScriptedChatModel([Message.assistant("1"), Message.assistant("2"), Message.assistant("3")])
    info = ToolInfo("t", "a tool")
    bound = model.with_tools([info])
    assert bound is not model
    assert bound.tools == (info,) and model.tools == ()
    assert model.generate(USER).content == "1"
    assert bound.generate(USER).content == "2"
    assert model.generate(USER).content == "3"
    assert bound.calls is model.calls and len(model.calls) == 3
    assert isinstance(model, ChatModel) and isinstance(bound, ChatModel)


def test_cycle_and_reset() -> None:
    model = ScriptedChatModel([Message.assistant("a"), Message.assistant("b")], cycle=True)
    assert [model.generate(USER).content for _ in range(5)] == ["a", "b", "a", "b", "a"]
    assert model.remaining is None
    model.reset()
    assert model.position == 0 and model.calls == []
    assert model.generate(USER).content == "a"


def test_async_surfaces() -> None:
    chunks = [Message.assistant("a"), Message.assistant("b")]
    model = ScriptedChatModel([chunks, chunks])

    async def run() -> tuple[Message, list[Message]]:
        return await model.agenerate(USER), [c async for c in model.astream(USER)]

    whole, streamed = asyncio.run(run())
    assert whole.content == "ab"
    assert streamed == chunks


def test_script_entries_are_validated() -> None:
    with pytest.raises(TypeError, match="script entry 1 is a str"):
        ScriptedChatModel([Message.assistant("a"), "oops"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="script entry 0 is an empty chunk list"):
        ScriptedChatModel([[]])


def test_openai_model_is_lazy_and_models_import_does_not_pull_httpx() -> None:
    code = "import sys, graph_core.models; print('httpx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    import graph_core.models as models

    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        models.Nope  # noqa: B018


def test_restart_on_new_conversation_rewinds_at_each_run() -> None:
    script = [Message.assistant("first"), Message.assistant("second")]
    model = ScriptedChatModel(script, restart_on_new_conversation=True)
    bound = model.with_tools([ToolInfo("t")])
    assert bound.generate(USER).content == "first"  # a run starts: no assistant message yet
    model.generate([*USER, Message.assistant("first")])  # a later call of the same run
    assert bound.generate(USER).content == "first"  # a new run rewinds, even mid-script
    assert model.calls == [USER]
    assert model.generate([*USER, Message.assistant("x")]).content == "second"
    with pytest.raises(ScriptExhaustedError):
        model.generate([*USER, Message.assistant("x")])


def _numbered(n: int) -> list[Message]:
    return [Message.user(f"q{n}")]


def test_the_call_log_keeps_the_newest_keep_calls_lists() -> None:
    """A bounded log: a long run holds `keep_calls` entries, the newest, shared with bound copies."""
    model = ScriptedChatModel([Message.assistant("a")], cycle=True, keep_calls=3)
    bound = model.with_tools([ToolInfo("t")])
    for n in range(10):
        (bound if n % 2 else model).generate(_numbered(n))
    assert model.calls == [_numbered(7), _numbered(8), _numbered(9)]
    assert bound.calls is model.calls
    assert model.position == 10  # every call still counts


def test_the_default_bound_lists_every_call_of_a_normal_run() -> None:
    model = ScriptedChatModel([Message.assistant("a")], cycle=True)
    for n in range(KEEP_CALLS):
        model.generate(_numbered(n))
    assert len(model.calls) == KEEP_CALLS and model.calls[0] == _numbered(0)
    model.generate(_numbered(KEEP_CALLS))
    assert len(model.calls) == KEEP_CALLS and model.calls[0] == _numbered(1)


def test_an_agent_run_longer_than_the_bound_keeps_only_the_newest_calls() -> None:
    """A ReAct run of more rounds than `keep_calls`: the log stays at the bound (an unbounded log would
    hold one entry per model call), and its newest entry is the last call's history."""
    from graph_core.agents.react import ReActAgent
    from graph_core.tools import tool

    @tool
    def ping(n: int) -> str:
        """An instant tool."""
        return "pong"

    rounds = 60
    calls = [Message.assistant(tool_calls=[ToolCall(f"c{i}", "ping", '{"n": 1}')]) for i in range(rounds)]
    model = ScriptedChatModel([*calls, Message.assistant("done")], keep_calls=10)
    agent = ReActAgent(model, tools=[ping], max_step=2 * rounds + 1)
    assert agent.invoke("go").content == "done"
    assert model.position == rounds + 1
    assert len(model.calls) == 10
    assert len(model.calls[-1]) == 1 + 2 * rounds  # the user message and every round's two messages


def test_keep_calls_none_keeps_every_call_and_a_negative_bound_is_refused() -> None:
    model = ScriptedChatModel([Message.assistant("a")], cycle=True, keep_calls=None)
    for n in range(KEEP_CALLS + 5):
        model.generate(_numbered(n))
    assert len(model.calls) == KEEP_CALLS + 5
    with pytest.raises(ValueError, match="keep_calls must be None or at least 0"):
        ScriptedChatModel([Message.assistant("a")], keep_calls=-1)
