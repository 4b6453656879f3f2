"""Audit: damaged, foreign or unusual checkpoint bytes fail with a CheckpointSerializationError that says
what is wrong and where."""

from __future__ import annotations

import json

import pytest

from graph_core.checkpoint import (
    Checkpoint,
    CheckpointSerializationError,
    decode_checkpoint,
    encode_checkpoint,
)
from graph_core.checkpoint.codec import decode_value


def _bytes(body: object, version: object = 1) -> bytes:
    return json.dumps({"format": "graph_core.checkpoint", "version": version, "checkpoint": body}).encode()


def _valid_body() -> dict[str, object]:
    return json.loads(encode_checkpoint(Checkpoint(inputs=[("a", 1)], rerun_nodes=["a"])))["checkpoint"]


def test_missing_checkpoint_body_is_named() -> None:
    raw = json.dumps({"format": "graph_core.checkpoint", "version": 1}).encode()
    with pytest.raises(CheckpointSerializationError, match="`checkpoint` is missing"):
        decode_checkpoint(raw)


def test_missing_field_is_named_with_its_place() -> None:
    body = _valid_body()
    del body["control"]
    with pytest.raises(CheckpointSerializationError, match=r"`checkpoint\.control` is missing"):
        decode_checkpoint(_bytes(body))


@pytest.mark.parametrize(
    ("field", "value", "place"),
    [
        ("values", [], r"checkpoint\.values"),
        ("inputs", {"a": 1}, r"checkpoint\.inputs"),
        ("points", {"a": 5}, r"checkpoint\.points\.a"),
        ("sub_graphs", {"a": []}, r"checkpoint\.sub_graphs\.a"),
        ("rerun_nodes", "a", r"checkpoint\.rerun_nodes"),
    ],
)
def test_field_of_the_wrong_shape_is_named(field: str, value: object, place: str) -> None:
    body = _valid_body()
    body[field] = value
    with pytest.raises(CheckpointSerializationError, match=place):
        decode_checkpoint(_bytes(body))


def test_body_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(CheckpointSerializationError, match="`checkpoint` is not a JSON object"):
        decode_checkpoint(_bytes([]))


@pytest.mark.parametrize("version", [0, -1, True, "1"])
def test_unknown_older_or_non_integer_version_is_refused(version: object) -> None:
    with pytest.raises(CheckpointSerializationError, match=r"version .* is not supported"):
        decode_checkpoint(_bytes(_valid_body(), version))


@pytest.mark.parametrize(
    ("data", "place"),
    [
        ({"$tuple": 5}, r"`\$tuple` value at `state\.x`"),
        ({"$model": 5, "fields": {}}, r"`\$model` value at `state\.x`"),
        ({"$model": "graph_core.schema:Message"}, r"`\$model` value at `state\.x`"),
        ({"$enum": "graph_core.topology:TriggerMode", "value": "zzz"}, r"`\$enum` value at `state\.x`"),
        ({"$bytes": "!!!"}, r"`\$bytes` value at `state\.x`"),
        ({"$set": [[1]]}, r"`\$set` value at `state\.x`"),
    ],
)
def test_damaged_tagged_value_is_named(data: object, place: str) -> None:
    with pytest.raises(CheckpointSerializationError, match=place):
        decode_value(data, "state.x")
