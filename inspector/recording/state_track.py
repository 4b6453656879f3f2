"""A step's state as stored: a full snapshot or a delta against the previous step of the same graph.

`StateTrack.record_state` is the one state encoder. Its general path encodes the whole state and diffs
it (`statediff.delta`). Its one fast path, taken from the second step on for a state `Encoder.top_level`
walks field by field (a pydantic model or a dict with string keys), goes over the top-level fields
once: a field still holding the same immutable scalar keeps its encoding, a message list that is the
same object and grew becomes an append op made from the new ids (and its JSON, so the delta is not
serialised again), any other field is encoded and diffed alone. On a 100-round ReAct run this halves
the recorder's per-step cost (`python3 -m bench recording`): re-encoding the state and diffing it
every step is what the recorder would otherwise spend most of its time on. The fast path gives
exactly the general path's result; anything unusual (first step, fields added or removed, a field
failing to encode) falls back to it.
Within it, a model state whose every field still holds last step's object skips even that walk
(`_usual`, over the `_Lane` made after a `_by_field` step): only its message lists are looked at. That
is an agent's usual step, and there it cut the recorder's cost after a model's wait (docs/performance.md,
the 1 ms target); it gives `_by_field`'s result, or None to take it.

The snapshot policy: a full snapshot first and whenever the deltas since the last one outweigh it (so
snapshot bytes stay within a constant factor of the state's size), or after `every` steps when the
deltas reach a quarter of it (bounding how far a reader replays for random access).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import is_
from typing import Any

from pydantic_core import to_json

from inspector.recording.encode import Encoder
from inspector.recording.statediff import appended_runs, delta, delta_into

__all__ = ["HeldState", "StateTrack"]

_ABSENT: Any = object()
_FAILED: Any = object()
_SCALARS = frozenset({str, int, float, bool, type(None)})


class StateTrack:
    """The previous encoded state of one graph path, and the snapshot policy's running sizes."""

    __slots__ = (
        "_keys_json",
        "_lane",
        "_plan",
        "_plan_by",
        "_plan_for",
        "delta_bytes",
        "delta_json",
        "every",
        "full_bytes",
        "prev",
        "raws",
        "steps_since_full",
        "usual",
    )

    def __init__(self, every: int) -> None:
        self.every = every
        self.prev: Any = _ABSENT
        self.full_bytes = 0
        self.delta_bytes = 0
        self.steps_since_full = 0
        self.raws: list[tuple[str, Any, bool]] = []  # last step's fields: what `prev` was encoded from
        self.delta_json: bytes | None = None  # the last delta's ops as written (None after a snapshot)
        self._keys_json: dict[str, bytes] = {}
        self._plan_for: type | None = None  # the state class `_plan` is for, with `_plan_by`'s encoder
        self._plan_by: Encoder | None = None
        self._plan: list[tuple[str, str, bool]] | None = None
        self._lane: _Lane | None = None  # the usual step of a model state, when last step allows it
        self.usual = False  # the last state recorded held the same objects as the one before it

    def record_state(self, state: Any, encoder: Encoder) -> tuple[bool, Any, Any]:
        """(`full`, payload, encoded state) for this step's live `state`: the payload is the encoded
        state when `full`, else the delta ops (their JSON in `delta_json`)."""
        prev = self.prev
        self.usual = False
        if type(prev) is dict:
            cls = type(state)
            if cls is not self._plan_for or encoder is not self._plan_by:
                self._plan_for, self._plan_by, self._plan = cls, encoder, encoder.model_plan(cls)
                self._lane = None
            plan = self._plan
            if plan is None:
                fields = encoder.top_level(state)
            elif state.__pydantic_extra__:  # `top_level`'s per-step check; the rest hold for the class
                fields = None
            else:  # `top_level(state)` for a model, from the plan worked out once for its class
                values = state.__dict__
                lane = self._lane
                try:
                    recorded = None if lane is None else self._usual(lane, values, encoder)
                except Exception:  # what `_by_field` would meet too (it does the same calls first)
                    recorded = _FAILED
                if recorded is not None and recorded is not _FAILED:
                    return recorded
                fields = None if recorded is _FAILED else [(key, values.get(n), m) for n, key, m in plan]
            if fields is not None and len(fields) == len(prev):
                recorded = self._by_field(state, fields, encoder)
                if recorded is not None:
                    if plan is not None:  # a model: its next usual step can take the lane
                        self._lane = _lane_of(plan, fields, self.prev)
                    return recorded
        self.raws = []
        self._lane = None
        encoded = encoder.encode(state)
        full, payload = self.record(encoded)
        return full, payload, encoded

    def record(self, encoded: Any) -> tuple[bool, Any]:
        """The general path: (`full`, payload) for an encoded state, diffed against the previous one."""
        if self.prev is _ABSENT:
            return True, self._snapshot(encoded)
        return self._policy(encoded, delta(self.prev, encoded), None)

    def _usual(self, lane: _Lane, values: dict[str, Any], encoder: Encoder) -> tuple[bool, Any, Any] | None:
        """`_by_field`'s result for the usual step of a model state, or None to take `_by_field`: every
        field holds the object it held last step (so its scalars are unchanged), and the fields that
        held message lists hold the same lists, grown at their end or not. Only those lists are looked
        at, through the encoder's list memo; their appends are the delta."""
        now: tuple[Any, ...] = tuple(map(values.get, lane.names))
        if not all(map(is_, now, lane.raws)) or lane.changed_in_place(now):
            return None
        return self._lane_delta(lane, now, encoder.grown_list)

    def hold(self, state: Any, encoder: Encoder) -> HeldState | None:
        """This step's state as `record_held` will need it once later steps have run, when it is the
        usual step `_usual` records (else None: record it now). Its message lists are frozen (see
        `held`); its other fields hold last step's objects, scalars that cannot change."""
        lane = self._lane
        if lane is None or type(state) is not self._plan_for or encoder is not self._plan_by:
            return None
        if state.__pydantic_extra__:
            return None
        now: list[Any] = list(map(state.__dict__.get, lane.names))
        if not all(map(is_, now, lane.raws)) or lane.changed_in_place(now):
            return None
        for i, _ in lane.lists:
            value = now[i]
            frozen = encoder.freeze_list(value, len(value), 1)
            if frozen is None or frozen.base is None:  # `grown_list` would not know the list
                return None
            now[i] = frozen
        return lane, now

    def record_held(self, held: HeldState, encoder: Encoder) -> tuple[bool, Any, Any]:
        """`record_state` for a state `hold` took: what `_usual` gave for it then."""
        lane, items = held
        recorded = self._lane_delta(lane, items, encoder.encode_frozen)
        assert recorded is not None  # `encode_frozen` always gives a marker
        return recorded

    def _lane_delta(
        self, lane: _Lane, items: Sequence[Any], grow: Callable[[Any], Any]
    ) -> tuple[bool, Any, Any] | None:
        """The usual step recorded: `grow(items[i])` is the marker of each message list (None: not
        the usual step after all), the other fields keep their encodings; a grown list is an append
        op, anything else the diff `_by_field` would make."""
        prev: dict[str, Any] = self.prev
        encoded = prev
        ops: list[list[Any]] = []
        appends: list[bytes] | None = []
        for i, key in lane.lists:
            value = grow(items[i])
            if value is None:
                return None
            before = prev[key]
            if value is before:
                continue
            if encoded is prev:
                encoded = prev.copy()  # same keys, same order: what `_by_field` builds
            encoded[key] = value
            tail = _grown_tail(before, value)  # `before` is a `$refs` marker: the lane checked
            if tail is not None:
                ops.append(["append", [key], {"$refs": tail}])
                if appends is not None:
                    appends.append(self._append_json(key, tail))
            else:
                count = len(ops)
                delta_into(before, value, [key], ops)
                if len(ops) != count:
                    appends = None
        full, payload = self._policy(encoded, ops, None if appends is None else b"[%b]" % b",".join(appends))
        self.usual = True
        return full, payload, encoded

    def _by_field(
        self, state: Any, fields: list[tuple[str, Any, bool]], encoder: Encoder
    ) -> tuple[bool, Any, Any] | None:
        """The fast path (see the module's docstring); None to take the general one."""
        prev: dict[str, Any] = self.prev
        raws_before = self.raws
        encoded: dict[str, Any] = {}
        ops: list[list[Any]] = []
        appends: list[bytes] | None = []  # the ops as JSON while each is an append made here
        aligned = len(raws_before) == len(fields)
        try:
            for i, (key, raw, masked) in enumerate(fields):
                before = prev.get(key, _ABSENT)
                if before is _ABSENT:
                    return None  # a field appeared: the general diff handles it
                if masked:
                    value = encoder.mask
                else:
                    same = aligned and raws_before[i][1] is raw and raws_before[i][0] == key
                    cls = type(raw)
                    if same and cls in _SCALARS:
                        encoded[key] = before
                        continue
                    value = encoder.grown_list(raw) if same and cls is list else None
                    if value is None:
                        value = encoder.encode_field(raw, state)
                    elif value is not before and type(before) is dict:
                        tail = _grown_tail(before, value)
                        if tail is not None:  # what `delta_into` finds for a grown message list
                            encoded[key] = value
                            ops.append(["append", [key], {"$refs": tail}])
                            if appends is not None:
                                appends.append(self._append_json(key, tail))
                            continue
                encoded[key] = value
                if value is not before:
                    count = len(ops)
                    delta_into(before, value, [key], ops)
                    if len(ops) != count:
                        appends = None
        except Exception:
            return None
        self.raws = fields
        ops_json = None if appends is None else b"[%b]" % b",".join(appends)
        full, payload = self._policy(encoded, ops, ops_json)
        return full, payload, encoded

    def _append_json(self, key: str, tail: list[list[int]]) -> bytes:
        """`to_json(["append", [key], {"$refs": tail}])`, from the key's JSON (made once per key) and,
        for the usual one-run tail, the two ids."""
        key_json = self._keys_json.get(key)
        if key_json is None:
            key_json = self._keys_json[key] = to_json(key)
        runs = b"[[%d,%d]]" % (tail[0][0], tail[0][1]) if len(tail) == 1 else to_json(tail)
        return b'["append",[%b],{"$refs":%b}]' % (key_json, runs)

    def _snapshot(self, encoded: Any) -> Any:
        self.prev = encoded
        self.delta_json = None
        self.full_bytes, self.delta_bytes, self.steps_since_full = len(to_json(encoded)), 0, 0
        return encoded

    def _policy(self, encoded: Any, ops: list[list[Any]], ops_json: bytes | None) -> tuple[bool, Any]:
        """(`full`, payload): the delta, or a snapshot when the deltas outweigh one."""
        if ops_json is None:
            ops_json = to_json(ops)  # serialising is cheaper than any arithmetic on the ops' parts
        self.steps_since_full += 1
        self.delta_bytes += len(ops_json)
        full_bytes = self.full_bytes
        grown = self.delta_bytes >= (full_bytes if full_bytes > 256 else 256)  # not `max`: cold code
        periodic = self.steps_since_full >= self.every and self.delta_bytes * 4 >= self.full_bytes
        if grown or periodic:
            return True, self._snapshot(encoded)
        self.prev = encoded
        self.delta_json = ops_json
        return False, ops


class _Lane:
    """What `StateTrack._usual` checks a model state against: its fields' names in plan order, the
    objects they held last step, (index, stored key) of those that held lists, and the indexes of
    those that held empty dicts (an ADK state's run-local values, usually none). Made only when every
    other field held a scalar or is masked, so a field still holding the same object is unchanged; an
    empty dict is unchanged while it stays empty (`changed_in_place`)."""

    __slots__ = ("empties", "lists", "names", "raws")

    def __init__(
        self,
        names: tuple[str, ...],
        raws: tuple[Any, ...],
        lists: tuple[tuple[int, str], ...],
        empties: tuple[int, ...] = (),
    ) -> None:
        self.names = names
        self.raws = raws
        self.lists = lists
        self.empties = empties

    def changed_in_place(self, now: Sequence[Any]) -> bool:
        """Whether a dict that was empty (the same object, by the identity check) has been filled."""
        return any(now[i] for i in self.empties)


HeldState = tuple[_Lane, list[Any]]
"""A usual step's state as `StateTrack.hold` took it: the lane, and its fields' objects with the
message lists frozen (`Frozen`)."""


def _lane_of(
    plan: list[tuple[str, str, bool]], fields: list[tuple[str, Any, bool]], encoded: dict[str, Any]
) -> _Lane | None:
    """The lane for the next step after one `_by_field` recorded `encoded` from `fields` (in `plan`
    order), or None when some field holds anything but a scalar or a list stored as a `$refs` marker
    (a message list the encoder memoised): anything else may change in place."""
    lists: list[tuple[int, str]] = []
    empties: list[int] = []
    for i, (key, raw, masked) in enumerate(fields):
        if masked:
            continue
        cls = type(raw)
        if cls is list:
            stored = encoded[key]
            if type(stored) is not dict or "$refs" not in stored:
                return None
            lists.append((i, key))
        elif cls is dict and not raw:
            empties.append(i)
        elif cls not in _SCALARS:
            return None
    names = tuple(name for name, _, _ in plan)
    return _Lane(names, tuple(raw for _, raw, _ in fields), tuple(lists), tuple(empties))


def _grown_tail(before: dict[str, Any], value: dict[str, Any]) -> list[list[int]] | None:
    """`appended_runs(before, value)`, with its usual case (one run of ids, longer now) cut short."""
    runs_before, runs = before.get("$refs"), value.get("$refs")
    if (
        runs_before is not None
        and runs is not None
        and len(runs) == 1
        and len(runs_before) == 1
        and runs[0][0] == runs_before[0][0]
        and runs[0][1] > runs_before[0][1]
    ):
        return [[runs_before[0][1], runs[0][1]]]
    return appended_runs(before, value)
