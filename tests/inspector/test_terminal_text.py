"""One escaping rule for every terminal output: `show` escapes bidi overrides and zero-width
characters as the TUI does (`inspector.terminaltext.visible`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph_core import END, START, Graph
from inspector.cli import main
from inspector.cli.plain import one_line
from inspector.recording import Recorder
from inspector.terminaltext import ESCAPED, visible
from inspector.tui.literal import one_line as tui_one_line

HOSTILE = "abc\u202edef\u200bghi\x1b[31m\u2066x\ufeff"


def test_show_escapes_bidi_and_zero_width_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = "n\u202eode\u200b"
    graph = Graph()
    graph.add_lambda_node(key, lambda text: f"{text} \u202eevil\u200b")
    graph.add_edge(START, key)
    graph.add_edge(key, END)
    out = tmp_path / "run.jsonl"
    graph.compile().invoke("in", callbacks=[Recorder(out)])
    assert main(["show", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "\u202e" not in printed and "\u200b" not in printed
    assert "n\\u202eode\\u200b" in printed
    assert "\\u202eevil\\u200b" in printed


def test_show_and_the_tui_draw_hostile_text_the_same_way() -> None:
    assert one_line(HOSTILE) == tui_one_line(HOSTILE, limit=None).plain == visible(HOSTILE)
    assert visible(HOSTILE) == "abc\\u202edef\\u200bghi\\x1b[31m\\u2066x\\ufeff"
    assert visible("a\r\nb\tc") == "a ⏎ b    c"
    assert visible("a\nb", keep_newlines=True) == "a\nb"


def test_every_character_the_rule_escapes_is_unprintable() -> None:
    """`visible` returns printable text (`str.isprintable`) untouched without its regex search, so no
    character the rule escapes may be printable; text around them is escaped as before."""
    escaped = [chr(c) for c in range(0x30000) if ESCAPED.match(chr(c))]
    assert escaped and not any(ch.isprintable() for ch in escaped)
    assert visible("plain text, ünïcode and emoji \U0001f600") == "plain text, ünïcode and emoji \U0001f600"
    assert visible("no\u00a0break") == "no\u00a0break"  # unprintable, yet nothing to escape
    assert visible("a\u202eb\x1b") == "a\\u202eb\\x1b"
