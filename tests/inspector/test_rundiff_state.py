"""`StatePairs`, the step-by-step state comparison behind `inspector diff`, against its definition:
at every aligned step, exactly `statediff.changes(state A, state B)` (same changes, same order)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from fixtures.weather import get_weather
from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from inspector.recording import Recorder, read_run
from inspector.recording.reader import Run
from inspector.recording.statediff import changes
from inspector.rundiff_state import StatePairs

FIXTURES = sorted((Path(__file__).parents[2] / "fixtures" / "runs").glob("*.jsonl"))


def assert_matches_definition(a: Run, b: Run) -> int:
    pairs = StatePairs(a, b)
    n = min(len(a.steps), len(b.steps))
    for i in range(n):
        assert pairs.changes_at(i) == changes(a.state_at(i), b.state_at(i)), f"step {i}"
    return n


def call(city: str, n: int) -> Message:
    return Message.assistant("", tool_calls=[ToolCall(f"c{n}", "get_weather", f'{{"city": "{city}"}}')])


def record(path: Path, cities: list[str], answer: str = "Done.") -> Run:
    script: list[Message | BaseException] = [call(c, n) for n, c in enumerate(cities)]
    agent = ReActAgent(ScriptedChatModel([*script, Message.assistant(answer)]), tools=[get_weather])
    agent.invoke([Message.user("Weather?")], callbacks=[Recorder(path)])
    return read_run(path)


@pytest.mark.parametrize(
    ("cities_a", "cities_b", "answer_b"),
    [
        (["Paris", "Lyon", "Nice"], ["Paris", "Lyon", "Nice"], "Done."),  # the same: no changes at all
        (["Paris", "Lyon", "Nice"], ["Oslo", "Lyon", "Nice"], "Done."),  # differ at the first message
        (["Paris", "Lyon", "Nice"], ["Paris", "Lyon", "Rome"], "Done."),  # differ late
        (["Paris"], ["Paris", "Lyon", "Nice", "Rome"], "Done."),  # B goes on: appended, then added
        (["Paris", "Lyon", "Nice", "Rome"], ["Paris"], "Other."),  # A goes on: removed
        (["Paris", "Lyon"], ["Paris", "Lyon"], "Other."),  # only the last answer differs
    ],
)
def test_recorded_histories_compare_as_the_full_states_do(
    tmp_path: Path, cities_a: list[str], cities_b: list[str], answer_b: str
) -> None:
    a = record(tmp_path / "a.jsonl", cities_a)
    b = record(tmp_path / "b.jsonl", cities_b, answer_b)
    assert assert_matches_definition(a, b) > 0


def test_differences_found_once_are_reported_at_every_later_step(tmp_path: Path) -> None:
    a = record(tmp_path / "a.jsonl", ["Paris", "Lyon", "Nice"])
    b = record(tmp_path / "b.jsonl", ["Oslo", "Lyon", "Nice"])
    pairs = StatePairs(a, b)
    at = [[c.path_text for c in pairs.changes_at(i)] for i in range(len(a.steps))]
    assert at[:2] == [[], ["messages[1].tool_calls[0].arguments"]]  # the chat's reply lands at step 1
    assert all(later[0] == at[1][0] for later in at[2:])
    assert at[-1] == ["messages[1].tool_calls[0].arguments", "messages[2].content"]


def test_steps_may_be_asked_out_of_order(tmp_path: Path) -> None:
    a = record(tmp_path / "a.jsonl", ["Paris", "Lyon", "Nice"])
    b = record(tmp_path / "b.jsonl", ["Paris", "Oslo"])
    pairs = StatePairs(a, b)
    for i in (4, 0, 3, 1, 2, 2):
        assert pairs.changes_at(i) == changes(a.state_at(i), b.state_at(i))


@pytest.mark.parametrize(("a", "b"), list(itertools.product(FIXTURES, FIXTURES)), ids=lambda p: p.stem)
def test_every_pair_of_fixture_runs_compares_as_the_full_states_do(a: Path, b: Path) -> None:
    assert_matches_definition(read_run(a), read_run(b))


def test_equal_messages_written_differently_still_differ(tmp_path: Path) -> None:
    """`1` and `1.0` compare equal in Python but `changes` reports them: a history position whose
    messages are equal is skipped only when they are also written alike."""
    record(tmp_path / "base.jsonl", ["Paris", "Lyon"])
    text = (tmp_path / "base.jsonl").read_text()
    user = '{"kind":"value","value":{"role":"user","content":"Weather?"}}'
    assert user in text
    for name, number in (("a", "1"), ("b", "1.0")):
        edited = user.replace('"Weather?"}', f'"Weather?","n":{number}}}')
        (tmp_path / f"{name}.jsonl").write_text(text.replace(user, edited))
    a, b = read_run(tmp_path / "a.jsonl"), read_run(tmp_path / "b.jsonl")
    assert assert_matches_definition(a, b) > 0
    assert [c.path_text for c in StatePairs(a, b).changes_at(len(a.steps) - 1)] == ["messages[0].n"]
