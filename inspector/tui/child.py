"""`run_python`, `stream_python`: a short Python script in a child process, for work that reads a
whole run.

Diagnosing a long run, or collecting every step a search matches, reads every step: seconds at
100,000 steps. In the app's process that work would either hold the keys or, in a thread, share the
interpreter lock with them (and the run's caches are not thread-safe). A child process opens the file
on its own (the index is lazy: well under a second) and hands back JSON, on another CPU when there is
one; cancelling the worker that awaits it ends the child. `stream_python` hands each line back as it
is printed, for work that reports as it goes (the visit count's checkpoints).

A child runs at a lower CPU priority (`NICENESS`): on a machine with fewer free CPUs than busy
processes (two children and the app on two CPUs), the keys must win. A search started by a key used to
draw that key's frame while its child, just spawned, was importing on the same CPUs. The child is
started through `nice` where there is one, so it is lowered from its first instruction: lowered by
the script itself, the interpreter's start-up (70-80 ms of CPU on the development machine, most of it
`site` and its `.pth` files) ran at the app's priority, in the frame of the `/` that spawned it.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from collections.abc import AsyncGenerator
from typing import Any

__all__ = ["LINE_LIMIT", "NICENESS", "run_python", "stream_python"]

NICENESS = 10
"""How much lower a child's CPU priority is than the app's (`os.nice`; where there is none, the same)."""

LINE_LIMIT = 1 << 30
"""The longest line `stream_python` reads (asyncio's default, 64 KiB, is less than the diagnostics of
a long run can take)."""


def _in_background(script: str) -> list[str]:
    """The command that runs `script` at a priority lower by `NICENESS`: through `nice` where there is
    one (lowered before the interpreter starts), else lowering its own priority first thing. Not with
    `preexec_fn`, which is unsafe in a threaded app and stops subprocess from using vfork."""
    nice = shutil.which("nice")
    if nice is not None:
        return [nice, "-n", str(NICENESS), sys.executable, "-c", script]
    lowered = f"import os\nif hasattr(os, 'nice'):\n    os.nice({NICENESS})\n{script}"
    return [sys.executable, "-c", lowered]


async def _spawn(
    script: str, args: tuple[str, ...], stdin: str | None, **options: Any
) -> asyncio.subprocess.Process:
    """`python -c script args...` in the background, its stdout piped (stdin too when there is input)."""
    return await asyncio.create_subprocess_exec(
        *_in_background(script),
        *args,
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        **options,
    )


async def run_python(script: str, *args: str, stdin: str | None = None) -> Any:
    """The JSON that `script` (run as `python -c script args...`, given `stdin`) printed last; None
    when it failed. Cancelling the awaiting task kills the child."""
    process = await _spawn(script, args, stdin)
    try:
        out, _ = await process.communicate(None if stdin is None else stdin.encode())
    except asyncio.CancelledError:  # the app closed (or the work is no longer wanted): end our child
        process.kill()
        await process.communicate()  # reaps it and closes its pipes (and with them the transport)
        raise
    if process.returncode != 0 or not out.strip():
        return None
    return json.loads(out.splitlines()[-1])


async def stream_python(script: str, *args: str, stdin: str | None = None) -> AsyncGenerator[Any, None]:
    """The JSON of each line `script` (run as `python -c script args...`, given `stdin`) prints, as it
    prints it (lines that are not JSON are passed over). Cancelling the task iterating it, or closing
    the iterator, kills the child."""
    process = await _spawn(script, args, stdin, limit=LINE_LIMIT)
    assert process.stdout is not None
    try:
        if stdin is not None and process.stdin is not None:
            process.stdin.write(stdin.encode())
            await process.stdin.drain()
            process.stdin.close()
        while line := await process.stdout.readline():
            try:
                found = json.loads(line)
            except ValueError:
                continue
            yield found
        await process.wait()
    finally:  # cancelled, closed early, or failed: end our child and reap it
        if process.returncode is None:
            process.kill()
            await process.wait()
