"""Several writers, one run file: each recording is written by one writer, the others are refused.

`inspector record` processes aimed at the same -o used to interleave their lines into a file neither
could read ("corrupt in the middle"); the file is now locked while it is written (`flock`, taken
before the file is truncated), so the second writer exits 2 with one paragraph and touches nothing,
while a writer killed with -9 still leaves every complete step readable and the lock with it. One
`Recorder` handed two overlapping runs refuses the second; `inspector debug` without -o records each
session to a file of its own.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from graph_core import END, START, Graph
from inspector.cli import main
from inspector.errors import RecorderBusyError
from inspector.recording import Recorder, read_run

ROOT = Path(__file__).resolve().parents[2]
# Runs made in this process use the fixtures' factories (`build_agent`): the module-level agents'
# scripted models keep their place in the script from one test to the next.
BUSY = "another recording is being written to"
TARGET = ("--target", "fixtures.runaway:agent")
RUNAWAY = "fixtures/runs/runaway.jsonl"

WAITING = """
import os, time
from graph_core import END, START, Graph

GO = {go!r}

def first(x):
    return x + " first"

def wait(x):
    while not os.path.exists(GO):
        time.sleep(0.01)
    return x + " waited"

def graph():
    g = Graph()
    g.add_lambda_node("first", first)
    g.add_lambda_node("wait", wait)
    g.add_edge(START, "first")
    g.add_edge("first", "wait")
    g.add_edge("wait", END)
    return g.compile()
"""


def _waiting_target(tmp_path: Path) -> tuple[str, Path]:
    """A TARGET whose second step waits until the returned file exists."""
    go = tmp_path / "go"
    source = tmp_path / "waiting.py"
    source.write_text(WAITING.format(go=str(go)))
    return f"{source}:graph", go


def _record(target: str, out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "inspector", "record", target, "--input", "x", "-o", str(out), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def _end(writer: subprocess.Popen[str]) -> None:
    """Kill `writer` if it still runs, and close its pipes."""
    if writer.poll() is None:
        writer.kill()
        writer.wait()
    for stream in (writer.stdout, writer.stderr):
        if stream is not None:
            stream.close()


def _until(done: Any, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def _one_paragraph(err: str) -> str:
    assert "Traceback" not in err and err.startswith("inspector: error: ") and err.count("inspector:") == 1
    return " ".join(err.split())


def test_records_started_at_once_on_one_file_one_writes_and_the_others_are_refused(tmp_path: Path) -> None:
    """The campaign's case had two and eight; three processes race the same way at a third of the
    cost of eight (each one imports the whole tool)."""
    target, go = _waiting_target(tmp_path)
    out = tmp_path / "run.jsonl"
    writers = [_record(target, out) for _ in range(3)]
    try:
        # the one holding the lock waits in its second step until `go`; every other one is refused
        _until(lambda: sum(w.poll() is not None for w in writers) == 2, "two writers to be refused")
        refused = [w for w in writers if w.poll() is not None]
        for writer in refused:
            assert writer.returncode == 2
            err = _one_paragraph(writer.communicate()[1])
            assert err.startswith(f"inspector: error: {BUSY} {out} right now")
        go.touch()
        [winner] = [w for w in writers if w not in refused]
        assert winner.wait(60) == 0
    finally:
        for writer in writers:
            _end(writer)
    run = read_run(out)
    assert run.status == "ok" and run.output == "x first waited"
    assert [json.loads(line)["kind"] for line in out.read_text().splitlines()].count("header") == 1


def test_a_writer_killed_mid_run_leaves_its_complete_steps_and_no_lock(tmp_path: Path) -> None:
    target, go = _waiting_target(tmp_path)
    out = tmp_path / "run.jsonl"
    writer = _record(target, out)
    try:
        _until(lambda: out.exists() and b'"kind":"step"' in out.read_bytes(), "the first step on disk")
        writer.send_signal(signal.SIGKILL)
        writer.wait(60)
    finally:
        _end(writer)
    run = read_run(out)
    assert run.status == "incomplete" and [s.nodes for s in run.steps] == [("first",)]
    go.touch()
    assert main(["record", target, "--input", "x", "-o", str(out), "-q"]) == 0  # no stale lock
    assert read_run(out).status == "ok"


@contextmanager
def _held(path: Path) -> Iterator[None]:
    """`path` held as a recording writer holds it (an exclusive `flock`), as another process would."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield
    finally:
        os.close(fd)


def _a_recording(path: Path) -> bytes:
    assert main(["record", "fixtures.weather:build_agent", "--input", "hi", "-o", str(path), "-q"]) == 0
    return path.read_bytes()


def test_record_debug_and_fork_refuse_a_file_being_recorded_and_leave_it_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run.jsonl"
    before = _a_recording(out)
    capsys.readouterr()
    stop = '{"role": "assistant", "content": "It stopped raining."}'
    commands = [
        ["record", "fixtures.weather:agent", "--input", "hi", "-o", str(out)],
        ["debug", "fixtures.weather:agent", "--input", "hi", "-o", str(out)],
        [
            "fork",
            "fixtures/runs/runaway.jsonl",
            "--step",
            "4",
            "-o",
            str(out),
            "--model-answer",
            stop,
            *TARGET,
        ],
    ]
    with _held(out):
        for command in commands:
            assert main(command) == 2, command
            err = _one_paragraph(capsys.readouterr().err)
            assert f"{BUSY} {out} right now" in err, command
            assert out.read_bytes() == before, command
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.jsonl"]  # no fork's temporary file


def test_a_second_recorder_on_the_same_file_in_one_process_faults_and_the_first_file_stays_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run.jsonl"
    first, second = Recorder(out, run_id="first"), Recorder(out, run_id="second")
    first.open()
    try:
        _echo().invoke("a", callbacks=[second])  # the run goes on; its recorder stops
        assert second.fault is not None and BUSY in str(second.fault)
        assert f"inspector: recording to {out} stopped: {BUSY}" in capsys.readouterr().err
        _echo().invoke("b", callbacks=[first])
    finally:
        first.close()
    run = read_run(out)
    assert run.run_id == "first" and run.output == "b!"


def _echo(gate: threading.Event | None = None, entered: threading.Event | None = None) -> Any:
    """A one-node graph appending "!"; with `gate`, the node waits for it (after setting `entered`)."""

    def shout(x: str) -> str:
        if entered is not None:
            entered.set()
        if gate is not None:
            assert gate.wait(30)
        return x + "!"

    graph = Graph()
    graph.add_lambda_node("shout", shout)
    graph.add_edge(START, "shout")
    graph.add_edge("shout", END)
    return graph.compile()


def test_one_recorder_shared_by_two_overlapping_runs_refuses_the_second(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    recorder = Recorder(out)
    gate, entered = threading.Event(), threading.Event()
    results: dict[str, Any] = {}

    def first_run() -> None:
        results["first"] = _echo(gate, entered).invoke("first", callbacks=[recorder])

    thread = threading.Thread(target=first_run)
    thread.start()
    try:
        assert entered.wait(30)  # the first run is inside its node
        with pytest.raises(RecorderBusyError) as refused:
            _echo().invoke("second", callbacks=[recorder])
    finally:
        gate.set()
        thread.join(30)
    assert str(refused.value).startswith(f"this Recorder is already recording a run to {out}")
    assert refused.value.path == out and recorder.fault is None
    assert results["first"] == "first!"
    run = read_run(out)
    assert run.status == "ok" and run.output == "first!" and [s.nodes for s in run.steps] == [("shout",)]
    # once the first run is over, the same recorder records the next run (a new file, as before)
    assert _echo().invoke("third", callbacks=[recorder]) == "third!"
    assert read_run(out).output == "third!"


class _HeadlessDebugApp:
    """Stands in for the debug TUI: starts the run and continues it at every pause until it is over."""

    def __init__(self, controller: Any) -> None:
        self.controller = controller

    def run(self) -> None:
        controller = self.controller
        if controller.status == "ready":
            controller.start()
        while controller.wait(60) is not None:
            controller.resume()


def test_debug_sessions_without_o_each_record_to_a_file_of_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr("inspector.tui.debug_app.make_debug_app", _HeadlessDebugApp)
    paths: list[Path] = []
    for question in ("Weather in Hangzhou?", "Weather in Paris?"):
        assert main(["debug", "fixtures.weather:build_agent", "--input", question]) == 0
        err = capsys.readouterr().err
        found = re.search(r"inspector: recording the debug run to (\S+)\n", err)
        assert found is not None, err
        path = Path(found.group(1))
        assert f"recorded 3 steps to {path} (status ok" in err
        assert read_run(path).status == "ok" and question in path.read_text()
        paths.append(path)
    first, second = paths
    assert first != second and first.parent == second.parent == tmp_path
    for path in paths:
        assert re.fullmatch(r"inspector-debug-\d{8}-\d{6}-\w+\.jsonl", path.name), path.name
    assert not (tmp_path / "inspector-debug.jsonl").exists()


def test_a_debug_session_refused_before_it_runs_leaves_no_file_in_the_temp_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert main(["debug", "fixtures.weather:agent", "--input", "hi", "--break", "nowhere"]) == 2
    assert "no node `nowhere`" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
