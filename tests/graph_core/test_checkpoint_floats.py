"""Audit: non-finite floats (a common `best = math.inf` in state) can be written to a checkpoint."""

from __future__ import annotations

import math

from graph_core.checkpoint import Checkpoint, decode_checkpoint, encode_checkpoint
from graph_core.checkpoint.codec import deep_copy


def test_non_finite_floats_round_trip_through_the_checkpoint_bytes() -> None:
    state = {"best": math.inf, "worst": -math.inf, "score": math.nan, "plain": 1.5}
    cp = decode_checkpoint(encode_checkpoint(Checkpoint(has_state=True, state=state)))
    assert cp.state["best"] == math.inf
    assert cp.state["worst"] == -math.inf
    assert math.isnan(cp.state["score"])
    assert cp.state["plain"] == 1.5
    assert math.isnan(deep_copy([math.nan])[0])


def test_dict_shaped_like_the_float_tag_stays_a_dict() -> None:
    assert deep_copy({"$float": "inf"}) == {"$float": "inf"}
