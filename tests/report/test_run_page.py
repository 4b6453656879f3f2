"""`inspector report RUN`: every fixture run's page, opened in headless chromium, with and without JS."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from graph_core.topology import Topology
from inspector.recording import read_run
from inspector.recording.valuelist import plain
from inspector.report import run_page
from inspector.report.page import node_ids
from tests.report.conftest import docs_screenshot

RUNS = Path(__file__).resolve().parents[2] / "fixtures" / "runs"
FIXTURE_RUNS = sorted(RUNS.glob("*.jsonl"))


def drawn_nodes(topology: Topology) -> int:
    """How many node shapes Graphviz draws: a nested graph is a cluster of its own nodes."""
    return sum(drawn_nodes(node.graph) if node.graph is not None else 1 for node in topology.nodes)


def write(run_path: Path, tmp_path: Path, **options: Any) -> Path:
    page = tmp_path / f"{run_path.stem}.html"
    page.write_text(run_page(read_run(run_path), **options), encoding="utf-8")
    return page


@pytest.mark.parametrize("run_path", FIXTURE_RUNS, ids=[p.stem for p in FIXTURE_RUNS])
def test_every_fixture_run_opens_with_its_graph_timeline_and_steps(
    run_path: Path, tmp_path: Path, open_page: Any
) -> None:
    run = read_run(run_path)
    page = open_page(write(run_path, tmp_path))
    assert run.topology is not None
    titles = page.eval_on_selector_all("#graph g.node title", "els => els.map(e => e.textContent)")
    graph_nodes = [t for t in titles if re.fullmatch(r"n\d+(_\d+)*", t)]  # the rest is the legend
    assert len(graph_nodes) == drawn_nodes(run.topology)
    assert page.locator("#timeline tbody tr").count() == len(run.steps)
    assert page.locator("#step-details .step-detail").count() == len(run.steps)
    assert page.dialogs == []
    facts = page.locator("table.facts").inner_text()
    assert run.status in facts and (run.header.meta.get("target") or "(not recorded)") in facts


@pytest.mark.parametrize("run_path", FIXTURE_RUNS, ids=[p.stem for p in FIXTURE_RUNS])
def test_clicking_a_step_highlights_its_nodes_and_shows_its_whole_state(
    run_path: Path, tmp_path: Path, open_page: Any
) -> None:
    run = read_run(run_path)
    position = min(3, len(run.steps) - 1)
    page = open_page(write(run_path, tmp_path))
    page.click(f"#step-{position}")
    assert page.locator("#step-panel").get_attribute("data-step") == str(position)
    ids = node_ids(run.topology)
    lit = page.eval_on_selector_all("#graph g.node.current title", "els => els.map(e => e.textContent)")
    assert sorted(lit) == sorted(ids[n] for n in run.steps[position].nodes if n in ids)
    shown = page.locator("#panel-body pre.state").inner_text()
    state = run.state_at(position)
    if state is None:
        assert shown == "(no state)"
    else:
        assert json.loads(shown) == plain(state)
    assert page.locator(f"#step-{position}").get_attribute("class") == "selected" or "selected" in (
        page.locator(f"#step-{position}").get_attribute("class") or ""
    )


def test_keys_move_the_selection_and_the_state_follows(tmp_path: Path, open_page: Any) -> None:
    run = read_run(RUNS / "runaway.jsonl")
    page = open_page(write(RUNS / "runaway.jsonl", tmp_path))
    page.click("#step-5")
    page.keyboard.press("k")
    page.keyboard.press("k")
    page.keyboard.press("j")
    assert page.locator("#step-panel").get_attribute("data-step") == "4"
    assert json.loads(page.locator("#panel-body pre.state").inner_text()) == plain(run.state_at(4))
    docs_screenshot(page, "report-run.png", tmp_path)


def test_without_javascript_everything_is_visible(tmp_path: Path, open_page: Any) -> None:
    run = read_run(RUNS / "weather.jsonl")
    page = open_page(write(RUNS / "weather.jsonl", tmp_path), javascript=False)
    assert page.locator("#step-panel").is_hidden()
    assert page.locator(".step-detail").count() == len(run.steps)
    for position in range(len(run.steps)):
        assert page.locator(f"#detail-{position}").is_visible()
    text = page.locator("body").inner_text()
    assert "get_weather" in text and "Hangzhou: light rain" in text  # a tool's arguments and result
    assert page.locator("#conversation li").count() >= 4
    assert page.locator("ul.diagnostics, .run-column p").count() > 0


def test_a_narrowed_page_rebuilds_the_state_from_the_step_before_it(tmp_path: Path, open_page: Any) -> None:
    run = read_run(RUNS / "runaway.jsonl")
    page = open_page(write(RUNS / "runaway.jsonl", tmp_path, steps=range(6, 10)))
    assert page.locator("#timeline tbody tr").count() == 4
    page.click("#step-8")
    assert json.loads(page.locator("#panel-body pre.state").inner_text()) == plain(run.state_at(8))
    assert "steps 6 to 9 of 13" in page.locator("body").inner_text()


def test_the_budget_burning_cycle_is_marked_on_the_graph(tmp_path: Path, open_page: Any) -> None:
    page = open_page(write(RUNS / "runaway.jsonl", tmp_path))
    svg = page.locator("#graph svg").inner_html()
    assert "loop that burned the budget" in svg
    assert "#b71c1c" in svg  # the cycle's colour in the heat overlay


def test_a_long_runs_later_rows_and_messages_come_a_thousand_at_a_time(
    tmp_path: Path, open_page: Any
) -> None:
    from bench.bench_recording import _agent  # pyright: ignore[reportPrivateUsage]
    from graph_core.schema import Message
    from inspector.recording import Recorder

    path = tmp_path / "long.jsonl"
    _agent(600).invoke([Message.user("go")], callbacks=[Recorder(path)])  # 1,201 steps, 1,202 messages
    run = read_run(path)
    page = open_page(write(path, tmp_path))
    assert page.locator("#timeline tbody tr").count() == 1000
    assert page.locator("#conversation li").count() == 500
    page.click("#step-999")
    page.keyboard.press("j")  # past the rows on the page: the next ones are added, step 1000 selected
    assert page.locator("#step-panel").get_attribute("data-step") == "1000"
    assert (
        json.loads(page.locator("#panel-body pre.state").inner_text())["messages"][-1]
        == plain(run.state_at(1000))["messages"][-1]
    )
    assert page.locator("#timeline tbody tr").count() == 1201
    assert page.locator("button.more").count() == 1  # the conversation's; the timeline's is spent
    page.click("button.more")
    assert page.locator("#conversation li").count() == 1202
    assert page.locator("button.more").count() == 0
