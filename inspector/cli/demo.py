"""`inspector demo`: record a bundled example agent on its scripted model, then open the debugger.

No arguments and no network needed. The demo records first (a `Recorder` on the agent's run, to a
temporary file unless `-o` says where) and then opens the replay app on that file; the app itself
never runs the engine. `--headless` does the same without a terminal: it records, loads the replay,
mounts the app off-screen and walks it from first to last step, prints a short summary and exits 0.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
from pathlib import Path
from typing import Any

from graph_core.schema import Message
from inspector.cli.record import check_output
from inspector.cli.terminal import require_terminal
from inspector.errors import InspectorError

__all__ = ["AGENTS", "CHECKPOINT_ID", "opening_position", "record_demo", "register", "run", "summary"]

AGENTS = ("weather", "runaway", "report", "parallel", "adk", "interrupt")
"""What the demo can record: fixture modules (`fixtures.<name>`, each with `build_agent()` and
`QUESTION`), and `interrupt`: the weather agent stopped before its tools run, then resumed into the
same file (two segments)."""

CHECKPOINT_ID = "demo-checkpoint"
"""The checkpoint the `interrupt` demo stops at and resumes from."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="record the bundled weather agent and open it in the replay debugger",
        description="Record a bundled example agent (scripted model, no network) and open the run in "
        "the replay debugger.",
    )
    parser.add_argument("--agent", choices=AGENTS, default="weather", help="which example (default weather)")
    parser.add_argument("-o", "--output", metavar="RUN.jsonl", help="where to keep the recording")
    parser.add_argument(
        "--headless", action="store_true", help="no terminal: record, replay off-screen, print a summary"
    )
    parser.set_defaults(handler=run)


def record_demo(path: Path, agent: str = "weather") -> Path:
    """Record the fixture agent `agent` to `path` (its failure, if any, is part of the recording)."""
    from inspector.recording.recorder import Recorder  # (imported when a demo records)

    if agent not in AGENTS:
        raise InspectorError(f"unknown demo agent `{agent}`; choose one of {', '.join(AGENTS)}")
    if agent == "interrupt":
        return _record_interrupt(path)
    module = importlib.import_module(f"fixtures.{agent}")
    runnable = module.build_agent()
    recorder = Recorder(path, topology=runnable.compiled.topology(), meta={"demo": agent})
    try:
        runnable.invoke([Message.user(module.QUESTION)], callbacks=[recorder])
    except Exception:  # a runaway demo fails by design; the recording shows how
        pass
    finally:
        recorder.close()
    if recorder.fault is not None:
        raise InspectorError(f"could not write the demo recording {path}: {recorder.fault}")
    return path


def _record_interrupt(path: Path) -> Path:
    """The weather agent compiled with `interrupt_before=["tools"]`: the run stops there with a
    checkpoint, then resumes from it and finishes, recorded into the same file as a second segment
    (`Recorder.resume`), so the debugger shows the pause and the resume on one timeline."""
    from graph_core.checkpoint import InMemoryCheckpointStore
    from graph_core.errors import InterruptError
    from inspector.recording.recorder import Recorder  # (imported when a demo records)

    weather = importlib.import_module("fixtures.weather")
    compiled = weather.build_agent().graph.compile(
        name="ReActAgent", interrupt_before=["tools"], checkpoint_store=InMemoryCheckpointStore()
    )
    options: dict[str, Any] = {"topology": compiled.topology(), "meta": {"demo": "interrupt"}}
    first = Recorder(path, **options)
    try:
        compiled.invoke([Message.user(weather.QUESTION)], checkpoint_id=CHECKPOINT_ID, callbacks=[first])
    except InterruptError:
        pass
    finally:
        first.close()
    if first.fault is not None:
        raise InspectorError(f"could not write the demo recording {path}: {first.fault}")
    resumed = Recorder.resume(path, checkpoint_id=CHECKPOINT_ID, **options)
    try:
        compiled.invoke(None, checkpoint_id=CHECKPOINT_ID, callbacks=[resumed])
    finally:
        resumed.close()
    if resumed.fault is not None:
        raise InspectorError(f"could not record the resumed demo run into {path}: {resumed.fault}")
    return path


def opening_position(session: Any) -> int | None:
    """Where the app opens: for a run resumed into its file, at the step the first run paused at (the
    demo is about the pause and the resume); otherwise where the app would open anyway (`None`)."""
    segments = session.run.segments
    if len(segments) > 1 and segments[0].stop > segments[0].start:
        return segments[0].stop - 1
    return None


def summary(session: Any) -> str:
    """A few lines about a recorded run: status, steps, nodes visited, diagnostics."""
    run = session.run
    visits = session.path_at(len(session) - 1).visits if len(session) else {}
    lines = [
        f"run file     {run.path}",
        f"graph        {run.graph_name}",
        f"status       {run.status}",
        f"steps        {len(run.steps)}",
        "nodes        " + (", ".join(f"{node} ×{count}" for node, count in visits.items()) or "–"),
    ]
    if run.error is not None:
        lines.append(f"error        {run.error.type}: {run.error.message}")
    diagnostics = session.diagnostics or []
    if len(run.segments) > 1:
        lines.extend(_segment_line(segment) for segment in run.segments)
    lines.append(f"diagnostics  {len(diagnostics)}")
    lines.extend(f"  {d.severity}: {d.code}: {d.message}" for d in diagnostics)
    return "\n".join(lines)


def _segment_line(segment: Any) -> str:
    """`segment 1    positions 1–2, resumed from demo-checkpoint, ok`: places in the one timeline, the
    numbers `g` and `--step` take (each segment's own step numbers restart at 0)."""
    first, last = segment.start, segment.stop - 1
    steps = (
        "no steps" if last < first else f"position {first}" if last == first else f"positions {first}–{last}"
    )
    how = segment.status
    if segment.status == "interrupted" and segment.interrupt is not None and segment.interrupt.checkpoint_id:
        how += f" (checkpoint {segment.interrupt.checkpoint_id})"
    resumed = f", resumed from {segment.resumed_from}" if segment.resumed_from is not None else ""
    return f"{f'segment {segment.index}':<13}{steps}{resumed}, {how}"


def _walk(app: Any) -> Any:
    """Visit every step in both state views, then the keys' own path once, then leave."""

    async def pilot_script(pilot: Any) -> None:
        await pilot.pause()
        for diff in (False, True):
            app.diff_mode = diff
            for position in range(len(app.session)):
                app.go(position)
        await pilot.press("home", "n", "end")
        app.exit()

    return pilot_script


def run(args: argparse.Namespace) -> int:
    """Record and show the demo; without `-o` the recording lives in a temporary folder that is removed
    when the demo ends (a folder left per run filled the temp directory)."""
    if not args.headless:
        require_terminal("demo", "inspector demo --headless")
    if args.output:
        path = Path(args.output)
        check_output(path, resume=False)  # refused before the run, as `inspector record -o` does
        return _show(path, args, kept=True)
    with tempfile.TemporaryDirectory(prefix="inspector-demo-") as folder:
        return _show(Path(folder) / f"{args.agent}.jsonl", args, kept=False)


def _show(path: Path, args: argparse.Namespace, *, kept: bool) -> int:
    from inspector.tui import Session, make_app  # Textual loads only for the commands that draw

    record_demo(path, args.agent)
    session = Session.open(path)
    app = make_app(session, start=opening_position(session))
    if args.headless:
        app.run(headless=True, size=(120, 40), auto_pilot=_walk(app))
        if app.return_code not in (None, 0):
            raise InspectorError(f"the replay app failed off-screen (exit status {app.return_code})")
        print(summary(session))
        if not kept:
            print("(a temporary recording, removed on exit: `-o RUN.jsonl` keeps it)")
        return 0
    where = str(path) if kept else f"{path} (removed on exit: `-o RUN.jsonl` keeps it)"
    print(f"recorded the {args.agent} demo to {where}", file=sys.stderr)
    app.run()
    return 0
