"""State changes that do not apply to the state before them: one paragraph naming line and step.

From the hostile-input campaign: a step's delta with an index past a list's end, a `set` into a string,
a `del` of a missing key or an op of no known kind gave a `TypeError` traceback in `show` and `diff`,
and a Python exception printed over the replay TUI as it closed (status 0). Each file is the weather
fixture's recording with step 1's delta replaced; step 0 also keeps a plain list, `notes`.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main
from inspector.recording.statediff import DeltaError, apply_delta
from inspector.tui.app import ReplayApp

WEATHER = Path(__file__).parents[2] / "fixtures" / "runs" / "weather.jsonl"

DELTAS: dict[str, tuple[list[Any], str]] = {
    "index-out-of-range": (
        [["set", ["notes", 5], 3]],
        "`set notes[5]` names an index past the end of a list",
    ),
    "set-into-a-string": (
        [["set", ["return_directly_tool_call_id", "x"], 1]],
        "`set return_directly_tool_call_id.x` goes through a string",
    ),
    "delete-a-missing-key": (
        [["del", ["nope"]]],
        "`del nope` names key 'nope', which the state does not have",
    ),
    "unknown-op": ([["frobnicate", ["messages"], 1]], "`frobnicate messages` is of no known kind"),
    "into-a-stored-message": (
        [["set", ["messages", 0, "content"], "x"]],
        "`set messages[0].content` goes into a stored value",
    ),
    "append-to-a-string": (
        [["append", ["return_directly_tool_call_id"], ["x"]]],
        "`append return_directly_tool_call_id` appends a list to a string",
    ),
}


def _tampered(tmp_path: Path, delta: list[Any]) -> Path:
    lines = WEATHER.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[3])
    first["state"]["notes"] = [1, 2]
    lines[3] = json.dumps(first, separators=(",", ":"), ensure_ascii=False)
    second = json.loads(lines[5])
    second["delta"] = delta
    lines[5] = json.dumps(second, separators=(",", ":"), ensure_ascii=False)
    path = tmp_path / "tampered.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _paragraph(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("inspector: error: ") and "Traceback" not in err
    assert "\n\n" not in err.strip()
    return " ".join(err.split())


@pytest.mark.parametrize("case", list(DELTAS))
@pytest.mark.parametrize("command", ["show", "diff"])
def test_show_and_diff_name_the_line_and_the_step(
    case: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    delta, said = DELTAS[case]
    path = _tampered(tmp_path, delta)
    argv = ["show", str(path)] if command == "show" else ["diff", str(WEATHER), str(path)]
    assert main(argv) == 2
    err = _paragraph(capsys)
    assert (
        f"{path}:6: step 1: the state change on this line does not apply to the state before it: {said}"
        in err
    )


@pytest.mark.parametrize("case", list(DELTAS))
def test_show_lenient_keeps_the_state_before_and_warns(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _tampered(tmp_path, DELTAS[case][0])
    assert main(["show", str(path), "--lenient"]) == 0
    assert "the state is shown as it was before" in capsys.readouterr().err


def _walk_headless(monkeypatch: pytest.MonkeyPatch) -> list[ReplayApp]:
    """`ReplayApp.run` replaced by an off-screen run that steps through the run and toggles the diff
    view, as a person would; the terminal check answered yes (the run is off-screen)."""
    original = ReplayApp.run
    apps: list[ReplayApp] = []

    async def walk(pilot: Any) -> None:
        app = pilot.app
        for action in ["first", "next", "next", "diff", "previous", "last"]:
            if app.run_file_error is not None:
                return
            app.call_later(app.run_action, action)
            await asyncio.sleep(0.1)
        app.exit()

    def run(self: ReplayApp, *args: Any, **kwargs: Any) -> Any:
        apps.append(self)
        return original(self, headless=True, size=(120, 40), auto_pilot=walk)

    monkeypatch.setattr(ReplayApp, "run", run)
    monkeypatch.setattr("inspector.cli.terminal.has_terminal", lambda: True)
    return apps


@pytest.mark.parametrize("case", list(DELTAS))
def test_replay_ends_with_the_same_paragraph_and_status_2(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    delta, said = DELTAS[case]
    path = _tampered(tmp_path, delta)
    apps = _walk_headless(monkeypatch)
    assert main(["replay", str(path)]) == 2
    err = _paragraph(capsys)
    assert f"{path}:6: step 1: the state change on this line does not apply" in err and said in err
    (app,) = apps
    assert app.return_code == 2


def test_replay_of_a_good_file_still_ends_with_status_0(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    apps = _walk_headless(monkeypatch)
    assert main(["replay", str(WEATHER)]) == 0
    assert capsys.readouterr().err == ""
    assert apps[0].run_file_error is None


def test_apply_delta_names_the_op_and_leaves_the_state_alone() -> None:
    state = {"notes": [1, 2], "title": "x"}
    with pytest.raises(DeltaError, match=r"`del notes\[2\]` names an index past the end of a list"):
        apply_delta(state, [["set", ["title"], "y"], ["del", ["notes", 2]]])
    with pytest.raises(DeltaError, match="sets key 3 of a mapping, whose keys are strings"):
        apply_delta(state, [["set", [3], "y"]])
    with pytest.raises(DeltaError, match="is of no known kind"):
        apply_delta(state, [["drop", []]])
    assert state == {"notes": [1, 2], "title": "x"}
    assert apply_delta(state, [["set", ["notes", 2], 3], ["append", ["notes"], [4]]]) == {
        "notes": [1, 2, 3, 4],
        "title": "x",
    }
