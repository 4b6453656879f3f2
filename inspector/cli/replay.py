"""`inspector replay RUN.jsonl [--follow]`: step through a recorded run in the terminal debugger."""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any

from inspector.recording.reader import RunFileWarning

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="step through a recorded run in the terminal debugger",
        description="Open RUN.jsonl in the replay debugger: graph, timeline, state, messages, budget. "
        "Keys: →/n next, ←/p previous, Home/End, g go to step, / search, b breakpoint, c continue, "
        "space play, d diff, ? help, q quit.",
    )
    parser.add_argument("run_file", metavar="RUN.jsonl")
    parser.add_argument(
        "--follow",
        "-f",
        action="store_true",
        help="keep reading the file as a running process writes it (waits for a file not created yet)",
    )
    parser.add_argument(
        "--poll", type=float, default=0.5, metavar="SECONDS", help="how often --follow checks the file"
    )
    parser.add_argument(
        "--step",
        type=int,
        default=None,
        metavar="N",
        help="open at position N (0-based over the whole timeline; a resumed run continues the count)",
    )
    parser.add_argument("--lenient", action="store_true", help="skip corrupt lines instead of failing")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from inspector.tui import make_app  # Textual loads only for the commands that draw

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RunFileWarning)
        app = make_app(
            args.run_file, follow=args.follow, poll_interval=args.poll, start=args.step, lenient=args.lenient
        )
    for warning in caught:  # said before the screen takes over, as `show` says them
        print(f"inspector: warning: {warning.message}", file=sys.stderr)
    with warnings.catch_warnings():  # a followed file's skipped lines would otherwise garble the screen
        warnings.simplefilter("ignore", RunFileWarning)
        app.run()
    return 0
