"""Consent before code: `inspector fork` imports the TARGET a recording names only when the user agreed.

Each hostile recording is the bundled runaway run with its header's `meta.target` pointing at a payload
that would create a marker file when imported. Without `--target`, a "y" on a terminal, or a trust entry
made by this user's own recording, the payload never runs: exit 2, the marker and the fork absent, and
the message gives the exact command that names the target with `--target`.
"""

from __future__ import annotations

import io
import json
import os
import pty
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.cli.fork import ask_on_terminal
from inspector.target import TargetSource, locate_target
from inspector.trust import read_trust_list, trust_file

RUNAWAY = Path("fixtures/runs/runaway.jsonl").resolve()
STOP = '{"role": "assistant", "content": "It  stopped raining."}'  # two spaces: the command keeps them


def _payload(folder: Path, marker: Path, name: str = "payload.py") -> Path:
    """A module that writes `marker` when imported, then offers the runaway agent (so a fork runs)."""
    path = folder / name
    path.write_text(
        "from pathlib import Path\n"
        f"Path({str(marker)!r}).write_text('ran')\n"
        "from fixtures.runaway import agent\n"
    )
    return path


def _recording(path: Path, target: str, run_id: str = "from-a-stranger") -> Path:
    lines = RUNAWAY.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["meta"]["target"] = target
    header["run_id"] = run_id
    lines[0] = json.dumps(header, separators=(",", ":")) + "\n"
    path.write_text("".join(lines))
    return path


def _not_a_terminal(monkeypatch: pytest.MonkeyPatch, typed: str = "y\n") -> None:
    """stdin is a pipe: even a "y" waiting on it must not count as an answer."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(typed))


def _refused(capsys: pytest.CaptureFixture[str]) -> tuple[str, list[str]]:
    """(the error paragraph, the command it offers, as argv) after a refusal."""
    err = capsys.readouterr().err
    assert "Traceback" not in err
    *text, command = err.rstrip("\n").splitlines()  # the command on a line of its own, unwrapped
    argv = shlex.split(command)
    assert argv[:2] == ["inspector", "fork"] and argv[-2] == "--target", err
    message = " ".join(" ".join(text).split())
    assert message.endswith("If you trust that code, run:")
    return message, argv


@pytest.mark.parametrize("form", ["relative", "absolute", "beside"])
def test_a_payload_target_is_refused_without_consent_and_the_command_given_runs_it(
    form: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "MARKER"
    work = tmp_path / "work" / "deep"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    monkeypatch.syspath_prepend(str(work))
    if form == "relative":
        _payload(tmp_path, marker)
        target = "../../payload.py:agent"
    elif form == "absolute":
        target = f"{_payload(tmp_path, marker)}:agent"
    else:
        _payload(work, marker, name="evilmod_beside.py")
        target = "evilmod_beside:agent"
    run = _recording(work / "evil.jsonl", target)
    _not_a_terminal(monkeypatch)
    argv = ["fork", str(run), "--step", "4", "-o", "fork.jsonl", "--model-answer", STOP]
    assert main(argv) == 2
    message, command = _refused(capsys)
    assert not marker.exists() and not (work / "fork.jsonl").exists()
    assert f"names the TARGET `{target}`" in message and "it was not imported" in message
    assert command[1:] == [*argv, "--target", target]  # exactly what was typed, plus --target
    assert main(command[1:]) == 0  # the user named it: it runs
    assert marker.read_text() == "ran" and (work / "fork.jsonl").is_file()


def test_a_terminal_is_asked_and_no_runs_nothing(tmp_path: Path) -> None:
    """Through a real pseudo-terminal: the question shows the target and the file; "n" refuses, "y" runs."""
    marker = tmp_path / "MARKER"
    payload = _payload(tmp_path, marker)
    run = _recording(tmp_path / "evil.jsonl", "payload.py:agent")
    for answer, status in (("n", 2), ("y", 0)):
        primary, secondary = pty.openpty()
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "inspector", "fork", str(run), "--step", "4", "-o", f"{answer}.jsonl"],
                cwd=tmp_path,
                stdin=secondary,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            os.write(primary, f"{answer}\n".encode())
            _, err = process.communicate(timeout=60)
        finally:
            os.close(primary)
            os.close(secondary)
        assert process.returncode == status, err
        assert f"names the TARGET `payload.py:agent`, the file {payload}" in " ".join(err.split())
        assert "Run it? [y/N]" in err
        assert marker.exists() == (answer == "y")
        assert (tmp_path / f"{answer}.jsonl").exists() == (answer == "y")


def test_the_question_defaults_to_no_and_is_never_asked_of_a_pipe(tmp_path: Path) -> None:
    source = TargetSource("evil.py:agent", "evil", "agent", tmp_path / "evil.py", True)

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for typed, expected in (("y\n", True), ("YES\n", True), ("\n", False), ("n\n", False), ("", False)):
        err = io.StringIO()
        assert ask_on_terminal(source, "run.jsonl", stdin=Terminal(typed), stderr=err) is expected
        assert "names the TARGET `evil.py:agent`" in err.getvalue()
    err = io.StringIO()
    assert ask_on_terminal(source, "run.jsonl", stdin=io.StringIO("y\n"), stderr=err) is False
    assert err.getvalue() == ""  # nothing asked, nothing read


@pytest.mark.parametrize(
    ("target", "module"),
    [
        ("os:abort", "os"),
        ("http.server:test", "http.server"),
        ("tempfile:mkdtemp", "tempfile"),
        ("antigravity:x", "antigravity"),
    ],
)
def test_the_standard_library_is_refused_before_it_is_imported_or_called(
    target: str,
    module: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Even named with --target: `os.abort` would kill this test process, `http.server.test` would
    serve port 8000 forever, `mkdtemp` would make a folder, importing `antigravity` opens a browser."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    run = _recording(tmp_path / "run.jsonl", target)
    for extra in ([], ["--target", target]):
        _not_a_terminal(monkeypatch)
        assert main(["fork", str(run), "--step", "4", "-o", str(tmp_path / "f.jsonl"), *extra]) == 2
        err = " ".join(capsys.readouterr().err.split())
        assert f"names `{module}`, which is part of Python's standard library" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.jsonl"]
    if module == "antigravity":
        assert "antigravity" not in sys.modules


def test_the_running_program_is_not_a_target(capsys: pytest.CaptureFixture[str]) -> None:
    """`__main__` is the inspector itself when it runs as `python -m inspector`: never a user's graph."""
    assert main(["topology", "__main__:main"]) == 2
    assert "names `__main__`, the program running now" in " ".join(capsys.readouterr().err.split())


@pytest.mark.parametrize(
    "imported", ["from os import abort as agent", "from tempfile import mkdtemp as agent"]
)
def test_a_standard_library_function_under_another_name_is_not_called(
    imported: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temp"))
    (tmp_path / "temp").mkdir()
    module = tmp_path / "innocent.py"
    module.write_text(imported + "\n")
    assert main(["topology", f"{module}:agent"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "it was not called" in err
    assert list((tmp_path / "temp").iterdir()) == []


def test_a_run_recorded_here_forks_with_no_prompt_and_deleting_the_list_brings_the_question_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "MARKER"
    _payload(tmp_path, marker, name="my_agent.py")
    monkeypatch.chdir(tmp_path)
    assert main(["record", "my_agent.py:agent", "--input", "go", "-o", "mine.jsonl", "-q"]) == 1  # runaway
    marker.unlink()
    _not_a_terminal(monkeypatch, typed="")
    assert main(["fork", "mine.jsonl", "--step", "4", "-o", "fork.jsonl", "--model-answer", STOP]) == 0
    assert marker.exists() and "Run it?" not in capsys.readouterr().err
    entry = read_trust_list().entries[0]
    assert (entry.target, entry.origin) == ("my_agent.py:agent", str(tmp_path / "my_agent.py"))
    # the fork was recorded here too: it forks in turn without a question
    assert main(["fork", "fork.jsonl", "--step", "2", "-o", "fork2.jsonl"]) == 0
    trust_file().unlink()
    marker.unlink()
    assert main(["fork", "mine.jsonl", "--step", "4", "-o", "again.jsonl"]) == 2
    assert not marker.exists() and "--target my_agent.py:agent" in capsys.readouterr().err


def test_a_trusted_pair_does_not_follow_the_recording_to_another_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The entry holds the file the target resolved to: the same run id and target text beside another
    `my_agent.py` (a stranger's archive unpacked) is not the code this user ran."""
    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    home.mkdir()
    elsewhere.mkdir()
    _payload(home, tmp_path / "HOME_RAN", name="my_agent.py")
    monkeypatch.chdir(home)
    assert main(["record", "my_agent.py:agent", "--input", "go", "-o", "mine.jsonl", "-q"]) == 1
    _payload(elsewhere, tmp_path / "STRANGER_RAN", name="my_agent.py")
    (elsewhere / "mine.jsonl").write_bytes((home / "mine.jsonl").read_bytes())
    monkeypatch.chdir(elsewhere)
    _not_a_terminal(monkeypatch)
    assert main(["fork", "mine.jsonl", "--step", "4", "-o", "fork.jsonl"]) == 2
    assert not (tmp_path / "STRANGER_RAN").exists()
    assert f"the file {elsewhere / 'my_agent.py'}" in " ".join(capsys.readouterr().err.split())


def test_a_corrupt_trust_list_counts_as_empty_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _payload(tmp_path, tmp_path / "MARKER", name="my_agent.py")
    monkeypatch.chdir(tmp_path)
    assert main(["record", "my_agent.py:agent", "--input", "go", "-o", "mine.jsonl", "-q"]) == 1
    trust_file().write_text('{"format": "graph-inspector/trusted-runs", "runs": [{"run_id": ')
    (tmp_path / "MARKER").unlink()
    _not_a_terminal(monkeypatch)
    assert main(["fork", "mine.jsonl", "--step", "4", "-o", "fork.jsonl"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"inspector: note: the trust list {trust_file()} could not be read" in err
    assert not (tmp_path / "MARKER").exists()
    # recording again replaces the unusable list with a good one
    assert main(["record", "my_agent.py:agent", "--input", "go", "-o", "again.jsonl", "-q"]) == 1
    assert read_trust_list().note is None and len(read_trust_list().entries) == 1


def test_the_bundled_fixtures_are_trusted_as_built_objects_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A recording naming a bundled fixture's agent forks at once (the README tour, fixtures/runs/); one
    naming a bundled *factory* (the OpenAI agent reads the environment and calls a server) is not called."""
    _not_a_terminal(monkeypatch)
    run = _recording(tmp_path / "stranger.jsonl", "fixtures.runaway:agent")
    assert (
        main(["fork", str(run), "--step", "4", "-o", str(tmp_path / "f.jsonl"), "--model-answer", STOP]) == 0
    )
    run = _recording(tmp_path / "factory.jsonl", "fixtures.openai_agent:agent")
    assert main(["fork", str(run), "--step", "4", "-o", str(tmp_path / "g.jsonl")]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "is a factory" in err and "it is not called" in err and "pass --target" in err


def test_a_fixtures_folder_in_the_current_directory_is_not_the_bundled_one(tmp_path: Path) -> None:
    """`python -m inspector` puts the current directory first on the path: a stranger's `fixtures/`
    there shadows the bundled package, and is not trusted as it."""
    package = tmp_path / "fixtures"
    package.mkdir()
    (package / "__init__.py").write_text("")
    _payload(package, tmp_path / "MARKER", name="runaway.py")
    run = _recording(tmp_path / "evil.jsonl", "fixtures.runaway:agent")
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "fork", str(run), "--step", "4", "-o", "f.jsonl"],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert f"(from {package / 'runaway.py'})" in " ".join(done.stderr.split())
    assert not (tmp_path / "MARKER").exists()


def test_locating_a_target_runs_none_of_its_packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "noisy_pkg"
    package.mkdir()
    (package / "__init__.py").write_text(f"open({str(tmp_path / 'MARKER')!r}, 'w').close()\n")
    (package / "agents.py").write_text("agent = None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    source = locate_target("noisy_pkg.agents:agent")
    assert source.origin == package / "agents.py" and not (tmp_path / "MARKER").exists()
    assert "noisy_pkg" not in sys.modules
