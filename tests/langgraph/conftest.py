"""Shared settings of the LangGraph tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """Textual runs on asyncio (the TUI test opens a LangGraph recording in the app)."""
    return "asyncio"
