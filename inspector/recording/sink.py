"""The run file on disk, as the recorder writes it: opened on first write, written unbuffered.

A new recording truncates the file (creating its directory only when opening fails for want of it:
checking first would cost every run); a resumed one appends, so the segments already recorded are
never touched. Each write is one system call, nothing left in a buffer, so what a step wrote is in
the file when its callback returns and a killed process leaves whole steps only.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import IO

__all__ = ["Sink"]


class Sink:
    """Where a `Recorder` writes: `path`, appended to when `append` is set."""

    def __init__(self, path: Path, *, append: bool) -> None:
        self.path = path
        self.append = append
        self._file: IO[bytes] | None = None

    def _open(self) -> IO[bytes]:
        if self._file is None:
            if self.append:  # never truncate the segments already recorded
                self._file = self.path.open("ab", buffering=0)
                return self._file
            try:
                self._file = self.path.open("wb", buffering=0)
            except FileNotFoundError:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = self.path.open("wb", buffering=0)
        return self._file

    def write(self, data: bytes) -> None:
        """Write `data` in one system call (more only if the OS takes part of it)."""
        out = self._file or self._open()
        written = out.write(data)
        while written is not None and written < len(data):  # a short write: the rest, again
            data = data[written:]
            written = out.write(data)

    def close(self) -> None:
        """Close the file; the next write opens it again (truncating, unless appending)."""
        if self._file is not None:
            try:
                self._file.flush()
                self._file.close()
            finally:
                self._file = None

    def drop(self) -> None:
        """Close the file after a fault, ignoring any error doing so."""
        file, self._file = self._file, None
        if file is not None:
            with contextlib.suppress(Exception):
                file.close()
