"""Fixtures for the hostile-input tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """Pilot tests run on asyncio (through anyio's pytest plugin)."""
    return "asyncio"
