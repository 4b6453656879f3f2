"""The catalog: the runs a set of sources holds, each as a `RunRecord`, read through the index.

    catalog = Catalog(index=default_index_path())
    scan = catalog.scan(["runs/", "ci/run-17.jsonl", "checkpoints.sqlite", "traces.json"], walk=False)
    scan.records, scan.skipped.not_runs, catalog.notes

`find` turns each source into its runs: a folder is searched (`folder.search`) and each file in it is
given to the kind that claims its first bytes, except a file the index already knows at the same
version, which is not opened at all; a file named directly is given to the kind that claims it; a URL
to the kind that reads its scheme; `KIND:WHERE` names the kind. `scan` then takes each run's record
from the index when its version did not change, or asks its kind to summarize it again. With `walk`,
a run not walked at this version is opened whole and walked (`facts_of`) once, and the facts kept.
Records come out in the order found, one at a time through `on_record` as well, for a screen that
lists runs as they are read.
"""

from __future__ import annotations

import os
import stat
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.catalog.errors import CatalogError
from inspector.catalog.facts import facts_of
from inspector.catalog.folder import search
from inspector.catalog.index import Index, Row
from inspector.catalog.record import RunFacts, RunRecord
from inspector.catalog.source import (
    Found,
    Skipped,
    SourceKind,
    kind_claiming,
    kind_for,
    kind_for_scheme,
    kinds,
    split_spec,
    stat_version,
)

__all__ = ["HEAD", "Catalog", "Scan", "holds_many", "open_record", "read_head", "record_run_file"]

HEAD = 512
"""Bytes of a file's start that tell its kind."""


@dataclass
class Scan:
    """What a scan found: the runs' records, and what it skipped."""

    records: list[RunRecord] = field(default_factory=lambda: [])
    skipped: Skipped = field(default_factory=Skipped)


def read_head(path: str) -> bytes:
    """The first `HEAD` bytes of the file at `path` (OSError when it cannot be read)."""
    with open(path, "rb") as f:
        return f.read(HEAD)


class Catalog:
    """See the module docstring. `index` None keeps the index in memory for this process only; `clock`
    is injected for tests (a run without `run_finished` is running while it grew recently)."""

    def __init__(self, *, index: Path | None, clock: Callable[[], float] = time.time) -> None:
        self.notes: list[str] = []
        self.index = Index(index, self.notes)
        self.clock = clock
        self._rows: dict[str, Row] = {}

    # -- finding runs -----------------------------------------------------------------------------

    def find(self, specs: Sequence[str], skipped: Skipped) -> list[tuple[SourceKind, Found]]:
        """Every run the sources hold, once each (a file named twice, or reached through a link,
        counts once)."""
        out: list[tuple[SourceKind, Found]] = []
        seen: set[str] = set()

        def add(kind: SourceKind, found: Found) -> None:
            if found.key not in seen:
                seen.add(found.key)
                out.append((kind, found))

        for spec in specs:
            name, where = split_spec(spec)
            only = None if name is None else kind_for(name)
            if "://" in where and not Path(where).exists():
                kind = only or kind_for_scheme(where)
                for found in _reading(where, kind.runs_at, where):
                    add(kind, found)
                continue
            info = _stat(where)
            if stat.S_ISDIR(info.st_mode):
                self._search(where, skipped, add, only)
                continue
            if not stat.S_ISREG(info.st_mode):
                raise CatalogError(f"{where} is not a regular file nor a folder (a FIFO or a device?)")
            try:
                head = read_head(where)
            except OSError as exc:
                raise CatalogError(f"{where}: cannot be read ({exc.strerror or exc})") from None
            kind = _claimant(where, head, only)
            key = os.path.realpath(where)
            for found in _reading(where, kind.runs_in, where, key, stat_version(info)):
                add(kind, found)
        return out

    def _search(
        self, root: str, skipped: Skipped, add: Callable[[SourceKind, Found], None], only: SourceKind | None
    ) -> None:
        """The runs in the files under `root`: a file the index knows at this version as one run is
        not opened; any other is claimed by its first bytes, and what no kind claims is skipped."""
        entries = list(search(root, skipped))
        self._rows.update(self.index.rows(e.key for e in entries))
        for entry in entries:
            row = self._rows.get(entry.key)
            if row is not None and row[0] == entry.version:
                kind = kind_for(row[1].get("kind", "runfile"))
                if only is None or kind is only:
                    add(kind, Found(entry.path, entry.key, kind.name, entry.version, where=entry.key))
                    continue
            try:
                head = read_head(entry.path)
            except OSError as exc:
                skipped.unreadable.append((entry.path, exc.strerror or str(exc)))
                continue
            claimant = kind_claiming(Path(entry.path), head)
            if claimant is None or (only is not None and claimant is not only):
                skipped.not_runs.append(entry.path)
                continue
            try:
                for found in claimant.runs_in(entry.path, entry.key, entry.version):
                    add(claimant, found)
            except CatalogError as exc:  # a checkpointer or trace file that cannot be read: named
                skipped.unreadable.append((entry.path, _without_path(str(exc), entry.path)))

    # -- reading records --------------------------------------------------------------------------

    def scan(
        self,
        specs: Sequence[str],
        *,
        walk: bool = False,
        on_record: Callable[[RunRecord], None] | None = None,
        jobs: int = 1,
    ) -> Scan:
        """Every run's record (see the module docstring). With `walk`, the runs not walked at their
        version are walked, in `jobs` processes at once when there are many (forked: only from a
        process without threads of its own, the CLI; the browser reads without walking)."""
        scan = Scan()
        self._rows = {}  # what an earlier scan read of the index may have changed since
        found = self.find(specs, scan.skipped)
        missing = [f.key for _, f in found if f.key not in self._rows]
        self._rows.update(self.index.rows(missing))
        now = self.clock()
        unwalked: list[tuple[SourceKind, Found, RunRecord]] = []
        for kind, run in found:
            record, stale = self._record(kind, run, self._rows.get(run.key), now=now, walk=walk)
            scan.records.append(record)
            if walk and record.facts is None and record.status != "corrupt":
                unwalked.append((kind, run, record))
            elif stale:
                self._keep(run, record)
            if on_record is not None:
                on_record(record)
        if unwalked:
            for (_, run, record), outcome in zip(unwalked, _walk_all(unwalked, jobs), strict=True):
                _apply(record, outcome)
                self._keep(run, record)
        self.index.commit()
        return scan

    def _record(
        self, kind: SourceKind, run: Found, row: Row | None, *, now: float, walk: bool
    ) -> tuple[RunRecord, bool]:
        """The run's record, and whether the index must be told (it was read again)."""
        if row is not None and row[0] == run.version:
            _, data, facts = row
            # A run without `run_finished` is read again every time: its lock or its age may have changed.
            if data.get("status") not in ("running", "incomplete"):
                record = RunRecord.from_json(data, path=run.path, key=run.key, where=run.where)
                if walk and facts is not None:
                    import json

                    record.facts = RunFacts.from_json(json.loads(facts))
                return record, False
        return kind.summarize(run, now=now), True

    def _keep(self, run: Found, record: RunRecord) -> None:
        facts = None if record.facts is None else record.facts.to_json()
        self.index.put(run.key, run.version, record.to_json(), facts)

    def close(self) -> None:
        self.index.close()


def _found(record: RunRecord) -> tuple[SourceKind, Found]:
    kind = kind_for(record.kind)
    return kind, Found(record.path, record.key, record.kind, (0, 0, ""), record.part, record.where)


def open_record(record: RunRecord) -> Any:
    """The whole run behind a listed record (`inspector.recording.Run`)."""
    kind, run = _found(record)
    return kind.open(run)


def record_run_file(record: RunRecord) -> Path:
    """A run file holding the run behind a listed record (the file itself, or the one its source kind
    converts it to): for the replay TUI and the diff, which read files."""
    kind, run = _found(record)
    return kind.run_file(run)


def holds_many(spec: str) -> bool:
    """Whether a source is a list of runs rather than one run, for the commands that read one run and
    take a list too (`replay` opens the run browser, `topology --run` sums them): a folder, a URL, a
    named kind, a checkpointer, a trace file of several runs. False for a run file, and for what cannot
    be read (the command reading it then says what is wrong)."""
    name, where = split_spec(spec)
    if name is not None:
        return name in kinds()
    if "://" in where and not Path(where).exists():
        return True
    try:
        info = os.stat(where)
        if stat.S_ISDIR(info.st_mode):
            return True
        if not stat.S_ISREG(info.st_mode):
            return False
        head = read_head(where)
    except OSError:
        return False
    kind = kind_claiming(Path(where), head)
    if kind is None:
        return False
    if kind.listing:
        return True
    try:
        return len(list(kind.runs_in(where, os.path.realpath(where), stat_version(info)))) > 1
    except (CatalogError, OSError, ValueError):
        return False


def _stat(where: str) -> os.stat_result:
    try:
        return os.stat(where)
    except FileNotFoundError:
        raise CatalogError(f"{where}: no such file or folder") from None
    except OSError as exc:
        raise CatalogError(f"{where}: cannot be read ({exc.strerror or exc})") from None


def _claimant(where: str, head: bytes, only: SourceKind | None) -> SourceKind:
    """The kind of a file named directly: `only` when it claims the file, else the first that does."""
    claimant = kind_claiming(Path(where), head) if only is None else only
    if claimant is not None and claimant.claims(Path(where), head):
        return claimant
    if only is not None:
        raise CatalogError(f"{where} is not one of the {only.description}")
    raise CatalogError(
        f"{where} is not a run file (its first line is no run header), a LangGraph checkpointer nor an "
        "OTLP trace file; name a run file (`inspector record ... -o RUN.jsonl`), a folder of them, a "
        "checkpointer or a trace file"
    )


def _reading(where: str, find: Callable[..., Any], *args: Any) -> list[Found]:
    """What a kind's `runs_in`/`runs_at` gives, read whole here, so a kind's error is raised before
    any run is listed (and a run it found is never half-read)."""
    try:
        return list(find(*args))
    except CatalogError:
        raise
    except (OSError, ValueError) as exc:
        raise CatalogError(f"{where}: cannot be read ({exc})") from None


def _without_path(message: str, path: str) -> str:
    """A kind's message about a file, without the file's path in front (the listing names it)."""
    return message.removeprefix(f"{path}: ").removeprefix(f"{path} ")


Outcome = tuple[str, dict[str, Any] | None]
"""What walking a run gave: its facts as JSON, or ("corrupt: ...", None) with the reason."""


def walk_one(kind: SourceKind, run: Found) -> Outcome:
    """Open `run` whole and walk it (`facts_of`); a run that cannot be read is corrupt, with the reason."""
    from inspector.errors import InspectorError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "", facts_of(kind.open(run)).to_json()
    except InspectorError as exc:
        return " ".join(str(exc).split()), None
    except (OSError, ValueError) as exc:
        return f"cannot be read: {exc}", None


def _walk_all(unwalked: Sequence[tuple[SourceKind, Found, RunRecord]], jobs: int) -> list[Outcome]:
    """Each run walked, in `jobs` forked processes taking every `jobs`-th run when there are enough of
    them to be worth a process (`inspector.forked`: a part that fails is done again here)."""
    from inspector.forked import do_in_parts

    parts = max(1, min(jobs, len(unwalked) // _PER_PROCESS))

    def part(k: int) -> list[Outcome]:
        return [walk_one(kind, run) for kind, run, _ in unwalked[k::parts]]

    done = do_in_parts(part, parts)
    out: list[Outcome] = [("", None)] * len(unwalked)
    for k, outcomes in enumerate(done):
        out[k::parts] = outcomes
    return out


_PER_PROCESS = 16  # runs a forked walker must have to be worth its start


def _apply(record: RunRecord, outcome: Outcome) -> None:
    reason, facts = outcome
    if facts is None:
        record.status, record.reason = "corrupt", reason
        return
    record.walked(RunFacts.from_json(facts))
