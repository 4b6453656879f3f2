"""`B` (breakpoint on any node): a name that is not a node of the graph is refused, and said so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App

from inspector.tui import make_app
from tests.tui.conftest import SIZE

pytestmark = pytest.mark.anyio


def _messages(app: App[Any]) -> list[str]:
    return [n.message for n in app._notifications]  # pyright: ignore[reportPrivateUsage]


async def test_unknown_node_is_refused_with_the_nodes_there_are(react_run: Path) -> None:
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("B", *"chta", "enter")
        await pilot.pause()
        assert app.replay.breakpoints == frozenset()
        said = _messages(app)
        assert any("chta" in m and "not a node" in m and "chat" in m and "tools" in m for m in said), said
        assert not any("breakpoint on" in m for m in said)


async def test_start_and_end_are_not_breakpoint_nodes(react_run: Path) -> None:
    """START and END never run as a step, so a breakpoint there could never be hit."""
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("B", *"end", "enter")
        await pilot.pause()
        assert app.replay.breakpoints == frozenset()


async def test_known_node_still_toggles(react_run: Path) -> None:
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("B", *"tools", "enter")
        await pilot.pause()
        assert app.replay.breakpoints == {"tools"}
        assert any("breakpoint on: tools" in m for m in _messages(app))
        await pilot.press("B", *"tools", "enter")
        assert app.replay.breakpoints == frozenset()
