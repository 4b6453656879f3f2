"""`inspector fork RUN.jsonl --step N -o FORK.jsonl [--set PATH=JSON ...] [--model-answer JSON]`.

Runs on from step N of a recording (see `inspector.debug.fork` for exactly what that means). Every
check (the step, the target and its topology, the paths and values, the rebuilt state) happens before
the fork file appears: a refused fork exits with status 2 and writes nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from inspector.cli.record import refuse_to_clobber
from inspector.errors import InspectorError
from inspector.recording.sink import refuse_busy

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "fork",
        help="run on from step N of a recording, with edits or another model answer",
        description="Rebuild the run of RUN.jsonl at the boundary before step N (steps before N replayed "
        "from the recording: no model or tool calls), apply --set edits, and run on from step N with the "
        "target's own model, or with --model-answer as the next model response. See docs/debugging.md.",
    )
    parser.add_argument("run_file", metavar="RUN.jsonl")
    parser.add_argument(
        "--step",
        type=int,
        required=True,
        metavar="N",
        help="the step that re-runs (0-based; -1 is the last step)",
    )
    parser.add_argument("-o", "--output", metavar="FORK.jsonl", required=True, help="run file to write")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="PATH=JSON",
        help='change the run before step N, e.g. state.messages[0].content="hi" (repeatable)',
    )
    parser.add_argument(
        "--model-answer",
        metavar="JSON",
        help='the next model response, an assistant message: {"role": "assistant", "content": "..."}',
    )
    parser.add_argument("--target", metavar="TARGET", help="TARGET, when the run header does not name it")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from inspector.debug.fork import parse_model_answer, parse_sets, plan_fork, run_fork

    output = Path(args.output)
    if output.is_dir():
        raise InspectorError(f"-o {output} is a directory: give a file path such as {output / 'fork.jsonl'}")
    if Path(args.run_file).resolve() == output.resolve():
        raise InspectorError(f"-o {output} is the run being forked: give the fork its own file")
    refuse_to_clobber(output)
    if not output.parent.is_dir():
        raise InspectorError(f"-o {output}: the directory {output.parent} does not exist")
    refuse_busy(output)  # another recording being written there: refused before anything is loaded
    sets = parse_sets(args.set)
    answer = None if args.model_answer is None else parse_model_answer(args.model_answer)
    plan = plan_fork(args.run_file, args.step, target=args.target, sets=sets, model_answer=answer)
    result = run_fork(plan, output)
    n = result.steps
    summary = (
        f"forked {args.run_file} at step {plan.step}: recorded {n} step{'' if n == 1 else 's'} to {output} "
        f"(status {result.status}"
    )
    own = len(result.edits) - result.replayed_edits
    if own:
        summary += f", {own} edit{'' if own == 1 else 's'}"
    if result.replayed_edits:
        summary += (
            f", {result.replayed_edits} recorded edit{'' if result.replayed_edits == 1 else 's'} replayed"
        )
    summary += f"); compare with `inspector diff {args.run_file} {output}`"
    print(summary, file=sys.stderr)
    return 0
