"""`inspector replay RUN.jsonl [--follow] [--target TARGET]`: step through a recorded run in the terminal
debugger; `--target` names the code the `f` key forks with (see `inspector.trust`)."""

from __future__ import annotations

import argparse
import math
import sys
import warnings
from pathlib import Path
from typing import Any

from inspector.cli.plain import echo
from inspector.cli.terminal import require_terminal
from inspector.errors import InspectorError
from inspector.recording.reader import RunFileWarning
from inspector.sources.langgraph import add_thread_options, converting, run_source, shown

__all__ = ["register", "run"]


def _seconds(text: str) -> float:
    """A poll interval: 0 would re-read the file in a busy loop; negative or NaN means nothing."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text!r}")
    return value


def _position(text: str) -> str:
    """A step as the `g` prompt takes it (a position, negative from the end, or segment:step); checked
    against the run once it is read."""
    number = text.partition(":")[2] if ":" in text else text
    try:
        int(number)
        if ":" in text:
            int(text.partition(":")[0])
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a step number or segment:step: {text!r}") from None
    return text


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="step through a recorded run in the terminal debugger",
        description="Open RUN.jsonl in the replay debugger: graph, timeline, state, messages, budget. "
        "Keys: →/n next, ←/p previous, Home/End, g go to step, / search, b breakpoint, c continue, "
        "space play, d diff, ? help, q quit.",
    )
    parser.add_argument(
        "run_file", metavar="RUN.jsonl", help="a run file, or a folder of runs: a list to pick from"
    )
    parser.add_argument(
        "--follow",
        "-f",
        action="store_true",
        help="keep reading the file as a running process writes it (waits for a file not created yet)",
    )
    parser.add_argument(
        "--poll", type=_seconds, default=0.5, metavar="SECONDS", help="how often --follow checks the file"
    )
    parser.add_argument(
        "--step",
        type=_position,
        default=None,
        metavar="N",
        help="open at position N (0-based over the whole timeline; a resumed run continues the count; "
        "negative counts from the end, -1 is the last step; segment:step as `g` takes it)",
    )
    parser.add_argument("--lenient", action="store_true", help="skip corrupt lines instead of failing")
    parser.add_argument(
        "--target",
        metavar="TARGET",
        help="the TARGET `f` forks with (default: the one the run names, run only if you recorded the "
        "run here or agree when asked)",
    )
    add_thread_options(parser, target=False)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from inspector.sources import run_file_path
    from inspector.tui import make_app  # Textual loads only for the commands that draw

    if args.follow and Path(args.run_file).is_dir():  # without --follow the reader says the same
        raise InspectorError(f"{args.run_file}: is a directory, not a run file")
    from inspector.catalog.catalog import holds_many

    if args.thread is None and holds_many(args.run_file):  # a folder, checkpointer, trace file of runs:
        from inspector.catalog import default_index_path  # the run browser (inspector.tui.run_browser)
        from inspector.tui.run_browser import browse

        browse([args.run_file], index=default_index_path())
        return 0

    if args.target:  # a typo or a standard-library module is said now, not at the first `f`
        from inspector.target import locate_target

        locate_target(args.target)
    source = run_source(
        args.run_file,
        args.thread,
        target=args.target,
        branch=args.branch,
        checkpoint=args.checkpoint,
        behind=not args.follow,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RunFileWarning)
        app = make_app(
            str(run_file_path(source)),
            follow=args.follow or converting(Path(source)),  # a thread's run file still being written
            poll_interval=args.poll,
            lenient=args.lenient,
            fork_target=args.target,
        )
    if args.step is not None:
        app.open_at(args.step)
    for warning in caught:  # said before the screen takes over, as `show` says them
        echo(f"inspector: warning: {warning.message}", file=sys.stderr)
    require_terminal("replay", f"inspector show {shown(args.run_file)}")  # after the file's own checks
    with warnings.catch_warnings():  # a followed file's skipped lines would otherwise garble the screen
        warnings.simplefilter("ignore", RunFileWarning)
        app.run()
    error = getattr(app, "run_file_error", None)  # (None from an app a test put in its place)
    if error is not None:  # corrupt where the app read it: said as `show` says it
        raise error
    return 0
