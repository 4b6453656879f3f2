"""Branches: a condition on a node's output that picks which of its allowed end nodes run next.

Four kinds, as in Eino: `Branch(condition, ends)` (one key), `Branch.multi` (a set of keys, possibly
empty), `Branch.stream` and `Branch.stream_multi` (the condition reads the output as an iterator). The
runner, not the branch, feeds conditions: in invoke mode a stream condition gets a 1-chunk iterator, in
stream mode an invoke condition gets the concatenated output.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

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


@dataclass(frozen=True, slots=True, init=False)
class Branch:
    """A condition and the end nodes it may choose (Eino `GraphBranch` with its `endNodes` map)."""

    condition: Callable[[Any], Any]
    ends: tuple[str, ...]
    kind: BranchKind

    def __init__(
        self,
        condition: Callable[[Any], Any],
        ends: Iterable[str] | Mapping[str, bool],
        *,
        kind: BranchKind = "single",
    ) -> None:
        object.__setattr__(self, "condition", condition)
        object.__setattr__(self, "ends", _ordered_ends(ends))
        object.__setattr__(self, "kind", kind)

    @classmethod
    def multi(cls, condition: Callable[[Any], Any], ends: Iterable[str] | Mapping[str, bool]) -> Branch:
        """The condition returns a collection of keys (or a dict key -> bool); empty selects nothing."""
        return cls(condition, ends, kind="multi")

    @classmethod
    def stream(cls, condition: Callable[[Any], Any], ends: Iterable[str] | Mapping[str, bool]) -> Branch:
        """The condition receives the output as an iterator and may decide from its first chunks."""
        return cls(condition, ends, kind="stream")

    @classmethod
    def stream_multi(
        cls, condition: Callable[[Any], Any], ends: Iterable[str] | Mapping[str, bool]
    ) -> Branch:
        return cls(condition, ends, kind="stream_multi")

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
