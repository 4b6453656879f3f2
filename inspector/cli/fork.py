"""`inspector fork RUN.jsonl --step N -o FORK.jsonl [--set PATH=JSON ...] [--model-answer JSON]`.

Runs on from step N of a recording (see `inspector.debug.fork` for exactly what that means). Every
check (the step, the target and its topology, the paths and values, the rebuilt state) happens before
the fork file appears: a refused fork exits with status 2 and writes nothing.

Without `--target`, the TARGET the recording names is imported only with the user's consent
(`inspector.trust`): a run this user recorded here forks at once; otherwise, when stdin is a terminal,
the target and the file it resolves to are shown and the user is asked (y/N); when it is not, the
fork is refused with the exact command that names the target with `--target`.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import textwrap
from pathlib import Path
from typing import Any, TextIO

from inspector.cli.plain import echo
from inspector.cli.record import refuse_to_clobber
from inspector.errors import InspectorError, TargetConsentError
from inspector.recording.sink import refuse_busy
from inspector.target import TargetSource
from inspector.terminaltext import visible

__all__ = ["ask_on_terminal", "register", "run"]


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
    parser.add_argument(
        "--target",
        metavar="TARGET",
        help="the TARGET to run (default: the one the run names, if you recorded that run here or agree "
        "when asked)",
    )
    from inspector.sources.langgraph import add_thread_options

    add_thread_options(parser, target=False)
    parser.set_defaults(handler=run)


def _open_thread(args: argparse.Namespace) -> str:
    """The run file to fork: RUN itself, or the thread of the LangGraph checkpointer RUN names (which
    records no TARGET, so --target is needed, and gives the thread its topology)."""
    from inspector.sources.langgraph import is_checkpointer, run_source, shown

    if is_checkpointer(args.run_file) and args.thread is not None and args.target is None:
        raise InspectorError(
            f"{shown(args.run_file)} --thread {args.thread}: a checkpointer's thread names no TARGET to run "
            "on from; pass the graph's with --target module:attr"
        )
    return run_source(
        args.run_file, args.thread, target=args.target, branch=args.branch, checkpoint=args.checkpoint
    )


def _source_words(args: argparse.Namespace) -> str:
    """The forked run as `diff` takes it back: the file, or the checkpointer with its thread options
    (password hidden)."""
    from inspector.sources.langgraph import shown

    words = [shown(args.run_file)]
    for flag, value in (
        ("--thread", args.thread),
        ("--branch", args.branch),
        ("--checkpoint", args.checkpoint),
    ):
        if value is not None:
            words += [flag, str(value)]
    return " ".join(words)


def run(args: argparse.Namespace) -> int:
    from inspector.debug.fork import parse_model_answer, parse_sets, plan_fork, run_fork
    from inspector.sources.langgraph import shown

    output = Path(args.output)
    if output.is_dir():
        raise InspectorError(f"-o {output} is a directory: give a file path such as {output / 'fork.jsonl'}")
    run_file = _open_thread(args)
    if Path(run_file).resolve() == output.resolve():
        raise InspectorError(f"-o {output} is the run being forked: give the fork its own file")
    refuse_to_clobber(output)
    if not output.parent.is_dir():
        raise InspectorError(f"-o {output}: the directory {output.parent} does not exist")
    refuse_busy(output)  # another recording being written there: refused before anything is loaded
    sets = parse_sets(args.set)
    answer = None if args.model_answer is None else parse_model_answer(args.model_answer)
    if args.target is None:
        from inspector.trust import read_trust_list

        note = read_trust_list().note
        if note:  # a corrupt list only brings the question back; said, so the user knows why
            print(f"inspector: note: {visible(note)}", file=sys.stderr)
    try:
        plan = plan_fork(
            run_file,
            args.step,
            target=args.target,
            sets=sets,
            model_answer=answer,
            confirm=lambda source: ask_on_terminal(source, run_file),
        )
    except TargetConsentError as exc:
        # The command on a line of its own, unwrapped: a line break inside it would break it in a shell.
        text = " ".join(f"inspector: error: {exc}. If you trust that code, run:".split())
        print(textwrap.fill(text, width=100, break_on_hyphens=False, break_long_words=False), file=sys.stderr)
        print(f"  {_with_target(args, exc.spec)}", file=sys.stderr)
        return 2
    result = run_fork(plan, output)
    n = result.steps
    summary = (
        f"forked {shown(args.run_file)} at step {plan.step}: recorded {n} step{'' if n == 1 else 's'} to "
        f"{output} (status {result.status}"
    )
    own = len(result.edits) - result.replayed_edits
    if own:
        summary += f", {own} edit{'' if own == 1 else 's'}"
    if result.replayed_edits:
        summary += (
            f", {result.replayed_edits} recorded edit{'' if result.replayed_edits == 1 else 's'} replayed"
        )
    summary += f"); compare with `inspector diff {_source_words(args)} {output}`"
    echo(summary, file=sys.stderr)
    return 0


def ask_on_terminal(
    source: TargetSource, run_file: str, *, stdin: TextIO | None = None, stderr: TextIO | None = None
) -> bool:
    """Show the recorded TARGET and what it resolves to, and ask y/N; False at once when stdin is not a
    terminal (a script or CI never waits for an answer, and never runs the code)."""
    from inspector.trust import describe_source

    stdin = sys.stdin if stdin is None else stdin
    stderr = sys.stderr if stderr is None else stderr
    if stdin is None or not stdin.isatty():  # no stdin at all (pythonw, a closed descriptor)
        return False
    print(
        f"inspector: {visible(run_file)} names the TARGET `{visible(source.spec)}`, "
        f"{visible(describe_source(source))}.\n"
        "You did not record this run here. Forking imports that code and runs it.",
        file=stderr,
    )
    print("Run it? [y/N] ", end="", file=stderr, flush=True)
    try:
        answer = stdin.readline()
    except (OSError, EOFError):
        return False
    return answer.strip().lower() in ("y", "yes")


def _with_target(args: argparse.Namespace, spec: str) -> str:
    """The command the user ran, as a shell would take it, with `--target SPEC` added."""
    words = ["inspector", "fork", args.run_file, "--step", str(args.step), "-o", args.output]
    for item in args.set:
        words += ["--set", item]
    if args.model_answer is not None:
        words += ["--model-answer", args.model_answer]
    return visible(shlex.join([*words, "--target", spec]))
