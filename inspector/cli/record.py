"""`inspector record TARGET (--input TEXT | --input-json JSON) -o RUN.jsonl`: run TARGET with a Recorder.

A run that fails (a runaway agent, a failing tool) is still a good recording: the command reports the
outcome on stderr and exits 1, so a script or CI job notices; a run that finishes, or stops at an
interrupt (a pause, not a failure), exits 0. Problems with the command itself (bad TARGET, bad input, an
unwritable output, another recording being written to the same file) are user errors with exit status
2, and nothing is recorded; Ctrl-C exits 130. A recording that stops partway (the disk fills) exits 2
as well, after the run, and its partial file is removed (a resumed segment is cut back off the file).

With a checkpoint store on TARGET's compiled graph, `--checkpoint-id ID` lets a run stop at an interrupt
and save a checkpoint; `--checkpoint-id ID --resume [--resume-data JSON]` resumes it and appends the
resumed run to the same file as a new segment (the file must end with that interrupted run).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from graph_core.errors import GraphError, InterruptError
from graph_core.schema import Message
from inspector.cli.plain import echo, one_line_list
from inspector.errors import InspectorError
from inspector.errortext import error_text
from inspector.recording import read_run
from inspector.recording.format import FORMAT_NAME
from inspector.recording.sink import fault_error
from inspector.target import LoadedTarget, load_target

if TYPE_CHECKING:
    from inspector.otel.live import OtlpRecorder

__all__ = [
    "CLOBBER_PEEK",
    "check_output",
    "created_text",
    "input_hint",
    "is_run_file_start",
    "make_input",
    "parse_json",
    "refuse_to_clobber",
    "register",
    "run",
]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "record",
        help="run a graph or agent and record every step to a run file",
        description="Run TARGET (`package.module:attr` or `path/to/file.py:attr`) with a Recorder. For an "
        "agent, --input becomes one user message; a graph gets the string as its input.",
    )
    parser.add_argument("target", metavar="TARGET")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--input", metavar="TEXT", help="input text (an agent gets one user message)")
    source.add_argument(
        "--input-json",
        metavar="JSON",
        help='input as JSON (for an agent: a list of messages like [{"role": "user", "content": ...}])',
    )
    parser.add_argument("-o", "--output", metavar="RUN.jsonl", required=True, help="run file to write")
    parser.add_argument("--stream", action="store_true", help="run in stream mode instead of invoke mode")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    parser.add_argument(
        "--checkpoint-id",
        metavar="ID",
        help="save a checkpoint under ID if the run stops at an interrupt (TARGET needs a checkpoint store)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="resume the run interrupted under --checkpoint-id and append it to RUN.jsonl as a new segment "
        "(no --input)",
    )
    parser.add_argument(
        "--resume-data",
        metavar="JSON",
        help="with --resume: a JSON value handed to the interrupted nodes (get_resume_data())",
    )
    parser.add_argument(
        "--tag",
        action="append",
        default=[],
        type=_tag,
        metavar="KEY=VALUE",
        help="a tag kept in the header's meta.tags (repeatable); `inspector runs --tag` filters on it",
    )
    add_otlp_option(parser)
    parser.set_defaults(handler=run)


def _tag(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, not {text!r}")
    return key.strip(), value


def add_otlp_option(parser: Any) -> None:
    """`--otlp [URL]`: also send the run to an OpenTelemetry backend (record and debug)."""
    parser.add_argument(
        "--otlp",
        metavar="URL",
        nargs="?",
        const="",
        help="also send the run over OTLP/HTTP to URL, step by step as it goes (without URL: "
        "OTEL_EXPORTER_OTLP_ENDPOINT); "
        "a backend that is down is one warning line, never a failed run",
    )


def parse_json(raw: str, option: str) -> Any:
    """A JSON option's value; text nested deeper than the parser's recursion limit is a user error too."""
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise InspectorError(f"{option} is not valid JSON: {exc}") from None
    except RecursionError:
        raise InspectorError(
            f"{option} is nested too deeply to read (more levels of arrays and objects than Python's "
            f"recursion limit of {sys.getrecursionlimit()} allows); flatten the value"
        ) from None


def make_input(target: LoadedTarget, text: str | None, raw_json: str | None) -> Any:
    """The value to run TARGET with, from --input or --input-json."""
    if raw_json is None:
        from_text = getattr(target.compiled, "input_from_text", None)
        if callable(from_text):  # an engine whose input is a state (LangGraph): one user message in it
            return from_text(text or "")
        return [Message.user(text or "")] if target.is_agent else text
    value = parse_json(raw_json, "--input-json")
    if target.is_agent:
        if isinstance(value, str):
            return [Message.user(value)]
        items: list[Any] = value if isinstance(value, list) else [value]  # pyright: ignore[reportUnknownVariableType]
        messages: list[Message] = []
        for number, item in enumerate(items):
            try:
                messages.append(Message.model_validate(item))
            except (ValidationError, TypeError) as exc:
                # Message's own __init__ takes `role` positionally, so an object without one fails with a
                # TypeError from inside pydantic rather than a ValidationError.
                problems = (
                    "; ".join(
                        f"{'.'.join(str(part) for part in error['loc']) or 'message'}: {error['msg']}"
                        for error in exc.errors(include_url=False)
                    )
                    if isinstance(exc, ValidationError)
                    else "role: Field required"
                    if isinstance(item, dict) and "role" not in item
                    else str(exc)
                )
                raise InspectorError(
                    "--input-json for an agent must be a list of messages "
                    f'({{"role": ..., "content": ...}}); message {number} is not one: {problems}'
                ) from None
        return messages
    return value


def check_output(output: Path, *, resume: bool) -> Path | None:
    """Refuse an output the Recorder could not write before the run starts, not halfway through it.

    Returns the outermost folder it had to create for `output` (None when the folder existed), so the
    summary line can say so: a typo in `-o` must not go unnoticed."""
    if output.is_dir():
        raise InspectorError(f"-o {output} is a directory: give a file path such as {output / 'run.jsonl'}")
    if resume:
        if not output.exists():  # the Recorder's reason suggests a new file, which --resume cannot do
            raise InspectorError(
                f"-o {output} does not exist: --resume appends the resumed run to the file that recorded "
                "the interrupted run, so give that file as -o"
            )
        return None  # the Recorder checks the file it appends to, with its own one-paragraph reasons
    refuse_to_clobber(output)
    created = _first_missing(output.parent)
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        with output.open("a", encoding="utf-8"):
            pass
    except FileExistsError as exc:  # a parent on the path is a file
        raise InspectorError(
            f"could not write the run file {output}: {exc.filename} is a file, not a directory"
        ) from None
    except OSError as exc:
        raise InspectorError(f"could not write the run file {output}: {exc.strerror or exc}") from None
    return created


def _first_missing(folder: Path) -> Path | None:
    """The outermost ancestor of `folder` (or itself) that does not exist yet."""
    missing: Path | None = None
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            break
        missing = candidate
    return missing


def created_text(created: Path | None) -> str:
    """The summary line's note about folders `check_output` created (empty when none)."""
    return "" if created is None else f"; created the folder {created} for it"


def input_hint(target: LoadedTarget, text: str | None) -> str:
    """For a failed run of a graph given `--input TEXT` that reads as a JSON number, list, object,
    boolean or null: the graph got the string, which is rarely what was meant. Empty otherwise."""
    if text is None or target.is_agent or callable(getattr(target.compiled, "input_from_text", None)):
        return ""
    try:
        value = json.loads(text)
    except ValueError:
        return ""
    if isinstance(value, str):
        return ""
    return (
        f"; --input passes text, so the graph got the string {json.dumps(text)}: to pass the JSON value "
        f"{json.dumps(value)} use --input-json {text}"
    )


def refuse_to_clobber(
    output: Path,
    *,
    ours: Callable[[bytes], bool] | None = None,
    what: str = f"a run file (it does not start with a `{FORMAT_NAME}` header)",
    writing: str = "recording",
) -> None:
    """The rule of every command that writes -o: refuse to overwrite a file that holds something other
    than what the command writes (a typo in -o must not cost the user a file); an empty file, or an
    earlier output of the same kind, is overwritten, as writing it again means.

    `ours(start)` tells the command's own kind of file from its first `CLOBBER_PEEK` bytes (default: a
    run file, even one cut off in its header); `what` names that kind and `writing` the command's act
    in the message."""
    try:
        with output.open("rb") as existing:
            start = existing.read(CLOBBER_PEEK)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return
    except OSError as exc:
        raise InspectorError(f"could not read the existing file {output}: {exc.strerror or exc}") from None
    if start and not (ours or is_run_file_start)(start):
        raise InspectorError(
            f"-o {output} exists and is not {what}; {writing} would overwrite it. Give another path, or "
            "delete the file first if it can go"
        )


CLOBBER_PEEK = 512
"""How much of an existing -o file `refuse_to_clobber` reads to tell what it is."""


def is_run_file_start(start: bytes) -> bool:
    """Whether `start` (a file's first bytes) begins a run file, even one cut off in its header."""
    return _HEADER_START.startswith(start[: len(_HEADER_START)])


_HEADER_START = b'{"kind":"header","format":"' + FORMAT_NAME.encode() + b'"'


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _progress(event: dict[str, Any]) -> None:
    budget = event["budget"]
    limit = budget.get("steps_max")
    used = f"{budget['steps_used']}/{limit}" if limit is not None else str(budget["steps_used"])
    extra = f", {_count(budget['model_calls'], 'model call')}, {_count(budget['tool_calls'], 'tool call')}"
    if budget.get("total_tokens") is not None:
        extra += f", {budget['total_tokens']} tokens"
    nodes = one_line_list(event["nodes"])
    echo(f"step {event['index']}: {nodes}  (steps {used}{extra})", file=sys.stderr, flush=True)


def _check_options(args: argparse.Namespace, target: LoadedTarget) -> Any:
    """The resume data (parsed), after checking that the options fit together and fit TARGET."""
    has_input = args.input is not None or args.input_json is not None
    if args.resume and has_input:
        raise InspectorError("--resume continues a saved run, whose input is in the checkpoint: drop --input")
    if not args.resume and not has_input:
        raise InspectorError("one of --input or --input-json is required (or --resume with --checkpoint-id)")
    if args.resume and args.checkpoint_id is None:
        raise InspectorError(
            "--resume needs --checkpoint-id: the ID the interrupted run saved its checkpoint under"
        )
    if args.resume_data is not None and not args.resume:
        raise InspectorError("--resume-data is only for --resume")
    store = getattr(target.compiled, "checkpoint_store", None)
    if args.checkpoint_id is not None and store is None:
        raise InspectorError(
            f"--checkpoint-id needs a checkpoint store, and TARGET `{args.target}` was compiled without one: "
            "compile it with `checkpoint_store=SqliteCheckpointStore(path)` (it must outlive the process "
            "to resume from another command)"
        )
    existing = None if store is None or args.checkpoint_id is None else store.get(args.checkpoint_id)
    if not args.resume and existing is not None:
        raise InspectorError(
            f"TARGET `{args.target}`'s checkpoint store already holds a checkpoint `{args.checkpoint_id}`, "
            "so the run would resume it and ignore --input: add --resume (without --input) to continue it "
            "into the file that recorded it, or pick another --checkpoint-id for a new run"
        )
    if args.resume and existing is None:
        raise InspectorError(
            f"TARGET `{args.target}`'s checkpoint store holds no checkpoint `{args.checkpoint_id}`: record "
            "the run with --input and --checkpoint-id first, and let it stop at an interrupt"
        )
    if args.resume_data is None:
        return None
    return parse_json(args.resume_data, "--resume-data")


def _report_interrupted(output: Path) -> None:
    """Ctrl-C is the user's choice, not an error: say what the file holds and how to look at it."""
    try:
        kept = f"{len(read_run(output).steps)} complete steps are in {output} (status incomplete)"
    except (InspectorError, OSError):
        kept = f"nothing readable was written to {output}"
    echo(
        f"inspector: record interrupted (Ctrl-C); {kept}. See it with `inspector show {output}`.",
        file=sys.stderr,
    )


def run(args: argparse.Namespace) -> int:
    from inspector.recording.recorder import Recorder  # (the writing side: not for every command's start-up)
    from inspector.recording.redact import make_redaction

    target = load_target(args.target)
    resume_data = _check_options(args, target)
    value = None if args.resume else make_input(target, args.input, args.input_json)
    output = Path(args.output)
    created = check_output(output, resume=args.resume)
    meta: dict[str, Any] = {"target": args.target, "mode": "stream" if args.stream else "invoke"}
    if args.resume and args.resume_data is not None:
        meta["resume_data"] = resume_data
    if args.tag:
        meta["tags"] = dict(args.tag)
    options: dict[str, Any] = {
        "topology": target.topology(),
        "progress": None if args.quiet else _progress,
        "meta": meta,
        "resume": args.resume,
        "checkpoint_id": args.checkpoint_id if args.resume else None,
        "report_faults": False,  # said once, below, with what became of the file
    }
    live: OtlpRecorder | None = None
    if args.otlp is not None:
        from inspector.otel.live import OtlpRecorder

        recorder: Recorder = OtlpRecorder(args.otlp or None, path=output, **options)
        live = recorder
    else:
        recorder = Recorder(output, **options)
    recorder.open()  # locked now: a file another recording is writing is refused before the run
    run_options: dict[str, Any] = {"callbacks": [recorder]}
    if args.checkpoint_id is not None:
        run_options["checkpoint_id"] = args.checkpoint_id
    if args.resume:
        run_options["resume_data"] = resume_data
    # A resumed run's input is in the checkpoint: the compiled graph takes None (an agent would wrap it).
    runnable = target.compiled if args.resume else target.runnable
    failure: BaseException | None = None
    try:
        if args.stream:
            for _ in runnable.stream(value, **run_options):
                pass
        else:
            runnable.invoke(value, **run_options)
    except (GraphError, Exception) as exc:  # the run's own failure is part of the recording
        failure = exc
    except KeyboardInterrupt:
        recorder.close()
        _report_interrupted(output)
        return 130
    finally:
        recorder.close()
    warning = live.shutdown() if live is not None else None  # the backend's flush, bounded
    if recorder.fault is not None:
        removed = recorder.discard()
        raise fault_error(output, recorder.fault, removed=removed, appended=args.resume)
    if warning:
        print(f"inspector: warning: {warning}", file=sys.stderr)
    recorded = read_run(output)
    segment = recorded.segments[-1]
    count = len(recorded.segments)
    where = f"segment {segment.index}, {count} segments in the file, " if count > 1 else ""
    steps = len(segment.steps)
    summary = (
        f"recorded {steps} step{'' if steps == 1 else 's'} to {output} ({where}status {recorded.status})"
        f"{created_text(created)}"
    )
    if isinstance(failure, InterruptError):
        saved = getattr(failure, "checkpoint_id", None)
        if saved:
            summary += (
                f"; the run stopped at an interrupt and saved checkpoint {saved}: continue it with "
                f"`inspector record {args.target} -o {output} --checkpoint-id {saved} --resume "
                "--resume-data JSON` (JSON: the value the interrupted node reads with get_resume_data(); "
                "leave it out when the node needs none)"
            )
        else:
            summary += (
                "; the run stopped at an interrupt (no checkpoint saved: pass --checkpoint-id to resume it)"
            )
    elif failure is not None:
        first = str(failure).splitlines()[0] if str(failure) else type(failure).__name__
        first = make_redaction(True).scrub(first)  # masked as in the file: no secret on the terminal either
        summary += f"; the run failed: {error_text(type(failure).__name__, first)}"
        summary += input_hint(target, args.input)
    echo(summary, file=sys.stderr)
    return 1 if recorded.status == "error" else 0
