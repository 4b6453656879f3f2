"""Checkpoint stores: where a stopped run's bytes wait for its resume (Eino `CheckPointStore`).

A store maps a checkpoint ID to the serializer's bytes. It never interprets them, so any key-value
system fits the protocol; `InMemoryCheckpointStore` is for tests and single-process use,
`SqliteCheckpointStore` (in `sqlite.py`) for anything that must survive the process.
"""

from __future__ import annotations

import threading
from typing import Protocol, runtime_checkable

__all__ = ["CheckpointStore", "InMemoryCheckpointStore"]


@runtime_checkable
class CheckpointStore(Protocol):
    """`get` returns the bytes saved under `checkpoint_id`, or None; `set` replaces them atomically."""

    def get(self, checkpoint_id: str) -> bytes | None: ...

    def set(self, checkpoint_id: str, data: bytes) -> None: ...


class InMemoryCheckpointStore:
    """A dict behind a lock: checkpoints live as long as this object."""

    def __init__(self) -> None:
        self._data: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def get(self, checkpoint_id: str) -> bytes | None:
        with self._lock:
            return self._data.get(checkpoint_id)

    def set(self, checkpoint_id: str, data: bytes) -> None:
        with self._lock:
            self._data[checkpoint_id] = bytes(data)

    def delete(self, checkpoint_id: str) -> None:
        with self._lock:
            self._data.pop(checkpoint_id, None)

    def ids(self) -> list[str]:
        with self._lock:
            return sorted(self._data)

    def __repr__(self) -> str:
        return f"InMemoryCheckpointStore({len(self._data)} checkpoints)"
