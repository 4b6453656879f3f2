"""`inspector debug` in a real terminal (tmux) at 80x24, 120x40 and 140x45: at the pause the state pane
has rows and its title, values show whole where there is room (and with `x`), the focused pane is
marked in a plain capture, and a prompt shows its whole question. CI installs tmux (`.ci/run`)."""

from __future__ import annotations

import time
from pathlib import Path

from tests.terminal import EXITED, Terminal


def _open(terminal: Terminal, size: tuple[int, int], out: Path) -> str:
    """Start the debugger at `size` (its own size from the terminal, not from COLUMNS/LINES), paused
    before `tools`; returns the screen."""
    terminal.open(*size)
    terminal.run(
        "-m", "inspector", "debug", "fixtures.weather:agent", "--input", "Weather in Hangzhou?",
        "--break", "tools", "-o", str(out),
    )  # fmt: skip
    terminal.wait_for("paused before step 1")
    return terminal.wait_for("▼ state")


def _state_rows(screen: str) -> list[str]:
    """The state pane's rows below its title, down to its bottom border (it is the first pane whose
    title starts `live`)."""
    lines = screen.splitlines()
    top = next(i for i, line in enumerate(lines) if "╭─ live" in line or "╭─ ▶ live" in line)
    column = lines[top].index("╭─")
    end = lines[top].index("╮", column) + 1
    rows: list[str] = []
    for line in lines[top + 1 :]:
        if line[column] == "╰":
            break
        rows.append(line[column:end])
    return rows


def _quit(terminal: Terminal) -> None:
    terminal.keys("q")
    terminal.wait_for(EXITED)


def test_at_80x24_the_paused_state_keeps_its_rows_and_title(terminal: Terminal, tmp_path: Path) -> None:
    screen = _open(terminal, (80, 24), tmp_path / "run.jsonl")
    assert "╭─ live · befo" in screen
    assert len(_state_rows(screen)) >= 5
    assert "? Help" in screen.splitlines()[-1]
    assert "⏸ paused before step 1 [tools]" in screen
    terminal.type("?")
    screen = terminal.wait_for("↓ more below")  # the help is cut at 80x24, and says so
    assert "Live debugger keys" in screen
    terminal.keys("Escape")
    terminal.wait_gone("Live debugger keys")
    _quit(terminal)


def test_at_120x40_values_show_whole_and_prompts_say_everything(terminal: Terminal, tmp_path: Path) -> None:
    _open(terminal, (120, 40), tmp_path / "run.jsonl")
    screen = terminal.wait_for("name: get_weather")  # whole: at 28 columns it was `name: get_weathe`
    assert "id: call_weather_1" in "".join(_state_rows(screen))
    assert "╭─ ▶ timeline" in screen, "the focused pane is marked in a plain capture"
    terminal.keys("w")
    screen = terminal.wait_for("Break when")
    assert "calls(get_weather); empty clears)" in screen
    terminal.keys("Escape")
    terminal.wait_gone("Break when")
    _quit(terminal)


def test_at_140x45_x_shows_the_call_arguments_whole(terminal: Terminal, tmp_path: Path) -> None:
    _open(terminal, (140, 45), tmp_path / "run.jsonl")
    terminal.wait_for("name: get_weather")
    terminal.keys("x")
    deadline = time.monotonic() + 30
    while True:  # the state pane widens and wraps the value over rows of its own
        rows = "".join(row.strip("│ ├└─▼") for row in _state_rows(terminal.screen()))
        if 'arguments:{"city":"Hangzhou"}' in rows.replace(" ", ""):
            break
        assert time.monotonic() < deadline, terminal.screen()
        time.sleep(0.2)
    _quit(terminal)
