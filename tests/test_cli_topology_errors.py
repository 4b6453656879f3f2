"""`inspector topology` user errors: unknown --highlight keys, PNG bytes to a terminal, unwritable -o."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _error(capsys: Any) -> str:
    err = capsys.readouterr().err
    assert err.startswith("inspector: error: ") and "Traceback" not in err
    return " ".join(err.split())


def test_an_unknown_highlight_key_is_an_error_listing_the_nodes(capsys: Any) -> None:
    assert main(["topology", "fixtures.weather:agent", "--highlight", "tool"]) == 2
    assert _error(capsys) == (
        "inspector: error: --highlight `tool` is not a node of TARGET `fixtures.weather:agent`; its nodes "
        "are `start`, `chat`, `tools`, `direct_return`, `end`"
    )


def test_png_is_not_written_to_a_terminal(capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdout", _Terminal())
    assert main(["topology", "fixtures.weather:agent", "--format", "png"]) == 2
    assert "add `-o graph.png`" in _error(capsys)


def test_output_folders_are_created_and_write_errors_are_one_paragraph(tmp_path: Path, capsys: Any) -> None:
    nested = tmp_path / "a" / "b" / "agent.json"
    assert main(["topology", "fixtures.weather:agent", "--format", "json", "-o", str(nested)]) == 0
    assert nested.read_text().startswith("{")
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert (
        main(["topology", "fixtures.weather:agent", "--format", "json", "-o", str(blocker / "x.json")]) == 2
    )
    assert _error(capsys).startswith(f"inspector: error: could not write {blocker / 'x.json'}: ")
