"""State deltas between steps: how a run file stores state without growing quadratically.

Two vocabularies live here, one for the file and one for people:

- `delta(old, new)` / `apply_delta(value, ops)`: compact ops stored in `step_finished` lines,
  `["set", path, value]`, `["del", path]` and `["append", path, items]`; a list that grew at its end is
  stored as an append, so a message history costs one message per step, not the whole history.
- `changes(old, new)`: `Change` records for the replay model and `inspector show`: `added`, `removed`,
  `changed` and `appended` (one per appended list item, path ending with its index).

Both work on JSON-like values and short-circuit on identity, which the encoder's memos make common.
"""

from __future__ import annotations

from typing import Any, Literal

from msgspec import Struct

from inspector.recording.valuelist import LISTS

__all__ = [
    "Change",
    "ChangeOp",
    "DeltaError",
    "Path",
    "appended_runs",
    "apply_delta",
    "changes",
    "delta",
    "delta_into",
]

Path = tuple[str | int, ...]
ChangeOp = Literal["added", "removed", "changed", "appended"]


def delta(old: Any, new: Any) -> list[list[Any]]:
    """Ops that turn `old` into `new` (both JSON-like)."""
    ops: list[list[Any]] = []
    if type(old) is dict and type(new) is dict and len(old) == len(new) and not _is_marker(new):
        for key, value in new.items():  # the usual step: most top-level values are the same objects
            before = old.get(key, _ABSENT)
            if before is value:
                continue
            if before is _ABSENT:
                break
            _delta(before, value, [key], ops)
        else:
            return ops
        ops = []
    _delta(old, new, [], ops)
    return ops


_ABSENT: Any = object()


def _delta(old: Any, new: Any, path: list[Any], ops: list[list[Any]]) -> None:
    if old is new:
        return
    if type(old) is dict and type(new) is dict:
        if _is_marker(old) or _is_marker(new):
            grown = appended_runs(old, new)
            if grown is not None:
                ops.append(["append", list(path), {"$refs": grown}])
            elif old != new:
                ops.append(["set", list(path), new])
            return
        for key, value in new.items():
            if key in old:
                _delta(old[key], value, [*path, key], ops)
            else:
                ops.append(["set", [*path, key], value])
        ops.extend(["del", [*path, key]] for key in old if key not in new)
        return
    if type(old) is list and type(new) is list:
        n = len(old)
        if len(new) >= n and new[:n] == old:
            if len(new) > n:
                ops.append(["append", list(path), new[n:]])
            return
        if len(new) == n:
            for i, (a, b) in enumerate(zip(old, new, strict=True)):
                _delta(a, b, [*path, i], ops)
            return
        ops.append(["set", list(path), new])
        return
    if type(old) is not type(new) or old != new:
        ops.append(["set", list(path), new])


def delta_into(old: Any, new: Any, path: list[Any], ops: list[list[Any]]) -> None:
    """Append to `ops` what turns `old` into `new` below `path`: `delta` for one top-level field, for
    a caller that walks the top level itself (the recorder, which knows which fields are unchanged)."""
    _delta(old, new, path, ops)


def _is_marker(value: dict[str, Any]) -> bool:
    return "$ref" in value or "$refs" in value or "$repr" in value or "$truncated" in value


def appended_runs(old: dict[str, Any], new: dict[str, Any]) -> list[list[int]] | None:
    """The runs `new` adds at the end of `old` when both are `$refs` lists and `new` extends `old`."""
    a, b = old.get("$refs"), new.get("$refs")
    if a is None or b is None or not a:
        return None
    n = len(a)
    if len(b) < n:
        return None
    last, grown = a[-1], b[n - 1]  # `a`'s last run, and the run of `b` that may extend it
    if (n > 1 and b[: n - 1] != a[:-1]) or grown[0] != last[0] or grown[1] < last[1]:
        return None
    tail = [[last[1], grown[1]]] if grown[1] > last[1] else []
    tail.extend(b[n:])
    return tail or None


class DeltaError(ValueError):
    """A state delta op that does not apply to the state it follows: an index past the list's end, a
    key that is not there, a path through a string or a stored reference, an op that is not one. Only a
    file edited by hand has one (the recorder writes deltas against its own state); the message names
    the op and says why, for the reader to put the file, line and step in front."""


_KINDS = ("set", "del", "append")


def _concat(value: Any, items: Any) -> Any:
    if type(items) is dict and "$refs" in items:
        if type(value) is not dict or "$refs" not in value:
            raise DeltaError(f"appends stored messages to a {_kind_of(value)}, not to a stored message list")
        # The runs are shared with `value`, never changed in place: a run that grows is replaced (a
        # history of many runs is not copied run by run at every step).
        runs = list(value["$refs"])
        appended = items["$refs"]
        if type(appended) is not list or not all(
            type(run) is list and len(run) == 2 and all(type(end) is int for end in run) for run in appended
        ):
            raise DeltaError(f"appends `$refs` {appended!r:.60}, which is not a list of [start, stop] pairs")
        for start, stop in appended:
            if runs and runs[-1][1] == start:
                runs[-1] = [runs[-1][0], stop]
            else:
                runs.append([start, stop])
        return {"$refs": runs}
    if type(value) is not list or type(items) is not list:
        raise DeltaError(f"appends a {_kind_of(items)} to a {_kind_of(value)}; only lists are appended to")
    return [*value, *items]


def apply_delta(value: Any, ops: list[list[Any]]) -> Any:
    """`value` with `ops` applied; copy-on-write along each path, so `value` itself is never changed.
    An op that does not apply raises `DeltaError` naming it."""
    for op in ops:
        try:
            value = _apply(value, op)
        except DeltaError as exc:
            raise DeltaError(f"{_op_text(op)} {exc}") from None
        except (KeyError, IndexError, TypeError) as exc:
            raise DeltaError(f"{_op_text(op)} {_why(exc)}") from None
    return value


def _apply(value: Any, op: Any) -> Any:
    if type(op) is not list or len(op) < 2 or type(op[1]) is not list:
        raise DeltaError("is not an op (`[OP, PATH, VALUE]`, PATH a list of keys and indexes)")
    kind, path = op[0], op[1]
    if kind not in _KINDS:
        raise DeltaError("is of no known kind (a state change is `set`, `del` or `append`)")
    if kind != "del" and len(op) < 3:
        raise DeltaError("has no value")
    if not path:
        if kind == "set":
            return op[2]
        if kind == "append":
            return _concat(value, op[2])
        return None
    root = _copy(value)
    parent: Any = root
    for key in path[:-1]:
        child = _copy(parent[key])
        parent[key] = child
        parent = child
    last = path[-1]
    if kind == "set":
        if type(parent) is list and last == len(parent):
            parent.append(op[2])
        elif type(parent) is dict and type(last) is not str:
            raise DeltaError(f"sets key {last!r} of a mapping, whose keys are strings")
        else:
            parent[last] = op[2]  # pyright: ignore[reportCallIssue, reportArgumentType]  (a list, by index)
    elif kind == "del":
        del parent[last]
    else:
        parent[last] = _concat(parent[last], op[2])
    return root


def _copy(value: Any) -> Any:
    if type(value) is dict:
        if _is_marker(value):
            raise DeltaError("goes into a stored value (a `$ref` marker), which deltas replace whole")
        return dict(value)
    if type(value) is list:
        return list(value)
    raise DeltaError(f"goes through a {_kind_of(value)}, which has no keys or items")


def _kind_of(value: Any) -> str:
    if type(value) is dict:
        return "stored message list" if "$refs" in value else "mapping"
    return {list: "list", str: "string", bool: "boolean", int: "number", float: "number"}.get(
        type(value), "null" if value is None else type(value).__name__
    )


def _why(error: Exception) -> str:
    if isinstance(error, KeyError):
        return f"names key {error.args[0]!r}, which the state does not have there"
    if isinstance(error, IndexError):
        return "names an index past the end of a list"
    return f"does not fit the state's shape ({error})"


def _op_text(op: Any) -> str:
    """`set messages[3]`, as an op reads (a malformed one as its JSON, shortened)."""
    if type(op) is list and len(op) >= 2 and type(op[1]) is list:
        text = f"`{op[0]} {format_path(tuple(op[1]))}`"
    else:
        text = f"`{op!r}`"
    return text if len(text) <= 80 else f"{text[:60]}…`"


class Change(Struct, frozen=True, gc=False):
    """One difference between two states: `path` from the root (keys and list indexes).

    A msgspec struct rather than a frozen dataclass: a walk over a long run makes one or two a step,
    and a frozen dataclass's `__init__` (a call to `object.__setattr__` per field) cost ten times as
    much. Left out of the cycle collector: a change holds values, which never refer back to it."""

    path: Path
    op: ChangeOp
    old: Any = None
    new: Any = None

    @property
    def path_text(self) -> str:
        return format_path(self.path)


def format_path(path: Path) -> str:
    """`messages[3].content` style, for people."""
    if len(path) == 2 and type(path[0]) is str and type(path[1]) is int:  # the usual: a history's item
        return f"{path[0]}[{path[1]}]"
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(root)"


def changes(old: Any, new: Any, path: Path = ()) -> list[Change]:
    """What changed from `old` to `new`, as `Change` records in path order (`path`: where `old` and
    `new` sit in a larger state, put in front of every change's path)."""
    out: list[Change] = []
    _changes(old, new, path, out)
    return out


def _changes(old: Any, new: Any, path: Path, out: list[Change]) -> None:
    if old is new:
        return
    if type(old) is dict and type(new) is dict:
        for key, value in new.items():
            if key in old:
                _changes(old[key], value, (*path, key), out)
            else:
                out.append(Change((*path, key), "added", None, value))
        out.extend(
            Change((*path, key), "removed", value, None) for key, value in old.items() if key not in new
        )
        return
    if isinstance(old, LISTS) and isinstance(new, LISTS):  # a recorded history is a `ValueList`
        n = len(old)
        common = min(n, len(new))
        if len(new) > n and new[:n] == old:
            out.extend(Change((*path, i), "appended", None, new[i]) for i in range(n, len(new)))
            return
        for i in range(common):
            _changes(old[i], new[i], (*path, i), out)
        out.extend(Change((*path, i), "removed", old[i], None) for i in range(common, n))
        out.extend(Change((*path, i), "added", None, new[i]) for i in range(common, len(new)))
        return
    if old is None and new is not None and not path:
        out.append(Change(path, "added", None, new))
    elif type(old) is not type(new) or old != new:
        out.append(Change(path, "changed", old, new))
