"""The conversation of a recorded run as a person reads it: every message, attributed to who said it.

A ReAct agent's state is not its conversation. The model's tool-call message is appended to the state
by the *tools* node's pre-handler (Eino's `toolsNodePreHandle`), a step after the model said it, and the
final answer never reaches the state at all: it is the run's output. Read off the state, the tool call
looks like the tools node's and the answer is missing. So the conversation is rebuilt from two sources:

- the messages each node run *produced* (its output: one message, or a list of them), with the step
  that produced them, in order;
- the state's `messages` list, for the order a person reads and for messages no node produced: the
  run's input, or what a state handler added (attributed to the step that first held it).

At a position, the conversation is the state's messages, each attributed to the node run that produced
it (matched by role, text and tool calls, in order, so a message said twice is attributed twice), then
the messages produced so far that are not in the state (yet): the model's tool call in the step it was
made, the final answer. Shared by the TUI's messages pane and `inspector show`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from collections.abc import Sequence
from operator import attrgetter
from typing import Any

from msgspec import Struct
from msgspec.structs import replace

from inspector.recording.reader import Run
from inspector.recording.valuelist import LISTS

__all__ = ["Conversation", "Said", "message_key", "messages_of", "step_name"]

_Key = tuple[Any, ...]


class Said(Struct, frozen=True, gc=False):
    """One message of the conversation: the recorded dict and where it came from.

    `origin` is the node that produced it (`position`, `node`: its step, a position in `run.steps`, and
    node key), or `input` (the run's input; no position), or `state` for a message no node produced that
    a state handler added (`position` the first step whose state holds it, `node` that step's nodes).
    `state_index` is its index in the state's messages list (`messages[i]` in the state pane), None
    when it is not in the state. `final` marks the run's output (the final answer).

    A msgspec struct: the conversation at the end of a long run makes one per message, and a frozen
    dataclass cost ten times as much to make."""

    message: dict[str, Any]
    position: int | None
    node: str | None
    state_index: int | None
    origin: str
    final: bool = False


def message_key(message: dict[str, Any]) -> _Key:
    """What makes two recorded messages the same message: role, text, tool calls and the call a tool
    result answers (not usage or finish reason, which a state copy may not carry)."""
    calls = message.get("tool_calls")
    called = (
        tuple(
            [
                (c.get("id"), c.get("name"), c.get("arguments"))  # pyright: ignore[reportUnknownMemberType]
                for c in calls  # pyright: ignore[reportUnknownVariableType]
                if isinstance(c, dict)
            ]
        )
        if isinstance(calls, list)
        else ()
    )
    content = message.get("content")
    return (
        message.get("role"),
        content if content is None or isinstance(content, str) else repr(content),
        called,
        message.get("tool_call_id"),
    )


def messages_of(value: Any) -> list[dict[str, Any]]:
    """The messages in a node's output: one message dict, or a list holding message dicts."""
    if isinstance(value, dict) and isinstance(value.get("role"), str):  # pyright: ignore[reportUnknownMemberType]
        return [value]  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, LISTS):
        return [v for v in value if isinstance(v, dict) and isinstance(v.get("role"), str)]  # pyright: ignore[reportUnknownVariableType, reportUnknownMemberType]
    return []


def state_messages(state: Any) -> Sequence[Any]:
    """The state's `messages` (or `Messages`) list as recorded (a recorded history is a read-only
    `ValueList`: index it for a few messages, iterating reads them all), [] when there is none."""
    if not isinstance(state, dict):
        return []
    raw = state.get("messages", state.get("Messages"))  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return raw if isinstance(raw, LISTS) else []  # pyright: ignore[reportUnknownVariableType]


def step_name(run: Run, position: int) -> str:
    """`step 2`, or `segment 1 step 0` in a resumed run (step numbers restart at each resume)."""
    if len(run.segments) > 1 and 0 <= position < len(run.steps):
        step = run.steps[position]
        return f"segment {step.segment} step {step.index}"
    return f"step {position}"


MADE_KEPT = 1_000
"""Steps whose produced messages a `Conversation` keeps for windows of the newest messages."""


class _Produced(Struct, frozen=True, gc=False):
    """A message a node run produced (one per message of a long run: a struct is the cheapest record)."""

    position: int
    node: str
    message: dict[str, Any]
    key: _Key


_position = attrgetter("position")


class Conversation:
    """The conversation of `run` at any position; the index of produced messages is built as far as
    asked and kept, so stepping forward reads one more step's node runs."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self._produced: list[_Produced] = []
        self._positions: list[int] = []  # `_produced`'s positions, for bisecting
        self._makers: dict[_Key, list[_Produced]] = {}  # `_produced` by message key, in order
        self._built = -1  # steps read so far: 0.._built
        self._input: set[_Key] | None = None
        self._first_held: dict[tuple[int, _Key], int] = {}
        self._keys: dict[int, tuple[dict[str, Any], _Key]] = {}  # by id: the message itself, its key
        self._made: dict[int, list[_Produced]] = {}  # by step: what its node runs produced (`_made_at`)

    def _key(self, message: dict[str, Any]) -> _Key:
        """`message_key(message)`, worked out once per message object: a recorded message is one
        object (the value table's) wherever it appears, in a node's output and in every state after."""
        known = self._keys.get(id(message))
        if known is not None and known[0] is message:
            return known[1]
        key = message_key(message)
        self._keys[id(message)] = (message, key)  # holding the message keeps its id from being reused
        return key

    def at(self, position: int, state: Any = None, *, last: int | None = None) -> list[Said]:
        """The conversation after step `position`; `state` is the state there (read when None).

        With `last`, only the newest `last` messages, in time proportional to `last` rather than to
        the conversation (a pane shows a screenful; a 100,000-step agent's history has 100,000
        messages). A window's messages are matched to their producers from the newest back, which is
        the same attribution as from the front unless one message (same role, text and calls) was
        produced more often than the state holds it."""
        run = self.run
        if not len(run.steps):
            return []
        position = max(0, min(position, len(run.steps) - 1))
        if state is None:
            state = run.state_at(position)
        if last is not None:
            if len(state_messages(state)) > last:
                return self._mark_final(self._tail(position, state, last), position)
            return self.at(position, state)[-last:] if last else []
        self._build(position)
        produced = self._produced[: bisect_right(self._positions, position)]
        by_key = self._makers
        used: dict[_Key, int] = defaultdict(int)
        matched = 0  # state messages matched to a producer
        said: list[Said] = []
        key_of = self._key
        for index, raw in enumerate(state_messages(state)):
            if not isinstance(raw, dict) or not isinstance(raw.get("role"), str):  # pyright: ignore[reportUnknownMemberType]
                continue
            message: dict[str, Any] = raw  # pyright: ignore[reportUnknownVariableType]
            key = key_of(message)
            makers = by_key.get(key, [])
            count = len(makers)
            if count and makers[-1].position > position:  # built past `position`: its makers up to there
                count = bisect_right(makers, position, key=_position)
            taken = used[key]
            if taken < count:
                maker = makers[taken]
                used[key] = taken + 1
                matched += 1
                said.append(Said(message, maker.position, maker.node, index, maker.node or "state"))
            elif key in self._input_keys():
                said.append(Said(message, None, None, index, "input"))
            else:
                held = self._first_holding(index, key, position)
                nodes = ", ".join(run.steps[held].nodes)
                said.append(Said(message, held, nodes, index, "state"))
        if matched < len(produced):  # what the nodes said that the state does not hold
            seen: dict[_Key, int] = defaultdict(int)
            for item in produced:
                seen[item.key] += 1
                if seen[item.key] > used[item.key]:
                    said.append(Said(item.message, item.position, item.node, None, item.node or "state"))
        return self._mark_final(said, position)

    def _tail(self, position: int, state: Any, last: int) -> list[Said]:
        """The newest `last` messages of the state, each matched to the latest producer of its key in
        the recent steps not already matched to a later message; older ones fall back as in `at`."""
        messages = state_messages(state)
        window = messages[len(messages) - last :]
        wanted = {self._key(m) for m in window if isinstance(m, dict)}  # pyright: ignore[reportUnknownArgumentType]
        need: dict[_Key, int] = defaultdict(int)  # how many shown messages have each key
        for raw in window:
            if isinstance(raw, dict) and isinstance(raw.get("role"), str):  # pyright: ignore[reportUnknownMemberType]
                need[self._key(raw)] += 1  # pyright: ignore[reportUnknownArgumentType]
        makers, recent = self._recent_makers(position, need, reach=4 * last)
        said: list[Said] = []
        newest = -1  # the latest step a shown message was matched to
        for index in range(len(messages) - 1, len(messages) - 1 - last, -1):
            raw = messages[index]
            if not isinstance(raw, dict) or not isinstance(raw.get("role"), str):  # pyright: ignore[reportUnknownMemberType]
                continue
            message: dict[str, Any] = raw  # pyright: ignore[reportUnknownVariableType]
            key = self._key(message)
            found = makers.get(key)
            if found:
                maker = found.pop()
                newest = max(newest, maker.position)
                said.append(Said(message, maker.position, maker.node, index, maker.node or "state"))
            elif key in self._input_keys():
                said.append(Said(message, None, None, index, "input"))
            else:
                held = self._first_holding(index, key, position)
                said.append(Said(message, held, ", ".join(self.run.steps[held].nodes), index, "state"))
        said.reverse()
        # what the last steps said that the state does not hold (a final answer at END), as `at` adds
        said.extend(
            Said(p.message, p.position, p.node, None, p.node or "state")
            for p in recent
            if p.position > newest and p.key not in wanted
        )
        return said[-last:] if last else []

    def _recent_makers(
        self, position: int, need: dict[_Key, int], *, reach: int
    ) -> tuple[dict[_Key, list[_Produced]], list[_Produced]]:
        """The producers of the messages `need` counts, oldest first per key, among the `reach` steps up
        to `position`, and every message those steps produced; read from the steps themselves, so the
        conversation's index of the whole run (`_build`, every step of a long run) is not needed for a
        window of its newest messages.

        The steps are read from `position` back, and no further than the step where every key has as
        many producers as messages need one: `_tail` takes each key's producers from the newest, so
        older ones would never be taken, and what it adds of `recent` is newer than any it matched.
        (A window holding a message no recent step produced, the run's input, reads all `reach`.)"""
        found: dict[_Key, list[_Produced]] = {}
        recent: list[_Produced] = []
        missing = sum(need.values())
        for at in range(position, max(0, position - reach + 1) - 1, -1):
            for made in reversed(self._made_at(at)):
                recent.append(made)
                if made.key in need:
                    producers = found.setdefault(made.key, [])
                    producers.append(made)
                    if len(producers) <= need[made.key]:
                        missing -= 1
            if need and not missing:
                break
        for producers in found.values():
            producers.reverse()
        recent.reverse()
        return found, recent

    def _made_at(self, at: int) -> list[_Produced]:
        """What the node runs of step `at` produced, in order; the last `MADE_KEPT` steps asked for are
        kept, so a window that slides by a step reads one step more."""
        made = self._made.get(at)
        if made is not None:
            return made
        made = []
        for node_run in self.run.steps[at].node_runs:
            if node_run.error is not None:
                continue
            node = "/".join(node_run.path) if len(node_run.path) > 1 else node_run.node
            made.extend(_Produced(at, node, m, self._key(m)) for m in messages_of(node_run.output))
        if len(self._made) >= MADE_KEPT:
            del self._made[next(iter(self._made))]
        self._made[at] = made
        return made

    def said_by(self, message: dict[str, Any], position: int) -> tuple[int, str] | None:
        """The step and node that first produced `message`, at or before `position`; None if none did."""
        if position > self._built:  # (checked here: `show` asks once a step, and the walk is built)
            self._build(position)
        makers = self._makers.get(self._key(message))
        first = makers[0] if makers else None
        if first is None or first.position > position:
            return None
        return first.position, first.node

    def _mark_final(self, said: list[Said], position: int) -> list[Said]:
        run = self.run
        if run.status != "ok" or position != len(run.steps) - 1 or not said:
            return said
        output = messages_of(run.output)
        if len(output) != 1 or message_key(output[0]) != message_key(said[-1].message):
            return said
        last = said[-1]
        return [*said[:-1], replace(last, final=True)]

    def _input_keys(self) -> set[_Key]:
        """The messages the run was given (its input: a message list, or one message)."""
        if self._input is None:
            given = self.run.resolve(self.run.header.input)
            self._input = {message_key(m) for m in messages_of(given)}
        return self._input

    def _first_holding(self, index: int, key: _Key, position: int) -> int:
        """The first step whose state holds this message at `index`, found by bisection: a state's
        messages only grow, so once there it stays (a rewritten list gives a plausible answer)."""
        found = self._first_held.get((index, key))
        if found is not None and found <= position:
            return found
        low, high = 0, position
        while low < high:
            middle = (low + high) // 2
            held = state_messages(self.run.state_at(middle))
            item = held[index] if index < len(held) else None
            if isinstance(item, dict) and message_key(item) == key:  # pyright: ignore[reportUnknownArgumentType]
                high = middle
            else:
                low = middle + 1
        self._first_held[(index, key)] = low
        return low

    def _build(self, position: int) -> None:
        step = self.run.step
        for at in range(self._built + 1, position + 1):
            for node_run in step(at).node_runs:
                if node_run.error is not None:
                    continue
                node = "/".join(node_run.path) if len(node_run.path) > 1 else node_run.node
                for message in messages_of(node_run.output):
                    made = _Produced(at, node, message, self._key(message))
                    self._produced.append(made)
                    self._positions.append(at)
                    makers = self._makers.get(made.key)
                    if makers is None:
                        self._makers[made.key] = [made]
                    else:
                        makers.append(made)
        self._built = max(self._built, position)
