"""Checkpoint serializer and stores: explicit versioned JSON, clear errors, SQLite across connections."""

from __future__ import annotations

import enum
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import BaseModel

from graph_core.checkpoint import (
    Checkpoint,
    CheckpointSerializationError,
    CheckpointStore,
    InMemoryCheckpointStore,
    SqliteCheckpointStore,
    decode_checkpoint,
    encode_checkpoint,
    register_type,
)
from graph_core.checkpoint.codec import decode_value, deep_copy, encode_value
from graph_core.interrupt import PointRecord
from graph_core.schema import Message, ToolCall


class Color(enum.Enum):
    RED = "red"


@dataclass
class Point:
    x: int
    tags: tuple[str, ...] = ()


class Profile(BaseModel):
    name: str
    history: list[Message] = []
    anything: object = None


def test_values_round_trip_with_their_types() -> None:
    msg = Message.assistant("hi", tool_calls=[ToolCall(id="1", name="f", arguments="{}")])
    value = {
        "msg": msg,
        "point": Point(1, ("a",)),
        "profile": Profile(name="n", history=[msg], anything=Point(2)),
        "color": Color.RED,
        "nums": (1, 2.5, None, True),
        "set": {1, 2},
        "raw": b"\x00\xff",
        3: "int key",
        "$odd": "dollar key",
    }
    assert deep_copy(value) == value
    assert type(deep_copy(value)["profile"].anything) is Point


def test_unsupported_value_names_its_type_and_place() -> None:
    class Opaque:
        pass

    with pytest.raises(CheckpointSerializationError, match=r"`.*Opaque` at `state\.items\[1\]`"):
        encode_value({"items": [1, Opaque()]}, "state")


def test_unknown_type_name_is_refused_and_nothing_is_imported() -> None:
    data = {"$dataclass": "some_module_never_imported:Evil", "fields": {}}
    with pytest.raises(CheckpointSerializationError, match="type is unknown here"):
        decode_value(data)
    # a name that resolves to something that is not a model, dataclass or enum is refused as well
    with pytest.raises(CheckpointSerializationError):
        decode_value({"$dataclass": "os:system", "fields": {}})


def test_registered_name_survives_a_rename() -> None:
    @dataclass
    class Moved:
        v: int

    register_type(Moved, "tests.Moved")
    assert encode_value(Moved(1))["$dataclass"] == "tests.Moved"
    assert decode_value(encode_value(Moved(1))) == Moved(1)
    with pytest.raises(CheckpointSerializationError, match="only pydantic models"):
        register_type(int)


def test_checkpoint_bytes_are_versioned_json() -> None:
    cp = Checkpoint(
        values={"b": {"a": "x"}},
        inputs=[("b", Message.user("q"))],
        rerun_nodes=["b"],
        points={"b": PointRecord("runnable:;node:b", info={"q": 1}, state=[1], has_state=True)},
        sub_graphs={"s": Checkpoint(skipped=["z"])},
        has_state=True,
        state=Point(3),
    )
    raw = encode_checkpoint(cp)
    envelope = json.loads(raw)
    assert envelope["format"] == "graph_core.checkpoint" and envelope["version"] == 1
    back = decode_checkpoint(raw)
    assert back.inputs == cp.inputs and back.state == Point(3) and back.sub_graphs["s"].skipped == ["z"]
    assert back.points["b"].state == [1] and back.points["b"].has_state
    assert encode_checkpoint(back) == raw  # deterministic


def test_foreign_and_future_bytes_are_refused() -> None:
    with pytest.raises(CheckpointSerializationError, match="invalid JSON"):
        decode_checkpoint(b"\x80\x04pickle")
    with pytest.raises(CheckpointSerializationError, match="missing format marker"):
        decode_checkpoint(b"{}")
    future = json.dumps({"format": "graph_core.checkpoint", "version": 99, "checkpoint": {}}).encode()
    with pytest.raises(CheckpointSerializationError, match="version 99 is not supported"):
        decode_checkpoint(future)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_stores_get_set_replace(kind: str, tmp_path: Path) -> None:
    store = InMemoryCheckpointStore() if kind == "memory" else SqliteCheckpointStore(tmp_path / "cp.db")
    assert isinstance(store, CheckpointStore)
    assert store.get("a") is None
    store.set("a", b"1")
    store.set("a", b"2")
    store.set("b", b"3")
    assert store.get("a") == b"2" and store.ids() == ["a", "b"]
    store.delete("a")
    assert store.get("a") is None


def test_sqlite_store_is_wal_and_visible_to_another_connection(tmp_path: Path) -> None:
    path = tmp_path / "cp.db"
    with SqliteCheckpointStore(path, clock=lambda: 42.0) as writer:
        writer.set("run", b"payload")
        reader = SqliteCheckpointStore(path)
        assert reader.get("run") == b"payload"
        reader.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT written_at FROM checkpoints").fetchone()[0] == 42.0
    conn.close()
