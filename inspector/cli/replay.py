"""`inspector replay RUN.jsonl [--follow]`: step through a recorded run in the terminal debugger."""

from __future__ import annotations

import argparse
from typing import Any

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
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from inspector.tui import make_app  # Textual loads only for the commands that draw

    app = make_app(args.run_file, follow=args.follow, poll_interval=args.poll, start=args.step)
    app.run()
    return 0
