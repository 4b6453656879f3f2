"""Rough edges a first-time user hit on the command line: each one paragraph, exit 2, no traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main
from inspector.errors import TargetError
from inspector.recording import read_run
from inspector.target import load_target

INTERRUPTED_GRAPH = """
from graph_core import Graph, START, END, Branch

def tick(x):
    if x >= 2:
        raise KeyboardInterrupt  # what Ctrl-C raises in the main thread
    return x + 1

g = Graph()
g.add_lambda_node("tick", tick)
g.add_edge(START, "tick")
g.add_branch("tick", Branch(lambda v: "tick" if v < 10 else END, {"tick", END}))
graph = g.compile()
"""


def _error(capsys: Any) -> str:
    err = capsys.readouterr().err
    assert err.startswith("inspector: error: ") and "Traceback" not in err
    return " ".join(err.split())


def test_a_missing_dependency_of_the_target_module_is_not_reported_as_the_module_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "needs_dep.py").write_text("import surely_not_installed_dep\nagent = 1\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(TargetError) as caught:
        load_target("needs_dep:agent")
    message = str(caught.value)
    assert "importing `needs_dep` failed" in message and "surely_not_installed_dep" in message
    assert "was not found" not in message


def test_a_missing_target_module_is_still_reported_as_missing() -> None:
    with pytest.raises(TargetError, match=r"module `fixtures\.no_such_fixture` was not found"):
        load_target("fixtures.no_such_fixture:agent")


def test_a_factory_returning_the_wrong_thing_says_it_returned_it(tmp_path: Path) -> None:
    source = tmp_path / "cwd.py"
    source.write_text("import os\n\ndef getcwd():\n    return os.getcwd()\n")
    with pytest.raises(TargetError, match=r"`.*cwd.py:getcwd` was called and returned a `str` object, not a"):
        load_target(f"{source}:getcwd")


def test_a_class_target_is_named_as_a_class() -> None:
    with pytest.raises(TargetError, match=r"is the class `Message`, not a"):
        load_target("graph_core.schema:Message")


def test_a_factory_whose_body_raises_type_error_is_not_called_argument_trouble(tmp_path: Path) -> None:
    source = tmp_path / "f.py"
    source.write_text("def agent():\n    return len(1)\n")
    with pytest.raises(TargetError) as caught:
        load_target(f"{source}:agent")
    assert "calling the factory failed with TypeError" in str(caught.value)


def test_a_factory_that_needs_arguments_shows_its_signature(tmp_path: Path) -> None:
    source = tmp_path / "dumping.py"
    source.write_text("def dumps(obj, *, indent=None):\n    return str(obj)\n")
    with pytest.raises(TargetError, match=r"cannot be called without arguments \(signature dumps\(obj"):
        load_target(f"{source}:dumps")


def test_a_directory_named_like_a_file_target(tmp_path: Path) -> None:
    folder = tmp_path / "agent.py"
    folder.mkdir()
    with pytest.raises(TargetError, match="is a directory, not a Python file"):
        load_target(f"{folder}:agent")


def test_error_paragraphs_keep_paths_and_flags_whole(capsys: Any, tmp_path: Path) -> None:
    long_dir = tmp_path / ("deeply-nested-" * 6)
    long_dir.mkdir()
    assert main(["record", "fixtures.weather:agent", "--input", "x", "-o", str(long_dir)]) == 2
    err = capsys.readouterr().err
    assert str(long_dir) in err  # not split at a hyphen across lines


def test_record_refuses_a_directory_output_before_running(tmp_path: Path, capsys: Any) -> None:
    assert main(["record", "fixtures.weather:agent", "--input", "x", "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("inspector") == 1, err  # no recorder warning before the error
    assert "is a directory: give a file path such as" in " ".join(err.split())


def test_record_refuses_an_unwritable_output_before_running(tmp_path: Path, capsys: Any) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["record", "fixtures.weather:agent", "--input", "x", "-o", str(blocker / "run.jsonl")]) == 2
    message = _error(capsys)
    assert message == (
        f"inspector: error: could not write the run file {blocker / 'run.jsonl'}: {blocker} is a file, "
        "not a directory"
    )
    assert "step 0" not in message


def test_record_input_json_errors_name_the_message_without_pydantic_noise(
    tmp_path: Path, capsys: Any
) -> None:
    raw = '[{"role": "user", "content": "hi"}, {"role": "usr"}]'
    assert (
        main(["record", "fixtures.weather:agent", "--input-json", raw, "-o", str(tmp_path / "r.jsonl")]) == 2
    )
    message = _error(capsys)
    assert "message 1 is not one: role:" in message
    assert "errors.pydantic.dev" not in message and "[type=" not in message


def test_ctrl_c_during_record_says_what_was_kept(tmp_path: Path, capsys: Any) -> None:
    source = tmp_path / "ticking.py"
    source.write_text(INTERRUPTED_GRAPH)
    out = tmp_path / "run.jsonl"
    assert main(["record", f"{source}:graph", "--input-json", "0", "-o", str(out), "-q"]) == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"record interrupted (Ctrl-C); 2 complete steps are in {out} (status incomplete)" in err
    assert read_run(out).status == "incomplete"
