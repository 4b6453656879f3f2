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

A run edited under the debugger (`edit` lines) holds messages no node produced: the tools node's
input edited to call Paris instead of Hangzhou reaches the state as the Paris call. Each edit that
changed a message is read as a pair (the message before, the message after); the edited message is
matched to the producer of the message before and marked `edited` (`edited before step 1: ...`), so
the conversation keeps one message in the model's place instead of two out of order.
"""

from __future__ import annotations

import copy
import json
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterator, Sequence
from operator import attrgetter
from typing import Any

from msgspec import Struct
from msgspec.structs import replace

from inspector.errors import DebugError
from inspector.recording.debug_lines import read_debug_lines
from inspector.recording.model import NodeRun
from inspector.recording.reader import Run
from inspector.recording.valuelist import LISTS, plain

__all__ = ["Conversation", "Said", "message_key", "messages_of", "passed_on", "said_in", "step_name"]

_Key = tuple[Any, ...]


class Said(Struct, frozen=True, gc=False):
    """One message of the conversation: the recorded dict and where it came from.

    `origin` is the node that produced it (`position`, `node`: its step, a position in `run.steps`, and
    node key), or `input` (the run's input; no position), or `state` for a message no node produced that
    a state handler added (`position` the first step whose state holds it, `node` that step's nodes).
    `state_index` is its index in the state's messages list (`messages[i]` in the state pane), None
    when it is not in the state. `final` marks the run's output (the final answer); `edited` says how a
    person changed the message its producer said (`edited before step 1: PATH OLD -> NEW`).

    A msgspec struct: the conversation at the end of a long run makes one per message, and a frozen
    dataclass cost ten times as much to make."""

    message: dict[str, Any]
    position: int | None
    node: str | None
    state_index: int | None
    origin: str
    final: bool = False
    edited: str | None = None


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


def said_in(node_runs: Sequence[NodeRun]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The messages a step's node runs said, each with who said it (a nested node as its path,
    `sub/chat`), in node-run order. Not said, so left out:

    - what a failed node run would have returned;
    - what a node only passed on: its output is its input, the very recorded messages (the ADK agent's
      `CancelCheck` and `AfterToolCalls` hand the model's message and the tool results on). Counted
      again, a message would be said twice, the copy out of place after the final answer. Compared
      only when the output is as long as the input, so a model's whole history is never walked;
    - what was said inside a tool call: the run of an agent used as a tool (`ToolNode`,
      `weather_expert:call_expert`, ...), or of a graph a tool invokes (`tools`, `:c1`), is a
      conversation of its own, opened as a nested run; its answer reaches this one as the tool's
      result. A subgraph's nodes (`sub/chat`) do belong here."""
    calls = {
        (*node_run.path, segment)
        for node_run in node_runs
        if node_run.tools
        for call in node_run.tools
        # an agent tool's run names its tool; a graph a plain tool runs, only the call (`:<call id>`)
        for segment in (f"{call.name}:{call.tool_call_id}", f":{call.tool_call_id}")
    }
    for node_run in node_runs:
        if node_run.error is not None:
            continue
        path = node_run.path
        if calls and len(path) > 2 and any(path[:i] in calls for i in range(2, len(path))):
            continue
        said = messages_of(node_run.output)
        if not said or passed_on(node_run.input, node_run.output):
            continue
        node = "/".join(path) if len(path) > 1 else node_run.node
        for message in said:
            yield node, message


def passed_on(given: Any, returned: Any) -> bool:
    """Whether a node returned what it was given: the same message, or a list of the same messages
    (the very objects in a recording, equal ones in a run read from a trace)."""
    if returned is given:
        return True
    if isinstance(returned, LISTS) and isinstance(given, LISTS) and len(returned) == len(given):
        return all(out is into or out == into for out, into in zip(returned, given, strict=True))
    return isinstance(returned, dict) and isinstance(given, dict) and returned == given


def state_messages(state: Any) -> Sequence[Any]:
    """The state's `messages` (or `Messages`) list as recorded (a recorded history is a read-only
    `ValueList`: index it for a few messages, iterating reads them all), [] when there is none."""
    if not isinstance(state, dict):
        return []
    raw = state.get("messages", state.get("Messages"))  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return raw if isinstance(raw, LISTS) else []  # pyright: ignore[reportUnknownVariableType]


def step_name(run: Run, position: int) -> str:
    """`step 2`, or `segment 1 step 0` in a resumed run (step numbers restart at each resume). A run
    read leniently may have skipped a step's line, so its positions run behind the step numbers: the
    name is the step's own number, as the timeline shows it."""
    if (len(run.segments) > 1 or run.lenient) and 0 <= position < len(run.steps):
        step = run.steps[position]
        if len(run.segments) > 1:
            return f"segment {step.segment} step {step.index}"
        return f"step {step.index}"
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
        self._edited: dict[_Key, tuple[_Key, str]] | None = None  # edited message -> (original, note)

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
            note = None
            if key not in by_key:
                key, note = self._original(key)
            makers = by_key.get(key, [])
            count = len(makers)
            if count and makers[-1].position > position:  # built past `position`: its makers up to there
                count = bisect_right(makers, position, key=_position)
            taken = used[key]
            if taken < count:
                maker = makers[taken]
                used[key] = taken + 1
                matched += 1
                origin = maker.node or "state"
                said.append(Said(message, maker.position, maker.node, index, origin, edited=note))
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
                key = self._key(raw)  # pyright: ignore[reportUnknownArgumentType]
                need[key] += 1
                original, note = self._original(key)
                if note is not None:  # an edited message: its producer said the original
                    need[original] += 1
                    wanted.add(original)
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
            note = None
            if not found:
                original, note = self._original(key)
                found = makers.get(original) if note is not None else None
            if found:
                maker = found.pop()
                newest = max(newest, maker.position)
                origin = maker.node or "state"
                said.append(Said(message, maker.position, maker.node, index, origin, edited=note))
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
        made = [_Produced(at, node, m, self._key(m)) for node, m in said_in(self.run.steps[at].node_runs)]
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

    def _original(self, key: _Key) -> tuple[_Key, str | None]:
        """For an edited message's key, the key of the message before the edit and the edit's note;
        else `key` itself and None."""
        if self._edited is None:
            self._edited = edited_messages(self.run)
        found = self._edited.get(key)
        return found if found is not None else (key, None)

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
            for node, message in said_in(step(at).node_runs):
                made = _Produced(at, node, message, self._key(message))
                self._produced.append(made)
                self._positions.append(at)
                makers = self._makers.get(made.key)
                if makers is None:
                    self._makers[made.key] = [made]
                else:
                    makers.append(made)
        self._built = max(self._built, position)


def edited_messages(run: Run) -> dict[_Key, tuple[_Key, str]]:
    """The messages a person changed under the debugger, from the run's `edit` lines: the edited
    message's key -> (the key of the message before the edit, a note saying what changed).

    An edit of a pending node's input (`input.tools.tool_calls[0].arguments`) is read off that node's
    run in the edited step, whose recorded input is the edited one; an edit of the state
    (`state.messages[1].content`) off the state before that step. Edits that changed no message (a
    plain state field) have no pair."""

    pairs: dict[_Key, tuple[_Key, str]] = {}
    edits = read_debug_lines(run).edits
    if not edits:
        return pairs
    # (`inspector.debug` loads the recorder, which `show` of an unedited run does not need)
    from inspector.debug.paths import parse_path

    for edit in edits:
        try:
            path = parse_path(edit.path)
        except DebugError:
            continue
        step = edit.step
        if not 0 <= step < len(run.steps):
            continue
        root: Any = None
        if path.root == "input":
            root = next((r.input for r in run.steps[step].node_runs if r.node == path.node), None)
        elif step > 0:
            root = run.state_at(step - 1)
        found = _message_at(plain(root), list(path.segments))
        if found is None:
            continue
        message, rest = found
        if path.root == "input":  # the recorded input is the edited one
            edited, original = message, _replaced(message, rest, edit.old)
        else:
            original, edited = message, _replaced(message, rest, edit.new)
        if original is None or edited is None:
            continue
        note = f"edited before step {step}: {_segments_text(rest)} {_short(edit.old)} -> {_short(edit.new)}"
        pairs[message_key(edited)] = (message_key(original), note)
    return pairs


def _message_at(root: Any, segments: list[Any]) -> tuple[dict[str, Any], list[Any]] | None:
    """The message dict the path walks through (the deepest one), and the rest of the path in it."""
    value = root
    found: tuple[dict[str, Any], list[Any]] | None = None
    for depth in range(len(segments) + 1):
        if isinstance(value, dict) and isinstance(value.get("role"), str):  # pyright: ignore[reportUnknownMemberType]
            found = (value, segments[depth:])  # pyright: ignore[reportUnknownVariableType]
        if depth == len(segments):
            break
        segment = segments[depth]
        try:
            value = value[segment]
        except (KeyError, IndexError, TypeError):
            return None
    return found


def _replaced(message: dict[str, Any], rest: list[Any], value: Any) -> dict[str, Any] | None:
    """A copy of `message` with the value at `rest` replaced; None when the path is not there."""
    if not rest:
        return value if isinstance(value, dict) else None  # pyright: ignore[reportUnknownVariableType]
    out = copy.deepcopy(message)
    holder: Any = out
    try:
        for segment in rest[:-1]:
            holder = holder[segment]
        holder[rest[-1]] = value
    except (KeyError, IndexError, TypeError):
        return None
    return out


def _segments_text(segments: list[Any]) -> str:
    text = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in segments)
    return text.lstrip(".") or "the message"


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:59] + "…"
