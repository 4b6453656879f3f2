"""Ports of Eino's `compose/checkpoint_migrate_test.go` (cloudwego/eino ca0441ac0bce):
`migrate_checkpoint_state` (Eino `MigrateCheckpointState`). Go's tests inject a stub serializer;
graph_core has one codec, so the bytes here are real encoded checkpoints."""

from __future__ import annotations

from typing import Any

import pytest

from graph_core.checkpoint import (
    Checkpoint,
    CheckpointSerializationError,
    decode_checkpoint,
    encode_checkpoint,
    migrate_checkpoint_state,
)


def _keep(state: Any) -> tuple[Any, bool]:
    return state, False


def test_migrate_checkpoint_state_unmarshal_error() -> None:
    """checkpoint_migrate_test.go TestMigrateCheckpointState_UnmarshalError: undecodable bytes fail."""
    with pytest.raises(CheckpointSerializationError):
        migrate_checkpoint_state(b"in", _keep)


def test_migrate_checkpoint_state_no_change_returns_original_bytes() -> None:
    """checkpoint_migrate_test.go TestMigrateCheckpointState_NoChangeReturnsOriginalBytes."""
    data = encode_checkpoint(Checkpoint(has_state=True, state="s"))
    assert migrate_checkpoint_state(data, _keep) is data


def test_migrate_checkpoint_state_change_triggers_marshal() -> None:
    """checkpoint_migrate_test.go TestMigrateCheckpointState_ChangeTriggersMarshal: the changed state is
    what gets encoded."""
    data = encode_checkpoint(Checkpoint(has_state=True, state="s"))
    out = migrate_checkpoint_state(data, lambda state: ("s2", True))
    assert out != data and decode_checkpoint(out).state == "s2"


def test_migrate_checkpoint_state_migrate_error_stops() -> None:
    """checkpoint_migrate_test.go TestMigrateCheckpointState_MigrateErrorStops: a failing migration of a
    nested graph's state stops the migration with that error."""
    data = encode_checkpoint(
        Checkpoint(has_state=True, state="root", sub_graphs={"sub": Checkpoint(has_state=True, state="sub")})
    )

    def migrate(state: Any) -> tuple[Any, bool]:
        if state == "sub":
            raise ValueError("boom")
        return state, False

    with pytest.raises(ValueError, match="boom"):
        migrate_checkpoint_state(data, migrate)
