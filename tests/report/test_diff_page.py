"""`inspector report A B`: two runs side by side from their first divergence, the parting node marked."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from inspector.recording import read_run
from inspector.report import diff_page
from inspector.rundiff import diff_runs
from tests.report.conftest import docs_screenshot

ROOT = Path(__file__).resolve().parents[2]
RUNAWAY = ROOT / "fixtures" / "runs" / "runaway.jsonl"


@pytest.fixture(scope="module")
def runaway_fork(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's fork: the runaway run from step 4 with a model that stops calling tools."""
    fork = tmp_path_factory.mktemp("fork") / "fork.jsonl"
    subprocess.run(
        [sys.executable, "-m", "inspector", "fork", str(RUNAWAY), "--step", "4", "-o", str(fork),
         "--target", "fixtures.runaway:agent",
         "--model-answer", '{"role": "assistant", "content": "It stopped raining."}'],
        cwd=ROOT, check=True, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    return fork


def test_the_runaway_fork_diff_marks_where_the_runs_part(
    runaway_fork: Path, tmp_path: Path, open_page: Any
) -> None:
    page_path = tmp_path / "diff.html"
    page_path.write_text(diff_page(read_run(RUNAWAY), read_run(runaway_fork)), encoding="utf-8")
    page = open_page(page_path)
    diff = diff_runs(RUNAWAY, runaway_fork)
    assert diff.divergence_text() is not None
    assert diff.divergence_text() in page.locator(".divergence").inner_text()
    marked = page.eval_on_selector_all("#graph g.node.divergent title", "els => els.map(e => e.textContent)")
    assert marked == ["n1"]  # chat: its branch went to tools in A and to end in B
    assert "divergent" in (page.locator("#a-step-4").get_attribute("class") or "")
    assert "divergent" in (page.locator("#b-step-4").get_attribute("class") or "")
    assert page.locator("#a-timeline tbody tr").first.get_attribute("data-step") == "2"  # two steps before
    page.click("#b-step-4")
    assert page.locator("#step-panel").get_attribute("data-step") == "4"
    assert "It stopped raining." in page.locator("#panel-body").inner_text()
    docs_screenshot(page, "report-diff.png", tmp_path)


def test_two_equal_runs_say_so(tmp_path: Path, open_page: Any) -> None:
    page_path = tmp_path / "same.html"
    page_path.write_text(diff_page(read_run(RUNAWAY), read_run(RUNAWAY)), encoding="utf-8")
    page = open_page(page_path)
    assert "first divergence: none" in page.locator(".divergence").inner_text()
    assert "result: equivalent" in page.locator("header").inner_text()
    assert page.locator("#graph g.node.divergent").count() == 0
