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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from inspector.catalog.errors import CatalogError
from inspector.catalog.facts import facts_of
from inspector.catalog.index import Index
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
        """Every run the sources hold, once each (a file named twice, or reached through a link, counts once)."""
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
    ) -> Scan:
        scan = Scan()
        found = self.find(specs, scan.skipped)
        known = self.index.rows(f.key for _, f in found)
        now = self.clock()
        for kind, run in found:
            row = known.get(run.key)
            record = self._record(kind, run, row, now=now, walk=walk)
            scan.records.append(record)
            if on_record is not None:
                on_record(record)
        self.index.commit()
        return scan

    def _record(self, kind: SourceKind, run: Found, row: object, *, now: float, walk: bool) -> RunRecord:
        version, data, facts = row if row is not None else (None, None, None)  # pyright: ignore[reportGeneralTypeIssues]
        fresh = kind.changed(run, version)  # pyright: ignore[reportArgumentType]
        # A run without `run_finished` is read again every time: its lock or its age may have changed.
        if fresh is None and data is not None and data.get("status") not in ("running", "incomplete"):
            record = RunRecord.from_json(
                data, path=run.path, key=run.key, facts=None if facts is None else RunFacts.from_json(facts)
            )
            stored = False
            fresh = version
        else:
            record = kind.summarize(run, now=now)
            stored = True
        if walk and record.facts is None and record.status != "corrupt":
            self._walk(kind, run, record)
            stored = True
        if stored and fresh is not None:
            self.index.put(run.key, fresh, record.to_json(), None if record.facts is None else record.facts.to_json())  # pyright: ignore[reportArgumentType]
        return record

    def _walk(self, kind: SourceKind, run: Found, record: RunRecord) -> None:
        import warnings

        from inspector.errors import RunFileError

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                record.facts = facts_of(kind.open(run))
        except RunFileError as exc:
            record.status, record.reason = "corrupt", " ".join(str(exc).split())
        except (OSError, ValueError) as exc:
            record.status, record.reason = "corrupt", f"cannot be read: {exc}"
        else:
            record.steps = record.facts.steps

    def open(self, record: RunRecord) -> object:
        """The whole run behind a record (for the browser and `topology --run`)."""
        return kind_for(record.kind).open(Found(record.path, record.key, record.kind))

    def close(self) -> None:
        self.index.close()


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
