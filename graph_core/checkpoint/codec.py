"""The checkpoint serializer: explicit, versioned JSON; never pickle.

A checkpoint may outlive the process that wrote it and be read by another, so it is plain JSON with a
format name and version. User values (state, channel values, node inputs, interrupt infos) are encoded
by type:

- `None`, `bool`, `int`, `float`, `str` and lists as themselves; dicts with string keys as objects;
  NaN and infinities (which strict JSON lacks) as `{"$float": "nan" | "inf" | "-inf"}`;
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
import math
import sys
import threading
from typing import Any

import pydantic
from pydantic import BaseModel

from graph_core.checkpoint.model import Checkpoint
from graph_core.errors import CheckpointSerializationError
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

_TAGS = ("$float", "$tuple", "$set", "$frozenset", "$bytes", "$dict", "$model", "$dataclass", "$enum")

# fields are written by name; pydantic >= 2.11 can read them back by name when they have aliases
_PYDANTIC = tuple(int(part) for part in pydantic.VERSION.split(".")[:2])
_BY_NAME: dict[str, Any] = {"by_name": True} if _PYDANTIC >= (2, 11) else {}

_REGISTRY: dict[str, type[Any]] = {}
_NAMES: dict[type[Any], str] = {}
_LOCK = threading.Lock()


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
        if isinstance(value, float) and not math.isfinite(value):  # strict JSON has no NaN or Infinity
            return {"$float": repr(float(value))}
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
    try:
        return _decode_tagged(tag, obj, where)
    except CheckpointSerializationError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError) as exc:  # pydantic's ValidationError included
        raise CheckpointSerializationError(f"cannot read the `{tag}` value at `{where}`: {exc}") from exc


def _decode_tagged(tag: str, obj: dict[str, Any], where: str) -> Any:
    body = obj[tag]
    if tag == "$float":
        if body not in ("nan", "inf", "-inf"):
            raise ValueError(f"{body!r} is not nan, inf or -inf")
        return float(body)
    if tag == "$tuple":
        return tuple(decode_value(v, where) for v in body)
    if tag == "$set":
        return {decode_value(v, where) for v in body}
    if tag == "$frozenset":
        return frozenset(decode_value(v, where) for v in body)
    if tag == "$bytes":
        return base64.b64decode(body, validate=True)
    if tag == "$dict":
        return {decode_value(k, where): decode_value(v, where) for k, v in body}
    if not isinstance(body, str):
        raise TypeError(f"the type name is a JSON {_json_kind(type(body))}")  # pyright: ignore[reportUnknownArgumentType]
    cls = _resolve(body, where)
    if tag == "$enum":
        return cls(decode_value(obj["value"], where))
    fields = {k: decode_value(v, f"{where}.{k}") for k, v in obj["fields"].items()}
    if tag == "$model":
        return cls.model_validate(fields, **_BY_NAME)
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


def _field(data: dict[str, Any], key: str, where: str, kind: type[Any]) -> Any:
    """`data[key]`, refused by name when a damaged or foreign checkpoint lacks it or has another shape."""
    if key not in data:
        raise CheckpointSerializationError(f"damaged checkpoint: `{where}.{key}` is missing")
    value = data[key]
    if not isinstance(value, kind):
        raise CheckpointSerializationError(
            f"damaged checkpoint: `{where}.{key}` is a JSON {_json_kind(type(value))}, "
            f"expected a JSON {_json_kind(kind)}"
        )
    return value


def _json_kind(cls: type[Any]) -> str:
    kinds = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return kinds.get(cls, "number")


def _object(data: Any, where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise CheckpointSerializationError(f"damaged checkpoint: `{where}` is not a JSON object")
    return data  # pyright: ignore[reportUnknownVariableType]


def _read_point(data: Any, where: str) -> PointRecord:
    data = _object(data, where)
    children: dict[str, Any] = _field(data, "children", where, dict)
    return PointRecord(
        address=_field(data, "address", where, str),
        info=decode_value(_field(data, "info", where, object), f"{where}.info"),
        state=decode_value(_field(data, "state", where, object), f"{where}.state"),
        has_state=_field(data, "has_state", where, bool),
        children={k: _read_point(c, f"{where}.{k}") for k, c in children.items()},
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


def _read_checkpoint(data: Any, where: str) -> Checkpoint:
    data = _object(data, where)
    values: dict[str, Any] = _field(data, "values", where, dict)
    for target, row in values.items():
        _object(row, f"{where}.values.{target}")
    control: dict[str, Any] = _field(data, "control", where, dict)
    for target, row in control.items():
        _object(row, f"{where}.control.{target}")
    inputs: list[Any] = _field(data, "inputs", where, list)
    for i, item in enumerate(inputs):
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):  # pyright: ignore[reportUnknownArgumentType]
            raise CheckpointSerializationError(
                f"damaged checkpoint: `{where}.inputs[{i}]` is not a [node key, input] pair"
            )
    points: dict[str, Any] = _field(data, "points", where, dict)
    sub_graphs: dict[str, Any] = _field(data, "sub_graphs", where, dict)
    names = {key: _names(data, key, where) for key in ("skipped", "rerun_nodes", "skip_pre_handler")}
    return Checkpoint(
        values={
            t: {s: decode_value(v, f"{where}.channels.{t}.{s}") for s, v in row.items()}
            for t, row in values.items()
        },
        control={t: dict(row) for t, row in control.items()},
        skipped=names["skipped"],
        inputs=[(k, decode_value(v, f"{where}.inputs.{k}")) for k, v in inputs],
        rerun_nodes=names["rerun_nodes"],
        skip_pre_handler=names["skip_pre_handler"],
        points={k: _read_point(r, f"{where}.points.{k}") for k, r in points.items()},
        sub_graphs={k: _read_checkpoint(s, f"{where}.sub_graphs.{k}") for k, s in sub_graphs.items()},
        before_nodes=_names(data, "before_nodes", where),
        after_nodes=_names(data, "after_nodes", where),
        has_state=_field(data, "has_state", where, bool),
        state=decode_value(_field(data, "state", where, object), f"{where}.state"),
    )


def _names(data: dict[str, Any], key: str, where: str) -> list[str]:
    names: list[Any] = _field(data, key, where, list)
    if not all(isinstance(name, str) for name in names):
        raise CheckpointSerializationError(f"damaged checkpoint: `{where}.{key}` holds a non-string node key")
    return list(names)


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
    if type(version) is not int or not 1 <= version <= VERSION:
        raise CheckpointSerializationError(
            f"checkpoint format version {version!r} is not supported (this graph_core reads versions 1 to "
            f"{VERSION})"
        )
    if "checkpoint" not in envelope:
        raise CheckpointSerializationError("damaged checkpoint: `checkpoint` is missing")
    return _read_checkpoint(envelope["checkpoint"], "checkpoint")  # pyright: ignore[reportUnknownArgumentType]
