"""How the encoder walks a value of a given class, and what it stores for the classes it does not walk.

`kind_of` answers once per class the checks the encoder would otherwise repeat for every value
(mappings, sequences, pydantic models, dataclasses, in that order); `other_value` is the stored form of
everything else: enums by value, builtin subclasses as their base, sets sorted, bytes as a short hex
preview, dates as ISO text, and a marked `repr` (`{"$repr": ..., "$type": ...}`) as the last resort.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
from collections.abc import Callable, Mapping
from pathlib import PurePath
from typing import Any
from uuid import UUID

from pydantic import BaseModel

__all__ = ["KINDS", "kind_of", "other_value", "type_name"]

KINDS: dict[type, str] = {dict: "mapping", tuple: "sequence"}
"""The walk for each class met so far (`kind_of` fills it; at most 10,000 classes are kept)."""


def type_name(value: Any) -> str:
    cls = type(value)
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


def kind_of(cls: type) -> str:
    """How `Encoder._enc` walks instances of `cls`: "mapping", "sequence", "model", "dataclass" or
    "other", remembered per class in `KINDS`."""
    if issubclass(cls, type):
        return "other"  # a class object: never walked as its own instances would be
    if issubclass(cls, Mapping):
        kind = "mapping"
    elif issubclass(cls, (list, tuple)):
        kind = "sequence"
    elif issubclass(cls, BaseModel):
        kind = "model"
    elif dataclasses.is_dataclass(cls):
        kind = "dataclass"
    else:
        kind = "other"
    if len(KINDS) < 10_000:
        KINDS[cls] = kind
    return kind


def other_value(
    value: Any,
    encode: Callable[[Any], Any],
    scrub: Callable[[str], str] | None,
    max_str: int,
) -> Any:
    """The stored form of a value of kind "other"; `encode` encodes what is inside it (one level down),
    `scrub` masks secrets in a `repr`, which is cut at `max_str` characters."""
    if isinstance(value, enum.Enum):
        return encode(value.value)
    if isinstance(value, (str, int, float)):  # subclasses of builtins
        base = str if isinstance(value, str) else int if isinstance(value, int) else float
        return encode(base(value))
    if isinstance(value, (set, frozenset)):
        items = [encode(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
        try:
            return sorted(items)  # pyright: ignore[reportUnknownArgumentType]
        except TypeError:
            return items
    if isinstance(value, (bytes, bytearray)):
        preview = bytes(value[:64]).hex()
        return {"$repr": f"<{len(value)} bytes>", "$type": type_name(value), "hex": preview}
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (UUID, PurePath)):
        return str(value)
    if isinstance(value, BaseException):
        return {"$error": type_name(value), "message": encode(str(value))}
    try:
        text = repr(value)
    except Exception as exc:
        text = f"<unencodable: {type(exc).__name__}: {exc}>"
    if scrub is not None:
        text = scrub(text)
    if len(text) > max_str:
        text = text[:max_str] + "..."
    return {"$repr": text, "$type": type_name(value)}
