"""What the recorder notes between callbacks and a step's line: node runs, held values, counters.

Callbacks only note (`Pending`); a step's node runs are encoded at the step boundary, in node order
(`node_run_records`), so value IDs do not depend on which thread finished first. What is kept of each
reported value until then is told in `held`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from graph_core.callbacks import RunInfo
from graph_core.schema import Message, concat_messages
from inspector.recording.elision import (
    CALL_ARGUMENTS,
    CALL_CONTENT,
    compact_node_names,
    compact_tool_call,
    compact_tool_name,
)
from inspector.recording.encode import Raw
from inspector.recording.held import Frozen, Held
from inspector.recording.times import round_time
from inspector.recording.value_kinds import type_name

__all__ = [
    "NOTHING",
    "Counters",
    "Pending",
    "drain",
    "error_record",
    "node_run_records",
    "round_time",
]

NOTHING: Any = object()
"""No value was reported (an end without a start, a node that never finished)."""


def error_record(error: BaseException, scrub: Callable[[str], str] = str) -> dict[str, Any]:
    """An exception as the format's `ErrorRecord` dict (type, message, node path, cause); `scrub`
    masks secrets in the messages (the recorder's `Redaction.scrub`)."""
    record: dict[str, Any] = {"type": type(error).__name__, "message": scrub(str(error))}
    node_path = getattr(error, "node_path", None)
    if isinstance(node_path, list | tuple):
        record["node_path"] = [str(p) for p in node_path]  # pyright: ignore[reportUnknownVariableType]
    cause = error.__cause__
    if cause is not None:
        record["cause_type"] = type(cause).__name__
        record["cause_message"] = scrub(str(cause))
    return record


class Counters:
    """What the engine does not count for us: model and tool calls, tokens, ADK iterations."""

    __slots__ = ("completion", "iterations", "model_calls", "prompt", "tool_calls", "total")

    def __init__(self) -> None:
        self.model_calls = 0
        self.tool_calls = 0
        self.prompt: int | None = None
        self.completion: int | None = None
        self.total: int | None = None
        self.iterations: int | None = None

    def add_usage(self, message: Message) -> None:
        usage = message.usage
        if usage is None:
            return
        self.prompt = (self.prompt or 0) + usage.prompt_tokens
        self.completion = (self.completion or 0) + usage.completion_tokens
        self.total = (self.total or 0) + (usage.total_tokens or usage.prompt_tokens + usage.completion_tokens)

    def snapshot(self) -> tuple[Any, ...]:
        return (self.model_calls, self.tool_calls, self.prompt, self.completion, self.total, self.iterations)


class Pending:
    """A node (or tool call) run between its callbacks and its step's line. Its names are read from its
    `RunInfo` (frozen) when the step line is built."""

    __slots__ = ("end", "error", "info", "input", "output", "t", "tools")

    def __init__(self, info: RunInfo, input: Any, t: float | None) -> None:
        self.info = info
        self.input = input
        self.t = t
        self.output: Any = NOTHING
        self.error: dict[str, Any] | None = None
        self.end: float | None = None
        self.tools: list[Pending] | None = None

    @property
    def node(self) -> str:
        return self.info.node_key or ""

    @property
    def path(self) -> tuple[str, ...]:
        return self.info.path

    @property
    def component(self) -> str:
        return self.info.kind


def drain(stream: Iterator[Any]) -> Any:
    """A stream copy handed to a callback must be consumed; record it as one value (messages concatenated)."""
    try:
        chunks = list(stream)
    except Exception as error:
        return Raw({"$repr": f"<stream failed: {type(error).__name__}: {error}>", "$type": type_name(stream)})
    finally:
        close = getattr(stream, "close", None)
        if callable(close):
            with contextlib.suppress(Exception):
                close()
    if chunks and all(isinstance(c, Message) for c in chunks):
        try:
            return concat_messages(chunks)
        except ValueError:
            return chunks
    return chunks[0] if len(chunks) == 1 else chunks


def node_run_records(
    done: list[Pending],
    path: tuple[str, ...],
    nodes: tuple[str, ...],
    base: float,
    known: dict[tuple[str, ...], tuple[str, str]],
    value: Callable[[Any], Any],
    max_str: int,
) -> list[dict[str, Any]]:
    """A step's node runs as stored, in node order (a node missing from `nodes` goes last); `value`
    encodes a held value, `known` holds the topology's names and kinds by node path."""
    if len(done) > 1:
        order = {node: i for i, node in enumerate(nodes)}
        done = sorted(done, key=lambda p: order.get(p.node, len(order)))
    out: list[dict[str, Any]] = []
    for pending in done:
        info = pending.info
        node = info.node_key or ""
        record: dict[str, Any] = {"node": node}
        names = known.get((*path, node) if path else (node,))
        if names is None or names[0] != info.name or names[1] != info.kind:  # else nothing to add
            compact_node_names(record, info.name, info.kind, names)
        if pending.input is not NOTHING:
            record["input"] = value(pending.input)
        if pending.output is not NOTHING:
            record["output"] = value(pending.output)
        if pending.error is not None:
            record["error"] = pending.error
        t = pending.t  # `_times`, inline: every node run of every step goes through here
        if t is not None:
            record["t"] = round_time(t - base)
            if pending.end is not None:
                record["duration"] = round_time(pending.end - t)
        if pending.tools:
            record["tools"] = _tool_records(pending, value, max_str)
        out.append(record)
    return out


def _times(record: dict[str, Any], pending: Pending, base: float | None) -> None:
    """`t` (start, seconds after `base`: the step's start for a node, the node's for a tool call) and
    `duration`, when known."""
    t = pending.t
    if t is not None:
        record["t"] = None if base is None else round_time(t - base)
        if pending.end is not None:
            record["duration"] = round_time(pending.end - t)


def _tool_records(parent: Pending, value: Callable[[Any], Any], max_str: int) -> list[dict[str, Any]]:
    """Tool calls in call order, each without what its ToolsNode run already holds (see `elision`)."""
    calls = parent.input.tool_calls if type(parent.input) is Message else []
    tools = parent.tools or []
    if len(tools) > 1:
        order = {c.id: i for i, c in enumerate(calls)}
        tools = sorted(
            tools, key=lambda p: (order.get(p.info.tool_call_id or "", len(order)), p.info.tool_call_id or "")
        )
    by_id: dict[str, Any] | None = None  # built when first needed (a call that has an ID)
    contents: dict[str | None, str] | None = None  # likewise (a long string result)
    out: list[dict[str, Any]] = []
    for tool in tools:
        info = tool.info
        record: dict[str, Any] = {}
        call_id = info.tool_call_id
        call = None  # no ID: nothing is derived
        if call_id is not None:
            record["tool_call_id"] = call_id
            if len(calls) == 1:  # the usual one call: no lookup table
                call = calls[0] if calls[0].id == call_id else None
            else:
                if by_id is None:
                    by_id = {c.id: c for c in calls}
                call = by_id.get(call_id)
        name = compact_tool_name(info.name, None if call is None else call.name)
        if name is not None:
            record["name"] = name
        stored = tool.input
        if type(stored) is str:
            if compact_tool_call(stored, None if call is None else call.arguments, CALL_ARGUMENTS):
                record["input"] = CALL_ARGUMENTS
            else:
                record["input"] = value(stored)  # the encoder truncates and redacts it
        elif stored is not NOTHING:
            record["input"] = value(stored)
        stored = tool.output
        if type(stored) is str and call_id is not None:
            held = parent.output
            cls = type(held)
            if (cls is Held or (cls is Frozen and not held.start)) and held.n == 1:
                message = held.value[0] if cls is Held else held.tail[0]  # the usual one result
                usual = type(message) is Message and message.tool_call_id == call_id
                content = message.content if usual else None
            else:
                if contents is None:
                    output = _items(held)
                    contents = (
                        {m.tool_call_id: m.content for m in output if type(m) is Message}  # pyright: ignore[reportUnknownVariableType]
                        if type(output) is list
                        else {}
                    )
                content = contents.get(call_id)
            record["output"] = (
                CALL_CONTENT if compact_tool_call(stored, content, CALL_CONTENT) else value(stored)
            )
        elif stored is not NOTHING:
            record["output"] = value(stored)
        if tool.error is not None:
            record["error"] = tool.error
        _times(record, tool, parent.t)
        out.append(record)
    return out


def _items(held: Any) -> Any:
    """The list a held node output stands for, as far as it is at hand: a frozen list's part the encoder
    had stored before is only a reference, so the tool results in it are not looked up (a ToolsNode
    returns a new list each run, so its output is never stored before)."""
    cls = type(held)
    if cls is Held:
        return held.value[: held.n]
    return held.tail if cls is Frozen else held
