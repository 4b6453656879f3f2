"""A run file's segments, and the order of its steps within each.

A resumed run recorded into the file of the run it continues follows a `segment` line, so one file may
hold several runs of a graph, each counting its steps from 0 as Eino's step counter does. This module
splits the file at those lines (`read_segments`: where each segment starts and stops among the step
lines, which topology and step limit it ran under, how it ended) and checks that step indexes go 0, 1,
2, ... within each (`check_order`). `reader.Run` joins the segments into one timeline on top of them.
"""

from __future__ import annotations

import bisect
import warnings
from pathlib import Path

from inspector.recording.fileindex import RunFile, RunFileWarning
from inspector.recording.format import Header, Interrupted, RunFinished, SegmentStarted
from inspector.recording.model import RunSource, Segment
from inspector.recording.valuelist import plain

__all__ = ["check_order", "read_segments"]

ORDER_WARNINGS = 10
"""Out-of-order step lines warned about one by one (lenient reading); the rest are summed up."""


def read_segments(run: RunSource, file: RunFile) -> list[Segment]:
    """Split the file at its `segment` lines and read how each segment ended. A segment line without a
    topology runs under the one before it (the header's for the first)."""
    header = file.header
    heads = file.segment_heads
    segments: list[Segment] = []
    topology, graph_name, max_steps = header.topology, header.graph_name, header.max_run_steps
    for k, head in enumerate(heads):
        stop_offset = heads[k + 1] if k + 1 < len(heads) else file.end
        opening: Header | SegmentStarted = header
        if k:
            line = file.parse_at(head)
            if not isinstance(line, SegmentStarted):
                raise file.error("expected a segment line", head)
            opening = line
            if line.topology is not None:
                topology, max_steps = line.topology, line.max_run_steps
                graph_name = line.graph_name if line.graph_name is not None else line.topology.name
        segment = Segment(
            run,
            k,
            resumed_from=opening.resumed_from,
            started_at=opening.started_at,
            start=bisect.bisect_left(file.spans, head),
            stop=bisect.bisect_left(file.spans, stop_offset),
            topology=topology,
            graph_name=graph_name,
            max_run_steps=max_steps,
            meta=opening.meta,
            input=opening.input,
            head=head,
            end=stop_offset,
        )
        _read_tail(run, file, segment)
        segments.append(segment)
    return segments


def _read_tail(run: RunSource, file: RunFile, segment: Segment) -> None:
    """How a segment ended, from its last line (and the `interrupted` line before `run_finished`)."""
    data, end = file.data, segment.end
    if end <= 0:
        return
    last = data.rfind(b"\n", 0, end - 1) + 1
    event = file.parse_at(last) if last > segment.head else None
    if isinstance(event, RunFinished):
        segment.status = event.status
        segment.output = plain(run.resolve(event.output))  # JSON-like, for `json.dumps`
        segment.error = event.error
        segment.duration = event.duration
        before = data.rfind(b"\n", 0, last - 1) + 1
        previous = file.parse_at(before) if before > segment.head else None
        if isinstance(previous, Interrupted):
            segment.interrupt = previous
    elif isinstance(event, Interrupted):
        segment.interrupt = event


def check_order(file: RunFile, segments: list[Segment], path: Path, *, lenient: bool) -> None:
    """Top-level step indexes must go 0, 1, 2, ... within each segment, in file order.

    A reordered, duplicated or reversed step line would otherwise read silently: steps shown out of
    order or twice, runs lined up wrongly by `diff`, state deltas applied out of order. Strict reading
    raises at the first such line; lenient reading warns and reads the steps in file order, checking
    each index against the one before it (a skipped corrupt line in between may have held steps or a
    segment line, so any index is taken there). Nested graphs' step lines (with a `path`) are not
    checked: each run of a nested graph counts from 0 again, they are not indexed (checking them would
    mean parsing them at open time), and no state is rebuilt from them.

    Called from `Run.__init__`, which `read_run` calls: the warnings' `stacklevel` points at the caller
    of `read_run`.
    """
    indexes = file.int_indexes()
    skipped = sorted(file.skipped)
    warned = 0
    for segment in segments:
        start, stop = segment.start, segment.stop
        if indexes[start:stop] == list(range(stop - start)):
            continue  # the usual case, checked in C
        expected = 0
        for position in range(start, stop):
            index = indexes[position]
            if index == expected:
                expected += 1
                continue
            offset = file.spans[position]
            after = file.spans[position - 1] if position > start else segment.head
            lost = bisect.bisect_left(skipped, after) < bisect.bisect_left(skipped, offset)
            if index is not None and lost:
                expected = index + 1  # steps (or a segment line) lost with a skipped line
                continue
            line_no = file.line_no(offset)
            where = f" in segment {segment.index}" if len(segments) > 1 else ""
            what = f"step line {line_no} has index {index}, expected {expected}{where}"
            if not lenient:
                raise file.error(
                    f"{what}: the steps are out of order (reordered, duplicated or reversed lines; "
                    "each segment counts its steps from 0). To read it anyway, in file order, use "
                    "`read_run(path, lenient=True)` in Python or `--lenient` on the command line.",
                    offset,
                )
            warned += 1
            if warned <= ORDER_WARNINGS:
                warnings.warn(
                    f"{path}:{line_no}: {what}; steps are read in file order", RunFileWarning, stacklevel=4
                )
            expected = expected if index is None else index + 1
    if warned > ORDER_WARNINGS:
        warnings.warn(
            f"{path}: {warned - ORDER_WARNINGS} more step lines out of order", RunFileWarning, stacklevel=4
        )
