"""`inspector show`: the text timeline with diagnostics, `--json`, and bad files as exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main


@pytest.fixture
def weather_run(tmp_path: Path) -> Path:
    out = tmp_path / "run.jsonl"
    assert (
        main(["record", "fixtures.weather:agent", "--input", "Weather in Hangzhou?", "-o", str(out), "-q"])
        == 0
    )
    return out


def test_text_timeline(weather_run: Path, capsys: Any) -> None:
    capsys.readouterr()
    assert main(["show", str(weather_run)]) == 0
    out = capsys.readouterr().out
    assert "status ok" in out
    assert "step 0  chat  [steps 1/13" in out
    assert "step 1  tools  [steps 2/13" in out
    assert "    tool get_weather (" in out
    # The tool call is said by chat in step 0; the tools step only files it into the state.
    assert '    chat said: assistant: -> get_weather({"city": "Hangzhou"})' in out
    assert (
        '    state: + messages[1]: assistant: -> get_weather({"city": "Hangzhou"})  (said by chat in step 0)'
        in out
    )
    assert "    branch chat -> tools" in out and "    branch chat -> end" in out
    assert "output: assistant: " in out
    assert out.rstrip().endswith("diagnostics: none")


def test_text_shows_diagnostics(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "run.jsonl"
    main(["record", "fixtures.runaway:agent", "--input", "go", "-o", str(out), "-q"])
    capsys.readouterr()
    assert main(["show", str(out)]) == 0
    text = capsys.readouterr().out
    assert "error: MaxStepsExceededError" in text
    assert "error: [budget-exhausted] (step 12)" in text and "chat -> tools -> chat" in text


def test_json(weather_run: Path, capsys: Any) -> None:
    capsys.readouterr()
    assert main(["show", str(weather_run), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "ok" and data["diagnostics"] == []
    assert [s["nodes"] for s in data["steps"]] == [["chat"], ["tools"], ["chat"]]
    assert data["steps"][1]["changes"][0]["op"] == "appended"
    assert data["steps"][0]["branches"] == [{"source": "chat", "chosen": ["tools"]}]
    assert data["steps"][2]["budget"]["steps_remaining"] == 10


def test_corrupt_file_is_one_paragraph_exit_2(weather_run: Path, capsys: Any) -> None:
    lines = weather_run.read_text().splitlines(keepends=True)
    lines[3] = "{{{ broken\n"
    weather_run.write_text("".join(lines))
    capsys.readouterr()
    assert main(["show", str(weather_run)]) == 2
    err = capsys.readouterr().err
    assert f"{weather_run}:4:" in err.replace("\n", " ") and "Traceback" not in err
    assert main(["show", str(weather_run), "--lenient"]) == 0
    assert "inspector: warning:" in capsys.readouterr().err


def test_missing_and_foreign_files(tmp_path: Path, capsys: Any) -> None:
    assert main(["show", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such file" in " ".join(capsys.readouterr().err.split())
    other = tmp_path / "other.jsonl"
    other.write_text('{"hello": 1}\n')
    assert main(["show", str(other)]) == 2
    assert "not a run file" in " ".join(capsys.readouterr().err.split())


def test_incomplete_file_is_shown(weather_run: Path, capsys: Any) -> None:
    data = weather_run.read_bytes()
    weather_run.write_bytes(data[: len(data) - 40])
    capsys.readouterr()
    assert main(["show", str(weather_run)]) == 0
    out = capsys.readouterr().out
    assert "status incomplete" in out and "[incomplete]" in out


def test_a_long_text_is_previewed_as_the_whole_text_would_be() -> None:
    """A long text is previewed from its first characters when they make a preview on their own; the
    preview is the one the whole text gives, whatever whitespace, escapes and joined emoji sit around
    the cut (seeded random texts, many of them right at the lengths where the cut falls)."""
    import random

    from inspector.cli.plain import one_line
    from inspector.cli.preview import PREVIEW_WIDTH, preview_line

    def whole(text: str) -> str:
        out = one_line(" ".join(text.split()))
        return out if len(out) <= PREVIEW_WIDTH else out[: PREVIEW_WIDTH - 3] + "..."

    rng = random.Random(80)
    odd = [
        " ",
        "\n",
        "\t",
        "\r",
        "\u200d",
        "\U0001f468",
        "\U0001f469",
        "\x1b",
        "\u202e",
        "\u2028",
        "é",
        "\u3000",
        "\x1c",
        "\x85",
        "\xa0",
        "\u200b",
    ]
    for _ in range(20_000):
        length = rng.choice([10, 80, 159, 160, 161, 162, 170, 300, 319, 320, 321, 400])
        odds = rng.choice([0.5, 0.05, 0.0])  # texts with many odd characters, a few, or only single spaces
        text = "".join(rng.choice(odd) if rng.random() < odds else rng.choice("xyz ") for _ in range(length))
        if rng.random() < 0.3:  # printable words, single spaces: the text is already on one line
            text = " ".join(rng.choice(["ab", "x", "lorem", "é"]) for _ in range(length // 3))
        assert preview_line(text) == whole(text), repr(text)


@pytest.mark.parametrize(
    "value",
    [
        {"a": [], "b": {}, "c": [[], {}], "d": None, "e": True, "f": [1, -2, 10**30]},
        {"duration": 6.7e-05, "t": 1e16, "u": 0.1, "v": -0.0, "w": 1.5e300},
        {"text": 'é ⏎ 🙂 "quoted" \\ back / slash \x1b[31m \t\n\u2028', "ключ": "значение"},
        ["top", "level", ["list"]],
        "just a string",
        {"nan": float("nan"), "inf": [float("inf")]},  # no strict JSON: written as it always was
    ],
    ids=["shapes", "floats", "text", "list", "string", "not-strict"],
)
def test_indented_json_is_the_standard_librarys(value: Any) -> None:
    from inspector.cli.show import indented_json

    assert indented_json(value) == json.dumps(value, ensure_ascii=False, indent=2)


def test_indented_json_writes_a_history_view_as_its_list(tmp_path: Path) -> None:
    from inspector.cli.show import indented_json
    from inspector.recording import Recorder, read_run
    from inspector.recording.synthetic import react_topology, simulate_react
    from inspector.recording.valuelist import ValueList, json_default

    recorder = Recorder(tmp_path / "run.jsonl", topology=react_topology(), clock=lambda: 0.0, run_id="r")
    simulate_react(recorder, 10)
    recorder.close()
    state = read_run(tmp_path / "run.jsonl").state_at(20)
    assert isinstance(state["messages"], ValueList)  # (a history past 8 messages is a view)
    assert indented_json(state) == json.dumps(state, ensure_ascii=False, indent=2, default=json_default)
