"""Stored values decoded as LangGraph decodes them, and the checks that a checkpoint is one this LangGraph
can read.

Values go through LangGraph's own `JsonPlusSerializer`. A value it cannot decode (a type from a module
that is not installed, a custom serializer) becomes `{"opaque": TYPE, "bytes": N}`: one value the
inspector cannot show, not a run it cannot open. A checkpoint in a newer format than the installed
LangGraph reads is refused, naming the format and, when the metadata says it, the LangGraph that wrote
it: reading it anyway would show a history that is not the one stored.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import msgspec

from inspector.errors import RunFileError

__all__ = [
    "OUTLINED",
    "PUSH",
    "SENDS",
    "check_format",
    "decode",
    "installed",
    "metadata_of",
    "newest_format",
    "outline_writes",
]

OUTLINED = ("__interrupt__", "__error__")
"""The channels whose pending writes an outline decodes: whether a thread stopped at an interrupt or
failed decides how it ends (the other writes' values are what the run shows, read step by step)."""

PUSH = "~__pregel_push"
"""How a task's path starts when a `Send` made it (its node is named by the parent's `SENDS`)."""

SENDS = "__pregel_tasks"
"""The channel holding a checkpoint's `Send`s."""

_SERDE: list[Any] = []
_METADATA = msgspec.json.Decoder()


def decode(kind: str | None, blob: bytes | None) -> Any:
    """A stored value through LangGraph's serializer; what it cannot decode, as opaque bytes."""
    if not _SERDE:
        from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

        _SERDE.append(JsonPlusSerializer())
    if kind is None:
        return None
    try:
        return _SERDE[0].loads_typed((kind, blob or b""))
    except Exception:  # any failure of a foreign serializer is one opaque value, not a failed run
        return {"opaque": kind, "bytes": len(blob or b"")}


def outline_writes(
    rows: Iterable[Sequence[Any]],
) -> tuple[dict[str, list[tuple[str, str, str, Any]]], set[str]]:
    """Pending writes by checkpoint id, from rows (checkpoint id, task id, task path, channel, type,
    value) in the order of their key, the type and value given for the `OUTLINED` channels only (None
    for the others): each write as (task id, task path, channel, value), its value decoded when given.
    And the ids of the checkpoints some of whose tasks a `Send` made (their `SENDS` name them)."""
    out: dict[str, list[tuple[str, str, str, Any]]] = {}
    pushed: set[str] = set()
    current: str | None = None
    found: list[tuple[str, str, str, Any]] = []
    for checkpoint_id, task_id, task_path, channel, kind, blob in rows:
        if checkpoint_id != current:
            current = checkpoint_id
            found = out[checkpoint_id] = []
        path = task_path or ""
        if path.startswith(PUSH):
            pushed.add(checkpoint_id)
        found.append((task_id, path, channel, None if kind is None else decode(kind, blob)))
    return out, pushed


def metadata_of(value: bytes | str | Mapping[str, Any] | None) -> dict[str, Any]:
    """A checkpoint's metadata (JSON text in SQLite, a JSONB value in Postgres); {} when unreadable.
    Read with msgspec (an outline reads one per checkpoint: 10,000 in a long thread), with the
    standard library's reader for what msgspec refuses (`NaN`, which Python's JSON writes)."""
    if isinstance(value, Mapping):
        return dict(value)  # pyright: ignore[reportUnknownArgumentType]
    if not value:
        return {}
    try:
        loaded = _METADATA.decode(value)
    except msgspec.DecodeError:
        try:
            loaded = json.loads(value)
        except (ValueError, UnicodeDecodeError):
            return {}
    return loaded if isinstance(loaded, dict) else {}  # pyright: ignore[reportUnknownVariableType]


READ_BY_ALL = 4
"""The newest checkpoint format every LangGraph the `langgraph` extra allows (>= 1.0) reads: format 4
came with LangGraph 0.5 (`Send`s in a channel of their own). A checkpoint up to it is read without
asking the installed LangGraph, whose `langgraph.pregel` costs a second to import."""


def newest_format() -> int:
    """The newest checkpoint format (`v`) the installed LangGraph writes and reads."""
    try:
        from langgraph.pregel._checkpoint import (  # pyright: ignore[reportMissingImports]
            LATEST_VERSION,  # pyright: ignore[reportUnknownVariableType]
        )
    except ImportError:  # a LangGraph that moved it: the format of this writing
        return 4
    return int(LATEST_VERSION)  # pyright: ignore[reportUnknownArgumentType]


def check_format(
    where: str, thread_id: str, checkpoint_id: str, checkpoint: Any, metadata: Mapping[str, Any]
) -> None:
    """Refuse a checkpoint whose format is newer than the installed LangGraph's."""
    found = checkpoint.get("v") if isinstance(checkpoint, Mapping) else None
    if not isinstance(found, int) or found <= READ_BY_ALL:
        return
    newest = newest_format()
    if found <= newest:
        return
    writer = metadata.get("langgraph_version")
    by = f"LangGraph {writer}" if isinstance(writer, str) else "a newer LangGraph"
    raise RunFileError(
        f"{where}: checkpoint `{checkpoint_id}` of thread `{thread_id}` was written by {by} (checkpoint "
        f"format v{found}); the installed langgraph {installed('langgraph')} reads formats up to "
        f"v{newest}. Upgrade it (`pip install -U langgraph`) to open this thread."
    )


def installed(package: str) -> str:
    """The installed version of `package`, for messages."""
    try:
        return version(package)
    except PackageNotFoundError:
        return "(version unknown)"
