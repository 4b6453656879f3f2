"""Consent before code: whether the user agreed to run the TARGET a recording names.

A run file is data. Its header's `meta.target` says which code made it, but a recording travels (bug
reports, CI artifacts, chat threads), and importing what a stranger's file names runs the stranger's
code. So the commands that run a recording's target again (`inspector fork`, the replay TUI's `f`)
import it only when the user agreed to, in one of these ways (`Consent`):

- **named**: the user gave the TARGET themselves (`--target`, or typed or confirmed in the TUI);
- **confirmed**: asked, with the target and the file it resolves to shown, the user said yes;
- **recorded here**: this user recorded that very run on this machine. `inspector record`, `debug`,
  `fork` and any `Recorder` given a `meta={"target": ...}` add the run's id, the target and the file
  it resolved to (`TrustEntry`) to a small list in the user's state folder (`trust_file`), as direnv's
  `allow` or an editor's workspace trust do. A pair whose file now resolves elsewhere (another current
  directory shadowing the module, a moved file) no longer matches;
- **bundled**: the target is a module of the example package that ships with the tool (`fixtures`,
  found in the tool's own installation, never a `fixtures` folder elsewhere) and names a graph or agent
  that module built: such a target is imported (the tool's own code) but never called as a factory.

The list is JSON, written atomically (a temporary file renamed over it, under an advisory lock), kept
to its newest `MAX_ENTRIES` runs, and read tolerantly: a corrupt list, or one owned by another user,
counts as empty and says so (`TrustList.note`). Deleting it only brings the question back. Recording
never fails for it: a list that cannot be written is left as it is.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from inspector.errors import TargetError
from inspector.target import TargetSource, locate_target
from inspector.terminaltext import visible

__all__ = [
    "MAX_ENTRIES",
    "STATE_ENV",
    "Consent",
    "TrustEntry",
    "TrustList",
    "bundled_fixtures_dir",
    "consent_for",
    "describe_source",
    "read_trust_list",
    "recorded_target_error",
    "remember_recording",
    "remember_run",
    "trust_file",
]

STATE_ENV = "GRAPH_INSPECTOR_STATE_DIR"
"""The folder that holds the trust list, instead of `$XDG_STATE_HOME/graph-inspector` (tests set it)."""

MAX_ENTRIES = 1_000
"""Runs kept in the list, newest first: an older run the user recorded asks again when forked."""

_FORMAT = "graph-inspector/trusted-runs"


class Consent(Enum):
    """Why a recording's TARGET may be imported (see the module docstring)."""

    NAMED = "named"
    CONFIRMED = "confirmed"
    RECORDED_HERE = "recorded here"
    BUNDLED = "bundled"


@dataclass(frozen=True)
class TrustEntry:
    """One run this user recorded: its id, the TARGET as written, and the file it resolved to."""

    run_id: str
    target: str
    origin: str | None


@dataclass
class TrustList:
    """The entries read from the list, and a note when the file could not be used."""

    path: Path
    entries: list[TrustEntry] = field(default_factory=lambda: [])
    note: str | None = None


def trust_file() -> Path:
    """`$GRAPH_INSPECTOR_STATE_DIR/trusted-runs.json`, else under `$XDG_STATE_HOME/graph-inspector/`,
    else `~/.local/state/graph-inspector/`."""
    override = os.environ.get(STATE_ENV)
    if override:
        return Path(override) / "trusted-runs.json"
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "graph-inspector" / "trusted-runs.json"


def _entries(data: Any) -> list[TrustEntry]:
    if not isinstance(data, dict) or data.get("format") != _FORMAT:  # pyright: ignore[reportUnknownMemberType]
        raise ValueError(f"it is not a {_FORMAT} document")
    runs = data.get("runs")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if not isinstance(runs, list):
        raise ValueError("its `runs` is not a list")
    out: list[TrustEntry] = []
    for item in runs:  # pyright: ignore[reportUnknownVariableType]
        if not isinstance(item, dict):
            raise ValueError("an entry is not an object")
        run_id, target, origin = item.get("run_id"), item.get("target"), item.get("origin")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if not isinstance(run_id, str) or not isinstance(target, str) or not isinstance(origin, str | None):
            raise ValueError("an entry lacks a string `run_id` or `target`")
        out.append(TrustEntry(run_id, target, origin))
    return out


def read_trust_list(path: Path | None = None) -> TrustList:
    """The trust list at `path` (default `trust_file()`); missing is empty, corrupt is empty with a note."""
    path = trust_file() if path is None else path
    try:
        stat = path.stat()
        if hasattr(os, "getuid") and stat.st_uid != os.getuid():
            return TrustList(path, note=f"the trust list {path} belongs to another user, so it is ignored")
        data = json.loads(path.read_bytes())
        return TrustList(path, _entries(data))
    except FileNotFoundError:
        return TrustList(path)
    except (OSError, ValueError, RecursionError) as exc:
        return TrustList(path, note=f"the trust list {path} could not be read ({exc}), so it counts as empty")


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An advisory lock beside the list, so two recordings ending together both keep their entry."""
    try:
        import fcntl
    except ImportError:  # no advisory locks here: the rename still keeps the list whole
        yield
        return
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _write(path: Path, entries: list[TrustEntry]) -> None:
    document = {
        "format": _FORMAT,
        "version": 1,
        "runs": [{"run_id": e.run_id, "target": e.target, "origin": e.origin} for e in entries],
    }
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(document, out, indent=1)
            out.write("\n")
        os.replace(temp, path)
    finally:
        if os.path.exists(temp):
            os.unlink(temp)


def _origin_text(source: TargetSource) -> str | None:
    return None if source.origin is None else str(source.origin)


def remember_run(run_id: str, target: str, *, path: Path | None = None, search_cwd: bool = True) -> None:
    """Add (run id, target, the file it resolves to now) to the list, newest first; raises `OSError` or
    `TargetError` when that cannot be done (`remember_recording` swallows them)."""
    source = locate_target(target, search_cwd=search_cwd)
    path = trust_file() if path is None else path
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    entry = TrustEntry(run_id, target, _origin_text(source))
    with _locked(path):
        kept = [e for e in read_trust_list(path).entries if e != entry]
        _write(path, [entry, *kept][:MAX_ENTRIES])


def remember_recording(run_id: str, meta: Any) -> None:
    """The `Recorder`'s hook: a run whose `meta` names its `target` was recorded by this user, here.
    Never raises: recording does not fail for the trust list (the fork then asks)."""
    target = meta.get("target") if isinstance(meta, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if not isinstance(target, str) or not target:
        return
    with contextlib.suppress(Exception):
        remember_run(run_id, target, search_cwd=False)


def bundled_fixtures_dir() -> Path:
    """The example package installed beside `inspector` (the tool's own code, not the current folder's)."""
    return Path(__file__).resolve().parent.parent / "fixtures"


def _bundled(source: TargetSource) -> bool:
    if source.is_file or source.origin is None:
        return False
    if source.module != "fixtures" and not source.module.startswith("fixtures."):
        return False
    home = bundled_fixtures_dir()
    return (home / "__init__.py").is_file() and source.origin.is_relative_to(home)


def consent_for(
    run_id: str,
    source: TargetSource,
    *,
    confirm: Callable[[TargetSource], bool] | None = None,
    trust: TrustList | None = None,
) -> Consent | None:
    """Why the recorded TARGET `source` of run `run_id` may be imported, or None when nothing says so.

    In order: recorded here (an entry with this run id, target and file), bundled, then `confirm`
    (asked only when nothing else answers)."""
    trust = read_trust_list() if trust is None else trust
    wanted = TrustEntry(run_id, source.spec, _origin_text(source))
    if wanted in trust.entries:
        return Consent.RECORDED_HERE
    if _bundled(source):
        return Consent.BUNDLED
    if confirm is not None and confirm(source):
        return Consent.CONFIRMED
    return None


def describe_source(source: TargetSource) -> str:
    """`the file /abs/x.py`, `module m (from /abs/m.py)`: what importing the TARGET would run."""
    if source.is_file:
        return f"the file {source.origin}"
    if source.origin is None:
        return f"the module `{source.module}` (not found from here)"
    return f"the module `{source.module}` (from {source.origin})"


def recorded_target_error(exc: TargetError, run_path: str | os.PathLike[str]) -> TargetError:
    """A `TargetError` about a TARGET the user did not type, saying where it came from."""
    return TargetError(visible(f"the TARGET recorded in {run_path}'s header: {exc}"))
