"""Fixtures shared by test folders that read recordings."""

from __future__ import annotations

from typing import Any

import pytest

from inspector.recording.values import ValueTable


@pytest.fixture
def value_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The value ids a test's recordings read from their files (value lines parsed), in order: what a
    lazy read path is held to, counted rather than timed."""
    seen: list[int] = []
    original = ValueTable._read  # pyright: ignore[reportPrivateUsage]

    def counting(self: ValueTable, ref: int) -> Any:
        seen.append(ref)
        return original(self, ref)

    monkeypatch.setattr(ValueTable, "_read", counting)
    return seen
