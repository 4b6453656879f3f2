"""`inspector debug TARGET (--input TEXT | --input-json JSON) [-o RUN.jsonl] [--break NODE ...]`.

Runs TARGET under the debugger (`inspector.debug.DebugController`) and opens the debug TUI on it. The
run is recorded as it goes, in the ordinary run-file format: to -o, or to a new file in the temp
directory named with the time and a random part (printed), so two sessions never write one file.
A recording that stops partway (the disk fills) is an error after the app closes (exit 2, the
partial file removed). Breakpoints and conditions are checked
before anything runs: an unknown node lists the graph's nodes, a condition that does not parse names
the column, both with exit status 2.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.cli.plain import echo
from inspector.cli.record import add_otlp_option, check_output, created_text, input_hint, make_input
from inspector.cli.terminal import require_terminal
from inspector.errors import InspectorError
from inspector.recording import read_run
from inspector.recording.sink import fault_error, refuse_busy
from inspector.target import load_target

if TYPE_CHECKING:
    from inspector.debug import DebugController

__all__ = ["register", "run", "split_breaks"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "debug",
        help="run a graph or agent under the debugger: breakpoints, step, edit the state, abort",
        description="Run TARGET live in the terminal debugger. Without --break or --when it holds "
        "before step 0. Keys: s step, c continue, a abort, e edit, b/B breakpoint, w condition, "
        "r resume an interrupt, q quit (aborts a held run). See docs/debugging.md.",
    )
    parser.add_argument("target", metavar="TARGET", nargs="?")  # may follow `--break A B` (see `_target`)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--input", metavar="TEXT", help="input text (an agent gets one user message)")
    source.add_argument(
        "--input-json", metavar="JSON", help="input as JSON (for an agent: a list of messages)"
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="RUN.jsonl",
        help="run file to write (default: a file in the temp directory)",
    )
    parser.add_argument(
        "--break",
        dest="breaks",
        action="extend",
        nargs="+",
        default=[],
        metavar="NODE",
        help="hold the run before each step that runs NODE; repeat it (--break chat --break tools) or "
        "give several, after TARGET or comma-separated (--break chat,tools)",
    )
    parser.add_argument(
        "--when",
        action="append",
        default=[],
        metavar="CONDITION",
        help='hold the run where CONDITION holds, e.g. "len(messages) > 6" (at every boundary from '
        'then on) or "calls(get_weather)" (before each step that runs a get_weather call, once per '
        "round); see docs/debugging.md",
    )
    parser.add_argument("--stream", action="store_true", help="run in stream mode (model chunks shown live)")
    parser.add_argument(
        "--async",
        dest="use_async",
        action="store_true",
        help="run on an event loop (ainvoke; with --stream, astream)",
    )
    add_otlp_option(parser)
    parser.set_defaults(handler=run)


def split_breaks(target: str | None, values: list[str]) -> tuple[str, list[str]]:
    """TARGET and the breakpoint nodes, from the positional and the `--break` values.

    `--break` takes several values (the contract's `--break NODE ...`), so `--break tools TARGET` hands
    TARGET to it: a value that names a module attribute (`module:attr`, `file.py:attr`; node keys have
    no colon in practice) is taken back as TARGET when none was given. Values split on commas.
    """
    nodes = [node.strip() for value in values for node in value.split(",") if node.strip()]
    if target is None:
        named = [node for node in nodes if ":" in node]
        if len(named) != 1:
            raise InspectorError(
                "TARGET is required: `inspector debug TARGET --input TEXT [--break NODE ...]`, as in "
                "`inspector debug fixtures.weather:agent --input hi --break tools`"
            )
        target = named[0]
        nodes.remove(target)
    return target, nodes


def run(args: argparse.Namespace) -> int:
    spec, breaks = split_breaks(args.target, args.breaks)
    target = load_target(spec)
    value = make_input(target, args.input, args.input_json)
    output = Path(args.output) if args.output else default_output()
    try:
        controller = _controller(args, spec, breaks, target, value, output)
        require_terminal("debug", f"inspector record {spec} ...")  # after the checks above
    except BaseException:
        if not args.output:  # a refused debug run leaves nothing behind
            output.unlink(missing_ok=True)
        raise
    created: Path | None = None
    if not args.output:
        echo(f"inspector: recording the debug run to {output}", file=sys.stderr)
    else:
        created = check_output(output, resume=False)  # after the checks above: a refused run writes nothing
        # the app follows this file: no earlier recording may show meanwhile, nor one being written
        refuse_busy(output, empty=True)
    from inspector.tui.debug_app import make_debug_app  # Textual loads only for the commands that draw

    live = _live_export(args.otlp, output)
    app = make_debug_app(controller)
    app.run()
    if controller.status != "finished":
        controller.abort()  # a held run ends now, a running one at its next step boundary
    controller.join(60)
    otlp_warning = live() if live is not None else None
    recorder = controller.recorder
    if recorder is not None and recorder.fault is not None:
        raise fault_error(output, recorder.fault, removed=_remove(output))
    error = getattr(app, "run_file_error", None)  # (None from an app a test put in its place)
    if error is not None:  # the recording could not be read back where the app read it
        raise error
    try:
        recorded = read_run(output)
    except InspectorError:
        echo(f"inspector: nothing was recorded to {output}", file=sys.stderr)
        return 0
    steps, edits = len(recorded.steps), len(controller.edits)
    status = recorded.status if controller.outcome != "aborted" else f"{recorded.status}, aborted"
    echo(
        f"recorded {steps} step{'' if steps == 1 else 's'} to {output} (status {status}; "
        f"{edits} edit{'' if edits == 1 else 's'}){created_text(created)}"
        f"{input_hint(target, args.input) if controller.outcome == 'error' else ''}",
        file=sys.stderr,
    )
    if otlp_warning:
        print(f"inspector: warning: {otlp_warning}", file=sys.stderr)
    return 0


def _live_export(url: str | None, output: Path) -> Callable[[], str | None] | None:
    """With `--otlp`: the debugged run's spans sent step by step as its file is written (with its
    edits and resumed segments), from an export child process; returns what stops it and gives the
    one warning line, if any."""
    if url is None:
        return None
    from inspector.otel.child_process import ExportChild
    from inspector.otel.child_protocol import FINISH_MARGIN, ChildSettings, export_timeout, sdk_disabled

    if sdk_disabled():
        return None
    timeout = export_timeout()
    settings = ChildSettings(
        path=str(output.resolve()),
        url=url or None,
        timeout=timeout,
        finish=timeout + FINISH_MARGIN,
        parent=os.getpid(),
    )
    live = ExportChild(settings)
    live.follow()  # a new file: every segment written from now on is this session's
    return live.finish


def _controller(
    args: argparse.Namespace, spec: str, breaks: list[str], target: Any, value: Any, output: Path
) -> DebugController:
    """The debug controller for the command's options (breakpoints and conditions checked here)."""
    from inspector.debug import DebugController
    from inspector.debug.controller import RunMode

    modes: dict[tuple[bool, bool], RunMode] = {
        (False, False): "invoke",
        (True, False): "stream",
        (False, True): "ainvoke",
        (True, True): "astream",
    }
    mode = modes[(args.stream, args.use_async)]
    return DebugController(
        target.runnable,
        value,
        output=output,
        topology=target.topology(),
        compiled=target.compiled,
        mode=mode,
        breakpoints=breaks,
        conditions=args.when,
        stop_at_start=not breaks and not args.when,
        meta={"target": spec, "mode": mode},
        recorder_options={"report_faults": False},  # not over the app: said after it, once
    )


def default_output(*, now: float | None = None) -> Path:
    """A new file in the temp directory for a debug run without -o, named with the time and a random
    part (`inspector-debug-20261207-135731-k3j9x2ab.jsonl`): two sessions never share one. Created
    here, empty and private to the user (a recording may hold what the run saw)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    fd, name = tempfile.mkstemp(prefix=f"inspector-debug-{stamp}-", suffix=".jsonl")
    os.close(fd)
    return Path(name)


def _remove(output: Path) -> bool:
    """Remove a debug run's partial file after its recorder faulted (the session made it: every
    segment in it is this run's); False when it could not be."""
    try:
        output.unlink(missing_ok=True)
    except OSError:
        return False
    return True
