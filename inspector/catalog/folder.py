"""The recursive search of a folder: every regular file under it, with its version, read from the
folder entries and one `stat` each (no file is opened here).

Symbolic links are followed, but no folder is entered twice (a link back to a parent is a loop, and is
survived) and no file is listed twice (two links to one file). Folders that cannot be listed and
entries that cannot be looked at are named in `skipped.unreadable`; what is neither a folder nor a
regular file (a dangling link, a socket, a FIFO, which would block a read) in `skipped.not_runs`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

from inspector.catalog.index import Version
from inspector.catalog.source import Skipped, stat_version

__all__ = ["Entry", "search"]


@dataclass(frozen=True)
class Entry:
    """A file found: `path` as found (the folder as given, joined with the names under it), `key` its
    resolved path, `version` from its `stat`."""

    path: str
    key: str
    version: Version


def search(root: str, skipped: Skipped) -> Iterator[Entry]:
    """The files under `root`, folder by folder, names sorted within each (see the module docstring)."""
    seen_dirs: set[tuple[int, int]] = set()
    seen_files: set[str] = set()
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            info = os.stat(folder)
        except OSError as exc:
            skipped.unreadable.append((folder, exc.strerror or str(exc)))
            continue
        if (info.st_dev, info.st_ino) in seen_dirs:  # a symlink loop, or a folder reached twice
            continue
        seen_dirs.add((info.st_dev, info.st_ino))
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            skipped.unreadable.append((folder, exc.strerror or str(exc)))
            continue
        resolved = os.path.realpath(folder)
        folders: list[str] = []
        for entry in entries:
            try:
                if entry.is_dir():
                    folders.append(entry.path)
                    continue
                stat = entry.stat()
            except OSError as exc:
                if entry.is_symlink():  # a dangling link: nothing to read, nothing wrong to report
                    skipped.not_runs.append(entry.path)
                else:
                    skipped.unreadable.append((entry.path, exc.strerror or str(exc)))
                continue
            if not entry.is_file():  # a socket, a FIFO, a device
                skipped.not_runs.append(entry.path)
                continue
            key = os.path.realpath(entry.path) if entry.is_symlink() else os.path.join(resolved, entry.name)
            if key in seen_files:
                continue
            seen_files.add(key)
            yield Entry(entry.path, key, stat_version(stat))
        stack.extend(reversed(folders))
