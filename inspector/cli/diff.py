"""`inspector diff RUN_A RUN_B [--json]`: compare two recorded runs step by step, to gate CI.

Exit status 0 when the runs are equivalent (same topology, same steps, state, budgets, status and
output; times and run IDs ignored), 1 when they differ, 2 when a file cannot be read (the CLI frame turns
the `RunFileError` into one paragraph on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from typing import Any

from inspector.cli.console import write_json, write_text
from inspector.cli.plain import echo
from inspector.recording.reader import RunFileWarning
from inspector.sources import open_run
from inspector.sources.langgraph import add_thread_options, run_sources


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "diff",
        help="compare two recorded runs step by step (exit 0 same, 1 different, 2 bad input)",
        description=(
            "Align two run files step by step and report the first divergence (nodes, branch decisions, "
            "tool calls), state differences at aligned steps and budget deltas. RUN_A is the reference."
        ),
    )
    parser.add_argument("run_a", metavar="RUN_A", help="reference run file (JSONL from `inspector record`)")
    parser.add_argument("run_b", metavar="RUN_B", help="run file to compare with it")
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")
    add_thread_options(parser, target=False, repeat=True)
    parser.add_argument("--lenient", action="store_true", help="skip corrupt lines instead of failing")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from inspector.rundiff import diff_runs  # loaded only for this command

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RunFileWarning)
        path_a, path_b = run_sources(
            [args.run_a, args.run_b], args.thread, branches=args.branch, checkpoints=args.checkpoint
        )
        run_a = open_run(path_a, lenient=args.lenient)
        run_b = open_run(path_b, lenient=args.lenient)
        diff = diff_runs(run_a, run_b)  # a large file's steps are checked as they are read
    for warning in caught:
        echo(f"inspector: warning: {warning.message}", file=sys.stderr)
    if args.json:
        write_json(json.dumps(diff.to_dict(), ensure_ascii=False, indent=2, sort_keys=True) + "\n")
    else:
        write_text(diff.to_text())
    return 0 if diff.equivalent else 1
