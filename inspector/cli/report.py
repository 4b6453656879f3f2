"""`inspector report RUN [RUN_B] -o PAGE.html`: a run (or two runs compared) as one self-contained page.

The page needs nothing but a browser: the graph is inline SVG, the CSS and script are in the file, and
nothing is fetched. See docs/report.md.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any

from inspector.errors import ReportError
from inspector.recording import read_run
from inspector.recording.reader import RunFileWarning

__all__ = ["GENERATOR", "register", "run"]

GENERATOR = "graph-inspector report"
"""The `<meta name="generator">` of every page: a file carrying it may be overwritten by the next one."""


def _megabytes(text: str) -> int:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of megabytes: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of megabytes, not {text!r}")
    return int(value * 1_000_000)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write a run, or two runs compared, as one self-contained HTML page",
        description=(
            "Write RUN as one HTML page (graph with the run's heat, timeline, every step's inputs, outputs, "
            "state changes and budget, the conversation, diagnostics), or RUN and RUN_B side by side from "
            "their first divergence. The page needs no network: open it in any browser, attach it to a "
            "bug report or a CI job."
        ),
    )
    parser.add_argument("run_file", metavar="RUN", help="run file (JSONL from `inspector record`)")
    parser.add_argument("run_b", metavar="RUN_B", nargs="?", help="a second run to compare with RUN")
    parser.add_argument("-o", "--output", metavar="PAGE.html", required=True, help="page to write")
    parser.add_argument(
        "--steps", metavar="A..B", help="only steps A to B (both included; A.. or ..B), for a long run"
    )
    parser.add_argument(
        "--size-limit",
        type=_megabytes,
        default=None,
        metavar="MB",
        help="refuse a page larger than this (default 20 MB)",
    )
    parser.add_argument("--lenient", action="store_true", help="skip corrupt lines instead of failing")
    parser.set_defaults(handler=run)


def refuse_to_clobber(output: Path) -> None:
    """An existing file is overwritten only when it is a page this command wrote."""
    if not output.exists() or output.is_dir():
        return
    with output.open("rb") as existing:
        head = existing.read(4096)
    if f'<meta name="generator" content="{GENERATOR}">'.encode() not in head:
        raise ReportError(
            f"{output} exists and is not a page `inspector report` wrote: give another path, or delete "
            "the file first if it can go"
        )


def run(args: argparse.Namespace) -> int:
    from inspector.report import PAGE_SIZE_LIMIT, diff_page, parse_steps, run_page, write_page

    output = Path(args.output)
    refuse_to_clobber(output)
    if args.run_b is not None and args.steps is not None:
        raise ReportError("--steps narrows one run's page; a comparison page starts at the first divergence")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RunFileWarning)
        run_a = read_run(args.run_file, lenient=args.lenient)
        if args.run_b is not None:
            run_b = read_run(args.run_b, lenient=args.lenient)
            page, steps = diff_page(run_a, run_b), max(len(run_a.steps), len(run_b.steps))
        else:
            chosen = parse_steps(args.steps, len(run_a.steps)) if args.steps is not None else None
            page = run_page(run_a, steps=chosen)
            steps = len(chosen) if chosen is not None else len(run_a.steps)
    for warning in caught:
        print(f"inspector: warning: {warning.message}", file=sys.stderr)
    size = write_page(page, output, limit=args.size_limit or PAGE_SIZE_LIMIT, steps=steps)
    what = "comparison" if args.run_b is not None else "run"
    print(f"wrote the {what} page {output} ({size / 1000:.0f} kB); open it in a browser")
    return 0
