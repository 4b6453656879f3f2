"""The checkpoint serializer: explicit, versioned JSON; never pickle.

A checkpoint may outlive the process that wrote it and be read by another, so it is plain JSON with a
format name and version. User values (state, channel values, node inputs, interrupt infos) are encoded
by type:

- `None`, `bool`, `int`, `float`, `str` and lists as themselves; dicts with string keys as objects;
- tuples, sets, bytes, other dicts as tagged objects (`{"$tuple": [...]}`, `{"$dict": [[k, v], ...]}`);
- pydantic models, dataclasses and enums as `{"$model"|"$dataclass"|"$enum": name, ...}`, field by field.

A type name is `module:qualname` unless it was registered under another name with `register_type`.
Decoding finds a name in the registry, or else only in a module that is *already imported* (the code
that built the graph normally is), and only if it is a pydantic model, dataclass or enum: reading a
checkpoint never imports a module or calls an arbitrary constructor. Anything else fails with
`CheckpointSerializationError` naming the value's type and where it sat.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import json
import sys
import threading
from typing import Any

from pydantic import BaseModel

from graph_core.checkpoint.model import Checkpoint
from graph_core.errors import GraphError
from graph_core.interrupt import PointRecord

__all__ = [
    "FORMAT",
    "VERSION",
    "CheckpointSerializationError",
    "decode_checkpoint",
    "decode_value",
    "deep_copy",
    "encode_checkpoint",
    "encode_value",
    "register_type",
]

FORMAT = "graph_core.checkpoint"
VERSION = 1

_TAGS = ("$tuple", "$set", "$frozenset", "$bytes", "$dict", "$model", "$dataclass", "$enum")

_REGISTRY: dict[str, type[Any]] = {}
_NAMES: dict[type[Any], str] = {}
_LOCK = threading.Lock()


class CheckpointSerializationError(GraphError, TypeError):
    """A value cannot be written to (or read from) a checkpoint; the message names its type and place."""


def register_type(cls: type[Any], name: str | None = None) -> type[Any]:
    """Make `cls` (a pydantic model, dataclass or enum) known to checkpoints, optionally under `name`.

    Registering is optional for such types defined in imported modules; a stable `name` keeps old
    checkpoints readable after the class moves. Usable as a decorator.
    """
    if not _supported(cls):
        raise CheckpointSerializationError(
            f"cannot register `{_qualified(cls)}`: only pydantic models, dataclasses and enums can be"
        )
    key = name or _qualified(cls)
    with _LOCK:
        _REGISTRY[key] = cls
        _NAMES[cls] = key
    return cls


def _qualified(cls: type[Any]) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _supported(cls: Any) -> bool:
    return isinstance(cls, type) and (
        issubclass(cls, BaseModel) or dataclasses.is_dataclass(cls) or issubclass(cls, enum.Enum)
    )


def _name(cls: type[Any]) -> str:
    return _NAMES.get(cls) or _qualified(cls)


def _resolve(name: str, where: str) -> type[Any]:
    cls = _REGISTRY.get(name)
    if cls is not None:
        return cls
    module_name, _, qualname = name.partition(":")
    module = sys.modules.get(module_name)
    found: Any = module
    for part in qualname.split(".") if module is not None else ():
        found = getattr(found, part, None)
    if module is None or not _supported(found):
        raise CheckpointSerializationError(
            f"cannot read a value of type `{name}` at `{where}`: the type is unknown here; import the module "
            "that defines it, or register it with graph_core.checkpoint.register_type"
        )
    return found


# -- values ----------------------------------------------------------------------------------------------


def encode_value(value: Any, where: str = "value") -> Any:
    """A JSON-ready form of `value` (see the module docstring); raises for unsupported types."""
    if value is None or (isinstance(value, (bool, int, float, str)) and not isinstance(value, enum.Enum)):
        return value
    if isinstance(value, list):
        return [encode_value(v, f"{where}[{i}]") for i, v in enumerate(value)]  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    if isinstance(value, dict):
        items: list[tuple[Any, Any]] = list(value.items())  # pyright: ignore[reportUnknownArgumentType, reportUnknownMemberType]
        if all(isinstance(k, str) and not k.startswith("$") for k, _ in items):
            return {k: encode_value(v, f"{where}.{k}") for k, v in items}
        return {"$dict": [[encode_value(k, where), encode_value(v, f"{where}[{k!r}]")] for k, v in items]}
    if isinstance(value, tuple):
        return {"$tuple": [encode_value(v, f"{where}[{i}]") for i, v in enumerate(value)]}  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    if isinstance(value, (set, frozenset)):
        tag = "$set" if isinstance(value, set) else "$frozenset"
        return {tag: [encode_value(v, f"{where}{{}}") for v in value]}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, BaseModel):
        cls = type(value)
        fields = {k: encode_value(getattr(value, k), f"{where}.{k}") for k in cls.model_fields}
        return {"$model": _name(cls), "fields": fields}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {
            f.name: encode_value(getattr(value, f.name), f"{where}.{f.name}")
            for f in dataclasses.fields(value)
            if f.init
        }
        return {"$dataclass": _name(type(value)), "fields": fields}
    if isinstance(value, enum.Enum):
        return {"$enum": _name(type(value)), "value": encode_value(value.value, where)}
    raise CheckpointSerializationError(
        f"cannot write a value of type `{_qualified(type(value))}` at `{where}` to a checkpoint: "
        "supported are None, bool, int, float, str, bytes, list, tuple, set, dict, pydantic models, "
        "dataclasses and enums"
    )


def decode_value(data: Any, where: str = "value") -> Any:
    """The inverse of `encode_value`."""
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [decode_value(v, f"{where}[{i}]") for i, v in enumerate(data)]  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    if not isinstance(data, dict):
        kind = type(data).__name__
        raise CheckpointSerializationError(f"unexpected JSON value of type `{kind}` at `{where}`")
    obj: dict[str, Any] = data  # pyright: ignore[reportUnknownVariableType]
    tag = next((t for t in _TAGS if t in obj), None) if len(obj) <= 2 else None
    if tag is None:
        return {k: decode_value(v, f"{where}.{k}") for k, v in obj.items()}
    body = obj[tag]
    if tag == "$tuple":
        return tuple(decode_value(v, where) for v in body)
    if tag == "$set":
        return {decode_value(v, where) for v in body}
    if tag == "$frozenset":
        return frozenset(decode_value(v, where) for v in body)
    if tag == "$bytes":
        return base64.b64decode(body)
    if tag == "$dict":
        return {decode_value(k, where): decode_value(v, where) for k, v in body}
    cls = _resolve(body, where)
    if tag == "$enum":
        return cls(decode_value(obj["value"], where))
    fields = {k: decode_value(v, f"{where}.{k}") for k, v in obj["fields"].items()}
    if tag == "$model":
        return cls.model_validate(fields)
    return cls(**fields)


def deep_copy(value: Any) -> Any:
    """A copy through the serializer (Eino copies the state by serializing and deserializing it)."""
    return decode_value(json.loads(json.dumps(encode_value(value, "state"))), "state")


# -- checkpoints -----------------------------------------------------------------------------------------


def _point(record: PointRecord, where: str) -> dict[str, Any]:
    return {
        "address": record.address,
        "info": encode_value(record.info, f"{where}.info"),
        "has_state": record.has_state,
        "state": encode_value(record.state, f"{where}.state"),
        "children": {k: _point(c, f"{where}.{k}") for k, c in record.children.items()},
    }


def _read_point(data: dict[str, Any], where: str) -> PointRecord:
    return PointRecord(
        address=data["address"],
        info=decode_value(data["info"], f"{where}.info"),
        state=decode_value(data["state"], f"{where}.state"),
        has_state=data["has_state"],
        children={k: _read_point(c, f"{where}.{k}") for k, c in data["children"].items()},
    )


def _checkpoint(cp: Checkpoint, where: str) -> dict[str, Any]:
    return {
        "values": {
            t: {s: encode_value(v, f"{where}.channels.{t}.{s}") for s, v in row.items()}
            for t, row in cp.values.items()
        },
        "control": cp.control,
        "skipped": sorted(cp.skipped),
        "inputs": [[k, encode_value(v, f"{where}.inputs.{k}")] for k, v in cp.inputs],
        "rerun_nodes": cp.rerun_nodes,
        "skip_pre_handler": cp.skip_pre_handler,
        "points": {k: _point(r, f"{where}.points.{k}") for k, r in cp.points.items()},
        "sub_graphs": {k: _checkpoint(s, f"{where}.sub_graphs.{k}") for k, s in cp.sub_graphs.items()},
        "before_nodes": cp.before_nodes,
        "after_nodes": cp.after_nodes,
        "has_state": cp.has_state,
        "state": encode_value(cp.state, f"{where}.state"),
    }


def _read_checkpoint(data: dict[str, Any], where: str) -> Checkpoint:
    return Checkpoint(
        values={
            t: {s: decode_value(v, f"{where}.channels.{t}.{s}") for s, v in row.items()}
            for t, row in data["values"].items()
        },
        control=data["control"],
        skipped=list(data["skipped"]),
        inputs=[(k, decode_value(v, f"{where}.inputs.{k}")) for k, v in data["inputs"]],
        rerun_nodes=list(data["rerun_nodes"]),
        skip_pre_handler=list(data["skip_pre_handler"]),
        points={k: _read_point(r, f"{where}.points.{k}") for k, r in data["points"].items()},
        sub_graphs={k: _read_checkpoint(s, f"{where}.sub_graphs.{k}") for k, s in data["sub_graphs"].items()},
        before_nodes=list(data["before_nodes"]),
        after_nodes=list(data["after_nodes"]),
        has_state=data["has_state"],
        state=decode_value(data["state"], f"{where}.state"),
    )


def encode_checkpoint(checkpoint: Checkpoint) -> bytes:
    """The bytes a store keeps: `{"format", "version", "checkpoint"}` as compact, key-sorted JSON."""
    envelope = {"format": FORMAT, "version": VERSION, "checkpoint": _checkpoint(checkpoint, "checkpoint")}
    return json.dumps(envelope, sort_keys=True, separators=(",", ":"), allow_nan=False).encode("utf-8")


def decode_checkpoint(data: bytes) -> Checkpoint:
    """Read bytes written by `encode_checkpoint`; a foreign or newer format is a clear error."""
    try:
        envelope = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointSerializationError(f"not a graph_core checkpoint (invalid JSON: {exc})") from exc
    if not isinstance(envelope, dict) or envelope.get("format") != FORMAT:  # pyright: ignore[reportUnknownMemberType]
        raise CheckpointSerializationError("not a graph_core checkpoint (missing format marker)")
    version = envelope.get("version")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if not isinstance(version, int) or version > VERSION:
        raise CheckpointSerializationError(
            f"checkpoint format version {version!r} is not supported (this graph_core reads up to {VERSION})"
        )
    return _read_checkpoint(envelope["checkpoint"], "checkpoint")  # pyright: ignore[reportUnknownArgumentType]
