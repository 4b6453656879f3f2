"""The Recorder's own work per superstep in instructions, for `valgrind --tool=callgrind` (wall time on a
shared machine is too noisy to see a 10% change; instruction counts are not).

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python3 -m bench.callgrind_recorder MODE N

runs the 100-round ReAct agent of `bench_recording` N times with a `Recorder` (MODE `recorder`; MODE
`unredacted`: `Recorder(redact=False)`, to tell the redaction's share apart) or a do-nothing callback
(MODE `silent`), after one warm-up run of each. The Recorder's instructions per
superstep are ((recorder, 20) - (recorder, 10) - (silent, 20) + (silent, 10)) / (10 runs x 201 supersteps):
the differences cancel start-up, imports and warm-up. Run it in two checkouts to compare them.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from bench.bench_recording import _agent, _Silent
from graph_core.schema import Message
from inspector.recording import Recorder


def main(mode: str, runs: int) -> None:
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


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
