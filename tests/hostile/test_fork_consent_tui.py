"""Consent before code in the replay TUI: `f` on a recording this user did not make shows its TARGET and
asks; no runs nothing. A run that names no TARGET (the README's `Recorder` recipe) asks for one, and
`replay --target` names it up front. Driven through Textual's Pilot."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from graph_core.schema import Message
from inspector.cli import main
from inspector.recording import Recorder, read_run
from inspector.tui import make_app
from inspector.tui.fork_screen import ConfirmTargetScreen, ForkScreen
from inspector.tui.prompt import PromptScreen

pytestmark = pytest.mark.anyio

RUNAWAY = Path("fixtures/runs/runaway.jsonl").resolve()
STOP = '{"role": "assistant", "content": "It stopped raining."}'
SIZE = (120, 40)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _until(pilot: Pilot[None], done: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)


async def _type(pilot: Pilot[None], text: str) -> None:
    await pilot.press(*("space" if ch == " " else ch for ch in text))


def _payload_source(marker: Path) -> str:
    """A module that writes `marker` when imported, then offers the runaway agent."""
    return (
        "from pathlib import Path\n"
        f"Path({str(marker)!r}).write_text('ran')\n"
        "from fixtures.runaway import agent\n"
    )


def _stranger_run(folder: Path) -> tuple[Path, Path]:
    """(a recording naming a payload beside it, the marker the payload writes when imported)."""
    marker = folder / "MARKER"
    (folder / "payload.py").write_text(_payload_source(marker))
    lines = RUNAWAY.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["meta"]["target"] = str(folder / "payload.py") + ":agent"
    header["run_id"] = "from-a-stranger"
    lines[0] = json.dumps(header, separators=(",", ":")) + "\n"
    run = folder / "evil.jsonl"
    run.write_text("".join(lines))
    return run, marker


def _notes(app: Any) -> str:
    return " ".join(str(n.message) for n in app._notifications)  # pyright: ignore[reportPrivateUsage]


async def test_f_shows_the_recorded_target_and_no_runs_nothing(tmp_path: Path) -> None:
    run, marker = _stranger_run(tmp_path)
    app = make_app(run)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f")
        await _until(pilot, lambda: isinstance(app.screen, ConfirmTargetScreen), "the question")
        question = str(app.screen.query_one("#confirm-target").render())
        assert f"names the TARGET {tmp_path / 'payload.py'}:agent" in " ".join(question.split())
        assert "Run it? y / N" in question
        await pilot.press("n")
        await _until(pilot, lambda: not isinstance(app.screen, ConfirmTargetScreen), "the answer")
        await pilot.pause(0.3)
        assert not isinstance(app.screen, PromptScreen)  # no edit prompt: nothing more happens
        assert "not forked: the run's TARGET was not run" in _notes(app)
    assert not marker.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["evil.jsonl", "payload.py"]


async def test_f_confirmed_with_y_forks(tmp_path: Path) -> None:
    run, marker = _stranger_run(tmp_path)
    app = make_app(run)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f")
        await _until(pilot, lambda: isinstance(app.screen, ConfirmTargetScreen), "the question")
        await pilot.press("y")
        await _until(pilot, lambda: isinstance(app.screen, PromptScreen), "the edit prompt")
        assert not marker.exists()  # nothing imported before the fork itself
        await _type(pilot, STOP)
        await pilot.press("enter")
        await _until(pilot, lambda: isinstance(app.screen, ForkScreen), "the fork beside its parent")
    assert marker.read_text() == "ran"


async def test_a_run_recorded_here_forks_from_f_without_a_question(tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    (tmp_path / "my_agent.py").write_text(_payload_source(marker))
    run = tmp_path / "mine.jsonl"
    with contextlib.chdir(tmp_path):
        assert main(["record", "my_agent.py:agent", "--input", "go", "-o", str(run), "-q"]) == 1
        marker.unlink()
        app = make_app(run)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("f")
            await _until(pilot, lambda: isinstance(app.screen, PromptScreen), "the edit prompt")
            await _type(pilot, STOP)
            await pilot.press("enter")
            await _until(pilot, lambda: isinstance(app.screen, ForkScreen), "the fork")
    assert marker.exists()


def _script_run(path: Path) -> Path:
    """A run recorded as the README's `Recorder` recipe does: no `meta.target` in its header."""
    from fixtures.runaway import build_agent

    with contextlib.suppress(Exception):  # the runaway agent runs out of steps: a failed run
        build_agent().invoke([Message.user("go")], callbacks=[Recorder(path)])
    assert "target" not in read_run(path).header.meta
    return path


async def test_f_on_a_run_that_names_no_target_asks_for_one(tmp_path: Path) -> None:
    run = _script_run(tmp_path / "run.jsonl")
    app = make_app(run)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f")
        await _until(pilot, lambda: isinstance(app.screen, PromptScreen), "the TARGET prompt")
        assert "No TARGET recorded" in str(app.screen.query_one("Label").render())
        await _type(pilot, "fixtures.runaway:agent")
        await pilot.press("enter")
        await _until(
            pilot,
            lambda: (
                isinstance(app.screen, PromptScreen)
                and "Fork at step" in str(app.screen.query_one("Label").render())
            ),
            "the edit prompt",
        )
        await _type(pilot, STOP)
        await pilot.press("enter")
        await _until(pilot, lambda: isinstance(app.screen, ForkScreen), "the fork")
        assert app.fork_target == "fixtures.runaway:agent"  # kept for the next `f`
    fork = read_run(next(tmp_path.glob("run.fork-*.jsonl")))
    assert fork.status == "ok" and fork.header.meta["target"] == "fixtures.runaway:agent"


async def test_replay_target_names_the_code_f_forks_with(tmp_path: Path) -> None:
    run = _script_run(tmp_path / "run.jsonl")
    app = make_app(run, fork_target="fixtures.runaway:agent")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f")
        await _until(pilot, lambda: isinstance(app.screen, PromptScreen), "the edit prompt")
        assert "Fork at step" in str(app.screen.query_one("Label").render())
        await _type(pilot, STOP)
        await pilot.press("enter")
        await _until(pilot, lambda: isinstance(app.screen, ForkScreen), "the fork")


def test_replay_passes_target_to_the_app_and_checks_it_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import inspector.tui.app as tui_app

    made: dict[str, Any] = {}

    class Opened:
        def run(self) -> None:
            pass

    def fake(path: Any, **options: Any) -> Opened:
        made.update(options, path=path)
        return Opened()

    monkeypatch.setattr(tui_app, "make_app", fake)
    assert main(["replay", str(RUNAWAY), "--target", "fixtures.runaway:agent"]) == 0
    assert made["fork_target"] == "fixtures.runaway:agent"
    made.clear()
    assert main(["replay", str(RUNAWAY), "--target", "os:abort"]) == 2
    assert made == {} and "part of Python's standard library" in capsys.readouterr().err
