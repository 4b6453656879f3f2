"""Choosing and showing runs: the filters of `inspector runs`, sorting, and the table, JSON and CSV.

Filters that need a walk over a run's steps (`visited`, `diag`) say so (`Filters.need_walk`), so the
catalog walks only when one is asked for; the others read the record the header and tail gave.
"""

from __future__ import annotations

import csv
import fnmatch
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from inspector.catalog.errors import CatalogError
from inspector.catalog.record import FIELDS, STATUSES, RunRecord

__all__ = [
    "COLUMNS",
    "RIGHT",
    "WIDE",
    "Filters",
    "cells",
    "parse_time",
    "select",
    "sort_records",
    "to_csv",
    "to_json",
    "to_table",
]

COLUMNS = (
    "id",
    "path",
    "graph",
    "status",
    "steps",
    "model",
    "tools",
    "tokens",
    "duration",
    "started",
    "diagnostics",
    "tags",
)
"""The columns of a listing, in order: the table, the CSV and the run browser all show these."""
RIGHT = frozenset({"steps", "model", "tools", "tokens", "duration"})
"""The columns aligned right (numbers)."""
WIDE = frozenset({"path", "graph"})
"""The columns whose text runs long: a screen as narrow as 80 columns shows them last."""
_COLUMN_FIELDS = {"model": "model_calls", "tools": "tool_calls", "started": "started_at"}


def parse_time(text: str, *, option: str) -> datetime:
    """An ISO date or date-time (`2026-02-03`, `2026-02-03T10:00`, with an offset or not: UTC then)."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise CatalogError(
            f"{option} `{text}` is not an ISO date or time (for example 2026-02-03 or 2026-02-03T10:00)"
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _started(record: RunRecord) -> datetime | None:
    try:
        moment = datetime.fromisoformat(record.started_at)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@dataclass
class Filters:
    """What `inspector runs` keeps: every filter given must hold. `graph` is a glob over the graph
    (target or name); `tags` are `KEY=VALUE` pairs; `where` a parsed `--where`."""

    status: list[str] = field(default_factory=lambda: [])
    graph: list[str] = field(default_factory=lambda: [])
    visited: list[str] = field(default_factory=lambda: [])
    diag: list[str] = field(default_factory=lambda: [])
    since: datetime | None = None
    until: datetime | None = None
    tags: list[tuple[str, str]] = field(default_factory=lambda: [])
    where: Callable[[RunRecord], bool] | None = None

    def __post_init__(self) -> None:
        unknown = [s for s in self.status if s not in STATUSES]
        if unknown:
            raise CatalogError(
                f"--status `{unknown[0]}` is not a status; the statuses are {', '.join(STATUSES)}"
            )

    @property
    def need_walk(self) -> bool:
        return bool(self.visited or self.diag)

    def keeps(self, record: RunRecord) -> bool:
        if self.status and record.status not in self.status:
            return False
        if self.graph and not any(fnmatch.fnmatchcase(record.graph, g) for g in self.graph):
            return False
        if self.visited and not all(node in (record.visited or ()) for node in self.visited):
            return False
        if self.diag and not any(code in (record.diagnostics or ()) for code in self.diag):
            return False
        if self.since is not None or self.until is not None:
            started = _started(record)
            if started is None:
                return False
            if self.since is not None and started < self.since:
                return False
            if self.until is not None and started > self.until:
                return False
        if any(record.tags.get(k) != v for k, v in self.tags):
            return False
        return self.where is None or self.where(record)


def select(records: Sequence[RunRecord], filters: Filters) -> list[RunRecord]:
    return [r for r in records if filters.keeps(r)]


def sort_records(records: Sequence[RunRecord], spec: str | None) -> list[RunRecord]:
    """Sorted by `spec` (a field; `-field` for descending), else by start time then path."""
    if not spec:
        return sorted(records, key=lambda r: (r.started_at, r.path))
    descending = spec.startswith("-")
    name = _COLUMN_FIELDS.get(spec.lstrip("-"), spec.lstrip("-"))
    if name not in FIELDS:
        raise CatalogError(
            f"--sort `{spec}`: no field `{name}`; sort by one of {', '.join(FIELDS)} "
            "(`--sort=-FIELD` for descending)"
        )

    def key(record: RunRecord) -> tuple[int, object, str]:
        value = record.field(name)
        return (value is None, value if value is not None else 0, record.path)

    ordered = sorted(records, key=key, reverse=descending)
    if descending:  # runs without a value stay last either way
        ordered = [r for r in ordered if r.field(name) is not None] + [
            r for r in ordered if r.field(name) is None
        ]
    return ordered


def cells(record: RunRecord) -> tuple[str, ...]:
    """A record's table cells, in `COLUMNS` order."""
    diagnostics = record.diagnostics
    return (
        record.id,
        record.path,
        record.graph,
        record.status,
        str(record.steps),
        str(record.model_calls),
        str(record.tool_calls),
        str(record.tokens),
        "" if record.duration is None else f"{record.duration:.3f}s",
        record.started_at.replace("+00:00", "Z"),
        "?" if diagnostics is None else (",".join(diagnostics) or "-"),
        ",".join(f"{k}={v}" for k, v in sorted(record.tags.items())),
    )


def to_table(records: Sequence[RunRecord]) -> str:
    """Aligned columns with a header line; numbers right-aligned; a corrupt run's reason under it."""
    rows = [COLUMNS, *map(cells, records)]
    widths = [max(map(len, column)) for column in zip(*rows, strict=True)]
    line = "  ".join(
        f"{{:{'>' if name in RIGHT else '<'}{width}}}" for name, width in zip(COLUMNS, widths, strict=True)
    ).format
    out = [line(*COLUMNS).rstrip()]
    for record, row in zip(records, rows[1:], strict=True):
        out.append(line(*row).rstrip())
        if record.reason:
            out.append(f"        {record.status}: {record.reason}")
    return "\n".join(out) + "\n"


def to_json(records: Sequence[RunRecord]) -> str:
    return json.dumps([r.to_json() for r in records], indent=2, ensure_ascii=False) + "\n"


def to_csv(records: Sequence[RunRecord]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*COLUMNS, "run_id", "reason"])
    for record in records:
        row = list(cells(record))
        row[8] = "" if record.duration is None else str(record.duration)
        row[9] = record.started_at
        row[10] = "" if record.diagnostics is None else " ".join(record.diagnostics)
        writer.writerow([*row, record.run_id, record.reason])
    return buffer.getvalue()
