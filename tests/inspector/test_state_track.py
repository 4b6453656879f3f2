"""The recorder's fast paths give exactly what the generic ones give.

Each step's state is encoded and diffed in one pass over its top-level fields (`StateTrack.
record_state`), reusing last step's encoding for fields that still hold the same scalar; message
definitions are written as pydantic-core JSON bytes. These tests drive both paths side by side over
states that change in every way a state can, and check the results are equal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict
from pydantic_core import to_json

from graph_core.callbacks import BranchDecision, Budget, RunInfo, StepInfo
from graph_core.schema import Message, ToolCall
from inspector.recording import Recorder, read_run
from inspector.recording.encode import Encoder
from inspector.recording.redact import make_redaction
from inspector.recording.state_track import StateTrack


class _State(BaseModel):
    messages: list[Message] = []
    note: str = ""
    count: int = 0
    api_key: str = "sk-1"
    tags: list[str] = []
    extra_map: dict[str, Any] = {}


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    n: int = 0


def _pair() -> tuple[Encoder, Encoder, StateTrack, StateTrack]:
    redaction = make_redaction(True)
    return Encoder(redaction=redaction), Encoder(redaction=redaction), StateTrack(5), StateTrack(5)


def _mutations(state: Any) -> list[Any]:
    """Step-by-step edits of a live state object: appends, in-place edits, replacements, no change."""

    def grow(s: Any) -> None:
        s.messages.append(Message.user(f"m{len(s.messages)}"))

    def edit_note(s: Any) -> None:
        s.note = s.note + "x"

    def same(s: Any) -> None:
        pass

    def bump(s: Any) -> None:
        s.count += 1

    def tag_in_place(s: Any) -> None:
        if s.tags:
            s.tags[0] = s.tags[0] + "!"
        else:
            s.tags.append("t")

    def replace_history(s: Any) -> None:
        s.messages = [Message.system("fresh"), *s.messages[-1:]]

    def nested(s: Any) -> None:
        s.extra_map["k"] = {"password": "p", "n": len(s.extra_map)}

    def long_note(s: Any) -> None:
        s.note = "y" * 50

    return [
        grow,
        grow,
        edit_note,
        same,
        bump,
        tag_in_place,
        tag_in_place,
        grow,
        replace_history,
        nested,
        long_note,
    ]


def test_fused_state_path_equals_encode_then_diff() -> None:
    fast_enc, slow_enc, fast, slow = _pair()
    fast_enc.max_str = slow_enc.max_str = 20  # the long note is truncated on both paths
    state = _State()
    for step, change in enumerate(_mutations(state) * 3):
        change(state)
        full, payload, encoded = fast.record_state(state, fast_enc)
        expected = slow_enc.encode(state)
        assert (full, payload) == slow.record(expected), f"step {step} ({change.__name__})"
        assert encoded == expected
        assert encoded["api_key"] == "[REDACTED]"
        assert fast_enc.take_definitions() == slow_enc.take_definitions()


class _Lean(BaseModel):
    """A state of scalars, message lists and a dict that is mostly empty (an ADK state's run-local
    values): its usual steps take `StateTrack`'s shortest path."""

    messages: list[Message] = []
    notes: list[Message] = []
    note: str = ""
    count: int = 0
    api_key: str = "sk-1"
    extra: dict[str, Any] = {}


def _lean_mutations() -> list[Any]:
    def grow(s: Any) -> None:
        s.messages.append(Message.user(f"m{len(s.messages)}"))

    def grow_both(s: Any) -> None:
        s.messages.append(Message.assistant(f"a{len(s.messages)}"))
        s.notes.append(Message.system(f"n{len(s.notes)}"))

    def same(s: Any) -> None:
        pass

    def bump(s: Any) -> None:
        s.count += 1

    def edit_in_place(s: Any) -> None:  # a recorded message changed: it is recorded again
        s.messages[-1].content += "!"

    def shrink(s: Any) -> None:
        s.messages.pop()

    def replace_history(s: Any) -> None:
        s.messages = [Message.system("fresh"), *s.messages[-1:]]

    def fill_extra(s: Any) -> None:  # the same dict, no longer empty: recorded again
        s.extra["plan"] = len(s.messages)

    def empty_extra(s: Any) -> None:
        s.extra.clear()

    return [
        grow, grow, same, grow_both, grow, bump, grow, edit_in_place, grow, shrink, grow, replace_history,
        grow, grow, fill_extra, grow, empty_extra, grow, grow,
    ]  # fmt: skip


def test_usual_steps_of_a_lean_state_equal_encode_then_diff(monkeypatch: pytest.MonkeyPatch) -> None:
    walks: list[int] = []
    by_field = StateTrack._by_field  # pyright: ignore[reportPrivateUsage]

    def counted(self: StateTrack, *args: Any) -> Any:
        walks.append(1)
        return by_field(self, *args)

    monkeypatch.setattr(StateTrack, "_by_field", counted)
    fast_enc, slow_enc, fast, slow = _pair()
    state = _Lean(messages=[Message.user("q")], notes=[Message.system("s")])
    odd: list[Any] = [
        lambda s: s.notes.append({"role": "user", "content": "not a Message"}),  # notes: a plain list now
        lambda s: s.messages.append(Message.user("x")),
        lambda s: setattr(s, "notes", [Message.user("again")]),
    ]
    steps = _lean_mutations() * 3 + odd + _lean_mutations()
    walked: list[bool] = []
    for step, change in enumerate(steps):
        before = len(walks)
        change(state)
        if step % 4 == 1:  # as a chat node's input would be, before the step's state
            assert fast_enc.encode_list(state.messages) == slow_enc.encode_list(state.messages)
        full, payload, encoded = fast.record_state(state, fast_enc)
        expected = slow_enc.encode(state)
        assert (full, payload) == slow.record(expected), f"step {step}"
        assert encoded == expected
        assert encoded["api_key"] == "[REDACTED]"
        if not full:
            assert fast.delta_json == to_json(payload)
        assert fast_enc.take_definitions() == slow_enc.take_definitions()
        walked.append(len(walks) > before)
    usual = [
        walked[i]
        for i in range(2, len(steps))  # step 0 is a snapshot, step 1 sets the lane up
        if steps[i].__name__ in ("grow", "same", "grow_both") and steps[i - 1].__name__ in ("grow", "same")
    ]
    assert len(usual) >= 11 and not any(usual), "a usual step after a usual one takes the shortest path"
    assert walked.count(True) >= 10, "a replaced field, a shrunk list or an odd item takes the walk"


def test_fused_state_path_on_dict_states_with_keys_coming_and_going() -> None:
    fast_enc, slow_enc, fast, slow = _pair()
    state: dict[Any, Any] = {"messages": [], "$odd": 1, "secret": "s"}
    steps = [
        lambda s: s["messages"].append(Message.user("a")),
        lambda s: s.update(new=1),  # a key appears
        lambda s: s.pop("new"),  # and goes
        lambda s: s.update({"$odd": 2}),
        lambda s: s.update({3: "int key"}),  # not a plain top level: generic path
        lambda s: s.pop(3),
        lambda s: s["messages"].append(Message.assistant("b", tool_calls=[ToolCall("c", "t", "{}")])),
    ]
    for step in steps:
        step(state)
        full, payload, encoded = fast.record_state(state, fast_enc)
        expected = slow_enc.encode(state)
        assert (full, payload) == slow.record(expected)
        assert encoded == expected


def test_fused_state_path_falls_back_when_a_field_fails_or_extras_appear() -> None:
    class Hostile:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    fast_enc, slow_enc, fast, slow = _pair()
    state = _Open(n=1)
    for change in (
        lambda s: setattr(s, "n", 2),
        lambda s: setattr(s, "later", [1]),  # an extra field: generic path
        lambda s: setattr(s, "later", Hostile()),  # unencodable: recorded as such, not raised
    ):
        change(state)
        full, payload, encoded = fast.record_state(state, fast_enc)
        expected = slow_enc.encode(state)
        assert (full, payload) == slow.record(expected)
        assert encoded == expected


def test_a_state_field_pointing_back_at_the_state_is_a_cycle_on_both_paths() -> None:
    fast_enc, slow_enc, fast, slow = _pair()
    state: dict[str, Any] = {"n": 0, "self": None}
    fast.record_state(state, fast_enc)
    slow.record(slow_enc.encode(state))
    state["self"] = state
    state["n"] = 1
    _, _, encoded = fast.record_state(state, fast_enc)
    assert encoded == slow_enc.encode(state)
    assert encoded["self"]["$repr"] == "<cycle>"


@pytest.mark.parametrize(
    "message",
    [
        Message.user('héllo \u2028 "quoted" \\ back'),
        Message.assistant("", tool_calls=[ToolCall("c1", "f", '{"a": [1, 2.5, null]}', index=0)]),
        Message.tool("r" * 30, tool_call_id="c1", tool_name="f"),
    ],
)
def test_message_definitions_as_bytes_equal_the_dumped_value(message: Message) -> None:
    encoder = Encoder()
    encoder.encode(message)
    (line,) = encoder.take_definition_lines()
    assert json.loads(line) == {
        "kind": "value",
        "value": message.model_dump(mode="json", exclude_defaults=True),
    }
    encoder.encode(Message.user("again"))
    assert encoder.take_definitions() == [(1, {"role": "user", "content": "again"})]


def test_a_grown_history_encoded_elsewhere_first_is_still_stored_as_its_append() -> None:
    """The list memo may already be ahead of last step's state (a node's input is the same list object,
    encoded before the state): the fast path's append is worked out against last step's encoding."""
    fast_enc, slow_enc, fast, slow = _pair()
    state = _State(messages=[Message.user("q")])
    for step in range(8):
        if step:
            state.messages.append(Message.assistant(f"a{step}"))
            if step % 2:
                state.messages.append(Message.tool(f"t{step}", tool_call_id=f"c{step}"))
        if step % 3 == 1:  # as a chat node's input would be, before the step's state
            assert fast_enc.encode_list(state.messages) == slow_enc.encode_list(state.messages)
        full, payload, encoded = fast.record_state(state, fast_enc)
        expected = slow_enc.encode(state)
        assert (full, payload) == slow.record(expected), f"step {step}"
        assert encoded == expected
        if step and not full:
            assert payload[0][0] == "append"
    assert fast_enc.take_definitions() == slow_enc.take_definitions()


def test_a_history_with_a_non_message_appended_falls_back_to_a_plain_list() -> None:
    fast_enc, slow_enc, fast, slow = _pair()
    state = _State(messages=[Message.user("q")])
    fast.record_state(state, fast_enc)
    slow.record(slow_enc.encode(state))
    for change in (
        lambda s: s.messages.append(Message.assistant("a")),
        lambda s: s.messages.append({"role": "user", "content": "a dict, not a Message"}),
        lambda s: s.messages.append(Message.assistant("b")),
    ):
        change(state)
        full, payload, encoded = fast.record_state(state, fast_enc)
        expected = slow_enc.encode(state)
        assert (full, payload) == slow.record(expected)
        assert encoded == expected
    assert type(encoded["messages"]) is list


def test_branch_decisions_are_stored_the_same_whether_the_engine_reuses_them_or_not(tmp_path: Path) -> None:
    """Stored decisions are cached by the identity of the engine's (frozen, reused) decision objects; new
    but equal objects every step, more of them than the cache keeps, give the same lines."""

    def record(path: Path, fresh: bool, steps: int) -> bytes:
        recorder = Recorder(path, clock=iter(range(10 * steps + 10)).__next__, run_id="r")
        graph = RunInfo(None, "loop", "Graph")
        recorder.on_start(graph, "go")
        shared: dict[tuple[str, int], BranchDecision] = {}
        for i in range(steps):
            node, target = ("a", "b") if i % 2 == 0 else ("b", "a")
            recorder.on_step_start(StepInfo(i, (node,), Budget.of(i, None)))
            info = RunInfo(node, node, "Lambda", (node,), i)
            recorder.on_start(info, i)
            recorder.on_end(info, i)
            decision = BranchDecision(node, i % 3, (target,), ())
            if not fresh:
                decision = shared.setdefault((node, i % 3), decision)
            recorder.on_step_end(
                StepInfo(i, (node,), Budget.of(i + 1, None), branches=(decision,), next_nodes=(target,))
            )
        recorder.on_end(graph, "done")
        return path.read_bytes()

    steps = 1100
    assert record(tmp_path / "fresh.jsonl", True, steps) == record(tmp_path / "shared.jsonl", False, steps)
    run = read_run(tmp_path / "fresh.jsonl")
    assert [(s.branches[0].source, s.branches[0].branch_index) for s in run.steps[-4:]] == [
        ("a" if i % 2 == 0 else "b", i % 3) for i in range(steps - 4, steps)
    ]
