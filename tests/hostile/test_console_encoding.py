"""A console that cannot encode the drawing (`PYTHONIOENCODING=ascii`): ASCII drawing, never a traceback.

`show` and `topology` crashed with `UnicodeEncodeError` on a non-UTF-8 stdout. Now box characters and
arrows become ASCII ones of the same width, the rest of the text backslash escapes, and JSON `\\uXXXX`
escapes (still the same JSON).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.cli.console import ascii_drawing

RUNS = Path(__file__).parents[2] / "fixtures" / "runs"


def _inspector(*args: str, encoding: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "inspector", *args],
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": encoding},
    )


@pytest.mark.parametrize(
    "args",
    [
        ["show", str(RUNS / "weather.jsonl")],
        ["topology", "fixtures.weather:agent"],
        ["topology", "fixtures.weather:agent", "--run", str(RUNS / "runaway.jsonl"), "--highlight", "tools"],
    ],
    ids=["show", "topology", "topology-run"],
)
def test_an_ascii_console_gets_an_ascii_drawing(args: list[str]) -> None:
    done = _inspector(*args, encoding="ascii")
    assert done.returncode in (0, 1), done.stderr.decode()  # diff: 1 when the runs differ
    assert b"Traceback" not in done.stderr and done.stderr == b""
    text = done.stdout.decode("ascii")  # every byte is ASCII
    assert text.strip()
    utf8 = _inspector(*args, encoding="utf-8").stdout.decode("utf-8")
    assert not utf8.isascii(), "the case must hold characters an ASCII console lacks"
    assert text == ascii_drawing(utf8).encode("ascii", "backslashreplace").decode("ascii")


def test_the_text_drawing_keeps_its_shape() -> None:
    utf8 = _inspector("topology", "fixtures.weather:agent", encoding="utf-8").stdout.decode("utf-8")
    text = _inspector("topology", "fixtures.weather:agent", encoding="ascii").stdout.decode("ascii")
    assert "─" in utf8 and "▼" in utf8
    assert [len(line) for line in text.splitlines()] == [len(line) for line in utf8.splitlines()]
    assert "+-------+\n" in text and "| start |" in text and "v\n" in text


@pytest.mark.parametrize(
    "args",
    [
        ["show", str(RUNS / "weather.jsonl"), "--json"],
        ["topology", "fixtures.weather:agent", "--format", "json"],
        ["diff", str(RUNS / "weather.jsonl"), str(RUNS / "runaway.jsonl"), "--json"],
    ],
    ids=["show", "topology", "diff"],
)
def test_json_on_an_ascii_console_is_the_same_json(args: list[str]) -> None:
    ascii_out = _inspector(*args, encoding="ascii")
    assert b"Traceback" not in ascii_out.stderr, ascii_out.stderr.decode()
    utf8_out = _inspector(*args, encoding="utf-8")
    assert json.loads(ascii_out.stdout.decode("ascii")) == json.loads(utf8_out.stdout.decode("utf-8"))


def test_a_latin1_console_keeps_what_it_can_encode() -> None:
    done = _inspector("show", str(RUNS / "weather.jsonl"), encoding="latin-1")
    assert done.returncode == 0 and b"Traceback" not in done.stderr
    text = done.stdout.decode("latin-1")
    assert "18°C" in text  # latin-1 has the degree sign: only what it lacks is replaced
    assert "\\xb0" not in text


def test_box_characters_map_to_ascii_of_one_width() -> None:
    drawn = "╭──┬╌╌╮\n│ a┆ b│\n╰━━┴┅┅╯ ▲▼◀▶→←"
    flat = ascii_drawing(drawn)
    assert flat == "+--+..+\n| a: b|\n+--+..+ ^v<>><"
    assert flat.isascii()
