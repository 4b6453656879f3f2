"""`inspector lint TARGET`: static checks of a graph; exit status 1 when a finding is an error."""

from __future__ import annotations

import argparse
from typing import Any

from inspector.cli.plain import echo
from inspector.errors import InspectorError
from inspector.lint_codes import CODES


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "lint",
        help="check a graph: unreachable nodes, dead ends, unused branch targets, cycles, step budget",
        description="Check the topology of TARGET (`package.module:attr` or `path/to/file.py:attr`, naming "
        "a graph, an agent or a zero-argument factory returning one). Exit status 1 when any finding is "
        "an error.",
    )
    parser.add_argument(
        "target",
        metavar="TARGET",
        help="`package.module:attr` or `path/to/file.py:attr` (imported: its top-level code runs)",
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="print only errors and warnings")
    parser.add_argument(
        "--ignore",
        metavar="CODE",
        action="append",
        default=[],
        help="leave out findings with this code (repeat, or separate with commas): "
        + ", ".join(sorted(CODES)),
    )
    parser.set_defaults(handler=run)


def _codes(values: list[str]) -> list[str]:
    codes = [code.strip() for value in values for code in value.split(",") if code.strip()]
    unknown = sorted(set(codes) - CODES.keys())
    if unknown:
        raise InspectorError(
            f"--ignore {', '.join(unknown)}: no such lint code; the codes are {', '.join(sorted(CODES))}"
        )
    return codes


def run(args: argparse.Namespace) -> int:
    from inspector.lint import has_errors, lint_report  # networkx loads only for this command
    from inspector.target import load_target

    ignore = _codes(args.ignore)
    target = load_target(args.target)
    report = lint_report(target.runnable, ignore=ignore)
    findings = report.findings
    shown = [f for f in findings if not (args.quiet and f.severity == "info")]
    for finding in shown:
        echo(str(finding))
    counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")}
    summary = f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info"
    if report.silenced:
        hidden = ", ".join(f"{code} ×{n}" for code, n in report.silenced.items())
        summary += f" ({sum(report.silenced.values())} silenced: {hidden})"
    echo(summary)
    return 1 if has_errors(findings) else 0
