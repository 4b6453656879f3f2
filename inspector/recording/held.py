"""What the recorder keeps of a reported value until it encodes it.

A callback's value is encoded when its step's line is built, not when it is reported (values get ids in
node order, whatever thread finished first). Until then the recorder holds:

- a message, a string, None or an int as it is (the engine replaces messages, never edits them);
- a message list as `Held`: the list and its length then (histories grow at their end, so the prefix
  is what the callback saw);
- anything else as `Encoded`, encoded at once, since it might change before the step ends.

A step written behind the run (see `write_behind`) is encoded while the next step already runs, and
that step may change its lists in place (a pre-handler trimming the history). So before the step is
handed over, each held list is `Frozen`: the part the encoder has stored already stays a reference
into its memo, and the part it has not (the new messages, usually one or two) is copied.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Encoded", "Frozen", "Held"]


class Held:
    """A message list reported by a callback, with its length then."""

    __slots__ = ("n", "value")

    def __init__(self, value: list[Any]) -> None:
        self.value = value
        self.n = len(value)


class Encoded:
    """A value encoded when it was reported (it might change before the step ends)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class Frozen:
    """`value[:n]` of a message list, made independent of what happens to `value` from now on: the
    encoder's stored marker for `value[:start]` (`base`, None when `start` is 0) and a copy of
    `value[start:n]` (`tail`). `first` is `value[0]` now, `depth` the depth it is encoded at."""

    __slots__ = ("base", "depth", "first", "n", "start", "tail", "value")

    def __init__(
        self,
        value: list[Any],
        n: int,
        start: int,
        base: dict[str, Any] | None,
        tail: list[Any],
        first: Any,
        depth: int,
    ) -> None:
        self.value = value
        self.n = n
        self.start = start
        self.base = base
        self.tail = tail
        self.first = first
        self.depth = depth
