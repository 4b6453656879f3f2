"""`inspector lint TARGET`: static checks of a graph; exit status 1 when a finding is an error."""

from __future__ import annotations

import argparse
from typing import Any

from inspector.lint import has_errors, lint
from inspector.target import load_target


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "lint",
        help="check a graph: unreachable nodes, dead ends, unused branch targets, cycles, step budget",
        description="Check the topology of TARGET. Exit status 1 when any finding is an error.",
    )
    parser.add_argument("target", metavar="TARGET")
    parser.add_argument("--quiet", "-q", action="store_true", help="print only errors and warnings")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    target = load_target(args.target)
    findings = lint(target.runnable)
    shown = [f for f in findings if not (args.quiet and f.severity == "info")]
    for finding in shown:
        print(finding)
    counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")}
    print(f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info")
    return 1 if has_errors(findings) else 0
