"""`inspector replay --step`: the same steps the `g` prompt takes, checked against the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.errors import InspectorError
from inspector.tui import make_app
from inspector.tui.goto import GotoError, resolve_step

pytestmark = pytest.mark.anyio

WEATHER = Path(__file__).parents[2] / "fixtures" / "runs" / "weather.jsonl"


def test_negative_steps_count_from_the_end_as_g_does() -> None:
    run = make_app(WEATHER).session.run
    assert [resolve_step(answer, run) for answer in ("0", "2", "-1", "-3")] == [0, 2, 2, 0]
    for answer in ("3", "999", "-4"):
        with pytest.raises(GotoError, match=rf"no step {answer}: the run has 3 steps"):
            resolve_step(answer, run)


async def test_step_minus_one_opens_at_the_last_step() -> None:
    app = make_app(WEATHER)
    app.open_at("-1")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.replay.cursor == 2


def test_a_step_past_the_end_is_an_error_before_the_screen() -> None:
    app = make_app(WEATHER)
    with pytest.raises(InspectorError, match="--step 999: no step 999"):
        app.open_at("999")


async def test_g_refuses_a_step_past_the_end_instead_of_clamping() -> None:
    app = make_app(WEATHER)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("g", "9", "9", "enter")
        await pilot.pause()
        assert app.replay.cursor == 0
        assert any("no step 99" in str(n.message) for n in app._notifications)  # pyright: ignore[reportPrivateUsage]
