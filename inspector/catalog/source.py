"""Run sources, opened by what they are: one module per kind, registered here by name.

A source kind finds runs (`find`: the runs a path holds, and what it skipped), says what each run's
first and last lines say (`summarize`, cheap) and opens a run whole (`open`: the same `Run` every
command reads) for the walk that finds its diagnostics and statistics. The catalog, the listing and
the run browser only talk to this interface: they never ask which kind a run came from.

Kinds that are planned but not built yet (LangGraph checkpointers, OTLP trace files) are known by name
and by the first bytes of their files, so naming one is refused with a sentence saying so (status 2)
rather than listed as "not a run file".

    kind = kind_for("runfile"); kind.find(Path("runs/"), found.append)
    `inspector runs runfile:runs/` names the kind explicitly; without a prefix it is detected.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from inspector.catalog.errors import CatalogError
from inspector.catalog.record import RunRecord

__all__ = [
    "PLANNED",
    "Found",
    "Skipped",
    "SourceKind",
    "kind_for",
    "kinds",
    "planned_kind_of",
    "register",
    "split_spec",
]


@dataclass(frozen=True)
class Found:
    """A run a source holds: `path` as found (shown), `key` the resolved path the index uses."""

    path: str
    key: str
    kind: str
    version: tuple[int, int, str] | None = None
    """The file's version when finding it already read it (size, mtime in ns, head hash)."""


@dataclass
class Skipped:
    """What a search passed over: files that are not runs, and files it could not read (with why)."""

    not_runs: list[str] = field(default_factory=lambda: [])
    unreadable: list[tuple[str, str]] = field(default_factory=lambda: [])


class SourceKind(Protocol):
    """One kind of run source (see the module docstring)."""

    name: str

    def find(self, spec: str, skipped: Skipped) -> Iterator[Found]:
        """The runs `spec` holds; what is passed over goes into `skipped`. `CatalogError` when `spec`
        itself cannot be opened (missing, unreadable, another kind)."""
        ...

    def changed(self, found: Found, known: tuple[int, int, str] | None) -> tuple[int, int, str] | None:
        """The run's version (size, mtime in ns, a hash of its head), or None when it equals `known`
        (nothing to read again)."""
        ...

    def summarize(self, found: Found, *, now: float) -> RunRecord:
        """The run's record from its first and last lines (never raises for a bad run: a corrupt one is
        a record with status `corrupt` and the reason)."""
        ...

    def open(self, found: Found) -> Any:
        """The whole run, as `inspector.recording.Run`."""
        ...


_KINDS: dict[str, SourceKind] = {}

PLANNED = {
    "langgraph": "LangGraph checkpointers (a SQLite file or a postgresql:// URL)",
    "otlp": "OTLP trace files (OTLP JSON as the OpenTelemetry Collector writes it)",
}
"""Kinds known by name, not readable yet: refused with a clear message."""

_SQLITE = b"SQLite format 3\x00"


def register(kind: SourceKind) -> None:
    """Make `kind` available by its name (a later registration of the same name replaces it)."""
    _KINDS[kind.name] = kind


def kinds() -> list[str]:
    return sorted(_KINDS)


def kind_for(name: str) -> SourceKind:
    """The registered kind `name`; `CatalogError` for a planned or unknown one. The built-in kinds are
    registered by the package (`inspector/catalog/__init__.py`), so this module knows none of them."""
    kind = _KINDS.get(name)
    if kind is not None:
        return kind
    if name in PLANNED:
        raise CatalogError(
            f"source kind `{name}` ({PLANNED[name]}) cannot be read yet; the catalog reads run files "
            f"and folders of them (`inspector record ... -o RUN.jsonl`)"
        )
    known = ", ".join(f"`{k}`" for k in sorted(_KINDS) + sorted(PLANNED))
    raise CatalogError(f"unknown source kind `{name}`: the kinds are {known}")


def split_spec(spec: str) -> tuple[str | None, str]:
    """`KIND:WHERE` when the spec names a kind (a word before the colon that is not an existing path
    nor a URL scheme's `//`), else (None, spec): detected from what the path is."""
    head, sep, rest = spec.partition(":")
    if (
        sep
        and head.isidentifier()
        and len(head) > 1
        and not rest.startswith("//")
        and not Path(spec).exists()
    ):
        return head, rest
    return None, spec


def planned_kind_of(path: Path, head: bytes) -> str | None:
    """The planned kind a file's first bytes say it is (a SQLite file: a checkpointer; OTLP JSON)."""
    if head.startswith(_SQLITE):
        return "langgraph"
    stripped = head.lstrip()
    if stripped.startswith(b"{") and b'"resourceSpans"' in stripped[:64]:
        return "otlp"
    return None
