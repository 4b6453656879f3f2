"""Turn whatever flows through a graph into JSON-like values, without ever failing.

Faithful where possible (pydantic models and dataclasses by field, enums by value, tuples and sets as
lists), a marked representation otherwise (`{"$repr": ..., "$type": ...}`); recording must never crash a
run. Redaction and string truncation happen here, during the one walk over each value.

Two memos keep recording cheap and files small on long ReAct runs, where the same messages reappear in
every step's state and in every model input:

- each `Message` object is encoded once and becomes `{"$ref": n}`; its definition is handed to the
  writer (`take_definitions`) to be written as a `value` line before the first line that uses it;
- a list of messages becomes `{"$refs": [[start, stop], ...]}`, runs of consecutive ids, so a history
  of a thousand messages costs a few bytes in each step's state and model input; a list seen before
  (same list object, grown at the end) only encodes what was appended.

Messages already recorded are assumed not to change in place unless their role, content, tool calls or
tool call ID change (a cheap fingerprint is compared); the engine replaces rather than edits them.

Keys of recorded data that start with `$` get one more `$` (`escape_key`), so markers stay unambiguous.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_json

from graph_core.history import HistoryView
from graph_core.schema import Message, TokenUsage, ToolCall
from inspector.recording.held import Encoded, Frozen
from inspector.recording.held import Held as HeldList
from inspector.recording.message_json import message_json
from inspector.recording.redact import NO_REDACTION, Redaction
from inspector.recording.refs import extend_runs, prefix_runs
from inspector.recording.value_kinds import KINDS, kind_of, other_value, type_name

__all__ = ["Encoder", "Raw", "escape_key", "type_name", "unescape_key"]

_MAX_DEPTH = 64
_message_json = Message.__pydantic_serializer__.to_json


def escape_key(key: str) -> str:
    """A data key as stored: one more `$` in front when it starts with `$`, so no recorded key can be
    taken for one of the format's markers (`$ref`, `$repr`, ...); `unescape_key` undoes it."""
    return "$" + key if key[:1] == "$" else key


def unescape_key(key: str) -> str:
    return key[1:] if key[:2] == "$$" else key


def _fingerprint(message: Message) -> tuple[Any, ...]:
    return (message.role, message.content, message.tool_call_id, len(message.tool_calls), message.usage)


class Raw:
    """A value that is already in the format (a marker built by the recorder): passed through as is."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class Encoder:
    """Encodes values for one run file; not thread-safe (the recorder holds its lock around it)."""

    def __init__(
        self,
        *,
        redaction: Redaction | None = None,
        max_str: int = 10_000,
        intern: bool = True,
        first_ref: int = 0,
    ):
        """`first_ref`: the id of the first value this encoder defines; a resumed run appended to a
        file continues the numbering of the values already in it."""
        self.redaction = redaction or NO_REDACTION
        self._scrub = self.redaction.scrub if self.redaction.scrubs else None  # on every string
        self.max_str = max_str
        self.intern = intern
        self._messages: dict[int, tuple[Message, tuple[Any, ...], dict[str, int]]] = {}
        self._lists: dict[int, tuple[list[Any], int, Any, Any, dict[str, Any]]] = {}
        self._pending: list[tuple[int, Any]] = []
        self._next_ref = first_ref
        self._stack: set[int] = set()
        self._plain_fields: bool | None = None
        self._plans: dict[type[BaseModel], list[tuple[str, str, bool]]] = {}
        self._history: list[Any] | None = None  # the message list memoised last (see `_copy_of_history`)

    def encode(self, value: Any) -> Any:
        """A JSON-like version of `value`; never raises for ordinary exceptions inside `value`."""
        try:
            return self._enc(value, 0)
        except Exception as exc:  # a hostile __repr__ or property: record that, not crash
            return {"$repr": f"<unencodable: {type(exc).__name__}: {exc}>", "$type": type_name(value)}

    def encode_message(self, message: Message) -> Any:
        """`encode` for a `Message` (the recorder's hot path): straight to its reference."""
        try:
            return self._message(message, 0) if self.intern else self._model(message, 0, True)
        except Exception:
            return self.encode(message)

    def encode_list(self, value: list[Any], size: int = -1) -> Any:
        """`encode` for a list (a message history, usually), or for its first `size` items: straight to
        the list memo."""
        try:
            return self._list(value, 0, size)
        except Exception:
            return self.encode(value if size < 0 else value[:size])

    def freeze_list(self, value: list[Any], n: int, depth: int) -> Frozen | None:
        """`value[:n]` as `Frozen`, to be encoded later by `encode_frozen` exactly as `encode_list` or
        `grown_list` would encode it now, whatever happens to `value` meanwhile; None when it holds
        anything but messages past what the list memo has stored (then it must be encoded now)."""
        memo = self._lists.get(id(value))
        start, base = 0, None
        if memo is not None and n:
            obj, m, first, last, marker = memo
            if obj is value and m <= len(value) and value[0] is first and value[m - 1] is last:
                if m <= n:
                    start, base = m, marker
                else:  # memoised longer than this prefix (a node's input, the state grown since)
                    start, base = n, {"$refs": prefix_runs(marker["$refs"], n)}
        tail = value[start:n]
        for item in tail:
            if type(item) is not Message:
                return None
        return Frozen(value, n, start, base, tail, value[0] if n else None, depth)

    def encode_frozen(self, frozen: Frozen) -> Any:
        """What `encode_list` (depth 0) or `grown_list` (depth 1) gave for the list when it was frozen.
        Between the freezing and this call only lists frozen with it were encoded, so a memo that has
        reached `n` since holds this very prefix."""
        value, n, tail, depth, base = frozen.value, frozen.n, frozen.tail, frozen.depth, frozen.base
        memo = self._lists.get(id(value))
        if memo is not None and memo[0] is not value:
            memo = None
        if memo is not None and memo[1] == n:
            return memo[4]
        if not tail:
            return [] if base is None else base
        if base is None:
            copied = self._copy_of_history(tail, depth)
            if copied is not None:
                return copied
            base = {"$refs": []}
        marker = {"$refs": extend_runs(base["$refs"], self._refs(tail, 0, depth, len(tail)) or [])}
        if memo is None or memo[1] < n:
            self._lists[id(value)] = (value, n, frozen.first, tail[-1], marker)
            self._history = value
        return marker

    def encode_held(self, held: Any) -> Any:
        """A value the recorder held until the step boundary (see `held`), encoded in node order:
        already encoded (`Encoded`), a message, a message list (`Held`, `Frozen`) or anything else."""
        cls = type(held)
        if cls is Encoded:
            return held.value
        if cls is Message:
            return self.encode_message(held)
        if cls is HeldList:
            return self.encode_list(held.value, held.n)
        if cls is Frozen:
            return self.encode_frozen(held)
        return self.encode(held)

    def top_level(self, value: Any) -> list[tuple[str, Any, bool]] | None:
        """(stored key, raw value, masked) per top-level field of a state `encode` would walk field by
        field (a pydantic model without extras, or a dict with string keys, and no redaction function),
        in `encode`'s order; None for anything else. With `encode_field` it lets the recorder encode
        only the fields that may have changed, with the same result as `encode(value)`."""
        if self.redaction.fn is not None:
            return None
        cls = type(value)
        kind = KINDS.get(cls) or kind_of(cls)
        if kind == "model":
            if cls.__module__ == "graph_core.schema" or value.model_extra:
                return None
            plan = self._plan(cls)
            fields = value.__dict__
            return [(key, fields.get(name), masked) for name, key, masked in plan]
        if cls is dict:
            redaction = self.redaction
            active = redaction.active
            out: list[tuple[str, Any, bool]] = []
            for k, v in value.items():
                if type(k) is not str:
                    return None
                out.append((escape_key(k), v, active and redaction.masks_key(k)))
            return out
        return None

    def model_plan(self, cls: type) -> list[tuple[str, str, bool]] | None:
        """`top_level`'s (field name, stored key, masked) plan for instances of `cls` without extras, or
        None when `top_level` would not walk them field by field; for a caller that checks once per class
        and then reads the fields itself (`instance.model_extra` must still be empty)."""
        if self.redaction.fn is not None or cls.__module__ == "graph_core.schema":
            return None
        if (KINDS.get(cls) or kind_of(cls)) != "model":
            return None
        return self._plan(cls)

    def grown_list(self, value: list[Any]) -> Any:
        """What `encode_field` gives for `value` when it is a message list this encoder has met before
        (the same object, grown at its end or not): the list memo's marker, without the walk. None for
        anything else, which the caller encodes the usual way (messages interned on the way keep their
        ids, as they would on that way)."""
        return self._memo_marker(value, len(value), 1)

    def encode_field(self, value: Any, parent: Any) -> Any:
        """`encode` of one top-level field of `parent` (see `top_level`), exactly as `encode(parent)`
        encodes it: one level down, with `parent` on the cycle guard. Unlike `encode` it may raise;
        the caller then encodes `parent` as a whole, which records the failure."""
        key = id(parent)
        self._stack.add(key)
        try:
            return self._enc(value, 1)
        finally:
            self._stack.discard(key)

    @property
    def mask(self) -> str:
        return self.redaction.mask

    @property
    def has_definitions(self) -> bool:
        return bool(self._pending)

    def take_definitions(self) -> list[tuple[int, Any]]:
        """Message definitions created since the last call, in reference order, as JSON-like values."""
        pending, self._pending = self._pending, []
        return [(ref, json.loads(value) if type(value) is bytes else value) for ref, value in pending]

    def take_definition_bytes(self) -> bytes:
        """`take_definition_lines`, joined: what a step writes before its own line."""
        pending, self._pending = self._pending, []
        return b"".join(
            [
                b'{"kind":"value","value":%b}\n' % (value if type(value) is bytes else to_json(value))
                for _, value in pending
            ]
        )

    def take_definition_lines(self) -> list[bytes]:
        """`take_definitions` as the run file's `value` lines, ready to write: most definitions are
        already JSON (serialised by pydantic-core straight from the message), so nothing is built twice."""
        pending, self._pending = self._pending, []
        return [
            b'{"kind":"value","value":%b}\n' % (value if type(value) is bytes else to_json(value))
            for _, value in pending
        ]

    # --- the walk -------------------------------------------------------------------------------

    def _enc(self, value: Any, depth: int) -> Any:
        cls = type(value)
        if cls is str:
            if self._scrub is not None:
                value = self._scrub(value)
            return value if len(value) <= self.max_str else self._truncated(value)
        if value is None or cls is bool or cls is int:
            return value
        if cls is float:
            return value if math.isfinite(value) else {"$repr": repr(value), "$type": "float"}
        if cls is Message:
            return self._message(value, depth) if self.intern else self._model(value, depth, True)
        if cls is Raw:
            return value.value
        if depth >= _MAX_DEPTH:
            return {"$repr": "<too deep>", "$type": type_name(value)}
        if cls is list:
            return self._list(value, depth)
        if cls is HistoryView:  # an agent's fixed view of its history: encoded as the list it shows
            return self._list(value.as_list(), depth)
        kind = KINDS.get(cls) or kind_of(cls)
        if kind == "mapping":
            return self._guarded(value, depth, self._mapping)
        if kind == "sequence":
            return self._guarded(value, depth, self._sequence)
        if kind == "model":
            return self._guarded(value, depth, self._model)
        if kind == "dataclass":
            return self._guarded(value, depth, self._dataclass)
        return self._other(value, depth)

    def _guarded(self, value: Any, depth: int, fn: Any) -> Any:
        key = id(value)
        if key in self._stack:
            return {"$repr": "<cycle>", "$type": type_name(value)}
        self._stack.add(key)
        try:
            return fn(value, depth)
        finally:
            self._stack.discard(key)

    def _truncated(self, text: str) -> dict[str, Any]:
        return {"$truncated": "str", "length": len(text), "preview": text[: self.max_str]}

    def _item(self, key: str, value: Any, depth: int) -> Any:
        redaction = self.redaction
        if redaction.active:
            if redaction.masks_key(key):
                return redaction.mask
            if redaction.fn is not None:
                value = redaction.fn(key, value)
        return self._enc(value, depth + 1)

    def _mapping(self, value: Mapping[Any, Any], depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in value.items():
            key = k if type(k) is str else str(k.value if isinstance(k, enum.Enum) else k)
            out[escape_key(key)] = self._item(key, v, depth)
        return out

    def _sequence(self, value: Any, depth: int) -> list[Any]:
        return [self._enc(v, depth + 1) for v in value]

    def _list(self, value: list[Any], depth: int, size: int = -1) -> Any:
        """A list of messages (or its first `size` items) becomes `{"$refs": [[start, stop], ...]}`
        (runs of value ids), anything else a list. A message list seen before and grown at its end only
        encodes the new messages; its first and last known items are checked, not every item (histories
        grow, they are not edited)."""
        whole = len(value)
        if size < 0:
            size = whole
        if not self.intern or not size:
            return self._guarded(value if size == whole else value[:size], depth, self._sequence)
        marker = self._memo_marker(value, size, depth)
        if marker is not None:
            return marker
        items = value if size == whole else value[:size]
        copied = self._copy_of_history(items, depth)
        if copied is not None:
            return copied
        refs = self._refs(items, 0, depth, size)
        if refs is not None:
            marker = {"$refs": extend_runs([], refs)}
            self._lists[id(value)] = (value, size, value[0], value[size - 1], marker)
            self._history = value
            return marker
        return self._guarded(items, depth, self._sequence)

    def _memo_marker(self, value: list[Any], size: int, depth: int) -> Any:
        """The list memo's marker for `value[:size]` when the memo holds `value` (grown since or not,
        or longer than `size`), or None."""
        memo = self._lists.get(id(value))
        if memo is None:
            return None
        obj, n, first, last, marker = memo
        if obj is not value or not size or n > len(value):
            return None
        if value[0] is not first or value[n - 1] is not last:
            return None
        if size == n:
            return marker
        if size < n:  # a prefix of what was stored: a node's input, the list grown since
            return {"$refs": prefix_runs(marker["$refs"], size)}
        refs = self._refs(value, n, depth, size)
        if refs is None:
            return None
        marker = {"$refs": extend_runs(marker["$refs"], refs)}
        self._lists[id(value)] = (value, size, first, value[size - 1], marker)
        self._history = value
        return marker

    def _copy_of_history(self, value: list[Any], depth: int) -> Any:
        """The marker of a new list that holds the same messages as the last message list memoised (an
        agent hands its model a copy of the state's history every round), or None.

        The last item must be the history's last object; the others are compared at C speed (identity
        first, value equality otherwise) instead of a memo lookup per message. The copy is not memoised:
        a run makes one per round, and keeping each would hold every history the run ever had."""
        history = self._history
        if history is None or history is value or len(history) != len(value):
            return None
        if value[-1] is not history[-1]:
            return None
        if value != history:
            return None
        marker = self._list(history, depth)
        return marker if type(marker) is dict else None

    def _refs(self, value: list[Any], start: int, depth: int, stop: int) -> list[int] | None:
        """Value ids of `value[start:stop]`, or None if it holds anything but messages (the messages
        met before that are interned all the same, as encoding the list item by item would)."""
        refs: list[int] = []
        messages = self._messages
        for i in range(start, stop):
            item = value[i]
            if type(item) is not Message:
                return None
            memo = messages.get(id(item))
            if (
                memo is not None
                and memo[0] is item
                and memo[1]  # `_fingerprint`, inline
                == (item.role, item.content, item.tool_call_id, len(item.tool_calls), item.usage)
            ):
                refs.append(memo[2]["$ref"])
            else:
                refs.append(self._new_message(item, depth + 1)["$ref"])
        return refs

    def _message(self, message: Message, depth: int) -> dict[str, int]:
        memo = self._messages.get(id(message))
        if memo is not None and memo[0] is message and memo[1] == _fingerprint(message):
            return memo[2]
        return self._new_message(message, depth)

    def _new_message(self, message: Message, depth: int) -> dict[str, int]:
        number = self._next_ref
        self._next_ref = number + 1
        ref = {"$ref": number}
        self._pending.append((number, self._message_value(message, depth)))
        self._messages[id(message)] = (message, _fingerprint(message), ref)
        return ref

    def _message_value(self, message: Message, depth: int) -> Any:
        """pydantic-core's JSON bytes as they are when nothing in the message can need masking or
        truncating (the common case: no `extra`, field names the key patterns leave alone, short texts),
        which the writer embeds without building a dict; else the full walk, a JSON-like value."""
        if self._plain_fields is None:
            names = {*Message.model_fields, *ToolCall.model_fields, *TokenUsage.model_fields}
            self._plain_fields = (
                not any(self.redaction.masks_key(n) for n in names) and self.redaction.fn is None
            )
        limit = self.max_str
        content, reasoning = message.content, message.reasoning_content
        plain = self._plain_fields and not message.extra and len(content) <= limit and len(reasoning) <= limit
        if message.user_input_multi_content:  # media parts: long base64 data is truncated as any string
            plain = False
        scrub = self._scrub  # value redaction sees the free text (names and IDs are the program's own)
        if plain and scrub is not None:
            plain = scrub(content) is content and (not reasoning or scrub(reasoning) is reasoning)
        if plain:
            for call in message.tool_calls:
                arguments = call.arguments
                if len(arguments) > limit or (scrub is not None and scrub(arguments) is not arguments):
                    plain = False
                    break
        if plain:
            try:  # the same bytes as pydantic-core's, without its cold code (see `message_json`)
                return message_json(message) or _message_json(message, exclude_defaults=True, warnings=False)
            except Exception:
                pass
        return self._model(message, depth, True)

    def _model(self, value: BaseModel, depth: int, compact: bool = False) -> Any:
        """Schema types (messages, tool calls) via pydantic's fast dump without defaults; other models
        field by field, so messages inside them are interned and secrets under field names masked."""
        if compact or type(value).__module__ == "graph_core.schema":
            try:
                dumped = value.model_dump(mode="json", exclude_defaults=True, warnings=False)
            except Exception:
                dumped = {name: getattr(value, name, None) for name in type(value).model_fields}
            return self._mapping(dumped, depth)
        redaction = self.redaction
        if redaction.fn is None:  # the usual case: which fields are masked is known per class
            plan = self._plan(type(value))
            mask = redaction.mask
            fields = value.__dict__
            out = {
                key: mask if masked else self._enc(fields.get(name), depth + 1) for name, key, masked in plan
            }
        else:
            out = {
                name: self._item(name, getattr(value, name, None), depth) for name in type(value).model_fields
            }
        for key, item in (value.model_extra or {}).items():
            out[escape_key(key)] = self._item(key, item, depth)
        return out

    def _plan(self, cls: type[BaseModel]) -> list[tuple[str, str, bool]]:
        """(field name, stored key, masked) per field of a model class."""
        plan = self._plans.get(cls)
        if plan is None:
            redaction = self.redaction
            plan = [(n, escape_key(n), redaction.active and redaction.masks_key(n)) for n in cls.model_fields]
            self._plans[cls] = plan
        return plan

    def _dataclass(self, value: Any, depth: int) -> dict[str, Any]:
        return {
            f.name: self._item(f.name, getattr(value, f.name, None), depth) for f in dataclasses.fields(value)
        }

    def _other(self, value: Any, depth: int) -> Any:
        return other_value(value, lambda item: self._enc(item, depth + 1), self._scrub, self.max_str)
