"""The catalog: the runs a set of sources holds, each as a `RunRecord`, read through the index.

    catalog = Catalog(index=default_index_path())
    scan = catalog.scan(["runs/", "ci/run-17.jsonl"], walk=False)
    scan.records, scan.skipped.not_runs, catalog.notes

`scan` asks each source's kind for its runs, then for each run either takes the index's record (the
file's version did not change) or reads its head and tail again. With `walk`, a run not walked at
this version is opened whole and walked (`facts_of`) once, and the facts kept. Records come out in
the order found, one at a time through `on_record` as well, for a screen that lists runs as they are
read.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.catalog.errors import CatalogError
from inspector.catalog.facts import facts_of
from inspector.catalog.index import Index, Row, Version
from inspector.catalog.record import RunFacts, RunRecord
from inspector.catalog.source import Found, Skipped, SourceKind, kind_for, planned_kind_of, split_spec

__all__ = ["Catalog", "Scan"]


@dataclass
class Scan:
    """What a scan found: the runs' records, and what it skipped."""

    records: list[RunRecord] = field(default_factory=lambda: [])
    skipped: Skipped = field(default_factory=Skipped)


class Catalog:
    """See the module docstring. `index` None keeps the index in memory for this process only; `clock`
    is injected for tests (a run without `run_finished` is running while it grew recently)."""

    def __init__(self, *, index: Path | None, clock: Callable[[], float] = time.time) -> None:
        self.notes: list[str] = []
        self.index = Index(index, self.notes)
        self.clock = clock

    def find(self, specs: Sequence[str], skipped: Skipped) -> list[tuple[SourceKind, Found]]:
        """Every run the sources hold, once each (a file named twice, or reached through a link,
        counts once)."""
        out: list[tuple[SourceKind, Found]] = []
        seen: set[str] = set()
        for spec in specs:
            name, where = split_spec(spec)
            if name is None:
                name = _detect(where)
            kind = kind_for(name)
            for found in kind.find(where, skipped):
                if found.key not in seen:
                    seen.add(found.key)
                    out.append((kind, found))
        return out

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
        found = self.find(specs, scan.skipped)
        known = self.index.rows(f.key for _, f in found)
        now = self.clock()
        unwalked: list[tuple[SourceKind, Found, RunRecord, Version | None]] = []
        for kind, run in found:
            record, version, stale = self._record(kind, run, known.get(run.key), now=now)
            scan.records.append(record)
            if walk and record.facts is None and record.status != "corrupt":
                unwalked.append((kind, run, record, version))
            elif stale and version is not None:
                self._keep(run, version, record)
            if on_record is not None:
                on_record(record)
        if unwalked:
            for (_, run, record, version), outcome in zip(unwalked, _walk_all(unwalked, jobs), strict=True):
                _apply(record, outcome)
                if version is not None:
                    self._keep(run, version, record)
        self.index.commit()
        return scan

    def _record(
        self, kind: SourceKind, run: Found, row: Row | None, *, now: float
    ) -> tuple[RunRecord, Version | None, bool]:
        """The run's record, its version, and whether the index must be told (it was read again)."""
        version, data, facts = row if row is not None else (None, None, None)
        fresh = kind.changed(run, version)
        # A run without `run_finished` is read again every time: its lock or its age may have changed.
        if fresh is None and data is not None and data.get("status") not in ("running", "incomplete"):
            record = RunRecord.from_json(
                data, path=run.path, key=run.key, facts=None if facts is None else RunFacts.from_json(facts)
            )
            return record, version, False
        return kind.summarize(run, now=now), fresh or version, True

    def _keep(self, run: Found, version: Version, record: RunRecord) -> None:
        facts = None if record.facts is None else record.facts.to_json()
        self.index.put(run.key, version, record.to_json(), facts)

    def open(self, record: RunRecord) -> object:
        """The whole run behind a record (for the browser and `topology --run`)."""
        return kind_for(record.kind).open(Found(record.path, record.key, record.kind))

    def close(self) -> None:
        self.index.close()


Outcome = tuple[str, dict[str, Any] | None]
"""What walking a run gave: its facts as JSON, or ("corrupt: ...", None) with the reason."""


def walk_one(kind: SourceKind, run: Found) -> Outcome:
    """Open `run` whole and walk it (`facts_of`); a run that cannot be read is corrupt, with the reason."""
    from inspector.errors import RunFileError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "", facts_of(kind.open(run)).to_json()
    except RunFileError as exc:
        return " ".join(str(exc).split()), None
    except (OSError, ValueError) as exc:
        return f"cannot be read: {exc}", None


def _walk_all(unwalked: Sequence[tuple[SourceKind, Found, RunRecord, Any]], jobs: int) -> list[Outcome]:
    """Each run walked, in `jobs` forked processes taking every `jobs`-th run when there are enough of
    them to be worth a process (`inspector.forked`: a part that fails is done again here)."""
    from inspector.forked import do_in_parts

    parts = max(1, min(jobs, len(unwalked) // _PER_PROCESS))

    def part(k: int) -> list[Outcome]:
        return [walk_one(kind, run) for kind, run, _, _ in unwalked[k::parts]]

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
    record.facts = RunFacts.from_json(facts)
    record.steps = record.facts.steps


def _detect(where: str) -> str:
    """The kind a spec without `KIND:` is: a planned kind when a file's first bytes say so, else run files."""
    path = Path(where)
    if path.is_file():
        try:
            with path.open("rb") as f:
                head = f.read(64)
        except OSError as exc:
            raise CatalogError(f"{where}: cannot be read ({exc.strerror or exc})") from None
        planned = planned_kind_of(path, head)
        if planned is not None:
            return planned
    if "://" in where:
        scheme = where.split("://", 1)[0]
        return "langgraph" if scheme.startswith("postgres") else scheme
    return "runfile"
