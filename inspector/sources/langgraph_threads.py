"""A thread of a LangGraph SQLite checkpointer (`langgraph-checkpoint-sqlite`'s `SqliteSaver`) as a run.

People who run LangGraph already have databases full of threads; this opens one as every command opens a
run file. The database is opened read-only (`file:...?mode=ro`, see `_ReadOnly`): reading never writes
to it, not even
the `CREATE TABLE IF NOT EXISTS` that `SqliteSaver.setup()` would run, so the tables are read with plain
SQL and the values decoded with LangGraph's own `JsonPlusSerializer`. A value it cannot decode (a type
from a module that is not installed, a custom serializer) becomes `{"opaque": TYPE, "bytes": N}`: one
value the inspector cannot show, not a run it cannot open.

A thread's current history (its latest checkpoint back to its first, through `parent_checkpoint_id`,
as `get_state_history` walks it) becomes LangGraph debug-stream events that the adapter's
`StepTranslator` turns into a run file, as `inspector record` would have written it:

- LangGraph step N (N >= 1) is the run's step N - 1, as in a recording (step -1 wrote the input, step 0
  passed it through `__start__`); the run's input is what `__start__` wrote;
- a step's node runs are the tasks whose writes made its checkpoint (the parent checkpoint's pending
  writes, grouped by task: a pulled task names its node in its `task_path`, a `Send` its index in the
  parent's `__pregel_tasks`), each node's output the channels it wrote;
- the state after a step is the checkpoint's channel values (LangGraph's own channels left out);
- a thread whose latest checkpoint holds an `interrupt()`'s write ends interrupted, with that node to
  rerun on resume.

The checkpoint of each step (id, LangGraph step, source) is in the run header's `meta.langgraph_thread`.
The topology comes from `--target` when given, else from the nodes the checkpoints show, and is then
named `... (observed from checkpoints)`: edges between nodes that ran one after the other, which is what
the thread saw, not what the graph declares. Branched threads (forks by `update_state`) are read along
the current branch only; subgraph namespaces are not read yet.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import sqlite3
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from graph_core.interrupt import InterruptInfo
from graph_core.topology import END, START, Topology, TopologyEdge, TopologyNode, build_topology
from inspector.errors import RunFileError

__all__ = [
    "Checkpoint",
    "ThreadInfo",
    "is_sqlite_checkpointer",
    "list_threads",
    "read_thread",
    "thread_run_file",
    "threads_text",
]

_SQLITE_HEADER = b"SQLite format 3\x00"
_INTERNAL_WRITES = ("__interrupt__", "__error__", "__resume__", "__pregel_tasks", "__no_writes__")
"""Channels LangGraph writes for itself: what a task did, not what it put in the state."""


def _internal(channel: str) -> bool:
    return channel.startswith(("branch:", "__")) or channel in _INTERNAL_WRITES


@dataclass(frozen=True)
class ThreadInfo:
    """One thread of a checkpointer: how many checkpoints, its latest LangGraph step, when it was
    last written (the time in its latest checkpoint)."""

    thread_id: str
    checkpoints: int
    last_step: int | None
    last_update: str


@dataclass(frozen=True)
class Checkpoint:
    """One checkpoint, decoded: its channel values and the writes of the tasks that ran from it."""

    id: str
    parent_id: str | None
    step: int
    source: str
    values: dict[str, Any]
    writes: list[tuple[str, str, str, Any]]  # (task id, task path, channel, value), in order
    ts: str


def is_sqlite_checkpointer(path: str | Path) -> bool:
    """`path` is a SQLite file with a `checkpoints` table (checked read-only)."""
    file = Path(path)
    try:
        if not file.is_file():  # a FIFO would block the read; `read_run` names what it is instead
            return False
        with file.open("rb") as handle:
            if handle.read(16) != _SQLITE_HEADER:
                return False
    except OSError:
        return False
    try:
        with _connect(file) as db:
            found = db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='checkpoints'")
            return found.fetchone() is not None
    except sqlite3.Error:
        return False


class _ReadOnly:
    """A read-only connection, closed on leaving (sqlite3's own context manager only commits).

    SQLite opens a database in WAL mode (as `SqliteSaver` leaves it) by creating its `-wal` and `-shm`
    files, even read-only. When there is no `-wal` file, everything is in the database file itself,
    so it is opened `immutable`: nothing is created beside it. With one (a writer is at work, or
    did not close), read-only through the write-ahead log, which exists already."""

    def __init__(self, path: Path) -> None:
        wal = path.with_name(path.name + "-wal").exists()
        mode = "mode=ro" if wal else "mode=ro&immutable=1"
        self.db = sqlite3.connect(f"{path.resolve().as_uri()}?{mode}", uri=True)

    def __enter__(self) -> sqlite3.Connection:
        return self.db

    def __exit__(self, *exc: object) -> None:
        self.db.close()


def _connect(path: Path) -> _ReadOnly:
    return _ReadOnly(path)


def _not_a_checkpointer(path: Path, why: str) -> RunFileError:
    return RunFileError(
        f"{path}: {why}. A checkpointer database is the SQLite file LangGraph's SqliteSaver writes "
        "(with `checkpoints` and `writes` tables); pass its path with --thread ID."
    )


def list_threads(path: str | Path) -> list[ThreadInfo]:
    """The threads of the top-level graph, most recently written first."""
    file = Path(path)
    try:
        with _connect(file) as db:
            rows = db.execute(
                "SELECT thread_id, COUNT(*), MAX(checkpoint_id) FROM checkpoints "
                "WHERE checkpoint_ns = '' GROUP BY thread_id"
            ).fetchall()
            threads: list[ThreadInfo] = []
            for thread_id, count, last_id in rows:
                row = db.execute(
                    "SELECT type, checkpoint, metadata FROM checkpoints "
                    "WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?",
                    (thread_id, last_id),
                ).fetchone()
                step = _metadata(row[2]).get("step")
                ts = _decode(row[0], row[1])
                last_update = str(ts.get("ts", "")) if isinstance(ts, Mapping) else ""
                threads.append(
                    ThreadInfo(
                        str(thread_id), int(count), step if isinstance(step, int) else None, last_update
                    )
                )
    except sqlite3.Error as error:
        raise _not_a_checkpointer(file, f"cannot be read as a LangGraph checkpointer ({error})") from None
    threads.sort(key=lambda t: t.last_update, reverse=True)
    return threads


def threads_text(path: str | Path, threads: Sequence[ThreadInfo]) -> str:
    """The listing printed when no thread was chosen."""
    if not threads:
        return f"{path}: a LangGraph checkpointer with no threads"
    width = max(len("thread"), *(len(t.thread_id) for t in threads))
    lines = [f"{path}: {len(threads)} thread(s); pass --thread ID to open one", ""]
    lines.append(f"{'thread':<{width}}  checkpoints  last step  last update")
    for t in threads:
        step = "" if t.last_step is None else str(t.last_step)
        lines.append(f"{t.thread_id:<{width}}  {t.checkpoints:>11}  {step:>9}  {t.last_update}")
    return "\n".join(lines)


def _serializer() -> Any:
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    return JsonPlusSerializer()


_SERDE: list[Any] = []


def _decode(kind: str | None, blob: bytes | None) -> Any:
    """A stored value through LangGraph's serializer; what it cannot decode, as opaque bytes."""
    if not _SERDE:
        _SERDE.append(_serializer())
    if kind is None:
        return None
    try:
        return _SERDE[0].loads_typed((kind, blob or b""))
    except Exception:  # any failure of a foreign serializer is one opaque value, not a failed run
        return {"opaque": kind, "bytes": len(blob or b"")}


def _metadata(blob: bytes | str | None) -> dict[str, Any]:
    if not blob:
        return {}
    try:
        value = json.loads(blob)
    except (ValueError, UnicodeDecodeError):
        return {}
    return value if isinstance(value, dict) else {}  # pyright: ignore[reportUnknownVariableType]


def read_thread(path: str | Path, thread_id: str) -> list[Checkpoint]:
    """The thread's current history, oldest checkpoint first (refused, with the nearest thread ids,
    when the thread does not exist)."""
    file = Path(path)
    threads = list_threads(file)
    if thread_id not in {t.thread_id for t in threads}:
        ids = [t.thread_id for t in threads]
        near = difflib.get_close_matches(thread_id, ids, n=5, cutoff=0.3) or ids[:5]
        nearest = f"; the nearest: {', '.join(near)}" if near else "; it has no threads"
        raise RunFileError(f"{file}: no thread `{thread_id}` in this LangGraph checkpointer{nearest}")
    with _connect(file) as db:
        rows = db.execute(
            "SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints "
            "WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id",
            (thread_id,),
        ).fetchall()
        writes: dict[str, list[tuple[str, str, str, Any]]] = {}
        for checkpoint_id, task_id, task_path, channel, kind, blob in db.execute(
            "SELECT checkpoint_id, task_id, task_path, channel, type, value FROM writes "
            "WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id, task_id, idx",
            (thread_id,),
        ):
            writes.setdefault(checkpoint_id, []).append(
                (task_id, task_path or "", channel, _decode(kind, blob))
            )
    by_id = {row[0]: row for row in rows}
    chain: list[Checkpoint] = []
    current: str | None = rows[-1][0] if rows else None
    while current is not None and current in by_id:
        checkpoint_id, parent_id, kind, blob, meta = by_id[current]
        decoded = _decode(kind, blob)
        checkpoint: Mapping[str, Any] = decoded if isinstance(decoded, Mapping) else {}  # pyright: ignore[reportUnknownVariableType]
        metadata = _metadata(meta)
        step = metadata.get("step")
        chain.append(
            Checkpoint(
                id=checkpoint_id,
                parent_id=parent_id,
                step=step if isinstance(step, int) else len(chain),
                source=str(metadata.get("source", "")),
                values=dict(checkpoint.get("channel_values") or {}),
                writes=writes.get(checkpoint_id, []),
                ts=str(checkpoint.get("ts", "")),
            )
        )
        current = parent_id
    chain.reverse()
    return chain


# --- the run ---------------------------------------------------------------------------------------


@dataclass
class _Task:
    id: str
    name: str
    input: Any
    result: dict[str, Any]
    interrupts: list[Any]
    error: Any


def _tasks(parent: Checkpoint, source: str = "loop") -> list[_Task]:
    """The tasks that ran from `parent`, from its pending writes: for a checkpoint `update_state`
    made (`source` "update"), the update's own writes; else the node tasks' (a `Command(resume=...)`
    write belongs to no task and is left out)."""
    sends = parent.values.get("__pregel_tasks")
    tasks: dict[str, _Task] = {}
    for task_id, task_path, channel, value in parent.writes:
        is_update = task_path.startswith("~__interrupt__")
        if not task_path or is_update != (source == "update"):
            continue
        task = tasks.get(task_id)
        if task is None:
            name, arg = ("(update)", None) if is_update else _task_name(task_path, sends)
            task = tasks[task_id] = _Task(task_id, name, arg, {}, [], None)
        if channel == "__interrupt__":
            task.interrupts.extend(value if isinstance(value, list) else [value])  # pyright: ignore[reportUnknownArgumentType]
        elif channel == "__error__":
            task.error = value
        elif not _internal(channel):
            task.result[channel] = value
    return [t for t in tasks.values() if t.name != "__start__"]


def next_nodes(checkpoint: Checkpoint) -> list[str]:
    """The nodes that run from `checkpoint` (LangGraph's `StateSnapshot.next`): those its `branch:to:`
    channels trigger, then those its `Send`s name."""
    found = [k.removeprefix("branch:to:") for k in checkpoint.values if k.startswith("branch:to:")]
    sends = checkpoint.values.get("__pregel_tasks")
    for send in sends if isinstance(sends, list) else []:  # pyright: ignore[reportUnknownVariableType]
        node = getattr(send, "node", None)
        if isinstance(node, str):
            found.append(node)
    return list(dict.fromkeys(found))


def _task_name(task_path: str, sends: Any) -> tuple[str, Any]:
    """A task's node, and its input when a `Send` gave one: a pulled task's path names its node, a
    pushed one's its index in the parent checkpoint's `__pregel_tasks`."""
    parts = [part.strip() for part in task_path.split(",")]
    if len(parts) >= 2 and parts[0] == "~__pregel_pull":
        return parts[1], None
    if len(parts) >= 2 and parts[0] == "~__pregel_push" and isinstance(sends, list):
        try:
            send = sends[int(parts[1])]  # pyright: ignore[reportUnknownVariableType]
        except (ValueError, IndexError):
            send = None
        node = getattr(send, "node", None)
        if isinstance(node, str):
            return node, getattr(send, "arg", None)
    return task_path or "(task)", None


def _state(checkpoint: Checkpoint) -> dict[str, Any]:
    return {k: v for k, v in checkpoint.values.items() if not _internal(k)}


def _interrupt_value(item: Any) -> Any:
    return getattr(item, "value", item)


def observed_topology(chain: Sequence[Checkpoint], name: str) -> Topology:
    """The nodes the thread's tasks ran, and an edge between nodes of consecutive steps: what the
    checkpoints show, named as observed."""
    order: list[str] = []
    edges: dict[tuple[str, str], None] = {}
    previous: list[str] = [START]
    for parent in chain:
        names = list(dict.fromkeys(t.name for t in _tasks(parent, "loop")))
        if not names:
            continue
        for node in names:
            if node not in order:
                order.append(node)
            for before in previous:
                edges[(before, node)] = None
        previous = names
    if chain and not any(t.interrupts for t in _tasks(chain[-1])) and previous != [START]:
        for before in previous:
            edges[(before, END)] = None
    nodes = [TopologyNode(key=node, kind="Lambda") for node in order]
    return build_topology(
        name=f"{name} (observed from checkpoints)",
        nodes=nodes,
        edges=[TopologyEdge(source=a, target=b) for a, b in edges],
        has_state=True,
    )


def write_thread_run(
    chain: Sequence[Checkpoint], out: Path, *, thread_id: str, topology: Topology | None = None
) -> Path:
    """Write the thread's history (`read_thread`) as a run file at `out`."""
    from inspector.adapters.langgraph.recording import StepTranslator
    from inspector.recording import Recorder

    topology = topology or observed_topology(chain, "LangGraph thread")
    steps = [c for c in chain if c.step >= 1]
    meta = {
        "langgraph_thread": {
            "thread_id": thread_id,
            "checkpoints": [{"id": c.id, "step": c.step, "source": c.source} for c in steps],
        }
    }
    now = [_seconds(chain[0].ts) if chain else 0.0]  # each step's time is its checkpoint's
    recorder = Recorder(
        out,
        topology=topology,
        run_id=f"thread-{thread_id}",
        clock=lambda: now[0],
        meta=meta,
        redact=False,
    )
    limit = max(25, len(steps) + 1)
    translator = StepTranslator([recorder], topology=topology, limit=limit, extras={"topology": topology})
    by_id = {c.id: c for c in chain}
    first_input = next((c for c in chain if c.source == "input"), None)
    start_input = first_input.values.get("__start__") if first_input is not None else None
    translator.start(start_input)
    for checkpoint in steps:
        parent = by_id.get(checkpoint.parent_id or "")
        tasks = _tasks(parent, checkpoint.source) if parent is not None else []
        for task in tasks:  # a later checkpoint exists: its tasks finished (an interrupt was resumed)
            task.interrupts = []
        if not tasks:  # a checkpoint no task wrote (`update_state`): one node run named by its source
            tasks = [_Task(checkpoint.id, f"({checkpoint.source})", None, _state(checkpoint), [], None)]
        now[0] = _seconds(parent.ts) if parent is not None else now[0]
        before = _state(parent) if parent is not None else {}
        _feed(
            translator, checkpoint.step, tasks, before, partial(now.__setitem__, 0, _seconds(checkpoint.ts))
        )
        translator.feed((), "values", _state(checkpoint))
    last = chain[-1] if chain else None
    paused = [t for t in _tasks(last) if t.interrupts] if last is not None else []
    waiting = next_nodes(last) if last is not None and last.step >= 0 else []
    if last is not None and paused:  # an `interrupt()` waits for its `Command(resume=...)`
        _feed(translator, last.step + 1, paused, _state(last), lambda: None)
        info = InterruptInfo(rerun_nodes=[t.name for t in paused])
        info.rerun_nodes_extra = {t.name: _interrupt_value(t.interrupts[0]) for t in paused}
        translator.finish(next_nodes=[t.name for t in paused], interrupted=info)
    elif waiting:  # stopped before nodes that have not run (a static interrupt, an update, a crash)
        translator.finish(next_nodes=waiting, interrupted=InterruptInfo(before_nodes=waiting))
    else:
        translator.finish()
    recorder.close()
    return out


def _seconds(ts: str) -> float:
    """A checkpoint's ISO time as seconds since the epoch (0 when it has none)."""
    from datetime import datetime

    try:
        return datetime.fromisoformat(ts).timestamp()
    except ValueError:
        return 0.0


def _feed(
    translator: Any, step: int, tasks: Sequence[_Task], before: dict[str, Any], ended: Callable[[], None]
) -> None:
    """One step's tasks; the state before them again (which makes the translator end the step before
    and start this one, at the parent checkpoint's time); then, once `ended` has moved the clock to
    the checkpoint's time, their results."""
    for task in tasks:
        payload = {"id": task.id, "name": task.name, "input": task.input}
        translator.feed((), "debug", {"type": "task", "step": step, "payload": payload})
    translator.feed((), "values", before)
    ended()
    for task in tasks:
        translator.feed((), "debug", {"type": "task_result", "step": step, "payload": _result(task)})


def _result(task: _Task) -> dict[str, Any]:
    return {
        "id": task.id,
        "name": task.name,
        "result": task.result,
        "error": task.error,
        "interrupts": [{"value": _interrupt_value(i)} for i in task.interrupts],
    }


def thread_run_file(path: str | Path, thread_id: str, *, topology: Topology | None = None) -> Path:
    """The run file of a thread, written under the temporary directory (named by the database, its
    size and time, and the thread: a database written since gets a fresh file)."""
    file = Path(path)
    chain = read_thread(file, thread_id)
    stat = file.stat()
    key = f"{file.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}\0{thread_id}\0{topology is not None}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / "inspector-langgraph-threads"
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"{digest}.jsonl"
    if not out.exists():  # written aside and moved in: another process may be reading the same one
        aside = out.with_name(f"{out.stem}.{os.getpid()}.writing")
        write_thread_run(chain, aside, thread_id=thread_id, topology=topology)
        os.replace(aside, out)
    return out


def run_source(path: str, thread: str | None, *, target: str | None = None) -> str:
    """What the CLI reads for a RUN argument: a run file as it is; a SQLite checkpointer's thread as
    the run file `thread_run_file` writes (the graph's topology from `target` when given). A
    checkpointer without `thread` prints its threads and is refused; `thread` for a file that is no
    checkpointer is refused too."""
    if not is_sqlite_checkpointer(path):
        if thread is not None:
            raise _not_a_checkpointer(
                Path(path), "is not a LangGraph checkpointer, so --thread does not apply"
            )
        return path
    if thread is None:
        threads = list_threads(path)
        print(threads_text(path, threads))
        raise RunFileError(f"{path} is a LangGraph checkpointer: pass --thread ID to open one of its threads")
    topology = None
    if target is not None:
        from inspector.target import load_target

        topology = load_target(target).topology()
    return str(thread_run_file(path, thread, topology=topology))


def add_thread_options(parser: Any, *, target: bool = True, repeat: bool = False) -> None:
    """`--thread ID` (repeated with `repeat`: one per checkpointer argument, in order) and, with
    `target`, `--target TARGET` for the graph's topology."""
    parser.add_argument(
        "--thread",
        metavar="ID",
        action="append" if repeat else "store",
        default=None,
        help="when RUN is a LangGraph SQLite checkpointer: the thread to open (without it, the threads "
        "are listed)" + ("; once per checkpointer argument, or once for both" if repeat else ""),
    )
    if target:
        parser.add_argument(
            "--target",
            metavar="TARGET",
            default=None,
            help="with --thread: the LangGraph graph (module:attr) whose topology the thread ran on "
            "(default: the nodes the checkpoints show, marked as observed)",
        )


def run_sources(paths: Sequence[str], threads: Sequence[str] | None) -> list[str]:
    """`run_source` for several RUN arguments (`diff`): the checkpointers among them take the
    `--thread` values in order, or all the one given."""
    threads = list(threads or [])
    checkpointers = [is_sqlite_checkpointer(path) for path in paths]
    if len(threads) > max(1, sum(checkpointers)):
        raise RunFileError(
            f"{len(threads)} --thread values for {sum(checkpointers)} checkpointer argument(s): pass one "
            "--thread per checkpointer, in order, or one for all"
        )
    chosen: list[str] = []
    given = iter(threads)
    for path, is_checkpointer in zip(paths, checkpointers, strict=True):
        if not is_checkpointer:
            chosen.append(run_source(path, None))
            continue
        thread = threads[0] if len(threads) == 1 else next(given, None)
        chosen.append(run_source(path, thread))
    if threads and not any(checkpointers):
        raise _not_a_checkpointer(
            Path(paths[0]), "is not a LangGraph checkpointer, so --thread does not apply"
        )
    return chosen
