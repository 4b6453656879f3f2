"""The budget bar: colour thresholds for steps and ADK iterations, and what is spending the budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.recording.format import BudgetRecord
from inspector.tui import Session
from inspector.tui.budget_bar import budget_level, render_budget


@pytest.mark.parametrize(
    ("used", "level"),
    [(0, "ok"), (4, "ok"), (5, "low"), (7, "low"), (8, "critical"), (10, "critical")],
)
def test_step_thresholds_half_and_a_fifth_left(used: int, level: str) -> None:
    assert budget_level(BudgetRecord(steps_used=used, steps_max=10)) == level


@pytest.mark.parametrize(
    ("left", "level"), [(20, "ok"), (11, "ok"), (10, "low"), (5, "low"), (4, "critical")]
)
def test_iterations_use_the_same_shares_of_their_start(left: int, level: str) -> None:
    budget = BudgetRecord(steps_used=3, steps_max=2**31 - 1, iterations_remaining=left)
    assert budget_level(budget, iterations_max=20) == level
    assert budget_level(BudgetRecord(steps_used=3, steps_max=2**31 - 1)) == "none", "no practical limit"


def test_without_the_start_iterations_fall_back_to_counts() -> None:
    assert budget_level(BudgetRecord(steps_used=1, iterations_remaining=4)) == "ok"
    assert budget_level(BudgetRecord(steps_used=1, iterations_remaining=3)) == "low"
    assert budget_level(BudgetRecord(steps_used=1, iterations_remaining=1)) == "critical"


def test_the_worse_of_steps_and_iterations_wins() -> None:
    budget = BudgetRecord(steps_used=9, steps_max=10, iterations_remaining=19)
    assert budget_level(budget, iterations_max=20) == "critical"


def test_adk_bar_counts_iterations_not_a_fake_step_limit() -> None:
    budget = BudgetRecord(steps_used=6, steps_max=2**31 - 1, model_calls=1, iterations_remaining=15)
    text = render_budget(budget, iterations_max=20).plain
    assert text.startswith("steps 6   iterations █████░░░░░░░░░░░░░░░ 5/20  left 15")
    assert "2147483647" not in text


def test_a_low_budget_names_the_loop_spending_it(runaway_run: Path) -> None:
    session = Session.open(runaway_run)
    early, low = session.run.steps[3].budget, session.run.steps[7].budget
    assert budget_level(early) == "ok" and budget_level(low) == "low"
    assert session.consuming_cycle(7) == ("chat -> tools -> chat", 4)
    text = render_budget(low, consuming=session.consuming_cycle(7)).plain
    assert text.endswith("⚠ spent in the cycle chat -> tools -> chat (4 rounds so far)")
    assert "⚠" not in render_budget(early, consuming=session.consuming_cycle(3)).plain, "only when low"
    ran_out = render_budget(low, cycle="ran out in X", consuming=("Y", 1)).plain
    assert ran_out.endswith("⚠ ran out in X"), "the diagnosis wins once the budget is gone"
    assert session.consuming_cycle(0) is None
