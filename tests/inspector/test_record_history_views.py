"""The agent's `HistoryView` in a recording: encoded as the list it shows, so a run whose model gets a
view records exactly the bytes of the same run whose model gets a copy."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path

import pytest

from graph_core.agents.react import ReActAgent, ReActState
from graph_core.history import HistoryView
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from graph_core.tools import tool
from inspector.recording.encode import Encoder
from inspector.recording.recorder import Recorder


def _history(n: int) -> list[Message]:
    return [Message.user("q")] + [Message.assistant(f"a{i}") for i in range(n - 1)]


def test_a_view_encodes_as_the_list_it_shows() -> None:
    history = _history(3)
    encoder = Encoder()
    assert encoder.encode(HistoryView(history)) == {"$refs": [[0, 3]]}
    early = HistoryView(history)
    history.append(Message.assistant("later"))
    assert encoder.encode(early) == {"$refs": [[0, 3]]}  # the prefix it shows, not the grown list
    assert encoder.encode(HistoryView(history)) == {"$refs": [[0, 4]]}
    assert encoder.encode({"messages": HistoryView(history, 2)}) == {"messages": {"$refs": [[0, 2]]}}
    assert Encoder(intern=False).encode(HistoryView(history, 1)) == Encoder(intern=False).encode(history[:1])


class CopyingAgent(ReActAgent):
    """The agent as it was before the view: its model gets a copy of the history."""

    def _model_pre(self, input: list[Message], state: ReActState) -> Sequence[Message]:
        return list(super()._model_pre(input, state))


@tool
def ping(n: int) -> str:
    """Answers at once."""
    return "pong"


def _record(path: Path, cls: type[ReActAgent], mode: str) -> bytes:
    rounds = 12
    script = [
        *(Message.assistant(tool_calls=[ToolCall(f"c{i}", "ping", '{"n": 1}')]) for i in range(rounds)),
        Message.assistant("done"),
    ]
    agent = cls(ScriptedChatModel(script), tools=[ping], max_step=2 * rounds + 1)
    ticks = itertools.count()
    recorder = Recorder(path, clock=lambda: next(ticks) / 1000, run_id="run", snapshot_every=5)
    if mode == "invoke":
        agent.invoke("go", callbacks=[recorder])
    else:
        list(agent.stream("go", callbacks=[recorder]))
    return path.read_bytes()


@pytest.mark.parametrize("mode", ["invoke", "stream"])
def test_a_run_with_views_records_the_bytes_of_the_run_with_copies(tmp_path: Path, mode: str) -> None:
    with_views = _record(tmp_path / "views.jsonl", ReActAgent, mode)
    with_copies = _record(tmp_path / "copies.jsonl", CopyingAgent, mode)
    assert with_views == with_copies
    assert with_views.count(b'"kind":"step"') == 25
