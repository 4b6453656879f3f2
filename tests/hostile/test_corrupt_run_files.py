"""Run files tampered with by hand: `show`, `diff` and `replay` say the file is corrupt and where.

From the hostile-input campaign: a value line whose `tool_calls` are not objects, a line of a kind no
event has, and a second header passed `show` with status 0; a `$refs` run naming a huge span made
`show --lenient` hang; `replay` ended with status 0 after a traceback on files `show` rejects. Each
file is made here from the weather fixture's recording.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main

WEATHER = Path(__file__).parents[2] / "fixtures" / "runs" / "weather.jsonl"


def _lines() -> list[str]:
    return WEATHER.read_text(encoding="utf-8").splitlines()


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _tool_calls_not_objects(tmp_path: Path) -> tuple[Path, int]:
    lines = _lines()
    value = json.loads(lines[2])
    assert value["value"]["tool_calls"]
    value["value"]["tool_calls"] = [1, "get_weather"]
    lines[2] = _dumps(value)
    return _write(tmp_path / "calls.jsonl", lines), 3


def _parts_not_objects(tmp_path: Path) -> tuple[Path, int]:
    lines = _lines()
    value = json.loads(lines[2])
    value["value"]["user_input_multi_content"] = "iVBORw0KGgo="
    lines[2] = _dumps(value)
    return _write(tmp_path / "parts.jsonl", lines), 3


def _unknown_kind(tmp_path: Path) -> tuple[Path, int]:
    lines = _lines()
    lines.insert(4, '{"kind":"telemetry","t":0.5}')
    return _write(tmp_path / "kind.jsonl", lines), 5


def _two_headers(tmp_path: Path) -> tuple[Path, int]:
    lines = _lines()
    lines.insert(4, lines[0])
    return _write(tmp_path / "headers.jsonl", lines), 5


CORRUPT = {
    "tool_calls-not-objects": (_tool_calls_not_objects, "`tool_calls[0]` is 1, not a tool call object"),
    "parts-not-objects": (_parts_not_objects, "`user_input_multi_content` is not a list of part objects"),
    "unknown-kind": (_unknown_kind, "is of an unknown kind `telemetry`"),
    "two-headers": (_two_headers, "is a second header"),
}


def _error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("inspector: error: ") and "Traceback" not in err
    assert "\n\n" not in err.strip()
    return " ".join(err.split())


@pytest.mark.parametrize("case", list(CORRUPT))
def test_show_says_the_file_is_corrupt_and_where(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make, said = CORRUPT[case]
    path, line_no = make(tmp_path)
    assert main(["show", str(path)]) == 2
    err = _error(capsys)
    assert f"{path}:{line_no}:" in err and said in err


@pytest.mark.parametrize("case", list(CORRUPT))
def test_show_lenient_warns_and_goes_on(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, line_no = CORRUPT[case][0](tmp_path)
    assert main(["show", str(path), "--lenient"]) == 0
    captured = capsys.readouterr()
    assert f"inspector: warning: {path}:{line_no}: skipped a corrupt line" in captured.err
    assert "step 2  chat" in captured.out


def _huge_refs(tmp_path: Path) -> Path:
    lines = _lines()
    step = json.loads(lines[5])
    step["delta"] = [["append", ["messages"], {"$refs": [[1, 10**12]]}]]
    lines[5] = _dumps(step)
    return _write(tmp_path / "refs.jsonl", lines)


def test_a_refs_run_naming_a_huge_span_is_bounded_by_the_values_the_file_has(tmp_path: Path) -> None:
    path = _huge_refs(tmp_path)
    for lenient in ([], ["--lenient"]):
        done = subprocess.run(
            [sys.executable, "-m", "inspector", "show", str(path), *lenient],
            capture_output=True,
            text=True,
            timeout=30,  # it ran past this before: 10**12 placeholders, one at a time
        )
        assert "Traceback" not in done.stderr
        if lenient:
            assert done.returncode == 0
            assert "value 4 is referred to but not defined" in done.stderr
        else:
            assert (
                done.returncode == 2 and "reference to value 4, which the file does not define" in done.stderr
            )


def test_a_huge_refs_span_in_a_stored_state_resolves_to_what_the_file_defines(tmp_path: Path) -> None:
    import warnings

    from inspector.recording import read_run
    from inspector.recording.fileindex import RunFileWarning

    lines = _lines()
    step = json.loads(lines[3])
    step["state"]["messages"] = {"$refs": [[0, 10**12]]}
    lines[3] = _dumps(step)
    path = _write(tmp_path / "state.jsonl", lines)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RunFileWarning)
        messages = read_run(path, lenient=True).state_at(0)["messages"]
    assert len(messages) == 5  # the four values the file defines, and one placeholder for the rest
    assert messages[-1]["$type"] == "lost"
    assert any("is referred to but not defined" in str(w.message) for w in caught)
