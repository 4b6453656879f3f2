"""The `inspector` command. Each subcommand lives in its own module with `register(subparsers)`.

Only this module turns errors into messages and exit codes: a user error (bad TARGET, bad run file, a
graph that fails to build) becomes one paragraph on stderr and status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import textwrap
from collections.abc import Sequence

from graph_core.errors import GraphError
from inspector.cli import (
    debug,
    demo,
    diff,
    export,
    fork,
    lint,
    receive,
    record,
    replay,
    report,
    runs,
    serve,
    show,
    topology,
)
from inspector.errors import InspectorError
from inspector.terminaltext import visible

__all__ = ["command", "main", "version"]

_COMMANDS = (
    topology,
    lint,
    record,
    show,
    replay,
    runs,
    demo,
    diff,
    debug,
    fork,
    report,
    serve,
    export,
    receive,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="inspector",
        description="See what a graph_core or LangGraph graph is, and what it did: its exact topology, "
        "recorded runs, a terminal replay debugger and a live debugger.",
        epilog="TARGET is `package.module:attr` or `path/to/file.py:attr`, naming a graph_core graph "
        "or agent, a LangGraph `StateGraph` (built or compiled), or a zero-argument factory returning "
        "one (see docs/langgraph.md). `topology -f svg/png` needs Graphviz's `dot` program "
        "(apt-get install graphviz, brew install graphviz).",
    )
    parser.add_argument("--version", action=_Version)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in _COMMANDS:
        command.register(subparsers)
    return parser


class _Version(argparse.Action):
    """`--version`, looked up when asked: importlib.metadata took every command ~15 ms to start."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **_: object) -> None:
        super().__init__(
            option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show the version and exit"
        )

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"inspector {version()}")
        parser.exit()


def version() -> str:
    """The installed distribution's version (pyproject's `version`), or `unknown` when the package runs
    from a checkout that was never installed."""
    import importlib.metadata

    try:
        return importlib.metadata.version("graph-inspector")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _paragraph(error: BaseException) -> str:
    # A message quotes what the user or a recording named (a path, a node key, an import's error):
    # escaped like any run data on a terminal (`terminaltext.visible`).
    text = visible(" ".join(str(error).split()))
    # Paths, identifiers and flags stay whole so they can be copied from the message.
    return textwrap.fill(
        f"inspector: error: {text}", width=100, break_on_hyphens=False, break_long_words=False
    )


def command() -> int:
    """The `inspector` command as a process runs it (`python -m inspector`, the installed script):
    `main` with the process's arguments, then its objects frozen for the exit.

    The interpreter's last act is a full collection of the cyclic garbage collector, which walks every
    object still alive: after `inspector show` on a 10,000-round run, some 70 ms spent finding nothing
    to free, since the process ends anyway. Frozen objects are left out of it (their memory is still
    released, and exit handlers still run). Only here, never in `main`, which tests and other
    programs call in a process that goes on."""
    code = main()
    gc.freeze()
    return code


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except BrokenPipeError:
        # The reader went away (`inspector show run.jsonl | head`): not an error worth a message.
        # Point stdout at devnull so the interpreter's final flush does not complain either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except (InspectorError, GraphError, OSError) as error:
        print(_paragraph(error), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
