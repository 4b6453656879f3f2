"""Far into a long recording, the replay app value_reads the messages it shows, not the history before them.

A ReAct run's state holds every message so far, and every model call's input is that whole history. The
state pane shows only the ends of a long list, the messages pane only the newest messages, and the node
detail a clipped preview of the input; with histories read as `ValueList` views each of them costs what
is on screen. Counted in value lines read from the file, not in time.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.recording import read_run
from inspector.recording.valuelist import ValueList, plain
from inspector.tui import literal as literal_module
from inspector.tui import make_app
from inspector.tui.literal import PREVIEW_MAX, one_line
from tests.tui.conftest import synthetic

pytestmark = pytest.mark.anyio

ROUNDS = 1500  # 3,001 steps, a history of 3,001 messages at the end


def test_a_clipped_preview_of_a_long_history_reads_what_it_shows(
    tmp_path: Path, value_reads: list[int]
) -> None:
    run = read_run(synthetic(tmp_path / "long.jsonl", ROUNDS), check_limit=0)
    last = len(run.steps) - 1
    chat = run.steps[last].node_runs[0]
    value_reads.clear()
    history = chat.input
    assert isinstance(history, ValueList) and len(history) > 2 * ROUNDS
    text = one_line(history, limit=120).plain
    assert text.startswith('[{"role": "user"') and "more than" in text
    # PREVIEW_MAX characters of JSON: the first messages, not the 3,001 of the history
    assert len(value_reads) < PREVIEW_MAX // 50
    assert text == one_line(plain(history), limit=120).plain


@pytest.mark.parametrize("limit", [1, 7, 60, 120, 400])
def test_a_preview_with_histories_in_it_is_the_preview_of_the_plain_value(
    tmp_path: Path, limit: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = read_run(synthetic(tmp_path / "run.jsonl", 60), check_limit=0)
    monkeypatch.setattr(literal_module, "PREVIEW_MAX", 0)  # cut at the clip itself: the tightest case
    for position in (0, 1, 5, 40, len(run.steps) - 1):
        state = run.state_at(position)
        history = state["messages"]
        for value in (state, history, [history, history[:2]], {"a": [1, {"b": history}], "z": history}):
            assert one_line(value, limit=limit).plain == one_line(plain(value), limit=limit).plain


async def test_moving_far_into_a_long_run_reads_about_what_the_panes_show(
    tmp_path: Path, value_reads: list[int]
) -> None:
    app = make_app(synthetic(tmp_path / "long.jsonl", ROUNDS))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("end")
        await pilot.pause()
        value_reads.clear()
        await pilot.press("g", *str(2 * ROUNDS - 400), "enter")
        await pilot.pause()
        assert app.replay.cursor == 2 * ROUNDS - 400
        jumped = len(value_reads)
        value_reads.clear()
        await pilot.press("p")
        await pilot.pause()
    # the state pane's 50 ends of the list, 60 newest messages, the outputs of the steps before them
    assert jumped < 400
    assert len(value_reads) < 10  # one step back: the one message the step before does not hold
