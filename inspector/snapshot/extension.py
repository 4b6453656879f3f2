"""syrupy extensions: one readable snapshot file per assertion, compared as text, explained semantically.

Both extensions store text in syrupy's single-file layout, `__snapshots__/<test file>/<test name>.<kind>.json`
(`topology.json` holds `inspector.export.to_json`, canonical topology JSON; `trajectory.json` holds
`trajectory.to_text`). Comparison is byte-for-byte on that text, so syrupy's update and unused-snapshot
machinery works unchanged. Only the failure explanation is ours: `diff_lines` parses both sides back and
lists what changed in terms of nodes, edges and steps, falling back to syrupy's line diff when a side is
missing or unreadable (a first run, a hand-edited file).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from graph_core.topology import Topology
from inspector.errors import TopologyFormatError
from inspector.export import VERSION, from_json, to_json
from inspector.recording.line_parse import MAX_NESTING, too_deep
from inspector.snapshot.topology_diff import diff_topologies
from inspector.snapshot.trajectory import first_divergence, from_text, to_text

__all__ = ["TopologySnapshotExtension", "TrajectorySnapshotExtension"]

_UPDATE_HINT = "if this change is intended, run `pytest --snapshot-update` and commit the snapshot"


class _Unreadable(str):
    """What a snapshot file that cannot be read as one holds instead of its text: never equal to a
    received value (so the assertion fails, and `--snapshot-update` writes the file again), with
    `problem` saying what is wrong with the file for the failure's explanation."""

    problem: str
    location: str

    def __new__(cls, problem: str, location: str) -> _Unreadable:
        unreadable = super().__new__(cls, "")
        unreadable.problem = problem
        unreadable.location = location
        return unreadable


def _read_problem(error: Exception) -> str:
    if isinstance(error, UnicodeDecodeError):
        return f"is not UTF-8 text (byte 0x{error.object[error.start]:02x} at offset {error.start})"
    if isinstance(error, IsADirectoryError):
        return "is a directory, not a snapshot file"
    if isinstance(error, OSError):
        return f"cannot be read ({error.strerror or error})"
    return str(error)


class _TextSnapshotExtension(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    report_dir: Path | None = None
    """Where `--inspector-report-dir` asks for the pages of a failing snapshot (None: no pages)."""
    test_id: str = ""

    def _explain(self, received: str, stored: str) -> list[str] | None:
        raise NotImplementedError

    def _pages(self, received: str, stored: str) -> list[Path]:
        """The HTML pages of a failing snapshot (see `inspector.report.snapshotpages`)."""
        raise NotImplementedError

    def _page_lines(self, received: str, stored: str) -> Iterator[str]:
        if self.report_dir is None or not stored:
            return
        from inspector.report.snapshotpages import page_name

        try:
            paths = self._pages(received, stored)
        except (OSError, ValueError) as error:  # a page that cannot be written must not hide the failure
            yield f"(inspector report: no page written: {error})"
            return
        yield f"inspector report: {', '.join(str(path) for path in paths)} ({page_name(self.test_id)})"

    def read_snapshot_data_from_location(
        self, *, snapshot_location: str, snapshot_name: str, session_id: str
    ) -> Any:
        """syrupy's read, with a file that is no snapshot this plugin could have written (other bytes
        than UTF-8, a directory in its place, JSON nested past what the explanation may parse) turned
        into an `_Unreadable` that the failure explains."""
        try:
            text = super().read_snapshot_data_from_location(
                snapshot_location=snapshot_location, snapshot_name=snapshot_name, session_id=session_id
            )
        except (UnicodeDecodeError, OSError) as error:
            return _Unreadable(_read_problem(error), snapshot_location)
        if isinstance(text, str) and too_deep(text.encode("utf-8", "surrogatepass")):
            return _Unreadable(
                f"nests arrays and objects more than {MAX_NESTING} levels deep (the limit; graph-inspector "
                "never writes one so deep: the file was damaged or written by something else)",
                snapshot_location,
            )
        return text

    def matches(self, *, serialized_data: Any, snapshot_data: Any) -> bool:
        if isinstance(snapshot_data, _Unreadable):
            return False
        return super().matches(serialized_data=serialized_data, snapshot_data=snapshot_data)

    @classmethod
    def write_snapshot_collection(cls, *, snapshot_collection: Any, name_order: Any = None) -> None:
        """syrupy's write, refusing to replace a directory that stands where the file goes (it may hold
        anything: the person removes it)."""
        location = Path(snapshot_collection.location)
        if location.is_dir():
            raise IsADirectoryError(
                f"cannot write the snapshot {location}: a directory stands in its place; remove it, then "
                "run `pytest --snapshot-update` again"
            )
        super().write_snapshot_collection(snapshot_collection=snapshot_collection, name_order=name_order)

    def diff_lines(self, serialized_data: Any, snapshot_data: Any) -> Iterator[str]:
        if isinstance(snapshot_data, _Unreadable):
            yield from _unreadable_lines(snapshot_data)
            return
        received, stored = str(serialized_data), str(snapshot_data)
        yield from self._page_lines(received, stored)
        explanation = None
        if stored:
            try:
                explanation = self._explain(received, stored)
            except (ValueError, TypeError, KeyError):
                explanation = None
        if not explanation:
            yield from super().diff_lines(serialized_data, snapshot_data)
            return
        yield from explanation
        yield f"({_UPDATE_HINT})"


def _unreadable_lines(unreadable: _Unreadable) -> Iterator[str]:
    yield f"the snapshot file {unreadable.location} {unreadable.problem}"
    if unreadable.problem.startswith("is a directory"):
        yield "(remove that directory, then run `pytest --snapshot-update` to write the snapshot again)"
    else:
        yield "(to write it again from this run, use `pytest --snapshot-update` and commit it)"


class TopologySnapshotExtension(_TextSnapshotExtension):
    """`assert snapshot.use_extension(TopologySnapshotExtension) == compiled_graph_or_agent`."""

    file_extension = "topology.json"

    def serialize(self, data: Any, **kwargs: Any) -> str:
        return to_json(data)

    def _pages(self, received: str, stored: str) -> list[Path]:
        from inspector.report.snapshotpages import page_name, topology_pages

        assert self.report_dir is not None
        return topology_pages(stored, received, self.report_dir, page_name(self.test_id))

    def _explain(self, received: str, stored: str) -> list[str] | None:
        try:
            old, new = from_json(stored), from_json(received)
        except TopologyFormatError:
            return None
        changes = diff_topologies(old, new)
        version = _stored_version(stored)
        if version is not None and version < VERSION:
            lines = [
                f"this snapshot was written in topology format version {version}; this version of "
                f"graph-inspector writes version {VERSION}, which also records tools, models and branch "
                "labels: update your snapshots with `pytest --snapshot-update` (and commit them)"
            ]
            if changes:
                lines.append(f"what the update will add or change ({len(changes)}):")
                lines.extend(f"  - {change.describe()}" for change in changes)
            return lines
        if not changes:
            reorders = _order_changes(old, new, ())
            if not reorders:
                return None
            return ["topology changed only in order (no node or edge was added, removed or changed):"] + [
                f"  - {line}" for line in reorders
            ]
        return [f"topology changed ({len(changes)} change{'s' if len(changes) != 1 else ''}):"] + [
            f"  - {change.describe()}" for change in changes
        ]


def _stored_version(stored: str) -> int | None:
    """The `version` of a stored topology document (already known to be readable)."""
    import json

    try:
        version = json.loads(stored).get("version")
    except (ValueError, AttributeError):
        return None
    return version if isinstance(version, int) else None


def _order_changes(old: Topology, new: Topology, path: tuple[str, ...]) -> list[str]:
    """Node and edge order differences (the stored order is the order of the `add_*` calls), nested too.

    Only called when `diff_topologies` found nothing, so both sides hold the same nodes and edges.
    """
    where = f"in nested graph `{'/'.join(path)}`: " if path else ""
    out: list[str] = []
    old_nodes, new_nodes = [n.key for n in old.nodes], [n.key for n in new.nodes]
    if old_nodes != new_nodes:
        out.append(f"{where}node order: {', '.join(old_nodes)} -> {', '.join(new_nodes)}")
    old_edges = [f"{e.source} -> {e.target}" for e in old.edges]
    new_edges = [f"{e.source} -> {e.target}" for e in new.edges]
    if old_edges != new_edges:
        out.append(f"{where}edge order: {', '.join(old_edges)} -> {', '.join(new_edges)}")
    new_by_key = {n.key: n for n in new.nodes}
    for node in old.nodes:
        twin = new_by_key.get(node.key)
        if node.graph is not None and twin is not None and twin.graph is not None:
            out.extend(_order_changes(node.graph, twin.graph, (*path, node.key)))
    return out


class TrajectorySnapshotExtension(_TextSnapshotExtension):
    """`assert snapshot.use_extension(TrajectorySnapshotExtension) == run` (a `Run` or a run-file path)."""

    file_extension = "trajectory.json"
    _subject: Any = None

    def serialize(self, data: Any, **kwargs: Any) -> str:
        self._subject = data  # the run itself, for the pages of a failure
        return to_text(data)

    def _pages(self, received: str, stored: str) -> list[Path]:
        from inspector.report.snapshotpages import page_name, trajectory_pages

        assert self.report_dir is not None
        if self._subject is None or isinstance(self._subject, dict):
            return []  # a trajectory given as a dict has no run to draw
        return trajectory_pages(self._subject, stored, self.report_dir, page_name(self.test_id))

    def _explain(self, received: str, stored: str) -> list[str] | None:
        divergence = first_divergence(from_text(stored), from_text(received))
        if divergence is None:
            return None
        if divergence.step is None:
            return [f"trajectory differs: {divergence.describe()}"]
        return [f"trajectory diverges at {divergence.describe()}"]
