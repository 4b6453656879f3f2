"""Whole values in the state tree: a tree row is one terminal line, so a value shown whole must not
rely on line breaks (the rows after the first were never drawn)."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.app import App, ComposeResult

from inspector.tui.state_pane import StatePane

pytestmark = pytest.mark.anyio

TEXT = "line one\nline two\nline three " + "z" * 200


class _One(App[None]):
    def compose(self) -> ComposeResult:
        yield StatePane(id="state")


def _text_label(pane: StatePane) -> str:
    return next(str(n.label) for n in pane.root.children if str(n.label).startswith("text"))


async def test_a_multiline_value_shown_whole_keeps_every_line_on_its_row() -> None:
    app = _One()
    async with app.run_test(size=(60, 20)) as pilot:
        pane = app.query_one(StatePane)
        pane.show({"text": TEXT}, [], diff=False)
        clipped = _text_label(pane)
        assert "line two" in clipped and "x expands" in clipped
        pane.expand_all_values = True
        pane.show({"text": TEXT}, [], diff=False)
        await pilot.pause()
        # Shown whole (x), the value goes on over rows of its own under its first, each within the pane
        # and none with a line break in it.
        head = next(n for n in pane.root.children if str(n.label).startswith("text"))
        pieces = [str(head.label), *(str(n.label) for n in head.children)]
        assert all("\n" not in piece for piece in pieces)
        assert "".join(pieces).replace(" ", "") == (
            "text: line one ⏎ line two ⏎ line three " + "z" * 200
        ).replace(" ", "")
        rows = [pane.render_line(y).text for y in range(pane.size.height)]
        assert rows[0].startswith("▼ text: line one ⏎ line two")
        assert all(len(row.rstrip()) <= pane.size.width for row in rows)
        assert sum("zzzz" in row for row in rows) >= 4, "the z's wrap over several rows"


async def test_selecting_a_clipped_multiline_leaf_shows_it_whole_on_one_row() -> None:
    app = _One()
    async with app.run_test(size=(60, 20)) as pilot:
        pane = app.query_one(StatePane)
        pane.show({"text": TEXT}, [], diff=False)
        pane.select_node(pane.root.children[0])
        await pilot.pause()
        whole = _text_label(pane)
        assert "\n" not in whole and whole.endswith("z" * 200)


async def test_selecting_a_clipped_old_value_in_the_diff_view_keeps_it_labelled_old() -> None:
    from inspector.recording.statediff import Change

    app = _One()
    async with app.run_test(size=(60, 20)) as pilot:
        pane = app.query_one(StatePane)
        change = Change(("t",), "changed", "a" * 300, "b" * 300)
        pane.show({"t": "b" * 300}, [change], diff=True)
        old, new = pane.root.children[0].children
        pane.select_node(old)
        await pilot.pause()
        assert str(old.label) == "old: " + "a" * 300
        label = old.label
        assert isinstance(label, Text) and label.spans[0].style == "red"
        assert str(new.label).startswith("new: ") and "x expands" in str(new.label)
