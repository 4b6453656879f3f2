"""Run sources, opened by what they are: one module per kind, registered here by name.

A kind claims files by their first bytes (`claims`), says which runs a file it claims holds
(`runs_in`: one for a run file, every thread of a LangGraph checkpointer, every run of an OTLP trace
file) or a URL names (`runs_at`, for the URL `schemes` it takes), what each run's record is
(`summarize`, cheap where the kind allows) and opens a run whole (`open`: the same `Run` every command
reads; `run_file`: a run file holding it, for readers that follow a file, such as the replay TUI). The
catalog, the listing, the fleet overlay and the run browser only talk to this interface: they never
ask which kind a run came from.

    kind = kind_claiming(path, head)      # or kind_for("runfile"), kind_for_scheme("postgresql")
    for found in kind.runs_in(str(path), key, version): ...
    `inspector runs runfile:runs/` names the kind explicitly; without a prefix it is detected.

The built-in kinds are registered by the package (`inspector/catalog/__init__.py`), so this module
imports none of them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from inspector.catalog.errors import CatalogError
from inspector.catalog.index import Version
from inspector.catalog.record import RunRecord

__all__ = [
    "Found",
    "Skipped",
    "SourceKind",
    "kind_claiming",
    "kind_for",
    "kind_for_scheme",
    "kinds",
    "masked_url",
    "register",
    "split_spec",
    "stat_version",
]


@dataclass(frozen=True)
class Found:
    """A run a source holds: `path` as shown, `key` what the index files it under, `version` what says
    whether it changed since the index read it, `part` its name inside a source holding many, `where`
    the location its kind opens (a resolved path, or a URL that may carry a password: never stored)."""

    path: str
    key: str
    kind: str
    version: Version
    part: str = ""
    where: str = ""


@dataclass
class Skipped:
    """What a search passed over: files that are not runs, and files it could not read (with why)."""

    not_runs: list[str] = field(default_factory=lambda: [])
    unreadable: list[tuple[str, str]] = field(default_factory=lambda: [])


class SourceKind(Protocol):
    """One kind of run source (see the module docstring)."""

    name: str
    description: str
    """What its sources are, for messages: "LangGraph checkpointers (...)"."""
    schemes: tuple[str, ...]
    """URL schemes it reads (`postgresql`), none for file kinds."""
    listing: bool
    """Whether a source of this kind is a list of runs even when it holds one (a checkpointer, whose
    thread is named to open it), rather than that run (a run file; a trace file of one run)."""

    def claims(self, path: Path, head: bytes) -> bool:
        """Whether a file starting with `head` is this kind's."""
        ...

    def runs_in(self, path: str, key: str, version: Version) -> Iterator[Found]:
        """The runs in the file at `path` (shown as given; `key` its resolved path, `version` its
        `stat_version`). `CatalogError` with the reason when it cannot be read as this kind."""
        ...

    def runs_at(self, url: str) -> Iterator[Found]:
        """The runs at `url` (one of `schemes`); `CatalogError` when it cannot be reached or read."""
        ...

    def summarize(self, found: Found, *, now: float) -> RunRecord:
        """The run's record (never raises for a bad run: a corrupt one is a record with status
        `corrupt` and the reason)."""
        ...

    def open(self, found: Found) -> Any:
        """The whole run, as `inspector.recording.Run`."""
        ...

    def run_file(self, found: Found) -> Path:
        """A run file holding the run (the file itself, or one converted into a cache folder)."""
        ...


_KINDS: dict[str, SourceKind] = {}


def register(kind: SourceKind) -> None:
    """Make `kind` available by its name (a later registration of the same name replaces it). Kinds
    claim files in the order they were registered."""
    _KINDS[kind.name] = kind


def kinds() -> list[str]:
    return sorted(_KINDS)


def _known() -> str:
    return "; ".join(f"`{k.name}`: {k.description}" for k in _KINDS.values())


def kind_for(name: str) -> SourceKind:
    """The registered kind `name`; `CatalogError` naming the kinds for an unknown one."""
    kind = _KINDS.get(name)
    if kind is None:
        raise CatalogError(f"unknown source kind `{name}`: the kinds are {_known()}")
    return kind


def kind_for_scheme(url: str) -> SourceKind:
    """The kind that reads URLs like `url` (by its scheme); `CatalogError` when none does."""
    scheme = url.split("://", 1)[0].lower()
    for kind in _KINDS.values():
        if scheme in kind.schemes:
            return kind
    raise CatalogError(
        f"{masked_url(url)}: no source kind reads `{scheme}://` URLs; the kinds are {_known()}"
    )


def kind_claiming(path: Path, head: bytes) -> SourceKind | None:
    """The first registered kind that claims a file starting with `head`."""
    for kind in _KINDS.values():
        if kind.claims(path, head):
            return kind
    return None


def stat_version(info: os.stat_result) -> Version:
    """A file's version without reading it: size, modification time, and its inode and change time
    (which no tool sets back: a file rewritten or replaced and given its old modification time again
    is still a new version)."""
    return (info.st_size, info.st_mtime_ns, f"{info.st_ino}:{info.st_ctime_ns}")


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


def masked_url(url: str) -> str:
    """`url` without its password (`postgresql://ana:***@db/runs`): what is shown and kept in the index."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        port = f":{parts.port}" if parts.port is not None else ""
        return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}{port}"))
    except ValueError:  # a port that is no number: shown without anything after the scheme
        return url.split("://", 1)[0] + "://***"
