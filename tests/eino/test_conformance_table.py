"""docs/eino-conformance.md: its summaries are what its rows count, and the tests its rows name exist."""

from __future__ import annotations

from tests.eino import conformance_table as table


def test_the_summaries_match_the_recount_of_the_rows() -> None:
    text = table.PAGE.read_text()
    assert table.render(text) == text, "run `python3 -m tests.eino.conformance_table --write`"


def test_every_python_test_a_row_names_exists() -> None:
    assert table.missing_python_tests(table.PAGE.read_text()) == []


def test_a_changed_row_makes_the_summary_stale() -> None:
    text = table.PAGE.read_text()
    edited = text.replace("| TestNewRunner | ported |", "| TestNewRunner | not yet ported |", 1)
    assert edited != text
    fresh = table.render(edited)
    assert fresh != edited
    assert "| adk/runner_test.go | 6 | 5 | 0 | 0 | 1 |" in fresh


def test_statuses_count_in_their_columns() -> None:
    assert table.kind("ported (engine part)") == "ported"
    assert table.kind("deviation") == "deviation"
    assert table.kind("not yet ported") == "not yet ported"
    assert table.kind("not applicable") == "not applicable"


def test_check_mode_passes_on_the_committed_page() -> None:
    assert table.main(["--check"]) == 0
