"""Pages for a failing snapshot, written by the pytest plugin into `--inspector-report-dir DIR`.

A failing trajectory snapshot gets two pages: the received run's page (as `inspector report` writes it)
and a comparison of the stored trajectory with the received one, side by side from where they part, on
the received run's graph with the parting node marked. A failing topology snapshot gets one page: the
stored graph and the received graph side by side, with the list of what changed. The failure message
names the files, so a CI job can keep the folder as an artifact and a reviewer opens the pages.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from inspector.export import from_json
from inspector.recording import Run, read_run
from inspector.report.diffpage import mark_nodes
from inspector.report.html import attr, text
from inspector.report.page import document, graph_figure, node_ids, run_page
from inspector.report.write import write_page
from inspector.snapshot.topology_diff import diff_topologies
from inspector.snapshot.trajectory import first_divergence, from_text

__all__ = ["page_name", "topology_pages", "trajectory_pages"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def page_name(test_id: str) -> str:
    """A file name for a test's pages: its node id with anything but letters, digits, `.`, `_` and `-`
    made `_` (`tests/test_x.py::test_y[a/b]` -> `tests_test_x.py_test_y_a_b_`), at most 150 characters."""
    return _UNSAFE.sub("_", test_id).strip("_")[:150] or "snapshot"


def _budget_text(budget: dict[str, Any]) -> str:
    used, most = budget.get("steps_used"), budget.get("steps_max")
    parts = [f"steps {used}/{most}" if most is not None else f"steps {used}"]
    parts += [
        f"{key.replace('_', ' ')} {value}"
        for key, value in budget.items()
        if key not in ("steps_used", "steps_max")
    ]
    return " · ".join(parts)


def _trajectory_rows(steps: list[dict[str, Any]], parting: int | None) -> str:
    rows = []
    for step in steps:
        mark = ' class="divergent"' if step.get("index") == parting else ""
        rows.append(
            f"<tr{mark}><td>{text(step.get('index'))}</td><td>{text(', '.join(step.get('nodes', [])))}</td>"
            f"<td>{text('; '.join(step.get('branches', [])))}</td>"
            f"<td>{text('; '.join(step.get('messages', [])))}</td>"
            f"<td>{text(_budget_text(step.get('budget', {})))}</td></tr>"
        )
    return (
        '<table class="timeline"><thead><tr><th>step</th><th>nodes</th><th>next</th><th>messages</th>'
        f"<th>budget</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def trajectory_pages(subject: Run | str | Path, stored: str, directory: Path, name: str) -> list[Path]:
    """Write the received run's page and the trajectory comparison page; return their paths."""
    run = subject if isinstance(subject, Run) else read_run(subject)
    directory.mkdir(parents=True, exist_ok=True)
    run_path = directory / f"{name}.run.html"
    write_page(run_page(run), run_path, steps=len(run.steps))
    expected, received = from_text(stored), from_text(_received_text(run))
    divergence = first_divergence(expected, received)
    parting = divergence.step if divergence is not None else None
    start = max(0, (parting or 0) - 2)
    marked: list[str] = []
    if parting is not None and parting < len(run.steps):
        marked = list(run.steps[parting].nodes)
    ids = node_ids(run.topology)
    figure = mark_nodes(
        graph_figure(
            run.topology, None, "the received run's graph; marked: the nodes of the step where it parts"
        ),
        [ids[n] for n in marked if n in ids],
    )
    body = (
        "<header><h1>trajectory snapshot failed</h1>"
        f'<p class="divergence">{text(divergence.describe() if divergence else "no divergence found")}</p>'
        f'<p>The received run\'s own page: <a href="{attr(run_path.name)}">{text(run_path.name)}</a>'
        "</p></header>"
        f'<main><div class="graph-column">{figure}</div><div class="run-column">'
        f'<p class="note">Both start at step {start}.</p><div class="sides">'
        f"<div><h2>stored (expected)</h2>{_trajectory_rows(expected.get('steps', [])[start:], parting)}</div>"
        f"<div><h2>received</h2>{_trajectory_rows(received.get('steps', [])[start:], parting)}</div>"
        "</div></div></main>"
    )
    diff_path = directory / f"{name}.diff.html"
    write_page(
        document(f"trajectory snapshot: {name}", body, {"kind": "trajectory"}),
        diff_path,
        steps=len(run.steps),
    )
    return [run_path, diff_path]


def _received_text(run: Run) -> str:
    from inspector.snapshot.trajectory import to_text

    return to_text(run)


def topology_pages(stored: str, received: str, directory: Path, name: str) -> list[Path]:
    """Write the page comparing a stored topology snapshot with the received topology; return its path."""
    old, new = from_json(stored), from_json(received)
    changes = diff_topologies(old, new)
    items = "".join(f"<li>{text(change.describe())}</li>" for change in changes) or "<li>order only</li>"
    received_figure = graph_figure(new, None, "received").replace('id="graph"', "")
    body = (
        "<header><h1>topology snapshot failed</h1>"
        f"<h2>what changed ({len(changes)})</h2><ul>{items}</ul></header>"
        '<main><div class="sides">'
        f"<div><h2>stored (expected)</h2>{graph_figure(old, None, 'stored snapshot')}</div>"
        f"<div><h2>received</h2>{received_figure}</div>"
        "</div></main>"
    )
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.topology.html"
    write_page(document(f"topology snapshot: {name}", body, {"kind": "topology"}), path, steps=0)
    return [path]
