"""What `inspector --help` and `inspector lint --help` tell a first-time user: that LangGraph graphs are
targets too, the `path/to/file.py:attr` form of TARGET, and which commands need Graphviz."""

from __future__ import annotations

import pytest

from inspector.cli import main


def _help(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    return " ".join(capsys.readouterr().out.split())


def test_the_main_help_names_langgraph_and_the_target_forms(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys)
    assert "LangGraph" in text
    assert "path/to/file.py:attr" in text
    assert "apt-get install graphviz" in text and "brew install graphviz" in text


def test_lint_help_shows_the_file_form_of_target(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys, "lint")
    assert "package.module:attr" in text and "path/to/file.py:attr" in text
