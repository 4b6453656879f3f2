"""Redaction: what must never reach a run file, decided before anything is encoded or written.

Masking is by key (dict keys, pydantic fields, dataclass fields) at any depth, so a secret placed in
state, in a node input or in a message's `extra` is caught wherever it sits. A callable can mask by
value as well (for example tokens that look like keys under innocent names).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["DEFAULT_REDACT_KEYS", "MASK", "RedactSpec", "Redaction", "make_redaction"]

DEFAULT_REDACT_KEYS: tuple[str, ...] = (r"api[_-]?key", r"authorization", r"password", r"secret")
"""Regular expressions searched (case-insensitively) in every key."""

MASK = "[REDACTED]"

KeyFn = Callable[[str, Any], Any]


@dataclass(frozen=True)
class Redaction:
    """`keys` are regexes searched in each key (any case); `fn(key, value)` returns a replacement value.

    `fn` sees the raw value before encoding and returns either it (unchanged) or what to record instead.
    """

    keys: tuple[str, ...] = DEFAULT_REDACT_KEYS
    fn: KeyFn | None = None
    mask: str = MASK
    _pattern: re.Pattern[str] | None = field(init=False, repr=False, compare=False, default=None)
    _cache: dict[str, bool] = field(init=False, repr=False, compare=False, default_factory=lambda: {})

    def __post_init__(self) -> None:
        if self.keys:
            joined = "|".join(f"(?:{k})" for k in self.keys)
            object.__setattr__(self, "_pattern", re.compile(joined, re.IGNORECASE))

    @property
    def active(self) -> bool:
        return self._pattern is not None or self.fn is not None

    def masks_key(self, key: str) -> bool:
        """Whether values under `key` are masked; cached because the same keys recur on every step."""
        hit = self._cache.get(key)
        if hit is None:
            hit = self._pattern is not None and self._pattern.search(key) is not None
            if len(self._cache) < 10_000:
                self._cache[key] = hit
        return hit


RedactSpec = Redaction | Sequence[str] | KeyFn | bool | None


def make_redaction(spec: RedactSpec) -> Redaction:
    """Normalise the `redact=` argument of `Recorder`.

    `True` (the default) masks `DEFAULT_REDACT_KEYS`; `False`/`None` records everything; a sequence of
    strings replaces the key patterns; a callable `fn(key, value)` is added to the default patterns; a
    `Redaction` is used as given.
    """
    if isinstance(spec, Redaction):
        return spec
    if spec is True:
        return _DEFAULT  # shared: its per-key cache then outlives one recorder
    if spec is False or spec is None:
        return _NONE
    if isinstance(spec, str):
        return Redaction(keys=(spec,))
    if callable(spec):
        return Redaction(fn=spec)
    return Redaction(keys=tuple(spec))


_DEFAULT = Redaction()
_NONE = Redaction(keys=())
