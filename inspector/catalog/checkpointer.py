"""The LangGraph checkpointer source kind: every thread of a checkpointer is a run.

The checkpointer is read by `inspector.sources.langgraph_threads` (read-only; a SQLite file, or a URL
of a scheme in `SCHEMES` once that reader takes it): `list_threads` gives each thread's checkpoint
count, latest LangGraph step and last update, which are the thread's version (a thread that went on,
or was forked by `update_state`, has more checkpoints); `thread_run_file` writes the thread as the run
file `inspector show DB --thread ID` reads, cached in the temporary folder, and that file is summarized
and opened like any run file. A thread is listed as `DB#THREAD`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from inspector.catalog.errors import CatalogError
from inspector.catalog.index import Version
from inspector.catalog.record import RunRecord
from inspector.catalog.runfile import summarize_file
from inspector.catalog.source import Found, masked_url

__all__ = ["CheckpointerKind"]

_SQLITE = b"SQLite format 3\x00"
SCHEMES = ("postgres", "postgresql")


class CheckpointerKind:
    """See the module docstring."""

    name = "langgraph"
    description = "LangGraph checkpointers (a SQLite file SqliteSaver wrote, or a postgresql:// URL)"
    schemes: tuple[str, ...] = SCHEMES
    listing = True

    def claims(self, path: Path, head: bytes) -> bool:
        """A SQLite file with a `checkpoints` table (opened read-only to look: another SQLite file in a
        folder is not a run)."""
        from inspector.sources.langgraph_threads import is_sqlite_checkpointer

        return head.startswith(_SQLITE) and is_sqlite_checkpointer(path)

    def runs_in(self, path: str, key: str, version: Version) -> Iterator[Found]:
        from inspector.sources.langgraph_threads import is_sqlite_checkpointer

        if not is_sqlite_checkpointer(key):
            raise CatalogError(
                f"{path} is a SQLite database but not a LangGraph checkpointer (it has no `checkpoints` "
                "table)"
            )
        yield from self._threads(path, key, key)

    def runs_at(self, url: str) -> Iterator[Found]:
        shown = masked_url(url)
        yield from self._threads(shown, shown, url)

    def _threads(self, shown: str, key: str, location: str) -> Iterator[Found]:
        from inspector.errors import InspectorError
        from inspector.sources.langgraph_threads import list_threads

        try:
            threads = list_threads(location)
        except (InspectorError, OSError) as exc:
            message = _scrubbed(" ".join(str(exc).split()).replace(location, shown), location)
            raise CatalogError(message if message.startswith(shown) else f"{shown}: {message}") from None
        for thread in sorted(threads, key=lambda t: t.thread_id):
            step = -1 if thread.last_step is None else thread.last_step
            version = (thread.checkpoints, step, thread.last_update)
            yield Found(
                f"{shown}#{thread.thread_id}",
                f"{key}#{thread.thread_id}",
                self.name,
                version,
                part=thread.thread_id,
                where=location,
            )

    def summarize(self, found: Found, *, now: float) -> RunRecord:
        from inspector.errors import InspectorError

        record = RunRecord(found.path, found.key, kind=self.name, part=found.part, where=found.where)
        try:
            path = self.run_file(found)
        except (InspectorError, OSError, ValueError) as exc:
            record.status, record.reason = "corrupt", " ".join(str(exc).split())
            return record
        summarize_file(path, record, now=now)
        return record

    def open(self, found: Found) -> Any:
        from inspector.recording import read_run

        return read_run(self.run_file(found))

    def run_file(self, found: Found) -> Path:
        from inspector.sources.langgraph_threads import thread_run_file

        return thread_run_file(found.where, found.part)


def _scrubbed(message: str, url: str) -> str:
    """`message` without the password `url` carries, however the reader quoted the URL."""
    from urllib.parse import urlsplit

    try:
        password = urlsplit(url).password
    except ValueError:
        return message
    return message.replace(password, "***") if password else message
