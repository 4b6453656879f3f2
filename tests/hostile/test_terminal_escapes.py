"""Terminal controls in run data, arguments and error messages never reach the terminal raw.

Cases from the hostile-input campaign (issue 37): ESC, BEL, a C1 control (`\\x9b`, which a terminal
may read as the start of an escape sequence) and a bidi override went out as they were through
`record`'s lines, the `--highlight` error, the text `--run` overlay, `diff`, the fork mismatch message,
a TARGET whose import raises an escape-laden message, `show`'s header fields (`run_id`, `started_at`,
`meta.fork.step`) and a missing file's name. Every one must show the escaped form
(`inspector.terminaltext.visible`, the TUI's rule) and no raw control.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main
from inspector.recording import Recorder
from inspector.terminaltext import visible

HOSTILE = "x\x1b[31m\x07\x9b\u202ey"
ESCAPED = "x\\x1b[31m\\x07\\x9b\\u202ey"
RAW = ("\x1b", "\x07", "\x9b", "\u202e")

GRAPH = """
from graph_core import END, START, Graph

KEY = {key!r}

def graph():
    graph = Graph()
    graph.add_lambda_node(KEY, lambda x: x)
    graph.add_edge(START, KEY)
    graph.add_edge(KEY, END)
    return graph.compile()
"""


def _printed(capsys: Any) -> str:
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "Traceback" not in text
    for control in RAW:
        assert control not in text, (control, text)
    return text


def _target(tmp_path: Path, name: str, key: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(GRAPH.format(key=key))
    return f"{path}:graph"


def _record(tmp_path: Path, target: str, name: str, capsys: Any, *, run_id: str | None = None) -> Path:
    output = tmp_path / name
    assert main(["record", target, "--input", "hi", "-o", str(output), "--quiet"]) == 0
    capsys.readouterr()
    if run_id is not None:
        _edit_header(output, lambda header: header.update(run_id=run_id))
    return output


def _edit_header(path: Path, change: Any) -> None:
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    change(header)
    lines[0] = json.dumps(header)
    path.write_text("\n".join(lines) + "\n")


def test_visible_escapes_each_control_and_a_lone_surrogate() -> None:
    assert visible(HOSTILE) == ESCAPED
    # a byte that is not UTF-8 in an argument or a file name arrives as a lone surrogate
    assert visible("name\udc9b") == "name\\udc9b"


def test_records_progress_and_summary_lines(tmp_path: Path, capsys: Any) -> None:
    target = _target(tmp_path, "g", HOSTILE)
    output = tmp_path / f"run{HOSTILE}.jsonl"
    assert main(["record", target, "--input", "hi", "-o", str(output)]) == 0
    printed = _printed(capsys)
    assert f"step 0: {ESCAPED}" in printed and f"run{ESCAPED}.jsonl" in printed


def test_records_failure_summary(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "failing.py"
    path.write_text(
        "from graph_core import END, START, Graph\n"
        "def boom(x):\n"
        f"    raise ValueError({HOSTILE!r})\n"
        "def graph():\n"
        "    g = Graph()\n"
        "    g.add_lambda_node('n', boom)\n"
        "    g.add_edge(START, 'n')\n"
        "    g.add_edge('n', END)\n"
        "    return g.compile()\n"
    )
    assert main(["record", f"{path}:graph", "--input", "hi", "-o", str(tmp_path / "r.jsonl")]) == 1
    assert ESCAPED in _printed(capsys)


def test_the_highlight_error(tmp_path: Path, capsys: Any) -> None:
    target = _target(tmp_path, "g", HOSTILE)
    assert main(["topology", target, "--highlight", f"no{HOSTILE}"]) == 2
    printed = _printed(capsys)
    assert f"no{ESCAPED}" in printed and f"`{ESCAPED}`" in printed  # the argument and the graph's key


def test_the_text_run_overlay(tmp_path: Path, capsys: Any) -> None:
    target = _target(tmp_path, "g", HOSTILE)
    run = _record(tmp_path, target, f"r{HOSTILE}.jsonl", capsys, run_id=f"id{HOSTILE}")
    assert main(["topology", str(run), "--run", str(run)]) == 0
    printed = _printed(capsys)
    assert f"run r{ESCAPED}.jsonl: ok" in printed and f"{ESCAPED} -> end" in printed


def test_diff(tmp_path: Path, capsys: Any) -> None:
    a = _record(tmp_path, _target(tmp_path, "a", f"a{HOSTILE}"), "a.jsonl", capsys)
    b = _record(tmp_path, _target(tmp_path, "b", f"b{HOSTILE}"), "b.jsonl", capsys)
    assert main(["diff", str(a), str(b)]) == 1
    printed = _printed(capsys)
    assert f"node removed: `a{ESCAPED}`" in printed and f"B [b{ESCAPED}]" in printed


def test_the_fork_mismatch_message(tmp_path: Path, capsys: Any) -> None:
    run = _record(tmp_path, _target(tmp_path, "a", f"a{HOSTILE}"), "a.jsonl", capsys)
    other = _target(tmp_path, "b", f"b{HOSTILE}")
    assert main(["fork", str(run), "--step", "0", "-o", str(tmp_path / "f.jsonl"), "--target", other]) == 2
    printed = _printed(capsys)
    assert "no longer matches" in printed and f"a{ESCAPED}" in printed


def test_a_target_whose_import_raises(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "raising.py"
    path.write_text(f"raise RuntimeError({HOSTILE!r})\n")
    assert main(["topology", f"{path}:graph"]) == 2
    assert ESCAPED in _printed(capsys)


@pytest.mark.parametrize(
    ("field", "change"),
    [
        ("run_id", lambda h: h.update(run_id=f"id{HOSTILE}")),
        ("started_at", lambda h: h.update(started_at=f"2026{HOSTILE}")),
        ("meta.fork.step", lambda h: h.setdefault("meta", {}).update(fork={"parent": "p", "step": HOSTILE})),
    ],
)
def test_shows_header_fields(tmp_path: Path, capsys: Any, field: str, change: Any) -> None:
    run = _record(tmp_path, _target(tmp_path, "g", "n"), "r.jsonl", capsys)
    _edit_header(run, change)
    assert main(["show", str(run)]) == 0
    assert ESCAPED in _printed(capsys), field


def test_a_missing_files_name(tmp_path: Path, capsys: Any) -> None:
    assert main(["show", str(tmp_path / f"missing{HOSTILE}.jsonl")]) == 2
    assert f"missing{ESCAPED}.jsonl" in _printed(capsys)


def test_a_recorder_run_id_in_shows_header(tmp_path: Path, capsys: Any) -> None:
    # The run ID as the Recorder was given it (not only a hand-edited file).
    from graph_core.callbacks import RunInfo

    path = tmp_path / "r.jsonl"
    recorder = Recorder(path, run_id=HOSTILE)
    recorder.on_start(RunInfo(None, "g", "Graph"), "in")
    recorder.on_end(RunInfo(None, "g", "Graph"), "out")
    assert main(["show", str(path)]) == 0
    assert f"run {ESCAPED}" in _printed(capsys)


def test_the_fork_consent_refusal_quotes_the_recorded_target_escaped(tmp_path: Path, capsys: Any) -> None:
    # The TARGET a recording names is the recording's text: shown, never obeyed, and never raw.
    run = _record(tmp_path, _target(tmp_path, "g", "n"), "r.jsonl", capsys)
    _edit_header(
        run, lambda h: h.update(run_id="stranger", meta={**h["meta"], "target": f"evil{HOSTILE}:agent"})
    )
    assert main(["fork", str(run), "--step", "0", "-o", str(tmp_path / "f.jsonl")]) == 2
    assert f"evil{ESCAPED}:agent" in _printed(capsys)
