"""Top-level step lines out of order (reordered, duplicated, reversed, negative indexes).

Within a segment the step indexes go 0, 1, 2, ... in file order; `read_run` raises a `RunFileError`
naming the first line that breaks this, and `lenient=True` warns and reads the steps in file order.
"""

from __future__ import annotations

import itertools
import json
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main
from inspector.recording import Recorder, RunFileError, RunFileWarning, read_run
from inspector.recording.synthetic import react_topology, simulate_react

FIXTURES = Path(__file__).parents[2] / "fixtures" / "runs"
Lines = list[str]


def _clock() -> Any:
    ticks = itertools.count()
    return lambda: 1_700_000_000.0 + next(ticks) * 0.25


def _record(path: Path, rounds: int = 3) -> Path:
    """A ReAct run of 2 * rounds + 1 steps (0..6 for 3 rounds), each step after its value line."""
    simulate_react(Recorder(path, topology=react_topology(), clock=_clock(), run_id="r1"), rounds)
    return path


def _step_numbers(lines: Lines) -> list[int]:
    """0-based numbers of the top-level step lines."""
    return [i for i, line in enumerate(lines) if line.startswith('{"kind":"step",')]


def _edit(path: Path, change: Callable[[Lines], None]) -> None:
    lines = path.read_text().splitlines(keepends=True)
    change(lines)
    path.write_text("".join(lines))


def _swap_steps(a: int, b: int) -> Callable[[Lines], None]:
    def change(lines: Lines) -> None:
        steps = _step_numbers(lines)
        lines[steps[a]], lines[steps[b]] = lines[steps[b]], lines[steps[a]]

    return change


def _set_index(position: int, index: int) -> Callable[[Lines], None]:
    def change(lines: Lines) -> None:
        i = _step_numbers(lines)[position]
        lines[i] = re.sub(r'"index":-?\d+', f'"index":{index}', lines[i], count=1)

    return change


def _duplicate_step(position: int) -> Callable[[Lines], None]:
    def change(lines: Lines) -> None:
        i = _step_numbers(lines)[position]
        lines.insert(i + 1, lines[i])

    return change


def _line_of_step(path: Path, position: int) -> int:
    return _step_numbers(path.read_text().splitlines())[position] + 1


def _strict_error(path: Path, **kwargs: Any) -> RunFileError:
    with pytest.raises(RunFileError) as info:
        read_run(path, **kwargs)
    return info.value


def _lenient(path: Path, **kwargs: Any) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = read_run(path, lenient=True, **kwargs)
    assert all(issubclass(w.category, RunFileWarning) for w in caught)
    return run, [str(w.message) for w in caught]


def test_recorded_files_read_without_a_word(tmp_path: Path) -> None:
    path = _record(tmp_path / "run.jsonl")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [s.index for s in read_run(path).steps] == list(range(7))
        assert [s.index for s in read_run(path, lenient=True).steps] == list(range(7))
        resumed = read_run(FIXTURES / "approval.jsonl")  # a resumed segment restarts at 0
    assert [(s.segment, s.index) for s in resumed.steps] == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_swapped_step_lines_name_the_first_out_of_order_line(tmp_path: Path) -> None:
    path = _record(tmp_path / "run.jsonl")
    _edit(path, _swap_steps(2, 4))  # file order: 0 1 4 3 2 5 6
    line_no = _line_of_step(path, 2)
    error = _strict_error(path)
    assert error.line_no == line_no
    assert f"step line {line_no} has index 4, expected 2" in str(error)
    assert "lenient" in str(error)
    run, messages = _lenient(path)
    assert [s.index for s in run.steps] == [0, 1, 4, 3, 2, 5, 6]  # read on, in file order
    assert messages[0].endswith(
        f":{line_no}: step line {line_no} has index 4, expected 2; steps are read in file order"
    )
    # each line is checked against the one before it: 4 (expected 2), 3 (expected 5), 2 (expected 4), 5
    assert [m.split(": ", 1)[1].split(";")[0] for m in messages] == [
        f"step line {_line_of_step(path, 2)} has index 4, expected 2",
        f"step line {_line_of_step(path, 3)} has index 3, expected 5",
        f"step line {_line_of_step(path, 4)} has index 2, expected 4",
        f"step line {_line_of_step(path, 5)} has index 5, expected 3",
    ]


def test_a_duplicated_step_line_is_reported_once(tmp_path: Path) -> None:
    path = _record(tmp_path / "run.jsonl")
    _edit(path, _duplicate_step(3))
    line_no = _line_of_step(path, 4)  # the copy
    error = _strict_error(path)
    assert error.line_no == line_no and f"step line {line_no} has index 3, expected 4" in str(error)
    run, messages = _lenient(path)
    assert [s.index for s in run.steps] == [0, 1, 2, 3, 3, 4, 5, 6]
    assert len(messages) == 1 and f"step line {line_no} has index 3, expected 4" in messages[0]


def test_a_reversed_file_body_fails_at_its_first_step_line(tmp_path: Path) -> None:
    path = _record(tmp_path / "run.jsonl")
    _edit(path, lambda lines: lines.__setitem__(slice(1, None), lines[:0:-1]))
    line_no = _line_of_step(path, 0)
    error = _strict_error(path)
    assert error.line_no == line_no and f"step line {line_no} has index 6, expected 0" in str(error)


def test_negative_and_skipped_indexes(tmp_path: Path) -> None:
    path = _record(tmp_path / "run.jsonl")
    _edit(path, _set_index(0, -1))
    error = _strict_error(path)
    assert f"step line {_line_of_step(path, 0)} has index -1, expected 0" in str(error)
    path = _record(tmp_path / "gap.jsonl")
    _edit(path, _set_index(5, 9))
    assert "has index 9, expected 5" in str(_strict_error(path))


def test_an_index_elsewhere_on_a_hand_edited_line_is_read(tmp_path: Path) -> None:
    """A full snapshot line whose `index` is not right after the prefix is parsed for it."""
    path = _record(tmp_path / "run.jsonl")

    def move_index(lines: Lines) -> None:
        i = _step_numbers(lines)[-1]
        obj = json.loads(lines[i])
        index = obj.pop("index")
        lines[i] = json.dumps({**obj, "index": index - 2}, separators=(",", ":")) + "\n"

    _edit(path, move_index)
    assert "has index 4, expected 6" in str(_strict_error(path))


def test_large_files_are_checked_too(tmp_path: Path) -> None:
    path = _record(tmp_path / "run.jsonl")
    _edit(path, _swap_steps(1, 2))
    error = _strict_error(path, check_limit=0)  # memory-mapped, lines checked as read
    assert "has index 2, expected 1" in str(error)


def test_each_segment_counts_from_zero(tmp_path: Path) -> None:
    path = tmp_path / "approval.jsonl"
    path.write_bytes((FIXTURES / "approval.jsonl").read_bytes())
    _edit(path, _set_index(3, 2))  # the resumed segment's second step
    line_no = _line_of_step(path, 3)
    error = _strict_error(path)
    assert error.line_no == line_no
    assert f"step line {line_no} has index 2, expected 1 in segment 1" in str(error)
    path.write_bytes((FIXTURES / "approval.jsonl").read_bytes())
    _edit(path, _set_index(2, 2))  # a resumed segment that continues the count instead of restarting
    assert "has index 2, expected 0 in segment 1" in str(_strict_error(path))


def test_lenient_warnings_are_capped(tmp_path: Path) -> None:
    path = _record(tmp_path / "run.jsonl", rounds=15)  # 31 steps

    def reverse_steps(lines: Lines) -> None:
        steps = _step_numbers(lines)
        for i, line in zip(steps, [lines[i] for i in reversed(steps)], strict=True):
            lines[i] = line

    _edit(path, reverse_steps)
    run, messages = _lenient(path)
    assert [s.index for s in run.steps] == list(range(30, -1, -1))
    assert len(messages) == 11 and messages[-1].endswith(": 21 more step lines out of order")  # 31 in all


def test_show_exits_2_and_lenient_show_warns(tmp_path: Path, capsys: Any) -> None:
    path = _record(tmp_path / "run.jsonl")
    _edit(path, _swap_steps(0, 1))
    line_no = _line_of_step(path, 0)
    assert main(["show", str(path)]) == 2
    err = " ".join(capsys.readouterr().err.split())  # the CLI wraps its message
    assert f"step line {line_no} has index 1, expected 0" in err and "Traceback" not in err
    assert main(["show", "--lenient", str(path)]) == 0
    captured = capsys.readouterr()
    assert f"step line {line_no} has index 1, expected 0" in captured.err
    assert captured.out.index("step 1") < captured.out.index("step 0")  # file order, as warned
