"""`inspector record TARGET (--input TEXT | --input-json JSON) -o RUN.jsonl`: run TARGET with a Recorder.

A run that fails (a runaway agent, a failing tool) is still a good recording: the command reports the
outcome on stderr and exits 0; only problems with the command itself (bad TARGET, bad input, an
unwritable output) are user errors with exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from graph_core.errors import GraphError
from graph_core.schema import Message
from inspector.errors import InspectorError
from inspector.recording import Recorder, read_run
from inspector.target import LoadedTarget, load_target

__all__ = ["make_input", "register", "run"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "record",
        help="run a graph or agent and record every step to a run file",
        description="Run TARGET (`package.module:attr` or `path/to/file.py:attr`) with a Recorder. For an "
        "agent, --input becomes one user message; a graph gets the string as its input.",
    )
    parser.add_argument("target", metavar="TARGET")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--input", metavar="TEXT", help="input text (an agent gets one user message)")
    source.add_argument(
        "--input-json",
        metavar="JSON",
        help='input as JSON (for an agent: a list of messages like [{"role": "user", "content": ...}])',
    )
    parser.add_argument("-o", "--output", metavar="RUN.jsonl", required=True, help="run file to write")
    parser.add_argument("--stream", action="store_true", help="run in stream mode instead of invoke mode")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    parser.set_defaults(handler=run)


def make_input(target: LoadedTarget, text: str | None, raw_json: str | None) -> Any:
    """The value to run TARGET with, from --input or --input-json."""
    if raw_json is None:
        return [Message.user(text or "")] if target.is_agent else text
    try:
        value = json.loads(raw_json)
    except ValueError as exc:
        raise InspectorError(f"--input-json is not valid JSON: {exc}") from None
    if target.is_agent:
        if isinstance(value, str):
            return [Message.user(value)]
        items: list[Any] = value if isinstance(value, list) else [value]  # pyright: ignore[reportUnknownVariableType]
        try:
            return [Message.model_validate(item) for item in items]
        except ValueError as exc:
            raise InspectorError(
                f'--input-json for an agent must be a list of messages ({{"role": ..., "content": ...}}): '
                f"{exc}"
            ) from None
    return value


def _progress(event: dict[str, Any]) -> None:
    budget = event["budget"]
    limit = budget.get("steps_max")
    used = f"{budget['steps_used']}/{limit}" if limit is not None else str(budget["steps_used"])
    extra = f", {budget['model_calls']} model calls, {budget['tool_calls']} tool calls"
    if budget.get("total_tokens") is not None:
        extra += f", {budget['total_tokens']} tokens"
    nodes = ", ".join(event["nodes"])
    print(f"step {event['index']}: {nodes}  (steps {used}{extra})", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    target = load_target(args.target)
    value = make_input(target, args.input, args.input_json)
    output = Path(args.output)
    recorder = Recorder(
        output,
        topology=target.topology(),
        progress=None if args.quiet else _progress,
        meta={"target": args.target, "mode": "stream" if args.stream else "invoke"},
    )
    failure: BaseException | None = None
    try:
        if args.stream:
            for _ in target.runnable.stream(value, callbacks=[recorder]):
                pass
        else:
            target.runnable.invoke(value, callbacks=[recorder])
    except (GraphError, Exception) as exc:  # the run's own failure is part of the recording
        failure = exc
    finally:
        recorder.close()
    if recorder.fault is not None:
        raise InspectorError(f"could not write the run file {output}: {recorder.fault}")
    recorded = read_run(output)
    summary = f"recorded {len(recorded.steps)} steps to {output} (status {recorded.status})"
    if failure is not None:
        first = str(failure).splitlines()[0] if str(failure) else type(failure).__name__
        summary += f"; the run failed: {type(failure).__name__}: {first}"
    print(summary, file=sys.stderr)
    return 0
