"""How a run that stopped reads at its end: the error said once (its cause, the node path once), and
the budget's "ran out" from the step that spent it, not on every step of the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.tui import make_app
from inspector.tui.budget_bar import BudgetBar
from inspector.tui.node_detail import NodeDetail

pytestmark = pytest.mark.anyio

SIZES = [(80, 24), (120, 40), (140, 45)]


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_ran_out_is_said_at_the_step_that_spent_the_budget(
    runaway_run: Path, size: tuple[int, int]
) -> None:
    app = make_app(runaway_run)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        last = len(app.replay) - 1
        app.go(last)
        await pilot.pause()
        bar = str(app.query_one(BudgetBar).render())
        assert "left 0" in bar and "ran out in the cycle chat -> tools -> chat" in bar
        await pilot.press("home")
        await pilot.pause()
        bar = str(app.query_one(BudgetBar).render())
        assert "left 12" in bar and "ran out" not in bar
        app.go(last - 1)  # low on steps: what is spending them, so far
        await pilot.pause()
        bar = str(app.query_one(BudgetBar).render())
        assert "ran out" not in bar and "spent in the cycle" in bar and "rounds so far" in bar


async def test_a_failed_step_says_its_error_once(tmp_path: Path) -> None:
    from inspector.cli import main

    out = tmp_path / "failed.jsonl"
    assert (
        main(["record", "tests.inspector.test_cli_failed_run:graph", "--input", "hi", "-o", str(out), "-q"])
        == 1
    )
    app = make_app(out)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        detail = app.query_one(NodeDetail).render().plain
    refused = "POST http://127.0.0.1:9/v1/chat/completions failed: refused (hi)"
    assert detail.count(refused) == 1, detail
    assert f"ConnectionError: {refused}  (raised as NodeRunError)" in detail
    assert detail.count("chat") == 3, detail  # the node path once, the node's own block (header, its run)
    assert "node path: [" not in detail and "run-failed" not in detail
    assert "error   (the run's error, above)" in detail
