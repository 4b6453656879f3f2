"""Helpers for the debugger tests: deterministic recorders and a controller on a fixture agent."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from graph_core.schema import Message
from inspector.debug import DebugController


def clock() -> Callable[[], float]:
    ticks = itertools.count()
    return lambda: 1_700_000_000.0 + next(ticks) * 0.25


def controller_for(
    module: Any, path: Path, question: str = "Weather in Hangzhou?", **options: Any
) -> DebugController:
    """A controller on `module.build_agent()` recording to `path` with a fixed clock and run ID."""
    agent = module.build_agent()
    return DebugController(
        agent,
        [Message.user(question)],
        output=path,
        topology=agent.compiled.topology(),
        meta={"target": f"{module.__name__}:agent"},
        recorder_options={"clock": clock(), "run_id": path.stem},
        **options,
    )


def lines_of(path: Path, kind: str) -> list[str]:
    return [line for line in path.read_text().splitlines() if line.startswith(f'{{"kind":"{kind}"')]


@pytest.fixture
def anyio_backend() -> str:
    """Pilot tests run on asyncio (through anyio's pytest plugin, `pytestmark = pytest.mark.anyio`)."""
    return "asyncio"
