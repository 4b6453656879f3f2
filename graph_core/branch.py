"""Branches: a condition on a node's output that picks which of its allowed end nodes run next.

Four kinds, as in Eino: `Branch(condition, ends)` (one key), `Branch.multi` (a set of keys, possibly
empty), `Branch.stream` and `Branch.stream_multi` (the condition reads the output as an iterator). The
runner, not the branch, feeds conditions: in invoke mode a stream condition gets a 1-chunk iterator, in
stream mode an invoke condition gets the concatenated output.

`labels={end: text}` says what choosing an end means ("tool calls", "final answer"). Labels change
nothing at run time; they travel into the topology (`TopologyEdge.label`) so drawings, exports and
snapshots show the meaning of each branch edge instead of a row of identical dashed arrows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from graph_core.errors import GraphBuildError

__all__ = ["Branch", "BranchKind"]

BranchKind = Literal["single", "multi", "stream", "stream_multi"]


def _ordered_ends(ends: Iterable[str] | Mapping[str, bool]) -> tuple[str, ...]:
    """Allowed targets in a stable order: as given for sequences and dicts, sorted for sets."""
    if isinstance(ends, Mapping):
        keys = [k for k, allowed in ends.items() if allowed]
    elif isinstance(ends, set | frozenset):
        keys = sorted(ends)
    else:
        keys = list(ends)
    return tuple(dict.fromkeys(keys))


def _checked_labels(labels: Mapping[str, str] | None, ends: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """Labels as (end, label) pairs in end order; a label for a key that is not an end is a typo."""
    if not labels:
        return ()
    for end, label in labels.items():
        if end not in ends:
            raise GraphBuildError(
                f"branch label for '{end}', which is not one of the branch's ends {list(ends)}"
            )
        if not isinstance(label, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise GraphBuildError(f"branch label for '{end}' must be a string, got {type(label).__name__}")
    return tuple((end, labels[end]) for end in ends if end in labels)


@dataclass(frozen=True, slots=True, init=False)
class Branch:
    """A condition and the end nodes it may choose (Eino `GraphBranch` with its `endNodes` map).

    `labels` maps some or all ends to what choosing them means; `label(end)` reads one back.
    """

    condition: Callable[[Any], Any]
    ends: tuple[str, ...]
    kind: BranchKind
    label_pairs: tuple[tuple[str, str], ...]

    def __init__(
        self,
        condition: Callable[[Any], Any],
        ends: Iterable[str] | Mapping[str, bool],
        *,
        kind: BranchKind = "single",
        labels: Mapping[str, str] | None = None,
    ) -> None:
        ordered = _ordered_ends(ends)
        object.__setattr__(self, "condition", condition)
        object.__setattr__(self, "ends", ordered)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "label_pairs", _checked_labels(labels, ordered))

    @classmethod
    def multi(
        cls,
        condition: Callable[[Any], Any],
        ends: Iterable[str] | Mapping[str, bool],
        *,
        labels: Mapping[str, str] | None = None,
    ) -> Branch:
        """The condition returns a collection of keys (or a dict key -> bool); empty selects nothing."""
        return cls(condition, ends, kind="multi", labels=labels)

    @classmethod
    def stream(
        cls,
        condition: Callable[[Any], Any],
        ends: Iterable[str] | Mapping[str, bool],
        *,
        labels: Mapping[str, str] | None = None,
    ) -> Branch:
        """The condition receives the output as an iterator and may decide from its first chunks."""
        return cls(condition, ends, kind="stream", labels=labels)

    @classmethod
    def stream_multi(
        cls,
        condition: Callable[[Any], Any],
        ends: Iterable[str] | Mapping[str, bool],
        *,
        labels: Mapping[str, str] | None = None,
    ) -> Branch:
        return cls(condition, ends, kind="stream_multi", labels=labels)

    @property
    def labels(self) -> dict[str, str]:
        """The labels given, in end order (a fresh dict: the branch itself stays immutable)."""
        return dict(self.label_pairs)

    def label(self, end: str) -> str | None:
        """What choosing `end` means, or None when no label was given for it."""
        for key, text in self.label_pairs:
            if key == end:
                return text
        return None

    @property
    def is_stream(self) -> bool:
        return self.kind in ("stream", "stream_multi")

    @property
    def is_multi(self) -> bool:
        return self.kind in ("multi", "stream_multi")

    def selected(self, result: Any) -> tuple[str, ...]:
        """Validate a condition's result against the allowed ends; returns the chosen keys in end order."""
        if self.is_multi:
            if isinstance(result, Mapping):
                chosen = [k for k, on in result.items() if on]  # type: ignore[union-attr]
            elif isinstance(result, str):
                chosen = [result]
            else:
                chosen = list(result)
        else:
            chosen = [result]
        for key in chosen:
            if key not in self.ends:
                raise ValueError(f"branch invocation returns unintended end node: {key}")
        picked = set(chosen)
        return tuple(k for k in self.ends if k in picked)
