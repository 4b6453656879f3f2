"""The Recorder's own work per superstep in instructions, for `valgrind --tool=callgrind` (wall time on a
shared machine is too noisy to see a 10% change; instruction counts are not).

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python3 -m bench.callgrind_recorder MODE N

runs the 100-round ReAct agent of `bench_recording` N times with a `Recorder` (MODE `recorder`; MODE
`unredacted`: `Recorder(redact=False)`, to tell the redaction's share apart; MODE `behind`: every step
written behind the run by the background thread, as with a slow model, both threads counted) or a
do-nothing callback (MODE `silent`), after one warm-up run of each. Under valgrind every node runs
about fifty times slower, so each would count as slow and the Recorder would write behind the run
(`recorder.SLOW_NODE_SECONDS`); with this instant model it never does, so outside MODE `behind` the
threshold is set out of reach and the count is of what such a run does: every step written at once.
The Recorder's instructions per superstep are
((recorder, 20) - (recorder, 10) - (silent, 20) + (silent, 10)) / (10 runs x 201 supersteps): the
differences cancel start-up, imports and warm-up.

    python3 -m bench.callgrind_recorder compare BASELINE_TREE [MODE ...]

does all of that in this checkout and in another one (a worktree of the baseline commit, with this
file copied into its `bench/` if it has none) and prints both trees' figures per MODE (default
`recorder unredacted`) with the ratio against issue 15's target (<= 1.10x the baseline). Each run goes
under `setarch -R` when it exists (no address randomisation) with `PYTHONHASHSEED=0`: the counts then
repeat to within about 0.1k per superstep. It takes about a minute per valgrind run, eight per MODE.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

from bench.bench_recording import _agent, _Silent
from graph_core.schema import Message
from inspector.recording import Recorder

TARGET = 1.10  # issue 15: recording costs at most 10% more per superstep than at 8155cd9
SUPERSTEPS = 201
_COLLECTED = re.compile(rb"Collected : (\d+)")


def main(mode: str, runs: int) -> None:
    _slow_nodes_from(0.0 if mode == "behind" else float("inf"))
    agent = _agent(100)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.jsonl"
        agent.invoke([Message.user("go")], callbacks=[Recorder(path)])
        agent.invoke([Message.user("go")], callbacks=[_Silent()])
        for _ in range(runs):
            if mode == "silent":
                callback: object = _Silent()
            else:
                callback = Recorder(path, redact=mode != "unredacted")
            agent.invoke([Message.user("go")], callbacks=[callback])


def _slow_nodes_from(seconds: float) -> None:
    """Set the Recorder's slow-node threshold (a baseline tree without write-behind has none)."""
    from inspector.recording import recorder

    if hasattr(recorder, "SLOW_NODE_SECONDS"):
        recorder.SLOW_NODE_SECONDS = seconds  # pyright: ignore[reportAttributeAccessIssue]


def _instructions(tree: Path, mode: str, runs: int) -> int:
    """Instructions callgrind counts for `MODE N` run in `tree`."""
    from bench.valgrind import under_valgrind

    tool = ["--tool=callgrind", "--callgrind-out-file=/dev/null"]
    done = under_valgrind(tree, tool, "bench.callgrind_recorder", mode, runs)
    found = _COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"valgrind in {tree} ({mode} {runs}) failed:\n{done.stderr.decode()[-2000:]}")
    return int(found.group(1))


def _per_superstep(tree: Path, modes: list[str]) -> dict[str, float]:
    silent = _instructions(tree, "silent", 20) - _instructions(tree, "silent", 10)
    out: dict[str, float] = {}
    for mode in modes:
        recorded = _instructions(tree, mode, 20) - _instructions(tree, mode, 10)
        out[mode] = (recorded - silent) / (10 * SUPERSTEPS)
    return out


def compare(baseline: Path, modes: list[str]) -> None:
    from bench.valgrind import ready_to_compare

    here = ready_to_compare(baseline, __file__)
    base = _per_superstep(baseline.resolve(), modes)
    this = _per_superstep(here, modes)
    print(f"Recorder instructions per superstep (100-round ReAct), {baseline} vs {here}:")
    for mode in modes:
        ratio = this[mode] / base[mode]
        verdict = "OK" if ratio <= TARGET else "MISSED"
        print(
            f"  {mode:<11} baseline {base[mode] / 1e3:6.1f}k  this tree {this[mode] / 1e3:6.1f}k  "
            f"{ratio:.3f}x (target <= {TARGET}x) {verdict}"
        )


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        compare(Path(sys.argv[2]), sys.argv[3:] or ["recorder", "unredacted"])
    else:
        main(sys.argv[1], int(sys.argv[2]))
