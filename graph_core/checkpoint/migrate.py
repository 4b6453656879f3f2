"""Rewriting the state inside saved checkpoints (Eino `MigrateCheckpointState`).

When a graph's state changes shape between releases, checkpoints saved by the old release still hold
the old shape. `migrate_checkpoint_state` decodes a stored checkpoint, hands the state of the graph and
of every nested graph to `migrate`, and encodes it again, so old checkpoints can be resumed instead of
discarded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graph_core.checkpoint.codec import decode_checkpoint, encode_checkpoint
from graph_core.checkpoint.model import Checkpoint

__all__ = ["migrate_checkpoint_state"]

Migrate = Callable[[Any], tuple[Any, bool]]
"""`migrate(state) -> (new_state, changed)`; raising stops the migration with that error."""


def migrate_checkpoint_state(data: bytes, migrate: Migrate) -> bytes:
    """`data` with every state in it passed through `migrate`; `data` itself (the same object) when no
    state changed. Undecodable bytes raise `CheckpointSerializationError`; `migrate`'s errors pass."""
    checkpoint = decode_checkpoint(data)
    if not _migrate(checkpoint, migrate):
        return data
    return encode_checkpoint(checkpoint)


def _migrate(checkpoint: Checkpoint, migrate: Migrate) -> bool:
    changed = False
    if checkpoint.has_state and checkpoint.state is not None:
        state, did = migrate(checkpoint.state)
        if did:
            checkpoint.state = state
            changed = True
    for sub in checkpoint.sub_graphs.values():
        changed = _migrate(sub, migrate) or changed
    return changed
