"""Two runs on one page, side by side from where they part: `inspector report A B -o diff.html`.

The comparison is `inspector diff`'s (`inspector.rundiff.diff_runs`), so the page and the command never
disagree. The graph is run A's, with the node where the runs part marked: the nodes that ran in one run
and not the other at the first divergent step, else the nodes whose branch decision differs there, else
that step's nodes (the tool calls or failures differ). Both timelines start two steps before it.
"""

from __future__ import annotations

import re
from typing import Any

from inspector.diagnostics import diagnose
from inspector.recording import Run
from inspector.report.facts import run_facts
from inspector.report.html import text
from inspector.report.page import (
    document,
    graph_figure,
    node_ids,
    page_data,
    step_details,
    step_table,
)
from inspector.rundiff import RunDiff, diff_runs

__all__ = ["CONTEXT_STEPS", "diff_page", "mark_nodes", "parting_nodes"]

CONTEXT_STEPS = 2
"""Steps shown before the first divergence, so a reader sees what led to it."""


def parting_nodes(diff: RunDiff, steps_a: list[dict[str, Any]], steps_b: list[dict[str, Any]]) -> list[str]:
    """The nodes where the runs part (see the module docstring); empty when they never do."""
    step = diff.first_divergence
    if step is None:
        return []
    a = steps_a[step.index] if step.index < len(steps_a) else None
    b = steps_b[step.index] if step.index < len(steps_b) else None
    if step.nodes is not None:
        only_a = [n for n in step.nodes[0] if n not in step.nodes[1]]
        only_b = [n for n in step.nodes[1] if n not in step.nodes[0]]
        return sorted(set(only_a + only_b))
    if step.branches is not None and a is not None and b is not None:
        chosen_b = {source: chosen for source, chosen in b["r"]}
        return sorted({source for source, chosen in a["r"] if chosen_b.get(source) != chosen})
    return list(a["n"]) if a is not None else []


def mark_nodes(svg_html: str, ids: list[str]) -> str:
    """Give the SVG nodes titled with `ids` the class `divergent` (drawn with a dashed red border)."""
    for node_id in ids:
        svg_html = re.sub(
            rf'<g id="(node\d+)" class="node">(\s*<title>{re.escape(node_id)}</title>)',
            r'<g id="\1" class="node divergent">\2',
            svg_html,
        )
    return svg_html


def _side(label: str, run: Run, facts: dict[str, Any], start: int, divergent: int | None) -> str:
    prefix = f"{label.lower()}-"
    steps = facts["steps"][start:]
    table = step_table(steps, side=prefix)
    if divergent is not None:
        table = table.replace(
            f'id="{prefix}step-{divergent}" data-step="{divergent}" class="',
            f'id="{prefix}step-{divergent}" data-step="{divergent}" class="divergent ',
            1,
        )
    header = facts["header"]
    detail = (
        step_details(facts["steps"][divergent], side=prefix)
        if divergent is not None and divergent < len(facts["steps"])
        else ""
    )
    error = f'<p class="error">{text(facts["error"])}</p>' if facts["error"] else ""
    return (
        f"<div><h2>{label}: {text(header['file'])}</h2>"
        f"<p>{text(header['status'])}, {header['steps']} steps; "
        f"target {text(header['target'] or '(not recorded)')}</p>{error}{table}{detail}</div>"
    )


def diff_page(run_a: Run, run_b: Run) -> str:
    """The page comparing `run_a` (the reference) with `run_b`."""
    diff = diff_runs(run_a, run_b)
    facts_a = run_facts(run_a, diagnose(run_a))
    facts_b = run_facts(run_b, diagnose(run_b))
    first = diff.first_divergence
    divergent = first.index if first is not None else None
    start = max(0, (divergent if divergent is not None else 0) - CONTEXT_STEPS)
    if divergent is None and diff.length[0] != diff.length[1]:
        start = max(0, min(diff.length) - CONTEXT_STEPS)
    marked = parting_nodes(diff, facts_a["steps"], facts_b["steps"])
    ids = node_ids(run_a.topology)
    caption = (
        f"run A's graph; marked (dashed red): {', '.join(marked)}, where the runs part"
        if marked
        else "run A's graph"
    )
    figure = mark_nodes(graph_figure(run_a.topology, None, caption), [ids[n] for n in marked if n in ids])
    sentence = diff.divergence_text()
    verdict = "equivalent" if diff.equivalent else "the runs differ"
    body = (
        f"<header><h1>diff: {text(facts_a['header']['file'])} ↔ {text(facts_b['header']['file'])}</h1>"
        f'<p class="divergence">first divergence: {text(sentence or "none")}</p>'
        f"<p>result: {verdict}</p>"
        f"<details><summary>the whole comparison (as <code>inspector diff</code> prints it)</summary>"
        f"<pre>{text(diff.to_text())}</pre></details></header>"
        f'<main><div class="graph-column">{figure}'
        '<section id="step-panel" class="panel" hidden><h2>selected step</h2><div id="panel-body"></div>'
        "</section></div>"
        f'<div class="run-column"><p class="note">Both timelines start at step {start}'
        f"{'' if start == 0 else f' ({CONTEXT_STEPS} steps before the divergence)'}.</p>"
        f'<div class="sides">{_side("A", run_a, facts_a, start, divergent)}'
        f"{_side('B', run_b, facts_b, start, divergent)}</div></div></main>"
    )
    data = {
        "kind": "diff",
        "node_ids": ids,
        "divergent": divergent,
        "marked": marked,
        "runs": [
            page_data(run_a, facts_a["steps"][start:], side="a-"),
            page_data(run_b, facts_b["steps"][start:], side="b-"),
        ],
    }
    return document(f"diff: {facts_a['header']['file']} ↔ {facts_b['header']['file']}", body, data)
