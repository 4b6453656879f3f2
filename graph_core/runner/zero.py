"""The zero value of a node's input type: what a rerun node gets when its input was not saved.

Eino keeps a rerun node's original input in the checkpoint only when the run can be interrupted from
outside (`WithGraphInterrupt`, here the `interrupt_event` run option); otherwise the node reruns with its
input type's zero value (`inputZeroValue`: `""` for a string, `nil` for a pointer, slice or map). Python
has no declared input type, so it is read from the type hints of the first parameter of the node's
pre-handler, else of its component (for a stream-reading component, the chunk type of its
`Iterator[...]` parameter). Builtin scalars and containers get their empty value; anything else, an
unannotated parameter included, gets None (Go's nil).
"""

from __future__ import annotations

import collections.abc
import inspect
import typing
from typing import Any

from graph_core.runner.plan import NodePlan
from graph_core.state import StreamHandler

__all__ = ["zero_input"]

_EMPTY: dict[Any, Any] = {
    str: "",
    bytes: b"",
    int: 0,
    float: 0.0,
    bool: False,
    complex: 0j,
    list: [],
    dict: {},
    tuple: (),
    set: set(),
    frozenset: frozenset(),
}
_STREAMS = (collections.abc.Iterator, collections.abc.Iterable, collections.abc.AsyncIterator)


def _first_parameter_type(fn: Any) -> Any:
    """The resolved annotation of `fn`'s first parameter, or None when there is none to read."""
    try:
        params = list(inspect.signature(fn).parameters.values())
        hints = typing.get_type_hints(fn)
    except (TypeError, ValueError, NameError):
        return None
    if not params:
        return None
    return hints.get(params[0].name)


def _zero_of(hint: Any, *, chunks: bool = False) -> Any:
    if chunks:  # `Iterator[T]` -> the zero value of T
        if typing.get_origin(hint) in _STREAMS:
            args = typing.get_args(hint)
            return _zero_of(args[0]) if args else None
        return None
    cls = typing.get_origin(hint) or hint
    empty = _EMPTY.get(cls) if isinstance(cls, type) else None
    return type(empty)(empty) if empty is not None else None  # a fresh container per call


def zero_input(node: NodePlan) -> Any:
    """The zero value of `node`'s input type (see the module docstring)."""
    if node.input_key is not None:  # the node reads a map: Go's nil map
        return None
    pre = node.pre
    if pre is not None:
        if isinstance(pre, StreamHandler):
            return _zero_of(_first_parameter_type(pre.fn), chunks=True)
        return _zero_of(_first_parameter_type(pre))
    executable = node.executable
    if executable is None:
        return None
    for fn, chunks in (
        (executable.invoke, False),
        (executable.ainvoke, False),
        (executable.stream, False),
        (executable.astream, False),
        (executable.transform, True),
        (executable.collect, True),
    ):
        if fn is not None:
            return _zero_of(_first_parameter_type(fn), chunks=chunks)
    return None
