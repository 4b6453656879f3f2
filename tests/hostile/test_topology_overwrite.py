"""`inspector topology -o FILE` never overwrites a file that is not a topology export.

The rule is `record -o`'s (`refuse_to_clobber`): an empty file or an earlier export, in any of the six
formats, is written again; anything else (a run file, notes, source code, an unrelated SVG) is refused
with one paragraph and exit status 2, and left as it was.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.cli import main
from inspector.cli.topology import FORMATS

TARGET = "fixtures.weather:agent"
RUN = "fixtures/runs/weather.jsonl"


def _error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("inspector: error: ") and "Traceback" not in err
    return " ".join(err.split())


@pytest.mark.parametrize(
    "content",
    [
        b"print('precious')\n",
        Path(RUN).read_bytes(),
        b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"/></svg>\n',
        b'{"format": "someone-else/document", "topology": {}}\n',
        b"\n\nsome notes\n",
    ],
    ids=["source", "run-file", "foreign-svg", "foreign-json", "notes"],
)
@pytest.mark.parametrize("fmt", ["text", "json", "svg"])
def test_a_file_that_is_not_an_export_is_refused_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, fmt: str
) -> None:
    precious = tmp_path / "precious"
    precious.write_bytes(content)
    assert main(["topology", TARGET, "--format", fmt, "-o", str(precious)]) == 2
    assert _error(capsys) == (
        f"inspector: error: -o {precious} exists and is not a topology export; the export would "
        "overwrite it. Give another path, or delete the file first if it can go"
    )
    assert precious.read_bytes() == content


@pytest.mark.parametrize("before", FORMATS)
def test_an_earlier_export_in_any_format_is_overwritten(tmp_path: Path, before: str) -> None:
    out = tmp_path / "graph.out"
    assert main(["topology", TARGET, "--format", before, "-o", str(out)]) == 0
    assert main(["topology", TARGET, "--run", RUN, "--format", "mermaid", "-o", str(out)]) == 0
    assert out.read_text().startswith("flowchart ") and "ran 2×" in out.read_text()


def test_an_empty_file_is_written(tmp_path: Path) -> None:
    out = tmp_path / "graph.dot"
    out.write_bytes(b"")
    assert main(["topology", TARGET, "--format", "dot", "-o", str(out)]) == 0
    assert out.read_text().startswith("digraph ")
