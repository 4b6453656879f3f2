"""`run_python` and `stream_python`: a script's JSON handed back from a child process that runs at a
lower CPU priority than the app (so keys win the CPU over background work)."""

from __future__ import annotations

import asyncio
import os

from inspector.tui.child import NICENESS, run_python, stream_python

_NICENESS_SCRIPT = "import json, os\nprint(json.dumps(os.nice(0)))\n"


def test_a_child_runs_at_a_lower_priority_than_the_app() -> None:
    ours = os.nice(0)
    assert asyncio.run(run_python(_NICENESS_SCRIPT)) == min(ours + NICENESS, 19)


def test_the_last_json_line_printed_is_the_result_and_stdin_reaches_the_script() -> None:
    script = "import json, sys\nprint('warming up')\nprint(json.dumps(sys.stdin.read().upper()))\n"
    assert asyncio.run(run_python(script, stdin="lookup")) == "LOOKUP"


def test_a_failed_script_gives_none() -> None:
    assert asyncio.run(run_python("raise SystemExit(3)")) is None


def test_stream_hands_back_each_json_line_and_passes_over_the_rest() -> None:
    script = (
        "import json, sys\n"
        "for n in range(3):\n"
        "    print(json.dumps({'n': n, 'arg': sys.argv[1]}))\n"
        "print('done')\n"
    )

    async def collect() -> list[object]:
        return [line async for line in stream_python(script, "x")]

    assert asyncio.run(collect()) == [{"n": 0, "arg": "x"}, {"n": 1, "arg": "x"}, {"n": 2, "arg": "x"}]
