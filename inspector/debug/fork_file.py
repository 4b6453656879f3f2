"""`fork_file`: where a fork is written while it runs, and how it is put in place when it is done.

A fork runs into a hidden temporary file beside its destination and replaces the destination only
once the run is over and was recorded whole: a fork that fails to start, or whose recording hit a
write fault, leaves nothing at `-o` (and never half a file), whichever engine ran it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from inspector.errors import RunWriteError
from inspector.recording.sink import describe_fault, fault_error, refuse_busy

__all__ = ["fork_file"]


@contextmanager
def fork_file(out: Path) -> Iterator[tuple[Path, Callable[[BaseException | None], None]]]:
    """Yields the temporary path to record into and `finish(fault)`: call it once the run is over
    with the recorder's write fault (None: recorded whole) to move the file to `out`. The temporary
    file is removed whatever happens."""
    refuse_busy(out)  # another recording being written there: refused before the fork runs
    folder = out.parent if str(out.parent) else Path(".")
    try:
        fd, name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise RunWriteError(
            f"could not create the fork's file in {folder}: {describe_fault(exc)}; the fork did not run. "
            "Give it a path in a folder you can write to (`inspector fork RUN --step N -o FORK.jsonl`)",
            path=out,
        ) from None
    os.close(fd)
    temp = Path(name)

    def finish(fault: BaseException | None) -> None:
        if fault is not None:  # the run went on unrecorded: no fork file, whatever its outcome
            raise fault_error(out, fault, removed=True)
        refuse_busy(out)
        try:
            os.replace(temp, out)
        except OSError as exc:
            raise RunWriteError(
                f"could not put the fork in place at {out}: {describe_fault(exc)}; nothing was written",
                path=out,
            ) from None

    try:
        yield temp, finish
    finally:
        if temp.exists():
            temp.unlink()
