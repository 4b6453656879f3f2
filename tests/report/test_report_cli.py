"""`inspector report` at the command line: what it writes, and the one-paragraph refusals (exit 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNAWAY = ROOT / "fixtures" / "runs" / "runaway.jsonl"
WEATHER = ROOT / "fixtures" / "runs" / "weather.jsonl"


def inspector(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "inspector", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_a_page_is_written_and_named(tmp_path: Path) -> None:
    result = inspector("report", str(WEATHER), "-o", "run.html", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "run.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "wrote the run page run.html" in result.stdout
    assert [p.name for p in tmp_path.iterdir()] == ["run.html"]  # no temporary file left beside it


def test_the_page_needs_no_network(tmp_path: Path) -> None:
    inspector("report", str(WEATHER), "-o", "run.html", cwd=tmp_path)
    page = (tmp_path / "run.html").read_text(encoding="utf-8")
    assert "default-src 'none'" in page  # the browser may fetch nothing
    for reference in ("http://", "https://", "src=", "<link"):
        if reference == "http://":  # SVG's own namespace names are not fetched
            assert page.count(reference) == page.count("http://www.w3.org/")
        else:
            assert reference not in page, reference


def test_a_second_report_overwrites_the_page_it_wrote(tmp_path: Path) -> None:
    assert inspector("report", str(WEATHER), "-o", "run.html", cwd=tmp_path).returncode == 0
    assert inspector("report", str(RUNAWAY), "-o", "run.html", cwd=tmp_path).returncode == 0
    assert "runaway.jsonl" in (tmp_path / "run.html").read_text(encoding="utf-8")


def test_refusals_are_one_paragraph_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine\n", encoding="utf-8")
    cases = {
        ("report", str(RUNAWAY), "-o", "notes.txt"): "is not a page `inspector report` wrote",
        ("report", str(RUNAWAY), "-o", "x.html", "--steps", "5..40"): "it has 13 steps, numbered 0 to 12",
        ("report", str(RUNAWAY), "-o", "x.html", "--steps", "five"): "is not a range",
        ("report", str(RUNAWAY), "-o", "x.html", "--size-limit", "0.01"): "narrow it with --steps A..B",
        ("report", str(RUNAWAY), str(WEATHER), "-o", "x.html", "--steps", "1..2"): "starts at the first",
        ("report", str(tmp_path / "missing.jsonl"), "-o", "x.html"): "missing.jsonl",
        ("report", str(RUNAWAY), "-o", str(tmp_path)): "is a directory",
    }
    for argv, expected in cases.items():
        result = inspector(*argv, cwd=tmp_path)
        assert result.returncode == 2, (argv, result.stderr)
        assert expected in " ".join(result.stderr.split()), (argv, result.stderr)
        assert "Traceback" not in result.stderr
        assert result.stderr.startswith("inspector: error:")
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "mine\n"
    assert not (tmp_path / "x.html").exists()
