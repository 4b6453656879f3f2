"""The command-line side of threads: `--thread`, `--branch`, `--checkpoint` and `--target`, and what a
RUN argument that is a checkpointer becomes (the run file of the chosen thread).

Without `--thread`, the threads are listed (on standard output) and the command is refused; a thread
whose history branches opens on the branch of its latest checkpoint and says on standard error which
other branches there are and how to pick one.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspector.errors import RunFileError
from inspector.sources.langgraph.cache import converting
from inspector.sources.langgraph.history import ThreadInfo
from inspector.sources.langgraph.postgres import is_postgres_url, redacted
from inspector.sources.langgraph.thread import is_checkpointer, list_threads, thread_run_file

__all__ = ["add_thread_options", "converting", "run_source", "run_sources", "shown", "threads_text"]


def shown(location: str) -> str:
    """A RUN argument as messages may show it: a URL without its password."""
    return redacted(location) if is_postgres_url(location) else location


def threads_text(location: str | Path, threads: Sequence[ThreadInfo]) -> str:
    """The listing printed when no thread was chosen."""
    where = shown(str(location))
    if not threads:
        return f"{where}: a LangGraph checkpointer with no threads"
    width = max(len("thread"), *(len(t.thread_id) for t in threads))
    lines = [f"{where}: {len(threads)} thread(s); pass --thread ID to open one", ""]
    lines.append(f"{'thread':<{width}}  checkpoints  last step  last update")
    for t in threads:
        step = "" if t.last_step is None else str(t.last_step)
        lines.append(f"{t.thread_id:<{width}}  {t.checkpoints:>11}  {step:>9}  {t.last_update}")
    return "\n".join(lines)


def _not_for(path: str, option: str) -> RunFileError:
    return RunFileError(
        f"{shown(path)}: is not a LangGraph checkpointer, so {option} does not apply. A checkpointer is the "
        "SQLite file LangGraph's SqliteSaver writes (with `checkpoints` and `writes` tables) or a "
        "postgresql:// URL of a PostgresSaver database."
    )


def run_source(
    path: str,
    thread: str | None,
    *,
    target: str | None = None,
    branch: int | None = None,
    checkpoint: str | None = None,
    behind: bool = False,
) -> str:
    """What the CLI reads for a RUN argument: a run file as it is; a checkpointer's thread as the run
    file `thread_run_file` writes (the graph's topology from `target` when given; with `behind`, a
    file not written yet is written while the caller goes on, for `replay` to follow). A checkpointer
    without `thread` prints its threads and is refused; `thread` for a file that is no checkpointer
    is refused too."""
    if not is_checkpointer(path):
        for option, value in (("--thread", thread), ("--branch", branch), ("--checkpoint", checkpoint)):
            if value is not None:
                raise _not_for(path, option)
        return path
    where = shown(path)
    if thread is None:
        print(threads_text(path, list_threads(path)))
        raise RunFileError(
            f"{where} is a LangGraph checkpointer: pass --thread ID to open one of its threads"
        )
    topology = None
    if target is not None:
        from inspector.target import load_target

        topology = load_target(target).topology()
    out = thread_run_file(
        path, thread, topology=topology, branch=branch, checkpoint=checkpoint, behind=behind
    )
    note = "" if converting(out) else branch_note(out, thread)
    if note:
        print(f"inspector: note: {note}", file=sys.stderr)
    return str(out)


def branch_note(run_file: Path, thread: str) -> str:
    """What to say of a branched thread: the branch shown and the others (from the run's header)."""
    with run_file.open(encoding="utf-8") as handle:
        header = json.loads(handle.readline())
    found = (header.get("meta") or {}).get("langgraph_thread") or {}
    branches = found.get("branches") or []
    if len(branches) < 2:
        return ""
    others = "; ".join(
        f"{b['branch']}: {b['checkpoints']} checkpoints to step {b['last_step']}"
        + ("" if b.get("forked_at") is None else f", forked at step {b['forked_at']}")
        for b in branches
        if b["branch"] != found.get("branch")
    )
    return (
        f"thread `{thread}` has {len(branches)} branches; showing branch {found.get('branch')}; the others: "
        f"{others}. Open one with --branch K, or the history up to a checkpoint with --checkpoint ID."
    )


def add_thread_options(parser: Any, *, target: bool = True, repeat: bool = False) -> None:
    """`--thread ID`, `--branch K` and `--checkpoint ID` (repeated with `repeat`: one per checkpointer
    argument, in order) and, with `target`, `--target TARGET` for the graph's topology."""
    action = "append" if repeat else "store"
    per = "; once per checkpointer argument, or once for both" if repeat else ""
    parser.add_argument(
        "--thread",
        metavar="ID",
        action=action,
        default=None,
        help="when RUN is a LangGraph checkpointer (a SqliteSaver file or a postgresql:// URL): the thread "
        "to open (without it, the threads are listed)" + per,
    )
    parser.add_argument(
        "--branch",
        metavar="K",
        type=int,
        action=action,
        default=None,
        help="with --thread: the branch to open when its history branches (default: the branch of the "
        "latest checkpoint)" + per,
    )
    parser.add_argument(
        "--checkpoint",
        metavar="ID",
        action=action,
        default=None,
        help="with --thread: open the history up to this checkpoint (an id, or its unique end)" + per,
    )
    if target:
        parser.add_argument(
            "--target",
            metavar="TARGET",
            default=None,
            help="with --thread: the LangGraph graph (module:attr) whose topology the thread ran on "
            "(default: the nodes the checkpoints show, marked as observed)",
        )


def run_sources(
    paths: Sequence[str],
    threads: Sequence[str] | None,
    *,
    branches: Sequence[int] | None = None,
    checkpoints: Sequence[str] | None = None,
) -> list[str]:
    """`run_source` for several RUN arguments (`diff`): the checkpointers among them take the
    `--thread` (and `--branch`, `--checkpoint`) values in order, or all the one given."""
    found = [is_checkpointer(path) for path in paths]
    count = sum(found)
    given: dict[str, list[Any]] = {
        "--thread": list(threads or []),
        "--branch": list(branches or []),
        "--checkpoint": list(checkpoints or []),
    }
    for option, values in given.items():
        if values and not count:
            raise _not_for(paths[0], option)
        if len(values) > max(1, count):
            raise RunFileError(
                f"{len(values)} {option} values for {count} checkpointer argument(s): pass one {option} per "
                "checkpointer, in order, or one for all"
            )
    chosen: list[str] = []
    position = 0
    for path, is_one in zip(paths, found, strict=True):
        if not is_one:
            chosen.append(run_source(path, None))
            continue
        picks = {
            k: (v[0] if len(v) == 1 else v[position] if position < len(v) else None) for k, v in given.items()
        }
        position += 1
        chosen.append(
            run_source(path, picks["--thread"], branch=picks["--branch"], checkpoint=picks["--checkpoint"])
        )
    return chosen
