"""A LangGraph node's routed ways out: conditional edges, `Send` fan-out, declared `Command` destinations.

Each group is one graph_core branch (`branch_index` in registration order) whose targets are branch
edges, told apart by `branch_kind`:

- `conditional`: a condition with a path map (or a `Literal[...]` return type, which LangGraph reads
  as one); each edge is labelled with the path-map keys that lead to its target;
- `send`: a condition whose function builds `Send`s (map-reduce): its edges to nodes are labelled
  `Send ×n`, since how many tasks start is known only at run time (the legend says so);
- `conditional-any` / `send-any`: a condition without a path map may name any node, so every node (and
  END) is drawn as a possible target, as `get_graph()` draws it; the legend says which are guesses;
- `command`: the destinations a node declared for the `Command`s it returns (`destinations=`, or a
  `Command[Literal[...]]` return annotation), labelled `Command goto` unless the declaration gives labels.

Whether a condition builds `Send`s is read from its code, not run: the name `Send` among the names its
compiled code (or a comprehension inside it) loads, or in its return annotation.
"""

from __future__ import annotations

import types
from collections.abc import Iterator, Mapping
from typing import Any

from graph_core.topology import END, START, TopologyEdge
from inspector.export._unknowns import ANY_TARGET, SEND, SEND_ANY_TARGET, SEND_LABEL

__all__ = ["COMMAND_GOTO", "LG_END", "LG_START", "branch_edges", "graph_key", "makes_commands", "makes_sends"]

LG_START = "__start__"
LG_END = "__end__"
COMMAND_GOTO = "Command goto"
"""The label of an edge to a destination a node declared for the `Command`s it returns."""


def graph_key(name: Any) -> str:
    """graph_core's key for a LangGraph node name: `start`/`end` for `__start__`/`__end__`."""
    if name == LG_START:
        return START
    if name == LG_END:
        return END
    return str(name)


def branch_edges(builder: Any, source: str, names: list[str]) -> list[TopologyEdge]:
    """`source`'s conditional edges (one per target) and its declared `Command` destinations, each group
    a branch of its own."""
    out: list[TopologyEdge] = []
    index = 0
    for branch in builder.branches.get(source, {}).values():
        out.extend(_condition_edges(source, branch, index, names))
        index += 1
    spec = builder.nodes.get(source)
    destinations = getattr(spec, "ends", None) if spec is not None else None
    if destinations:
        items = destinations.items() if isinstance(destinations, Mapping) else ((d, d) for d in destinations)
        out.extend(
            _edge(source, target, index, "command", COMMAND_GOTO if str(label) == str(target) else str(label))
            for target, label in items
        )
    return out


def _condition_edges(source: str, branch: Any, index: int, names: list[str]) -> list[TopologyEdge]:
    sends = makes_sends(branch.path)
    labels: dict[str, list[str]] = {}
    if branch.ends is None:  # no path map: the condition may name any node (as get_graph() draws it)
        kind = SEND_ANY_TARGET if sends else ANY_TARGET
        for target in [*names, LG_END]:
            labels.setdefault(target, [])
    else:
        kind = SEND if sends else "conditional"
        for label, target in branch.ends.items():
            shown = labels.setdefault(str(target), [])
            if str(label) != str(target):
                shown.append(str(label))
    edges: list[TopologyEdge] = []
    for target, shown in labels.items():
        text = " | ".join(shown) or None
        if kind == SEND and target != LG_END:
            text = SEND_LABEL if text is None else f"{text}: {SEND_LABEL}"
        edges.append(_edge(source, target, index, kind, text))
    return edges


def _edge(source: str, target: Any, index: int, kind: str, label: str | None) -> TopologyEdge:
    """One target of `source`'s branch `index`."""
    return TopologyEdge(
        source=graph_key(source),
        target=graph_key(target),
        kind="branch",
        branch_index=index,
        branch_kind=kind,
        label=label,
    )


def makes_sends(path: Any) -> bool:
    """Whether the condition `path` (a `RunnableCallable`/`RunnableLambda`, or a plain callable) builds
    `Send`s: `Send` in its return annotation or among the global and attribute names its code loads."""
    return _uses_name(path, "Send")


def makes_commands(runnable: Any) -> bool:
    """Whether a node's function builds `Command(goto=...)`s: its code loads the name `Command` and
    passes a `goto=` keyword (an `isinstance(x, Command)` check or a `Command(update=...)` is no route)."""
    code = _code(runnable)
    if code is None:
        return False
    codes = list(_codes(code))
    keywords = {k for c in codes for const in c.co_consts if isinstance(const, tuple) for k in const}
    return "goto" in keywords and any("Command" in c.co_names for c in codes)


def _uses_name(runnable: Any, name: str) -> bool:
    func = _function(runnable)
    annotation = getattr(func, "__annotations__", {}).get("return")
    if annotation is not None and name in str(annotation):
        return True
    code = _code(runnable)
    return code is not None and any(name in c.co_names for c in _codes(code))


def _function(runnable: Any) -> Any:
    """The Python function behind a `RunnableCallable`/`RunnableLambda`, a function, or a callable object
    (its class's `__call__`); None for anything else."""
    func = getattr(runnable, "func", None) or getattr(runnable, "afunc", None) or runnable
    if not callable(func):
        return None
    if not isinstance(func, types.FunctionType | types.MethodType):
        func = type(func).__call__
    return func


def _code(runnable: Any) -> types.CodeType | None:
    code = getattr(_function(runnable), "__code__", None)
    return code if isinstance(code, types.CodeType) else None


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    """`code` and the code objects nested in it (comprehensions, inner functions, lambdas)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)
