"""Input nested deeper than a person would type: one paragraph naming the limit, never a RecursionError.

From the hostile-input campaign: `--when` with hundreds to thousands of nested parentheses or a
2,000-deep `not` chain (on the command line and in the debug TUI's `w` prompt), and `fork --set` /
`--model-answer` with JSON 5,000 levels deep. Each is refused where it is parsed, with the limit said.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import fixtures.weather as weather
from inspector.cli import main
from inspector.debug.conditions import MAX_CONDITION_DEPTH, parse_condition
from inspector.debug.paths import MAX_VALUE_DEPTH
from inspector.tui.debug_app import make_debug_app
from inspector.tui.prompt import PromptScreen
from tests.debug.conftest import controller_for

RUNAWAY = str(Path(__file__).parents[2] / "fixtures" / "runs" / "runaway.jsonl")


def _one_paragraph(capsys: Any) -> str:
    err = capsys.readouterr().err
    assert err.startswith("inspector: error: ") and "Traceback" not in err and "Recursion" not in err
    assert "\n\n" not in err.strip()
    return " ".join(err.split())


@pytest.mark.parametrize(
    "condition",
    [
        "(" * 400 + "calls(get_weather)" + ")" * 400,
        "(" * 5000 + "calls(get_weather)" + ")" * 5000,
        "not " * 2000 + "calls(get_weather)",
    ],
    ids=["parentheses-400", "parentheses-5000", "not-2000"],
)
def test_a_deep_condition_on_the_command_line_is_refused(
    condition: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "live.jsonl"
    argv = ["debug", "fixtures.weather:agent", "--input", "hi", "--when", condition, "-o", str(out)]
    assert main(argv) == 2
    err = _one_paragraph(capsys)
    assert f"nest more than {MAX_CONDITION_DEPTH} levels deep (the limit)" in err
    assert len(err) < 500, "the condition is quoted shortened, not whole"
    assert not out.exists()


def test_a_condition_at_the_limit_still_parses_and_holds() -> None:
    from inspector.debug.conditions import View

    deepest = "(" * MAX_CONDITION_DEPTH + "not " * 0 + "before(tools)" + ")" * MAX_CONDITION_DEPTH
    assert parse_condition(deepest).holds(View(state=None, pending=[("tools", None)]))
    negated = "not " * MAX_CONDITION_DEPTH + "before(tools)"  # an even count: the same truth
    assert parse_condition(negated).holds(View(state=None, pending=[("tools", None)]))


def test_a_long_flat_condition_is_read_in_linear_time() -> None:
    # 20,000 `and`ed terms: no nesting, so no limit; the tokenizer once copied the rest of the text per token.
    flat = " and ".join(["before(tools)"] * 20_000)
    assert parse_condition(flat).text == flat


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--set", "state.messages=" + "[" * 5000 + "]" * 5000, "the value of --set `state.messages`"),
        ("--model-answer", '{"a":' * 5000 + "1" + "}" * 5000, "--model-answer"),
    ],
    ids=["set", "model-answer"],
)
def test_deep_json_given_to_a_fork_is_refused(
    option: str, value: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fork.jsonl"
    assert main(["fork", RUNAWAY, "--step", "4", "-o", str(out), option, value]) == 2
    err = _one_paragraph(capsys)
    assert said in err and f"more than {MAX_VALUE_DEPTH} levels deep (the limit" in err
    assert not out.exists()


def test_json_at_the_depth_limit_is_still_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from inspector.debug.fork import parse_sets

    ((path, value),) = parse_sets(["state.x=" + "[" * MAX_VALUE_DEPTH + "]" * MAX_VALUE_DEPTH])
    assert path == "state.x" and isinstance(value, list)


@pytest.mark.anyio
async def test_a_deep_condition_in_the_tui_prompt_is_a_note(tmp_path: Path) -> None:
    controller = controller_for(weather, tmp_path / "run.jsonl", stop_at_start=True)
    app = make_debug_app(controller)
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.press("w")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        app.screen.query_one("#prompt-input").value = "not " * 2000 + "calls(get_weather)"  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, PromptScreen)
        message = str(app._message)  # pyright: ignore[reportPrivateUsage]
        assert f"more than {MAX_CONDITION_DEPTH} levels deep" in message
        assert controller.conditions == []
        await pilot.press("a")
    assert app.return_code in (None, 0)
