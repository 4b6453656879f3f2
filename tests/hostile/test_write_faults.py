"""Faults while a run file is written: a full disk, a size limit, a read-only folder.

A recording that stops partway is an error of the command that wanted it (`record`, `debug -o`,
`fork`): one paragraph, exit status 2, and no partial file left behind (a resumed segment is cut back
off the file it was appended to). The TUI's `f` beside a run in a read-only folder shows a note and
goes on. The faults are real where they can be: a child process whose file-size limit
(`RLIMIT_FSIZE`, with `SIGXFSZ` ignored) makes its writes fail with EFBIG, as a full disk makes them
fail with ENOSPC; tests run as root here, where a read-only folder is no obstacle, so that case falls
back to the size limit and cannot pass without a fault.
"""

from __future__ import annotations

import contextlib
import errno
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main
from inspector.errors import RunWriteError
from inspector.recording import read_run
from inspector.recording.sink import Sink

# Runs made in this process use the fixtures' factories (`build_agent`): the module-level agents'
# scripted models keep their place in the script from one test to the next.

ROOT = Path(__file__).resolve().parents[2]
RUNAWAY = ROOT / "fixtures" / "runs" / "runaway.jsonl"

_LIMITED = """
import resource, runpy, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
limit = int(sys.argv.pop(1))
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
sys.argv[0] = "inspector"
runpy.run_module("inspector", run_name="__main__", alter_sys=True)
"""


def _inspector_limited(limit: int, *args: str) -> subprocess.CompletedProcess[str]:
    """`inspector ARGS` in a child process that may write no file past `limit` bytes."""
    return subprocess.run(
        [sys.executable, "-c", _LIMITED, str(limit), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def _paragraph(err: str) -> str:
    """stderr as one paragraph, checked to be exactly one error message and no traceback."""
    assert "Traceback" not in err
    assert err.startswith("inspector: error: ") and err.count("inspector:") == 1, err
    return " ".join(err.split())


def test_record_whose_disk_fills_exits_2_and_leaves_no_partial_file(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    limit = RUNAWAY.stat().st_size // 2  # past the header and a few steps
    result = _inspector_limited(
        limit, "record", "fixtures.runaway:agent", "--input", "go", "-o", str(out), "-q"
    )
    assert result.returncode == 2
    assert _paragraph(result.stderr) == (
        f"inspector: error: could not write the run file {out}: the file grew past the largest file "
        "allowed here (the file system's or `ulimit -f`). The recording stopped there while the run went "
        "on, and the partial file was removed; raise the limit, or write to another file system, then "
        "run the command again"
    )
    assert list(tmp_path.iterdir()) == []


def test_fork_whose_disk_fills_exits_2_and_removes_its_temporary_file(tmp_path: Path) -> None:
    parent = tmp_path / "runaway.jsonl"
    shutil.copy(RUNAWAY, parent)
    out = tmp_path / "fork.jsonl"
    limit = parent.stat().st_size // 2  # the fork runs on to step 12: about as long as its parent
    fork = ["fork", str(parent), "--step", "2", "-o", str(out), "--target", "fixtures.runaway:agent"]
    result = _inspector_limited(limit, *fork)
    assert result.returncode == 2
    err = _paragraph(result.stderr)
    assert err.startswith(f"inspector: error: could not write the run file {out}: the file grew past")
    assert "the partial file was removed" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runaway.jsonl"]  # no fork, no .tmp


def test_a_resumed_segment_that_cannot_be_written_is_cut_back_off_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "checkpoints.sqlite"
    monkeypatch.setenv("APPROVAL_CHECKPOINTS", str(store))
    out = tmp_path / "run.jsonl"
    record = ["record", "fixtures.approval:graph", "-o", str(out), "--checkpoint-id", "t1", "-q"]
    assert main([*record, "--input", "The launch moved to Friday"]) == 0
    interrupted = out.read_bytes()
    capsys.readouterr()
    # the segment's first line is written, then the disk is full (a size limit would stop the
    # checkpoint store's SQLite file too, so the fault is injected at the recorder's writes)
    _fail_writes_after(monkeypatch, 1)
    assert main([*record, "--resume"]) == 2
    err = _paragraph(capsys.readouterr().err)
    assert f"the partial segment was taken back, so {out} holds what it held before" in err
    assert out.read_bytes() == interrupted
    assert read_run(out).status == "interrupted"


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


def _fail_writes_after(monkeypatch: pytest.MonkeyPatch, good: int) -> None:
    """Every `Sink.write` after the first `good` ones fails as on a full disk (ENOSPC)."""
    original = Sink.write
    calls = iter(range(1_000_000))

    def write(self: Sink, data: bytes) -> None:
        if next(calls) >= good:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        original(self, data)

    monkeypatch.setattr(Sink, "write", write)


def test_debug_o_whose_disk_fills_exits_2_and_leaves_no_partial_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("inspector.tui.debug_app.make_debug_app", _HeadlessDebugApp)
    _fail_writes_after(monkeypatch, 3)  # the header and two steps, then the disk is full
    out = tmp_path / "live.jsonl"
    assert main(["debug", "fixtures.runaway:build_agent", "--input", "go", "-o", str(out)]) == 2
    err = _paragraph(capsys.readouterr().err)
    assert err.startswith(f"inspector: error: could not write the run file {out}: the disk is full.")
    assert "the partial file was removed; free some space, or write to another disk" in err
    assert not out.exists()


def test_library_recorder_still_reports_its_fault_once_and_keeps_the_run_going(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside the CLI the recorder never breaks the run: one stderr line, the fault kept, and the
    complete steps it wrote stay readable (nobody asked for the file to go)."""
    import fixtures.runaway as runaway
    from graph_core.errors import MaxStepsExceededError
    from graph_core.schema import Message
    from inspector.recording import Recorder

    _fail_writes_after(monkeypatch, 3)
    out = tmp_path / "run.jsonl"
    recorder = Recorder(out)
    with pytest.raises(MaxStepsExceededError):
        runaway.build_agent().invoke([Message.user("go")], callbacks=[recorder])
    assert isinstance(recorder.fault, OSError) and recorder.fault.errno == errno.ENOSPC
    err = capsys.readouterr().err
    assert err == f"inspector: recording to {out} stopped: the disk is full (the run itself continues)\n"
    assert len(read_run(out).steps) == 2


def test_a_fork_that_cannot_create_its_file_says_so_and_does_not_run(tmp_path: Path) -> None:
    """The path the TUI's `f` takes in a read-only folder (PermissionError), made real for root too:
    the folder is a file, so no file can be created in it."""
    from inspector.debug.fork import plan_fork, run_fork

    blocker = tmp_path / "blocker"
    blocker.write_text("")
    plan = plan_fork(RUNAWAY, 2, target="fixtures.runaway:agent")
    with pytest.raises(RunWriteError) as refused:
        run_fork(plan, blocker / "fork.jsonl")
    assert str(refused.value) == (
        f"could not create the fork's file in {blocker}: Not a directory; the fork did not run. Give it a "
        "path in a folder you can write to (`inspector fork RUN --step N -o FORK.jsonl`)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocker"]


# --- the TUI's `f` beside a run in a read-only folder ---------------------------------------------

ANSWER = '{"role": "assistant", "content": "done"}'


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@contextlib.contextmanager
def _unwritable(folder: Path) -> Iterator[None]:
    """`folder` read-only; where that is not enforced (root), every file written is limited to 1 KB
    instead (`RLIMIT_FSIZE`, SIGXFSZ ignored), so writing the fork still fails for real."""
    folder.chmod(0o555)
    probe = folder / ".probe"
    try:
        try:
            probe.touch()
        except PermissionError:
            yield  # enforced: the fork's file cannot even be created
            return
        probe.unlink()
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, hard))
        try:
            yield
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
            signal.signal(signal.SIGXFSZ, handler)
    finally:
        folder.chmod(0o755)


@pytest.mark.anyio
async def test_fork_key_beside_a_read_only_run_shows_a_note_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspector.tui import make_app
    from inspector.tui.fork_screen import ForkScreen

    folder = tmp_path / "shared"
    folder.mkdir()
    parent = folder / "runaway.jsonl"
    assert main(["record", "fixtures.runaway:build_agent", "--input", "go", "-o", str(parent), "-q"]) == 1
    capsys.readouterr()
    app = make_app(parent)

    def errors() -> list[str]:
        return [str(n.message) for n in app._notifications if n.severity == "error"]  # pyright: ignore[reportPrivateUsage]

    async with app.run_test(size=(140, 45)) as pilot:
        with _unwritable(folder):
            await pilot.press("f")
            await pilot.press(*("space" if ch == " " else ch for ch in ANSWER))
            await pilot.press("enter")
            deadline = time.monotonic() + 60
            while not errors() and time.monotonic() < deadline:
                await pilot.pause(0.05)
            assert app.is_running and not isinstance(app.screen, ForkScreen)
    [note] = errors()
    assert str(folder) in note and "Traceback" not in note
    assert note.startswith(("could not create the fork's file in", "could not write the run file"))
    assert sorted(p.name for p in folder.iterdir()) == ["runaway.jsonl"]
