"""A step repaints panes in place: no screen-wide layout when sizes cannot change, no tree rebuild when
the state tree keeps its shape, and still the right text when they do change."""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import Static
from textual.widgets.tree import TreeNode

from inspector.recording.statediff import Change
from inspector.tui.repaint import repaint, text_shape
from inspector.tui.state_pane import StatePane

pytestmark = pytest.mark.anyio


class _Panes(App[None]):
    def compose(self) -> ComposeResult:
        yield Static(Text("one\ntwo"), id="fixed")
        yield Static(Text("abc"), id="auto")
        yield StatePane(id="state")

    CSS = "#fixed { width: 20; height: auto; } #auto { width: auto; height: auto; } StatePane { height: 10; }"


def _layout_pending(widget: Widget) -> bool:
    return widget._layout_required  # pyright: ignore[reportPrivateUsage]


def test_text_shape_counts_lines_and_cells() -> None:
    assert text_shape(Text("ab\n日本語x")) == (2, 7)
    assert text_shape(Text("")) == (1, 0)


async def test_repaint_lays_out_only_when_the_size_can_change() -> None:
    app = _Panes()
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        fixed, auto = app.query_one("#fixed", Static), app.query_one("#auto", Static)
        assert not repaint(fixed, Text("one\ntwo")), "equal text: nothing to do"
        assert repaint(fixed, Text("uno\ndos!"))  # same lines, fits: a repaint of the widget alone
        assert not _layout_pending(fixed)
        repaint(auto, Text("xyz"))  # a pane as wide as its text, same width
        assert not _layout_pending(auto)
        await pilot.pause()
        repaint(auto, Text("wider"))  # its width changes: layout
        assert _layout_pending(auto)
        await pilot.pause()
        assert auto.size.width == 5
        repaint(fixed, Text("a\nb\nc"))  # one more line: layout
        assert _layout_pending(fixed)
        await pilot.pause()
        assert fixed.size.height == 3
        repaint(fixed, Text("x" * 30 + "\ny\nz"))  # would wrap in 20 cells: layout
        assert _layout_pending(fixed)
        await pilot.pause()
        assert fixed.size.height == 4
        assert "uno" not in str(fixed.render()) and "x" * 20 in str(fixed.render())


def _labels(pane: StatePane) -> list[str]:
    return [str(node.label) for node in pane.root.children] + [
        str(child.label) for node in pane.root.children for child in node.children
    ]


async def test_state_pane_relabels_a_tree_of_the_same_shape_and_rebuilds_only_what_changed() -> None:
    app = _Panes()
    async with app.run_test(size=(60, 20)) as pilot:
        pane = app.query_one(StatePane)
        pane.show({"round": 1, "io": {"a": 1}}, [Change(("round",), "changed", 0, 1)], diff=False)
        await pilot.pause()
        first = pane.root.children[0]
        pane.show({"round": 2, "io": {"a": 5}}, [Change(("round",), "changed", 1, 2)], diff=False)
        assert pane.root.children[0] is first, "same shape: the nodes stay, their labels change"
        assert not _layout_pending(pane)
        await pilot.pause()
        assert _labels(pane) == ["round: 2", "io  {1}", "a: 5"]
        assert pane.root.children[1].data == (("io",), {"a": 5})
        io = pane.root.children[1]
        pane.show({"round": 3, "io": {"a": 5, "b": 2}}, [], diff=False)  # a new key: `io` regrown
        await pilot.pause()
        assert pane.root.children[0] is first and pane.root.children[1] is io
        assert _labels(pane) == ["round: 3", "io  {2}", "a: 5", "b: 2"]
        pane.show({"round": {"n": 3}, "io": {"a": 5, "b": 2}}, [], diff=False)  # a leaf became a dict
        await pilot.pause()
        assert pane.root.children[0] is not first and pane.root.children[1] is io
        assert _labels(pane) == ["round  {1}", "io  {2}", "n: 3", "a: 5", "b: 2"]
        pane.show({"round": 3, "io": {"a": 5, "b": 2}}, [], diff=False)
        pane.root.children[1].collapse()  # the user folds `io`; the next step unfolds it as planned
        await pilot.pause()
        pane.show({"round": 4, "io": {"a": 5, "b": 2}}, [], diff=False)
        await pilot.pause()
        assert pane.root.children[1].is_expanded
        assert _labels(pane) == ["round: 4", "io  {2}", "a: 5", "b: 2"]


async def test_text_that_wrapped_and_no_longer_does_gives_its_rows_back() -> None:
    app = _Panes()
    async with app.run_test(size=(60, 20)) as pilot:
        fixed = app.query_one("#fixed", Static)
        repaint(fixed, Text("x" * 50 + "\ny"))  # the first line wraps in 20 cells: 4 rows
        await pilot.pause()
        assert fixed.size.height == 4
        repaint(fixed, Text("short\ny"))  # same line count, but the old text took more rows
        assert _layout_pending(fixed)
        await pilot.pause()
        assert fixed.size.height == 2


def _tree(node: TreeNode[Any]) -> list[Any]:
    """Everything the pane shows of a node's children and keeps for them, depth first."""
    return [
        (
            child.label.markup if isinstance(child.label, Text) else str(child.label),
            str(child.label.style) if isinstance(child.label, Text) else "",
            child.data,
            child.allow_expand,
            child.is_expanded,
            _tree(child) if child.is_expanded else len(child.children) > 0,
        )
        for child in node.children
    ]


def _history(n: int) -> dict[str, Any]:
    """An agent's state after `n` messages: assistant tool calls and tool results alternate."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for i in range(1, n):
        if i % 2:
            messages.append(
                {"role": "assistant", "content": "", "tool_calls": [{"id": f"c{i}", "name": "f"}]}
            )
        else:
            messages.append({"role": "tool", "content": f"result {i}", "tool_call_id": f"c{i - 1}"})
    return {"messages": messages, "round": n // 2}


async def test_state_pane_updated_in_place_shows_what_a_fresh_one_does() -> None:
    """Step by step, jumping, in the diff view and after the user unfolds a folded message: the pane
    updated in place holds the same tree as a pane that shows only that step."""
    app = _Panes()
    async with app.run_test(size=(60, 20)) as pilot:
        pane = app.query_one(StatePane)
        steps: list[tuple[dict[str, Any], list[Change], bool]] = []
        for n in (3, 4, 5, 80, 81, 82, 81, 7, 120):
            state = _history(n)
            appended = [Change(("messages", n - 1), "appended", None, state["messages"][-1])]
            steps.append((state, appended, False))
        steps.append((_history(9), [Change(("round",), "changed", 3, 4)], True))
        steps.append((_history(90), [Change(("messages", 89), "appended", None, {"role": "tool"})], False))
        for state, changes, diff in steps:
            pane.show(state, changes, diff=diff)
            await pilot.pause()
            shown = _tree(pane.root)
            fresh = StatePane()
            await app.mount(fresh)
            fresh.show(state, changes, diff=diff)
            await pilot.pause()
            assert shown == _tree(fresh.root), (len(state["messages"]), diff)
            await fresh.remove()
        folded = next(node for node in pane.root.children[0].children if node.allow_expand)
        assert not folded.is_expanded and not folded.children  # built when unfolded
        folded.expand()
        await pilot.pause()
        labels = [str(child.label).split(":")[0] for child in folded.children]
        assert folded.data is not None and labels == list(folded.data[1])  # the message's keys
