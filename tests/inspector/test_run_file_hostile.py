"""Run files made to hurt: nested past the recursion limit, FIFOs, devices, a header and nothing else.

Each must give a `RunFileError` from `read_run` (strict and lenient alike where the line is needed)
and one paragraph with status 2 from the command line, never a `RecursionError` traceback, a blocked
read or a process filling memory. The special files are opened in a child process with a timeout, so
a regression fails the test instead of hanging the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main
from inspector.diagnostics import diagnose
from inspector.errors import RunFileError
from inspector.recording import Recorder, RunFileWarning, read_run
from inspector.recording.synthetic import react_topology, simulate_react

DEEP = 1_000
ROOT = Path(__file__).resolve().parents[2]


def _recorded(tmp_path: Path) -> Path:
    path = tmp_path / "run.jsonl"
    simulate_react(Recorder(path, topology=react_topology(), clock=lambda: 1.0, run_id="r"), rounds=2)
    return path


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _replace_line(path: Path, kind: bytes, make: Any) -> Path:
    lines = path.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith(b'{"kind":"' + kind + b'"'))
    lines[at] = make(lines[at]).encode() + b"\n"
    path.write_bytes(b"".join(lines))
    return path


def _deep_value(path: Path) -> Path:
    return _replace_line(path, b"value", lambda _: f'{{"kind":"value","value":{_nested(DEEP)}}}')


def _deep_step(path: Path) -> Path:
    def make(line: bytes) -> str:
        return line.decode().rstrip("\n")[:-1] + f',"errors":{_nested(DEEP)}}}'

    return _replace_line(path, b"step", make)


def _deep_header(path: Path) -> Path:
    return _replace_line(
        path, b"header", lambda line: line.decode().rstrip("\n")[:-1] + f',"meta":{{"x":{_nested(DEEP)}}}}}'
    )


@pytest.mark.parametrize("spoil", [_deep_value, _deep_step, _deep_header], ids=["value", "step", "header"])
def test_a_line_nested_a_thousand_deep_is_a_run_file_error(spoil: Any, tmp_path: Path) -> None:
    path = spoil(_recorded(tmp_path))
    with pytest.raises(RunFileError) as caught:
        read_run(path)
    assert "nests more than" in str(caught.value)


@pytest.mark.parametrize(
    ("spoil", "said"),
    [(_deep_value, "a value line is corrupt"), (_deep_step, "nests more than")],
    ids=["value", "step"],
)
def test_a_deeply_nested_line_of_a_file_too_large_to_check_at_open_is_refused_when_read(
    spoil: Any, said: str, tmp_path: Path
) -> None:
    """Lines of a file checked at open are parsed later without counting their brackets again; a
    large file's are counted when read."""
    path = spoil(_recorded(tmp_path))
    run = read_run(path, check_limit=0)
    with pytest.raises(RunFileError) as caught:
        for step in run.steps:
            _ = step.state, [(r.input, r.output) for r in step.node_runs]
    assert said in str(caught.value)


@pytest.mark.parametrize("spoil", [_deep_value, _deep_step], ids=["value", "step"])
def test_lenient_reading_skips_a_deeply_nested_line(spoil: Any, tmp_path: Path) -> None:
    path = spoil(_recorded(tmp_path))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RunFileWarning)
        run = read_run(path, lenient=True)
        for step in run.steps:  # every value and state read, none raising
            _ = step.state, [(r.input, r.output) for r in step.node_runs]
    assert run.skipped_lines and any(issubclass(w.category, RunFileWarning) for w in caught)


def test_lenient_reading_still_refuses_a_deeply_nested_header(tmp_path: Path) -> None:
    with pytest.raises(RunFileError):
        read_run(_deep_header(_recorded(tmp_path)), lenient=True)


@pytest.mark.parametrize("lenient", [[], ["--lenient"]], ids=["strict", "lenient"])
def test_show_on_a_deeply_nested_header_is_one_paragraph(
    lenient: list[str], tmp_path: Path, capsys: Any
) -> None:
    path = _deep_header(_recorded(tmp_path))
    assert main(["show", str(path), *lenient]) == 2
    err = capsys.readouterr().err
    assert "nests more than" in err and "Traceback" not in err and "RecursionError" not in err
    assert "\n\n" not in err.strip()  # one paragraph (wrapped)


def test_show_on_a_deeply_nested_value_is_one_paragraph(tmp_path: Path, capsys: Any) -> None:
    assert main(["show", str(_deep_value(_recorded(tmp_path)))]) == 2
    err = capsys.readouterr().err
    assert "line" in err and "RecursionError" not in err and "\n\n" not in err.strip()


def _child(*args: str) -> subprocess.CompletedProcess[str]:
    """`python3 -m inspector ARGS` in a child process that must finish within 60 s."""
    return subprocess.run(
        [sys.executable, "-m", "inspector", *args], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def _read_in_child(path: Path) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys\nfrom inspector.recording import read_run\n"
        "try:\n    read_run(sys.argv[1])\nexcept ValueError as e:\n    print(e)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.jsonl"
    os.mkfifo(path)
    return path


@pytest.fixture
def zero_link(tmp_path: Path) -> Path:
    path = tmp_path / "zero.jsonl"
    path.symlink_to("/dev/zero")
    return path


@pytest.mark.parametrize("special", ["fifo", "zero_link"])
def test_read_run_refuses_what_is_not_a_regular_file(special: str, request: Any) -> None:
    path: Path = request.getfixturevalue(special)
    done = _read_in_child(path)
    assert "not a regular file" in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize("special", ["fifo", "zero_link"])
@pytest.mark.parametrize("command", [["show"], ["replay"], ["replay", "--follow"], ["diff", "-"]])
def test_commands_refuse_what_is_not_a_regular_file(special: str, command: list[str], request: Any) -> None:
    path: Path = request.getfixturevalue(special)
    args = [command[0], str(path), *command[1:]]
    if command[0] == "diff":
        args = ["diff", str(path), str(path)]
    done = _child(*args)
    assert done.returncode == 2, done.stderr
    assert "not a regular file" in done.stderr and "Traceback" not in done.stderr
    assert "\n\n" not in done.stderr.strip()


def test_a_header_only_file_does_not_speak_of_step_minus_one(tmp_path: Path) -> None:
    full = _recorded(tmp_path)
    header = tmp_path / "header.jsonl"
    header.write_bytes(full.read_bytes().splitlines(keepends=True)[0])
    run = read_run(header)
    assert run.status == "incomplete" and len(run.steps) == 0
    (found,) = [d for d in diagnose(run) if d.code == "incomplete"]
    assert "-1" not in found.message
    said = "the recording has its header but no finished step and no run_finished line"
    assert found.message.startswith(said)
