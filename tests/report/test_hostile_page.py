"""A run is a stranger's data: names and values that look like markup appear literally and run nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graph_core import END, START, Graph
from inspector.recording import Recorder, read_run
from inspector.report import diff_page, run_page

SCRIPT = "</script><script>alert('node')</script>"
HOSTILE_VALUES = [
    SCRIPT,
    '<img src=x onerror="alert(1)" id="injected">',
    "&amp; &lt;b&gt; &#60;script&#62;",
    "\"quotes' and `backticks`",
    "bidi \u202eevil\u202c and \u2066isolates\u2069",
    "terminal \x1b[31mred\x1b[0m bell \x07 c1 \x9b",
    "-->",
    "\u2028line separator\u2029",
]


def _hostile_run(path: Path) -> Path:
    def first(state: dict[str, Any]) -> dict[str, Any]:
        return {"values": HOSTILE_VALUES, '<b id="injected">key</b>': SCRIPT}

    graph = Graph()
    graph.add_lambda_node(SCRIPT, first)
    graph.add_lambda_node('a"b&c<d>', lambda value: value)
    graph.add_edge(START, SCRIPT)
    graph.add_edge(SCRIPT, 'a"b&c<d>')
    graph.add_edge('a"b&c<d>', END)
    graph.compile(name="<i>hostile</i>").invoke({"in": SCRIPT}, callbacks=[Recorder(path)])
    return path


def test_hostile_text_is_shown_literally_and_runs_no_script(tmp_path: Path, open_page: Any) -> None:
    run = read_run(_hostile_run(tmp_path / "hostile.jsonl"))
    page_path = tmp_path / "hostile.html"
    page_path.write_text(run_page(run), encoding="utf-8")
    page = open_page(page_path)
    page.click("#step-0")
    assert page.dialogs == []
    assert page.locator("#injected").count() == 0
    assert page.locator("script").count() == 2  # the page's data and its own script, nothing injected
    assert page.locator("body i, body img").count() == 0
    text = page.locator("body").inner_text()
    assert SCRIPT in text
    assert "&amp; &lt;b&gt; &#60;script&#62;" in text
    assert "<i>hostile</i>" in text
    assert '"<b id=\\"injected\\">key</b>"' in page.locator("#panel-body").inner_text()  # the output, as JSON


def test_the_comparison_page_is_as_safe(tmp_path: Path, open_page: Any) -> None:
    run = read_run(_hostile_run(tmp_path / "hostile.jsonl"))
    page_path = tmp_path / "hostile-diff.html"
    page_path.write_text(diff_page(run, run), encoding="utf-8")
    page = open_page(page_path)
    assert page.dialogs == []
    assert page.locator("#injected").count() == 0
    assert page.locator("script").count() == 2
