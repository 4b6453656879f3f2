"""`inspector record`/`demo -o` never truncate a file that is not a run file (a typo in -o must not cost
the user a file); an earlier recording, an empty file or a recording cut off in its header is rewritten."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.cli import main
from inspector.recording import read_run

RECORD = ["record", "fixtures.weather:agent", "--input", "hi", "--quiet", "-o"]


def test_a_file_that_is_not_a_run_file_is_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    precious = tmp_path / "agent.py"
    precious.write_text("print('precious')\n")
    assert main([*RECORD, str(precious)]) == 2
    err = " ".join(capsys.readouterr().err.split())  # the message is wrapped to the terminal
    assert f"-o {precious} exists and is not a run file" in err and "Traceback" not in err
    assert precious.read_text() == "print('precious')\n"
    assert main(["demo", "--headless", "-o", str(precious)]) == 2
    assert precious.read_text() == "print('precious')\n"


@pytest.mark.parametrize("before", [b"", b'{"kind":"head', None], ids=["empty", "cut-off-header", "a-run"])
def test_run_files_and_empty_files_are_rewritten(tmp_path: Path, before: bytes | None) -> None:
    out = tmp_path / "run.jsonl"
    if before is None:
        assert main([*RECORD, str(out)]) == 0  # an earlier recording of the same run
    else:
        out.write_bytes(before)
    assert main([*RECORD, str(out)]) == 0
    assert read_run(out).status == "ok"
