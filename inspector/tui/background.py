"""What a long run's screen needs that reads every step, worked out in one child process: the
diagnostics and the visit counts.

Both walk the whole run (seconds at 100,000 steps). Counting visits in the app's process, even in
slices between keys, shares the event loop with the keys; a second child beside the diagnosing one
would parse every step a second time on a machine with two CPUs. So one child (`walk`, started by
`walk_separately`) reads each step once and feeds it to both: the visit count's checkpoints (every
`paths.EVERY` steps, exact) are printed as they are made, at most every `REPORT_S`, and taken in by
the app's `PathCounter` (`adopt`); the diagnostics are printed once the walk is done. The count
carries on from where the app's count stands (a followed file that grew), the diagnostics start
at step 0 (they need every step).
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
import warnings
from collections.abc import AsyncGenerator
from typing import Any, Literal

from inspector.diagnostics import Diagnostic, Findings
from inspector.recording.reader import read_run
from inspector.tui import paths
from inspector.tui.child import stream_python
from inspector.tui.paths import PathCounter, PathSoFar, path_from_json, path_to_json

__all__ = ["REPORT_S", "Update", "diagnostics_from_json", "walk", "walk_separately"]

REPORT_S = 0.1
"""How often the walking child hands back the checkpoints it has counted (seconds)."""

_SCRIPT = "import sys\nfrom inspector.tui.background import walk\nwalk(sys.argv[1:])\n"

Update = tuple[Literal["paths"], list[PathSoFar], PathSoFar] | tuple[Literal["diagnostics"], list[Diagnostic]]
"""What the child hands back: checkpoints counted and how far the count got, or the diagnostics."""


def walk(argv: list[str]) -> None:
    """The child's work: `argv` is the run file, `lenient`/`strict`, the checkpoint spacing, and
    `count`, `diagnose` or `count,diagnose`; stdin holds the path the count starts after (JSON, or
    nothing: from the start). Prints one JSON line per report."""
    path, lenient, every, wanted = argv
    paths.EVERY = int(every)  # the app's spacing, so that its checkpoints and ours line up
    start = sys.stdin.read().strip()
    warnings.simplefilter("ignore")  # a lenient reading's skipped lines were reported by the app
    run = read_run(path, lenient=lenient == "lenient")
    counter = PathCounter(run) if "count" in wanted.split(",") else None
    if counter is not None and start:
        counter.adopt([], path_from_json(json.loads(start)))
    findings = Findings(run) if "diagnose" in wanted.split(",") else None
    steps = run.steps
    sent = counter.counted if counter is not None else -1
    reported = time.perf_counter()

    def report() -> None:
        assert counter is not None
        found = [path_to_json(p) for p in counter.checkpoints_after(sent)]
        print(json.dumps({"paths": found, "frontier": path_to_json(counter.frontier)}), flush=True)

    first = 0 if findings is not None else (counter.counted + 1 if counter is not None else len(steps))
    for position in range(first, len(steps)):
        step = steps[position]  # read once: the count below finds it in the reader's cache
        if findings is not None:
            findings.add(position, step)
        if counter is not None and position > counter.counted:
            counter.count_to(position)
            if time.perf_counter() - reported >= REPORT_S:
                report()
                sent, reported = counter.counted, time.perf_counter()
    if counter is not None:
        report()
    if findings is not None:
        print(json.dumps({"diagnostics": [d.to_dict() for d in findings.finish()]}), flush=True)


def diagnostics_from_json(found: list[dict[str, Any]]) -> list[Diagnostic]:
    """The diagnostics as `Diagnostic.to_dict` wrote them."""
    return [Diagnostic(d["severity"], d["code"], d["message"], d["step"], tuple(d["nodes"])) for d in found]


async def walk_separately(
    counter: PathCounter | None, run_path: str, *, lenient: bool, diagnose: bool
) -> AsyncGenerator[Update, None]:
    """Walk the run in a child process: count visits on from where `counter` stands (None: do not
    count) and, with `diagnose`, diagnose it. Yields each report as it comes; a child that fails
    hands back the diagnostics as none found (as if it had found nothing), and stops the count where
    it got."""
    wanted = ",".join(w for w, on in (("count", counter is not None), ("diagnose", diagnose)) if on)
    if not wanted:
        return
    start = ""
    if counter is not None and counter.counted >= 0:
        start = json.dumps(path_to_json(counter.frontier))
    args = (run_path, "lenient" if lenient else "strict", str(paths.EVERY), wanted)
    diagnosed = False
    lines = stream_python(_SCRIPT, *args, stdin=start)
    async with contextlib.aclosing(lines):  # closing this generator ends the child at once
        async for line in lines:
            if not isinstance(line, dict):
                continue
            if "paths" in line:
                yield ("paths", [path_from_json(p) for p in line["paths"]], path_from_json(line["frontier"]))
            elif "diagnostics" in line and diagnose:
                diagnosed = True
                yield ("diagnostics", diagnostics_from_json(line["diagnostics"]))
    if diagnose and not diagnosed:
        yield ("diagnostics", [])
