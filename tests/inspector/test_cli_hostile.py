"""The command line against hostile input: every user error is one paragraph and status 2, no traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main


@pytest.mark.parametrize("raw", ['{"content": "hi"}', '[{"role": "user"}, {"content": "no role"}]'])
def test_input_json_message_without_role_is_a_user_error(raw: str, tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "run.jsonl"
    code = main(["record", "fixtures.weather:build_agent", "--input-json", raw, "-o", str(out), "-q"])
    err = capsys.readouterr().err
    assert code == 2
    assert "--input-json for an agent must be a list of messages" in err and "role" in err
    assert not out.exists() or out.stat().st_size == 0


@pytest.mark.parametrize(
    ("source", "attr"),
    [
        ("import sys\nsys.exit(3)\n", "graph"),  # a script that exits at import
        ("import argparse\nargparse.ArgumentParser().parse_args(['--nope'])\n", "graph"),
        ("def build():\n    raise SystemExit('bye')\n", "build"),  # a factory that exits
    ],
)
def test_a_target_that_exits_is_a_user_error(source: str, attr: str, tmp_path: Path, capsys: Any) -> None:
    target = tmp_path / "exits.py"
    target.write_text(source)
    assert main(["topology", f"{target}:{attr}"]) == 2
    err = capsys.readouterr().err
    # argparse prints its own usage line first; what follows is ours, and no traceback.
    assert "inspector: error: TARGET" in err and "SystemExit" in err and "Traceback" not in err
