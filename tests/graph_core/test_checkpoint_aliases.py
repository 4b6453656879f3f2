"""Audit: pydantic models whose fields have aliases come back from a checkpoint."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from graph_core.checkpoint import Checkpoint, decode_checkpoint, encode_checkpoint


class Aliased(BaseModel):
    model_config = ConfigDict(frozen=True)
    user_id: int = Field(alias="userId")


class Holder(BaseModel):
    inner: Aliased


def test_pydantic_models_with_aliases_round_trip() -> None:
    value = Holder(inner=Aliased(userId=7))
    copied = decode_checkpoint(encode_checkpoint(Checkpoint(has_state=True, state=value))).state
    assert copied == value
