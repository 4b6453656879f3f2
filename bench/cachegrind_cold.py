"""The Recorder's cost per superstep with cold caches, in cachegrind's cache model (deterministic).

Issue 15's 1 ms latency target (<= 1.10x the unrecorded run) is about a recorder whose every step
follows a 1 ms wait, after which the CPU caches no longer hold what the step runs: the recorder then
costs about 67 µs per superstep against 40-50 µs with warm caches, and on a shared machine the wall
clock cannot tell a 5% change apart. This runs the 100-round ReAct agent of `bench_recording` with a
model that, instead of sleeping, touches 8 MB (evicting the simulated caches as the wait does), under

    valgrind --tool=cachegrind --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=2097152,16,64

(L1 as the development machine's, the last level as its 2 MB L2), recorded (`recorder`) or not
(`plain`), N runs after a warm-up, with the garbage collector off (its collections would land in one
count or the other by chance). Per superstep, ((MODE, 6) - (MODE, 2)) / (4 x 201), the Recorder's part
is `recorder` - `plain`: instructions, L1 misses and last-level misses, and a cycle estimate
Ir + 10 x L1 misses + 60 x LL misses (the weights are round guesses: compare trees with it, do not read
it as time).

    python3 -m bench.cachegrind_cold compare BASELINE_TREE

does it in this checkout and in another (a worktree of the baseline commit; this file is copied into
its `bench/` if it has none) and prints both with the ratio. About a minute per valgrind run, eight.
"""

from __future__ import annotations

import gc
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import bench.bench_recording as recording
from graph_core.schema import Message
from inspector.recording import Recorder

SUPERSTEPS = 201
_SUMMARY = re.compile(rb"^summary: (.*)$", re.MULTILINE)
_CACHES = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=2097152,16,64"]


class _Evicting(recording._Slow):  # pyright: ignore[reportPrivateUsage]
    """The bench's slow model, evicting the caches where it would wait."""

    buffer = bytearray(4 << 20)

    def generate(self, messages: list[Message]) -> Message:
        bytes(self.buffer)  # 4 MB read, 4 MB written
        return self.inner.generate(messages)


def main(mode: str, runs: int) -> None:
    recording._Slow = _Evicting  # pyright: ignore[reportPrivateUsage]
    agent = recording._agent(100, latency=0.001)  # pyright: ignore[reportPrivateUsage]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.jsonl"
        agent.invoke([Message.user("go")], callbacks=[Recorder(path)])
        agent.invoke([Message.user("go")])
        gc.collect()
        gc.disable()
        for _ in range(runs):
            agent.invoke([Message.user("go")], callbacks=[] if mode == "plain" else [Recorder(path)])


def _counts(tree: Path, mode: str, runs: int) -> dict[str, int]:
    """cachegrind's event totals for `MODE N` run in `tree`."""
    from bench.valgrind import under_valgrind  # here: the module itself also runs in a baseline tree

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cachegrind.out"
        tool = ["--tool=cachegrind", "--cache-sim=yes", *_CACHES, f"--cachegrind-out-file={out}"]
        done = under_valgrind(tree, tool, "bench.cachegrind_cold", mode, runs)
        data = out.read_bytes() if out.exists() else b""
    events = re.search(rb"^events: (.*)$", data, re.MULTILINE)
    summary = _SUMMARY.search(data)
    if done.returncode != 0 or events is None or summary is None:
        raise SystemExit(f"valgrind in {tree} ({mode} {runs}) failed:\n{done.stderr.decode()[-2000:]}")
    return dict(zip(events.group(1).decode().split(), map(int, summary.group(1).split()), strict=True))


def _per_superstep(tree: Path) -> dict[str, float]:
    """The Recorder's instructions, L1 and last-level misses and estimated cycles per superstep."""
    diffs: dict[str, dict[str, float]] = {}
    for mode in ("plain", "recorder"):
        many, few = _counts(tree, mode, 6), _counts(tree, mode, 2)
        diffs[mode] = {k: (many[k] - few[k]) / (4 * SUPERSTEPS) for k in many}
    own = {k: diffs["recorder"][k] - diffs["plain"][k] for k in diffs["plain"]}
    l1 = own["I1mr"] + own["D1mr"] + own["D1mw"]
    last = own["ILmr"] + own["DLmr"] + own["DLmw"]
    return {"Ir": own["Ir"], "L1": l1, "LL": last, "cycles": own["Ir"] + 10 * l1 + 60 * last}


def compare(baseline: Path) -> None:
    from bench.valgrind import ready_to_compare

    here = ready_to_compare(baseline, __file__)
    base, this = _per_superstep(baseline.resolve()), _per_superstep(here)
    print(f"Recorder per superstep with cold caches (cachegrind model), {baseline} vs {here}:")
    labels: dict[str, Any] = {
        "Ir": "instructions",
        "L1": "L1 misses",
        "LL": "last-level misses",
        "cycles": "estimated cycles",
    }
    for key, label in labels.items():
        ratio = this[key] / base[key]
        print(f"  {label:<18} baseline {base[key]:9.0f}  this tree {this[key]:9.0f}  {ratio:.3f}x")


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        compare(Path(sys.argv[2]))
    else:
        main(sys.argv[1], int(sys.argv[2]))
