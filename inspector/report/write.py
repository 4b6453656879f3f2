"""Writing a page: which steps go in, how large a page may be, and the file written whole or not at all."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from inspector.errors import ReportError

__all__ = ["PAGE_SIZE_LIMIT", "parse_steps", "write_page"]

PAGE_SIZE_LIMIT = 20 * 1024 * 1024
"""Bytes a page may have by default: past this a browser tab struggles, and the page says how to narrow it."""

_RANGE = re.compile(r"^\s*(\d+)?\s*\.\.\s*(\d+)?\s*$")


def parse_steps(text: str, count: int) -> range:
    """`A..B` (both ends included; either may be left out) as a range of step positions of a run of
    `count` steps. A range outside the run, or backwards, is refused."""
    match = _RANGE.match(text)
    if match is None:
        raise ReportError(
            f"--steps `{text}` is not a range: write A..B (for example 0..99, or 500.. to the end)"
        )
    first = int(match.group(1)) if match.group(1) is not None else 0
    last = int(match.group(2)) if match.group(2) is not None else count - 1
    if count == 0 or first > last or last >= count:
        raise ReportError(
            f"--steps `{text}` does not fit the run: it has {count} steps, numbered 0 to {count - 1}"
        )
    return range(first, last + 1)


def write_page(page: str, path: str | os.PathLike[str], *, limit: int = PAGE_SIZE_LIMIT, steps: int) -> int:
    """Write `page` to `path` (through a temporary file renamed into place, so a failed write leaves no
    half page) and return its size; a page over `limit` bytes is refused with how to narrow it."""
    data = page.encode("utf-8")
    if len(data) > limit:
        raise ReportError(
            f"the page would be {len(data) / 1e6:.1f} MB, over the limit of {limit / 1e6:.1f} MB "
            f"({steps} steps): narrow it with --steps A..B "
            f"(for example --steps 0..{max(steps // 10, 1) - 1}), "
            "or raise the limit with --size-limit MB"
        )
    target = Path(path)
    if target.is_dir():
        raise ReportError(f"{target} is a directory: give the page's file name with -o")
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return len(data)
