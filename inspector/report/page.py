"""One run as one self-contained HTML page: the graph with the run's heat, the timeline, each step, the
conversation, the diagnostics and the header facts.

Everything is visible without JavaScript: the timeline is a table, and each step's details (its nodes'
inputs and outputs, its state changes, its budget) are written out for the first `STATIC_STEP_LIMIT`
steps. The page's script only adds what needs a program: clicking a step highlights its nodes on the
graph and shows that step's whole state, rebuilt in the browser from the changes the data holds (so a
long run's page stays linear in the run). A run past `STATIC_STEP_LIMIT` steps shows its later steps'
details through the script alone, and the page says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from graph_core.topology import Topology
from inspector.diagnostics import Diagnostic, diagnose
from inspector.errors import RenderError
from inspector.export import RunOverlay, render
from inspector.recording import Run
from inspector.recording.statediff import format_path
from inspector.recording.valuelist import plain
from inspector.report.facts import run_facts
from inspector.report.html import asset, attr, script_json, svg_inline, text

__all__ = [
    "STATIC_STEP_LIMIT",
    "document",
    "graph_figure",
    "node_ids",
    "page_data",
    "run_page",
    "step_details",
    "step_table",
]

STATIC_STEP_LIMIT = 200
"""Steps whose details are written as HTML (readable with JavaScript off); later ones come from the data."""
STATIC_MESSAGE_LIMIT = 500
"""Conversation messages written as HTML; the script adds the later ones from the data."""
STATIC_ROW_LIMIT = 1_000
"""Timeline rows written as HTML; the script adds the later ones from the (compressed) data, which keeps a
10,000-round run's page within a few megabytes."""

_BUDGET_COLUMNS = (("steps", "steps_used"), ("model", "model_calls"), ("tools", "tool_calls"))


def node_ids(topology: Topology | None) -> dict[str, str]:
    """Top-level node key -> the id Graphviz gives its node (`n0`, `n1`, ... in topology order), which
    the SVG carries as each node's `<title>`."""
    if topology is None:
        return {}
    return {node.key: f"n{index}" for index, node in enumerate(topology.nodes)}


def graph_figure(topology: Topology | None, overlay: RunOverlay | None, caption: str) -> str:
    """The graph drawn by Graphviz, inline; a note in its place when there is no topology or no `dot`."""
    if topology is None:
        return '<p class="note">This run file holds no topology, so there is no graph to draw.</p>'
    try:
        svg = svg_inline(render(topology, format="svg", overlay=overlay))
    except RenderError as error:
        return f'<p class="note">The graph could not be drawn: {text(error)}</p>'
    return f'<figure class="graph" id="graph">{svg}<figcaption>{text(caption)}</figcaption></figure>'


def _budget_cells(budget: dict[str, Any]) -> str:
    cells: list[str] = []
    for _, key in _BUDGET_COLUMNS:
        value = budget.get(key)
        if key == "steps_used" and budget.get("steps_max") is not None:
            value = f"{value}/{budget['steps_max']}"
        cells.append(f'<td class="num">{text("" if value is None else value)}</td>')
    tokens = budget.get("total_tokens")
    cells.append(f'<td class="num">{text("" if tokens is None else tokens)}</td>')
    return "".join(cells)


def _change_summary(changes: list[list[Any]]) -> str:
    if not changes:
        return ""
    paths = [format_path(tuple(change[0])) for change in changes[:3]]
    more = f" +{len(changes) - 3}" if len(changes) > 3 else ""
    return (
        ", ".join(f"{op_mark(change[1])}{path}" for change, path in zip(changes, paths, strict=False)) + more
    )


def op_mark(op: str) -> str:
    return {"added": "+", "appended": "+", "removed": "-", "changed": "~"}.get(op, "")


def step_row(step: dict[str, Any], *, side: str = "") -> str:
    """One timeline row: name (a link to the step's details), nodes, duration, budget, changes, next."""
    branches = "; ".join(f"{src} → {', '.join(chosen)}" for src, chosen in step["r"])
    failed = any("err" in node_run for node_run in step["u"])
    duration = step.get("d")
    return (
        f'<tr id="{side}step-{step["i"]}" data-step="{step["i"]}" class="{"failed" if failed else ""}">'
        f'<td><a href="#{side}detail-{step["i"]}">{text(step["name"])}</a></td>'
        f"<td>{text(', '.join(step['n']))}</td>"
        f'<td class="num">{"" if duration is None else f"{duration * 1000:.1f} ms"}</td>'
        f"{_budget_cells(step['b'])}"
        f"<td>{text(_change_summary(step['c']))}</td><td>{text(branches)}</td></tr>"
    )


def step_table(steps: Iterable[dict[str, Any]], *, side: str = "") -> str:
    """The timeline: one row per step of `steps` (the page's script adds the rows of later steps)."""
    rows = "".join(step_row(step, side=side) for step in steps)
    head = "".join(f'<th class="num">{name}</th>' for name, _ in _BUDGET_COLUMNS)
    return (
        f'<table class="timeline" id="{side}timeline"><thead><tr><th>step</th><th>nodes</th>'
        f'<th class="num">time</th>{head}<th class="num">tokens</th><th>state changes</th>'
        f"<th>next</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _pre(label: str, value: str) -> str:
    if not value:
        return ""
    return f'<div class="value"><span class="label">{text(label)}</span><pre>{text(value)}</pre></div>'


def _node_run_html(node_run: dict[str, Any]) -> str:
    parts = [f"<h4>{text(node_run['k'])}</h4>"]
    if "err" in node_run:
        parts.append(f'<p class="error">{text(node_run["err"])}</p>')
    parts.append(_pre("input", node_run["in"]))
    parts.append(_pre("output", node_run["out"]))
    for tool in node_run.get("tools", []):
        parts.append(f'<h5>tool {text(tool["name"])} <span class="dim">{text(tool["id"] or "")}</span></h5>')
        if "err" in tool:
            parts.append(f'<p class="error">{text(tool["err"])}</p>')
        parts.append(_pre("arguments", tool["in"]))
        parts.append(_pre("result", tool["out"]))
    return f'<div class="node-run">{"".join(parts)}</div>'


def step_details(step: dict[str, Any], *, side: str = "") -> str:
    """One step written out: its node runs, state changes, budget and branch decisions."""
    changes = "".join(
        f"<li><code>{op_mark(op)}{text(format_path(tuple(path)))}</code> {text(op)}"
        f"{_pre('old', _value(old)) if op in ('changed', 'removed') else ''}"
        f"{_pre('new', _value(new)) if op != 'removed' else ''}</li>"
        for path, op, old, new in step["c"]
    )
    budget = ", ".join(f"{key} {value}" for key, value in step["b"].items())
    branches = "".join(f"<li>{text(src)} → {text(', '.join(chosen))}</li>" for src, chosen in step["r"])
    return (
        f'<section class="step-detail" id="{side}detail-{step["i"]}" data-step="{step["i"]}">'
        f"<h3>{text(step['name'])}: {text(', '.join(step['n']))}</h3>"
        f"{''.join(_node_run_html(node_run) for node_run in step['u'])}"
        f'<h4>state changes</h4><ul class="changes">{changes or "<li>none</li>"}</ul>'
        f"{f'<h4>branch decisions</h4><ul>{branches}</ul>' if branches else ''}"
        f'<p class="budget"><span class="label">budget after the step</span> {text(budget)}</p>'
        "</section>"
    )


def page_data(
    run: Run,
    steps: list[dict[str, Any]],
    *,
    side: str = "",
    static_rows: int | None = None,
    static_details: int = 0,
) -> dict[str, Any]:
    """What the page's script needs of a run: the state before the first step shown, per step its
    position, nodes, state changes (to rebuild the state) and its details as HTML, and the timeline
    rows past the first `static_rows` (all written here, escaped, so the script renders nothing itself)."""
    first = steps[0]["i"] if steps else 0
    later = steps[static_rows:] if static_rows is not None else []
    return {
        "base": plain(run.state_at(first - 1)) if first > 0 else None,
        "rows": [step_row(step, side=side) for step in later],
        "steps": [
            {
                "i": step["i"],
                "n": step["n"],
                "c": step["c"],
                # a step written on the page is copied from there; `html` only for the later ones
                **({"html": step_details(step, side=f"p-{side}")} if k >= static_details else {}),
            }
            for k, step in enumerate(steps)
        ],
    }


def _value(value: Any) -> str:
    from inspector.report.facts import excerpt

    return excerpt(value)


def said_item(said: dict[str, Any]) -> str:
    """One message of the conversation, with who said it and the tool calls it asked for."""
    where = "" if said["step"] is None else f' data-step="{said["step"]}"'
    calls = "".join(f'<div class="call">→ {text(call)}</div>' for call in said["calls"])
    who = said["who"] or ""
    return (
        f'<li class="msg {attr(said["role"])}"{where}><span class="who">{text(said["role"])}'
        f"{f' ({text(who)})' if who and who != said['role'] else ''}</span>"
        f"<pre>{text(said['text'])}</pre>{calls}</li>"
    )


def _conversation_html(conversation: list[dict[str, Any]]) -> str:
    if not conversation:
        return "<p>No messages.</p>"
    items = "".join(said_item(said) for said in conversation[:STATIC_MESSAGE_LIMIT])
    unlisted = len(conversation) - STATIC_MESSAGE_LIMIT
    note = (
        f'<noscript><p class="note">The conversation lists its first {STATIC_MESSAGE_LIMIT} messages; the '
        f"page's script lists the other {unlisted}.</p></noscript>"
        if unlisted > 0
        else ""
    )
    return f'<ol class="conversation" id="conversation">{items}</ol>{note}'


def _diagnostics_html(diagnostics: list[dict[str, Any]]) -> str:
    if not diagnostics:
        return "<p>None.</p>"
    items = "".join(
        f'<li class="{attr(d["severity"])}"><b>{text(d["severity"])}</b> [{text(d["code"])}]'
        f"{_at_step(d['step'])} {text(d['message'])}</li>"
        for d in diagnostics
    )
    return f'<ul class="diagnostics">{items}</ul>'


def _at_step(position: Any) -> str:
    return "" if position is None else f" (step {int(position)})"


def _facts_html(header: dict[str, Any], version: str) -> str:
    rows = [
        ("graph", header["graph"]),
        ("file", header["file"]),
        ("run id", header["run_id"]),
        ("target", header["target"] or "(not recorded)"),
        ("status", header["status"]),
        ("started", header["started_at"]),
        ("duration", "" if header["duration"] is None else f"{header['duration']:.3f} s"),
        ("steps", header["steps"]),
        ("mode", header["mode"] or ""),
        ("format", header["format"]),
        ("page made by", f"graph-inspector {version}"),
    ]
    body = "".join(f"<tr><th>{text(k)}</th><td>{text(v)}</td></tr>" for k, v in rows if v != "")
    return f'<table class="facts">{body}</table>'


def document(title: str, body: str, data: Any) -> str:
    """A whole page: `body`, the inline CSS and script, and `data` for the script."""
    payload, encoding = script_json(data)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="generator" content="graph-inspector report">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
        f"<title>{text(title)}</title><style>{asset('report.css')}</style></head>"
        f"<body>{body}"
        f'<script type="application/json" id="page-data" data-encoding="{encoding}">{payload}</script>'
        f"<script>{asset('report.js')}</script></body></html>\n"
    )


def run_page(run: Run, *, steps: range | None = None, diagnostics: list[Diagnostic] | None = None) -> str:
    """The page for `run` (its steps in `steps`, default all)."""
    from inspector.cli import version

    found = diagnose(run) if diagnostics is None else diagnostics
    facts = run_facts(run, found, steps=steps)
    header = facts["header"]
    shown = facts["steps"]
    overlay = RunOverlay.from_run(run) if run.topology is not None else None
    caption = ""  # the overlay's summary is the drawing's own title
    static = shown[:STATIC_STEP_LIMIT]
    later = len(shown) - len(static)
    note = (
        f'<p class="note" id="later-steps">The details of the {later} steps after '
        f"{text(static[-1]['name'])} are shown by the page's script (click a step in the timeline); "
        "with JavaScript off, narrow the page with <code>--steps A..B</code> to see them written out.</p>"
        if later
        else ""
    )
    unlisted = len(shown) - STATIC_ROW_LIMIT
    rows_note = (
        f'<noscript><p class="note">The timeline lists its first {STATIC_ROW_LIMIT} steps; the page\'s '
        f"script lists the other {unlisted}, a thousand at a time. With JavaScript off, narrow the page "
        "with <code>--steps A..B</code>.</p></noscript>"
        if unlisted > 0
        else ""
    )
    range_note = (
        f'<p class="note">This page shows steps {steps.start} to {steps.stop - 1} of {header["steps"]}.</p>'
        if steps is not None
        else ""
    )
    error = f'<p class="error">{text(facts["error"])}</p>' if facts["error"] else ""
    output = f"<h3>output</h3><pre>{text(facts['output'])}</pre>" if facts["output"] else ""
    body = (
        f'<header><h1>{text(header["graph"] or "run")} <span class="status status-{attr(header["status"])}">'
        f"{text(header['status'])}</span></h1>{_facts_html(header, version())}{error}{output}</header>"
        f'<main><div class="graph-column">{graph_figure(run.topology, overlay, caption)}'
        '<section id="step-panel" class="panel" hidden><h2>selected step</h2><div id="panel-body"></div>'
        "</section></div>"
        f'<div class="run-column"><h2>timeline</h2>{range_note}'
        f"{step_table(shown[:STATIC_ROW_LIMIT])}{rows_note}"
        f"<h2>diagnostics</h2>{_diagnostics_html(facts['diagnostics'])}"
        f"<h2>conversation</h2>{_conversation_html(facts['conversation'])}"
        f'<h2>steps</h2><div id="step-details">{"".join(step_details(step) for step in static)}</div>'
        f"{note}</div></main>"
    )
    data = {
        "kind": "run",
        "node_ids": node_ids(run.topology),
        "runs": [page_data(run, shown, static_rows=STATIC_ROW_LIMIT, static_details=STATIC_STEP_LIMIT)],
        "said": [said_item(said) for said in facts["conversation"][STATIC_MESSAGE_LIMIT:]],
    }
    return document(f"{header['graph'] or 'run'}: {header['file']}", body, data)
