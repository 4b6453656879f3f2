"""Paths into a paused run, and typed edits through them.

At a superstep boundary the editable things are the run's state and the inputs of the nodes about to
run (a ReAct agent's `tools` input is the assistant message whose tool calls it will execute; the
state does not hold it yet). A path names one of them and walks into it:

    state.messages[-1].content          a field of the state, a list item (negative counts from the end)
    input.tools.tool_calls[0].arguments the input of the pending node `tools`
    messages[0]                         without `state.`/`input.`, the path is under `state`
    state["odd key"]                    a mapping key that is not a plain name, as a JSON string

Edits are typed: the changed root (the state, or one node's input) is rebuilt from plain JSON and
validated against the type it had (a pydantic model validates the whole model; a list of models each
item; a plain value must keep its JSON type), so a bad value changes nothing and says why.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from graph_core.schema import Message
from inspector.errors import DebugError
from inspector.recording.line_parse import too_deep

__all__ = [
    "MAX_VALUE_DEPTH",
    "Path",
    "check_value_depth",
    "get_at",
    "parse_path",
    "plain",
    "rebuild_like",
    "replace_at",
]

MAX_VALUE_DEPTH = 100
"""Levels of arrays and objects a typed value (`--set`, `--model-answer`) may nest: far more than a
state or a message needs, and far less than the parser and the rebuild's recursion can take."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_INDEX = re.compile(r"\[\s*(-?\d+)\s*\]")
_QUOTED = re.compile(r'\[\s*("(?:[^"\\]|\\.)*")\s*\]')

Segment = str | int


@dataclass(frozen=True, slots=True)
class Path:
    """A parsed path: `root` is `state` or `input`; for `input`, `node` names the pending node."""

    text: str
    root: str
    node: str | None
    segments: tuple[Segment, ...]

    def __str__(self) -> str:
        return self.text


def _segments(text: str, source: str) -> list[Segment]:
    out: list[Segment] = []
    pos = 0
    while pos < len(text):
        if text[pos] == ".":
            pos += 1
            match = _NAME.match(text, pos)
            if match is None:
                raise DebugError(f"path `{source}`: expected a name after `.` at column {pos + 1}")
            out.append(match.group(0))
            pos = match.end()
            continue
        index = _INDEX.match(text, pos)
        if index is not None:
            out.append(int(index.group(1)))
            pos = index.end()
            continue
        quoted = _QUOTED.match(text, pos)
        if quoted is not None:
            out.append(json.loads(quoted.group(1)))
            pos = quoted.end()
            continue
        if pos == 0:
            match = _NAME.match(text, pos)
            if match is not None:
                out.append(match.group(0))
                pos = match.end()
                continue
        raise DebugError(
            f"path `{source}`: unexpected `{text[pos]}` at column {pos + 1} (write `.name`, `[0]` or "
            '`["key"]`)'
        )
    return out


def check_value_depth(raw: str, what: str) -> None:
    """Refuse JSON text `raw` (given as `what`, e.g. ``--set `PATH=...` ``) that nests deeper than
    `MAX_VALUE_DEPTH`: `json.loads` would exhaust the recursion limit on it (a `RecursionError`, not
    a `ValueError`), and the edit's copies and rebuild recurse once per level too."""
    if too_deep(raw.encode("utf-8", "surrogatepass"), limit=MAX_VALUE_DEPTH):
        shown = raw if len(raw) <= 80 else f"{raw[:40]}…{raw[-20:]}"
        raise DebugError(
            f"{what} `{shown}` nests arrays and objects more than {MAX_VALUE_DEPTH} levels deep (the limit "
            "for a value given to the debugger)"
        )


def parse_path(text: str) -> Path:
    """Parse `text`; a path that starts with neither `state` nor `input` is taken under `state`."""
    source = text.strip()
    if not source:
        raise DebugError("empty path: write for example `state.messages[-1].content`")
    segments = _segments(source, source)
    if segments[0] == "input":
        if len(segments) < 2 or not isinstance(segments[1], str):
            raise DebugError(f"path `{source}`: `input` needs a node key, as in `input.tools`")
        return Path(source, "input", segments[1], tuple(segments[2:]))
    if segments[0] == "state":
        return Path(source, "state", None, tuple(segments[1:]))
    return Path(
        f"state.{source}" if not source.startswith("[") else f"state{source}", "state", None, tuple(segments)
    )


def plain(value: Any) -> Any:
    """A JSON-like copy of a live value: a message without its default fields (as run files show it),
    another pydantic model field by field (all of them)."""
    if isinstance(value, Message):
        return value.model_dump(mode="json", exclude_defaults=True)
    if isinstance(value, BaseModel):
        out = {name: plain(getattr(value, name)) for name in type(value).model_fields}
        extra = value.model_extra
        if extra:
            out.update({str(k): plain(v) for k, v in extra.items()})
        return out
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
    return value


def _where(path: Path, depth: int) -> str:
    head = "state" if path.root == "state" else f"input.{path.node}"
    for segment in path.segments[:depth]:
        head += f"[{segment}]" if isinstance(segment, int) else f".{segment}"
    return head


def _step_into(value: Any, segment: Segment, path: Path, depth: int) -> Any:
    here = _where(path, depth)
    if isinstance(segment, int):
        if not isinstance(value, list | tuple):
            raise DebugError(f"path `{path}`: `{here}` is not a list, so `[{segment}]` does not exist")
        items: list[Any] | tuple[Any, ...] = value  # pyright: ignore[reportUnknownVariableType]
        if not -len(items) <= segment < len(items):
            span = f"0..{len(items) - 1}" if items else "none"
            raise DebugError(
                f"path `{path}`: `{here}` has {len(items)} items (indexes {span}), no [{segment}]"
            )
        return items[segment]
    if isinstance(value, BaseModel):
        fields = list(type(value).model_fields)
        if segment not in fields:
            raise DebugError(
                f"path `{path}`: `{here}` has no field `{segment}` (fields: {', '.join(fields)})"
            )
        return getattr(value, segment)
    if isinstance(value, dict):
        mapping: dict[Any, Any] = value  # pyright: ignore[reportUnknownVariableType]
        if segment not in mapping:
            keys = ", ".join(str(k) for k in mapping) or "none"
            raise DebugError(f"path `{path}`: `{here}` has no key `{segment}` (keys: {keys})")
        return mapping[segment]
    raise DebugError(f"path `{path}`: `{here}` is a {type(value).__name__}, which has no `{segment}`")


def get_at(root: Any, path: Path) -> Any:
    """The live value at `path` under `root` (the state, or the node's input); `DebugError` if absent."""
    value = root
    for depth, segment in enumerate(path.segments):
        value = _step_into(value, segment, path, depth)
    return value


def _set_plain(doc: Any, segments: tuple[Segment, ...], new: Any) -> Any:
    if not segments:
        return new
    head, rest = segments[0], segments[1:]
    if isinstance(head, int):
        doc[head] = _set_plain(doc[head], rest, new)
    else:
        doc[head] = _set_plain(doc[head], rest, new)
    return doc


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "list"
    return "object"


def rebuild_like(like: Any, doc: Any, where: str) -> Any:
    """`doc` (plain JSON) as a value of `like`'s type; `DebugError` naming what does not fit."""
    if isinstance(like, BaseModel):
        try:
            return type(like).model_validate(doc)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(value)'}: {err['msg']}" for err in exc.errors()
            )
            raise DebugError(f"`{where}` must be a {type(like).__name__}: {problems}") from None
    if isinstance(like, list) and isinstance(doc, list):
        items: list[Any] = like  # pyright: ignore[reportUnknownVariableType]
        new_items: list[Any] = doc  # pyright: ignore[reportUnknownVariableType]
        if items:
            model = items[0] if all(type(item) is type(items[0]) for item in items) else None
            return [
                rebuild_like(items[i] if i < len(items) else model, item, f"{where}[{i}]")
                if i < len(items) or model is not None
                else item
                for i, item in enumerate(new_items)
            ]
        return list(new_items)
    if isinstance(like, tuple) and isinstance(doc, list):
        return tuple(doc)  # pyright: ignore[reportUnknownArgumentType]
    if isinstance(like, dict) and isinstance(doc, dict):
        mapping: dict[Any, Any] = like  # pyright: ignore[reportUnknownVariableType]
        new_map: dict[Any, Any] = doc  # pyright: ignore[reportUnknownVariableType]
        return {
            k: rebuild_like(mapping[k], v, f"{where}.{k}") if k in mapping else v for k, v in new_map.items()
        }
    if like is None:
        return doc
    old_kind, new_kind = _json_kind(like), _json_kind(doc)
    if old_kind != new_kind:
        raise DebugError(f"`{where}` holds a {old_kind}; {json.dumps(doc)} is a {new_kind}")
    return doc


def replace_at(root: Any, path: Path, new: Any) -> tuple[Any, Any]:
    """(new root, old value at `path`): `root` with the value at `path` replaced by `new` (plain JSON),
    rebuilt and validated against `root`'s type. `root` itself is left unchanged."""
    old = get_at(root, path)
    doc = _set_plain(plain(copy.deepcopy(root)), path.segments, copy.deepcopy(new))
    where = "state" if path.root == "state" else f"input.{path.node}"
    return rebuild_like(root, doc, where), old
