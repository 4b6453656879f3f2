"""The messages pane reaches every message of the step's state (not only the last 60), in order, with
the index the state pane gives it (`messages[i]`), and stays cheap on long conversations: only the rows
on screen are drawn, and blocks already laid out are reused by the next step."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from inspector.conversation import Said
from inspector.tui import make_app
from inspector.tui.messages_pane import MessagesPane
from tests.tui.conftest import SIZE, screen_text, synthetic

pytestmark = pytest.mark.anyio


def _indexes(text: str) -> list[int]:
    return [int(m) for m in re.findall(r"(?:USER|ASSISTANT|TOOL|SYSTEM)  [^│#\n]*#(\d+)", text)]


async def test_every_message_can_be_scrolled_to(tmp_path: Path) -> None:
    app = make_app(synthetic(tmp_path / "long.jsonl", 40))  # 81 messages at the end
    async with app.run_test(size=(160, 40)) as pilot:  # the first message on one line
        await pilot.press("end")
        await pilot.pause()
        total = len(app.replay.messages_at(app.replay.cursor))
        assert total > 60
        box = app.query_one("#messages-box")
        shown = screen_text(app)
        assert _indexes(shown)[-1] == total - 1, shown  # opens at the newest message
        box.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        text = screen_text(app)
        assert "earlier messages not shown" not in text
        assert _indexes(text)[0] == 0
        assert "What is the weather in Paris?" in text
        seen: set[int] = set()
        while True:  # page down through the whole conversation: every index shows, in order
            shown = _indexes(screen_text(app))
            assert shown == sorted(shown)
            seen.update(shown)
            if box.scroll_y >= box.max_scroll_y:
                break
            box.scroll_page_down(animate=False)
            await pilot.pause()
        assert seen == set(range(total))


async def test_x_shows_all_of_them_whole_too(tmp_path: Path) -> None:
    app = make_app(synthetic(tmp_path / "long.jsonl", 40, content="w" * 700))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end", "x")
        await pilot.pause()
        box = app.query_one("#messages-box")
        box.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        text = screen_text(app)
        assert _indexes(text)[0] == 0
        assert "x expands" not in text
        assert isinstance(app.query_one(MessagesPane), MessagesPane)


async def test_the_pane_shows_who_said_each_message_and_the_final_answer() -> None:
    weather = Path(__file__).parents[2] / "fixtures" / "runs" / "weather.jsonl"
    app = make_app(weather)
    async with app.run_test(size=(200, 60)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "USER  input #0" in text
        assert "ASSISTANT  chat · step 0" in text, "the model's tool call shows in the step it was made"
        await pilot.press("end")
        await pilot.pause()
        text = screen_text(app)
        assert "ASSISTANT  chat · step 0 #1" in text, "still chat's, though the tools step filed it"
        assert "TOOL  tools · step 1 #2" in text
        assert "ASSISTANT  chat · step 2  final answer" in text
        assert "It is raining lightly in Hangzhou" in text


async def test_a_sliding_window_lays_out_only_its_new_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrapped = _count_wraps(monkeypatch, shown=8)
    app = make_app(synthetic(tmp_path / "long.jsonl", 20))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g", *"30", "enter")
        await pilot.pause()
        assert len(app.query_one(MessagesPane)._items) == 8  # pyright: ignore[reportPrivateUsage]
        wrapped.clear()
        await pilot.press("n")  # the window slides by a message
        await pilot.pause()
        # the state's new message, and what the step's node said that no state holds yet; the others
        # shown before are reused, not wrapped again
        assert sorted(wrapped, key=str) == [31, None]
        text = screen_text(app)
        assert "#31" in text and "newest 8 of 32 messages" in text


def _count_wraps(monkeypatch: pytest.MonkeyPatch, *, shown: int) -> list[int | None]:
    """A conversation over 10 messages shows its newest `shown`; the state index of every message the
    pane wraps (lays out) from now on is appended to the list returned."""
    from inspector.tui import cursor_view as view_module

    monkeypatch.setattr(view_module, "MESSAGES_ALL_UP_TO", 10)
    monkeypatch.setattr(view_module, "MESSAGES_SHOWN", shown)
    wrapped: list[int | None] = []
    wrap = MessagesPane._wrap  # pyright: ignore[reportPrivateUsage]

    def counting(self: MessagesPane, item: tuple[Said, str], width: int) -> Any:
        wrapped.append(item[0].state_index)
        return wrap(self, item, width)

    monkeypatch.setattr(MessagesPane, "_wrap", counting)
    return wrapped


def _rows(pane: MessagesPane) -> tuple[int, list[list[str]]]:
    blocks = pane._blocks  # pyright: ignore[reportPrivateUsage]
    return pane.virtual_size.height, [[strip.text for strip in rows or []] for rows in blocks]


async def test_a_jump_lays_out_the_newest_messages_on_the_key_and_the_rest_after_its_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrapped = _count_wraps(monkeypatch, shown=30)
    app = make_app(synthetic(tmp_path / "long.jsonl", 40))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.query_one(MessagesPane)
        wrapped.clear()
        app.go(70)  # what `g 70` runs on the key
        shown = [said.state_index for said, _ in pane._items]  # pyright: ignore[reportPrivateUsage]
        assert len(shown) == 30 and shown[-2:] == [70, None]  # the newest, and the tool call said now
        on_key = list(wrapped)
        assert 0 < len(on_key) < 30  # the newest, enough to fill the screen
        assert on_key == shown[::-1][: len(on_key)]
        await pilot.pause()
        await pilot.pause()
        assert sorted(wrapped, key=str) == sorted(shown, key=str)  # then the rest, each once
        lazy = _rows(pane)
        assert "#70" in screen_text(app) and "newest 30 of 71 messages" in screen_text(app)
        pane._laid.clear()  # pyright: ignore[reportPrivateUsage]
        pane._lay_out()  # pyright: ignore[reportPrivateUsage]  # all at once, as before
        assert _rows(pane) == lazy
        wrapped.clear()
        app.go(30)
        app.go(70)  # back: its blocks were kept
        assert wrapped[:1] != [70] and 70 not in wrapped


async def test_a_block_scrolled_to_before_it_was_laid_out_is_laid_out_as_it_is_drawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspector.tui import cursor_view as view_module

    monkeypatch.setattr(view_module, "MESSAGES_ALL_UP_TO", 10)
    monkeypatch.setattr(view_module, "MESSAGES_SHOWN", 30)
    app = make_app(synthetic(tmp_path / "long.jsonl", 40))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.query_one(MessagesPane)
        app.go(70)
        assert None in pane._blocks  # pyright: ignore[reportPrivateUsage]  # the oldest wait
        pane.scroll_home(animate=False, immediate=True)
        first = pane.render_line(0).text  # drawn before the rest was laid out
        assert "#42" in first  # the window starts at messages[42]
        await pilot.pause()
        await pilot.pause()
        assert None not in pane._blocks  # pyright: ignore[reportPrivateUsage]
        lazy = _rows(pane)
        pane._laid.clear()  # pyright: ignore[reportPrivateUsage]
        pane._lay_out()  # pyright: ignore[reportPrivateUsage]
        assert _rows(pane) == lazy and lazy[1][0][0].rstrip() == first.rstrip()
