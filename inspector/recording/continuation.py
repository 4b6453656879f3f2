"""Resuming into the same file: what appending a resumed run to an existing run file needs.

`Recorder(path, resume=True)` records a resumed run into the file of the run it continues, as a new
segment: the file must end with an interrupted run that saved a checkpoint (`check_resumable`, when the
recorder is made and again when the run starts), and the run must be resumed from that checkpoint
(`check_resumed_from`, against the engine's `scope.extras["resumed_from"]`). The `segment` line
(`segment_line`) repeats the topology only when it changed; value ids continue the file's numbering.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graph_core.topology import Topology
from inspector.errors import RunFileError
from inspector.recording.header import topology_json

__all__ = ["Continuation", "check_resumable", "check_resumed_from", "file_size", "segment_line"]


class Continuation:
    """What appending a resumed run to an existing run file needs to know about that file: the
    checkpoint its last segment saved, how many segments and values it holds (value ids continue), the
    topology that applies at its end (a new segment repeats it only when it changed), and its size
    (to notice that the file changed between the check and the run)."""

    __slots__ = ("checkpoint_id", "graph_name", "segments", "size", "topology_json", "values")

    def __init__(
        self,
        *,
        checkpoint_id: str,
        segments: int,
        values: int,
        topology_json: Any,
        graph_name: str,
        size: int,
    ) -> None:
        self.checkpoint_id = checkpoint_id
        self.segments = segments
        self.values = values
        self.topology_json = topology_json
        self.graph_name = graph_name
        self.size = size


def file_size(path: Path) -> int:
    """The file's size, -1 when it cannot be read (then it is not the file that was checked)."""
    try:
        return path.stat().st_size
    except OSError:
        return -1


def check_resumable(path: str | Path, checkpoint_id: str | None = None) -> Continuation:
    """Check that a resumed run can be appended to the run file at `path`: its last segment ended
    interrupted and saved a checkpoint (equal to `checkpoint_id` when given). Raises `RunFileError`
    with a one-paragraph reason otherwise."""
    from inspector.recording.reader import read_run  # the reader imports the writer's neighbours

    path = Path(path)
    advice = (
        "A resumed run is appended to the recording of the run it continues: record that run with "
        "`Recorder(path)` and a `checkpoint_id`, let it stop at an interrupt, then resume it from that "
        "checkpoint with `Recorder(path, resume=True)`; or record the resumed run to a new file."
    )
    try:
        run = read_run(path)
    except RunFileError as exc:
        raise RunFileError(
            f"cannot record a resumed run into it: {exc}. {advice}", path=None if exc.path else path
        ) from None
    with run:
        if run.status != "interrupted" or run.interrupt is None:
            last = "its run" if len(run.segments) == 1 else f"its last segment ({len(run.segments)} segments)"
            raise RunFileError(
                f"cannot record a resumed run into it: {last} ended with status `{run.status}`, not "
                f"`interrupted`, so there is nothing to continue. {advice}",
                path=path,
            )
        saved = run.interrupt.checkpoint_id
        if saved is None:
            raise RunFileError(
                "cannot record a resumed run into it: the interrupted run saved no checkpoint (it ran "
                f"without a `checkpoint_id`), so no run can resume it. {advice}",
                path=path,
            )
        if checkpoint_id is not None and checkpoint_id != saved:
            raise RunFileError(
                f"cannot record a resumed run into it: the interrupted run saved checkpoint `{saved}`, but "
                f"the resumed run is to start from checkpoint `{checkpoint_id}`; a file holds one run, "
                "continued from the checkpoint it saved. Resume with the checkpoint ID the file names, or "
                "record the other run to a new file.",
                path=path,
            )
        topology = run.segments[-1].topology
        return Continuation(
            checkpoint_id=saved,
            segments=len(run.segments),
            values=run.value_count,
            topology_json=None if topology is None else topology_json(topology),
            graph_name=run.segments[-1].graph_name,
            size=path.stat().st_size,
        )


def check_resumed_from(continuation: Continuation, resumed_from: str | None, path: Path) -> None:
    """Raise `RunFileError` unless the starting run resumed from the checkpoint the file saved."""
    if resumed_from == continuation.checkpoint_id:
        return
    what = (
        "a new run (no checkpoint was restored: the run had no `checkpoint_id`, or its store "
        "holds no checkpoint under it)"
        if resumed_from is None
        else f"a run resumed from checkpoint `{resumed_from}`"
    )
    raise RunFileError(
        f"not recording into it: the file's interrupted run saved checkpoint "
        f"`{continuation.checkpoint_id}`, and this is {what}. Resume with "
        f"`checkpoint_id={continuation.checkpoint_id!r}`, or record this run to a new file.",
        path=path,
    )


def segment_line(
    continuation: Continuation,
    topology: Topology | None,
    graph_name: str,
    started: str,
    input: Any,
    meta: Any,
) -> dict[str, Any]:
    """The `segment` line that opens a resumed run (`input` and `meta` already encoded, None/{} when
    there are none): the topology and its fields only when they differ from what applied before."""
    segment: dict[str, Any] = {
        "kind": "segment",
        "index": continuation.segments,
        "resumed_from": continuation.checkpoint_id,
        "started_at": started,
    }
    if topology is not None and topology_json(topology) != continuation.topology_json:
        segment["graph_name"] = graph_name or topology.name
        segment["trigger_mode"] = topology.trigger_mode.value
        segment["max_run_steps"] = topology.max_run_steps
        segment["topology"] = topology_json(topology)
    if input is not None:
        segment["input"] = input
    if meta:
        segment["meta"] = meta
    return segment
