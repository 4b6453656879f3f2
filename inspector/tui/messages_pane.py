"""`MessagesPane`: the conversation at the cursor as a person reads it, one block per message.

The messages come from `inspector.conversation`: the state's messages plus what nodes said that the
state does not hold (the model's tool call before the tools node files it, the final answer), each
headed by who said it and when (`chat · step 0`, `input`), the final answer marked as the run's
output. Roles are told apart by a coloured role tag and a left rule in the same colour: user blue,
assistant green, tool yellow, system magenta. Assistant tool calls list name and JSON arguments; tool
results name the tool and the call they answer. All text is literal (see `literal.py`). A message in
the state carries its index there, the `#i` of `messages[i]` in the state pane.

A long ReAct run's state holds thousands of messages, and a `Static` re-wraps all of its text on every
change (over a second a step at 2,000 messages). So the pane is a Line-API `ScrollView`: each message
is turned into a `Message`, built and wrapped once per width and clip setting, kept by what it is
(its place in the state, who said it, when) rather than by its row in the pane, so a window of the
newest 60 that slides by one message a step lays out just the new one; `render_line` draws only the
rows on screen.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from rich.segment import Segment
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from graph_core.schema import Message
from inspector.conversation import Said
from inspector.recording.valuelist import LISTS
from inspector.tui.literal import literal, one_line

__all__ = ["ROLE_COLOURS", "MessagesPane", "raw_messages", "render_messages"]

FINAL = "final answer (the run's output)"

ROLE_COLOURS = {"user": "blue", "assistant": "green", "tool": "yellow", "system": "magenta"}
MESSAGE_LIMIT = 600
EMPTY = "(no messages at this step)"


def _block(
    message: Message, *, position: int | None, limit: int | None, by: str = "", final: bool = False
) -> Text:
    colour = ROLE_COLOURS.get(message.role, "white")
    text = Text()
    text.append(f" {message.role.upper()} ", style=f"bold reverse {colour}")
    if by:
        text.append(" ")
        text.append_text(one_line(by, limit=60, style=f"bold {colour}"))
    if position is not None:
        text.append(f" #{position}", style="dim")
    if final:
        text.append(f"  {FINAL}", style=f"bold {colour}")
    if message.name:
        text.append(" ")
        text.append_text(one_line(message.name, limit=40, style="dim"))
    if message.role == "tool":
        text.append("  ← ", style="dim")
        text.append_text(one_line(message.tool_name or "?", limit=60, style=colour))
        text.append_text(
            one_line(f" ({message.tool_call_id})" if message.tool_call_id else "", limit=80, style="dim")
        )
    body = Text()
    if message.content:
        body.append_text(literal(message.content, limit=limit, multiline=True))
    for call in message.tool_calls:
        if body:
            body.append("\n")
        body.append("→ ", style=f"bold {colour}")
        body.append_text(one_line(call.name, limit=60, style="bold"))
        body.append_text(one_line(f"({call.arguments})", limit=limit))
        body.append_text(one_line(f"  id {call.id}", limit=80, style="dim"))
    if not body:
        body.append("(empty)", style="dim")
    for line in body.split("\n"):
        text.append("\n")
        text.append("▎ ", style=colour)
        text.append_text(line)
    return text


def raw_messages(state: Any) -> Sequence[Any]:
    """The state's `messages` (or `Messages`) list as recorded, [] when there is none; items are turned
    into `Message`s only when drawn (as `inspector.recording.to_messages` would, invalid ones skipped)."""
    if not isinstance(state, dict):
        return []
    raw = state.get("messages", state.get("Messages"))  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return raw if isinstance(raw, LISTS) else []  # pyright: ignore[reportUnknownVariableType]


def _message(item: Any) -> Message | None:
    if isinstance(item, Message):
        return item
    if not isinstance(item, dict) or "role" not in item:
        return None
    try:
        return Message.model_validate(item)
    except ValidationError:
        return None


def render_messages(messages: list[Any], *, limit: int | None = MESSAGE_LIMIT) -> Text:
    """Every message as one `Text` (for a caller without a pane; the pane itself draws block by block)."""
    blocks = [
        _block(m, position=i, limit=limit)
        for i, item in enumerate(messages)
        if (m := _message(item)) is not None
    ]
    return Text("\n\n").join(blocks) if blocks else Text(EMPTY, style="dim")


def _said_block(said: Said, *, by: str, limit: int | None) -> Text | None:
    message = _message(said.message)
    if message is None:
        return None
    return _block(message, position=said.state_index, limit=limit, by=by, final=said.final)


@dataclass
class _Laid:
    """One message's block, wrapped to a width: the message and attribution it came from, its rows."""

    item: tuple[Said, str]
    rows: list[Strip]


_Key = tuple[int | None, int | None, str | None, str, bool, str]


def _key(item: tuple[Said, str]) -> _Key:
    """What tells one shown message from another without comparing their text."""
    said, by = item
    return (said.state_index, said.position, said.node, said.origin, said.final, by)


class MessagesPane(ScrollView, can_focus=True):
    """The conversation at the cursor; the app calls `show(said, by=...)` when the cursor moves."""

    DEFAULT_CSS = """
    MessagesPane { height: 1fr; scrollbar-gutter: stable; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._items: list[tuple[Said, str]] = []
        self._expand = False
        self._laid: dict[_Key, _Laid] = {}
        self._layout_key: tuple[int, bool] = (0, False)
        self._starts: list[int] = []  # first virtual row of each drawn block
        self._blocks: list[list[Strip]] = []

    def show(self, said: list[Said], *, by: list[str], expand: bool = False) -> bool:
        """Show the conversation `said`, each message headed by `by[i]` (who said it, when); False when
        it is the one already shown (the app then leaves the scroll alone)."""
        items = list(zip(said, by, strict=True))
        if expand == self._expand and items == self._items and self._blocks:
            return False
        self._items = items
        self._expand = expand
        self._lay_out()
        return True

    def show_newest(self) -> None:
        """Scroll to the newest message and stay there (Textual's anchor) until the user scrolls: the
        scroll limits follow new rows only at the next layout, and other panes changing size (the budget
        bar growing a line) lay this one out again later still, on a busy machine frames later."""
        self.anchor()

    def on_resize(self) -> None:
        """Wrap again at the new width, keeping the newest message in view if it was."""
        at_end = self.scroll_y >= self.max_scroll_y
        self._lay_out()
        if at_end:  # the scroll limits follow the new virtual size only after a refresh
            self.call_after_refresh(self.scroll_end, animate=False, immediate=True)

    def _lay_out(self) -> None:
        width = self.scrollable_content_region.width
        if width <= 0:  # not laid out yet: the first resize wraps, at the real width
            return
        if (width, self._expand) != self._layout_key:
            self._laid.clear()  # blocks wrapped to another width or clip setting
            self._layout_key = (width, self._expand)
        kept, items = self._laid, self._items
        laid: dict[_Key, _Laid] = {}  # only what is shown now is kept
        blocks: list[list[Strip]] = []
        for item in items:
            key = _key(item)
            done = kept.get(key)
            if done is None or done.item != item:  # the same place and speaker, another message
                done = _Laid(item, self._wrap(item, width))
            laid[key] = done
            if done.rows:
                blocks.append(done.rows)
        self._laid = laid
        if not blocks:
            blocks = [self._wrap_text(Text(EMPTY, style="dim"), width)]
        starts, row = [], 0
        for rows in blocks:
            starts.append(row)
            row += len(rows) + 1  # a blank row between blocks
        self._blocks, self._starts = blocks, starts
        self.virtual_size = Size(width, row - 1)
        self.refresh()

    def _wrap(self, item: tuple[Said, str], width: int) -> list[Strip]:
        said, by = item
        block = _said_block(said, by=by, limit=None if self._expand else MESSAGE_LIMIT)
        return [] if block is None else self._wrap_text(block, width)

    def _wrap_text(self, text: Text, width: int) -> list[Strip]:
        console = self.app.console
        lines = console.render_lines(text, console.options.update_width(width), pad=False)
        return [Strip(line) for line in lines]

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        base = self.rich_style
        row = scroll_y + y
        which = bisect_right(self._starts, row) - 1
        if which < 0:
            return Strip.blank(width, base)
        rows = self._blocks[which]
        offset = row - self._starts[which]
        if offset >= len(rows):
            return Strip([Segment(" " * width, base)])
        return rows[offset].apply_style(base).crop_extend(scroll_x, scroll_x + width, base)
