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
newest 60 that slides by one message a step lays out just the new one, and the last `KEPT` laid out
stay for the next jump; `render_line` draws only the rows on screen.

A jump shows messages never laid out (60 of them: tens of ms). The pane opens on the newest, so on
the key only the newest blocks that can fill the screen are laid out; the others get a height guessed
from their text (`_guess`) and are laid out just after the frame, a few at a time (`_lay_out_rest`),
before anyone can scroll up to them (one scrolled into view earlier is laid out as it is drawn).
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
from inspector.message_parts import parts_of
from inspector.recording.valuelist import LISTS
from inspector.tui.literal import literal, one_line

__all__ = ["ROLE_COLOURS", "MessagesPane", "raw_messages", "render_messages"]

FINAL = "final answer (the run's output)"

ROLE_COLOURS = {"user": "blue", "assistant": "green", "tool": "yellow", "system": "magenta"}
MESSAGE_LIMIT = 600
EMPTY = "(no messages at this step)"
KEPT = 240
"""Laid-out blocks kept besides those shown (the most recently shown), for the next jump back."""
REST_AT_ONCE = 8
"""Blocks laid out per turn after a jump's frame (`_lay_out_rest`): a few ms, so keys get in between."""


def _block(
    message: Message,
    *,
    position: int | None,
    limit: int | None,
    by: str = "",
    final: bool = False,
    edited: str | None = None,
    parts: Sequence[str] = (),
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
    if edited:  # a person changed what the model said, under the debugger
        text.append("\n")
        text.append("✎ ", style="bold yellow")
        text.append_text(one_line(edited, limit=limit or 200, style="yellow"))
    body = Text()
    if message.content:
        body.append_text(literal(message.content, limit=limit, multiline=True))
    for part in parts:  # multi-part content: text as it is, media as `[image: image/png, 8 bytes]`
        if body:
            body.append("\n")
        body.append_text(literal(part, limit=limit, multiline=True))
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
    """The message an item of a recording is, its multi-part content left out (`_parts` reads that
    from the recorded value, where a long base64 string may be stored cut short)."""
    if isinstance(item, Message):
        return item
    if not isinstance(item, dict) or "role" not in item:
        return None
    if "user_input_multi_content" in item:
        item = {k: v for k, v in item.items() if k != "user_input_multi_content"}  # pyright: ignore[reportUnknownVariableType]
    try:
        return Message.model_validate(item)
    except ValidationError:
        return None


def _parts(item: Any) -> list[str]:
    if isinstance(item, Message):
        return parts_of(item.model_dump(include={"user_input_multi_content"}))
    return parts_of(item)


def render_messages(messages: list[Any], *, limit: int | None = MESSAGE_LIMIT) -> Text:
    """Every message as one `Text` (for a caller without a pane; the pane itself draws block by block)."""
    blocks = [
        _block(m, position=i, limit=limit, parts=_parts(item))
        for i, item in enumerate(messages)
        if (m := _message(item)) is not None
    ]
    return Text("\n\n").join(blocks) if blocks else Text(EMPTY, style="dim")


def _said_block(said: Said, *, by: str, limit: int | None) -> Text | None:
    message = _message(said.message)
    if message is None:
        return None
    return _block(
        message,
        position=said.state_index,
        limit=limit,
        by=by,
        final=said.final,
        edited=said.edited,
        parts=_parts(said.message),
    )


@dataclass
class _Laid:
    """One message's block, wrapped to a width: the message and attribution it came from, its rows."""

    item: tuple[Said, str]
    rows: list[Strip]


_Key = tuple[int | None, int | None, str | None, str, bool, str | None, str]


def _key(item: tuple[Said, str]) -> _Key:
    """What tells one shown message from another without comparing their text."""
    said, by = item
    return (said.state_index, said.position, said.node, said.origin, said.final, said.edited, by)


class MessagesPane(ScrollView, can_focus=True):
    """The conversation at the cursor; the app calls `show(said, by=...)` when the cursor moves."""

    DEFAULT_CSS = """
    MessagesPane { height: 1fr; scrollbar-gutter: stable; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._items: list[tuple[Said, str]] = []
        self._expand = False
        self._laid: dict[_Key, _Laid] = {}  # most recently shown last
        self._layout_key: tuple[int, bool] = (0, False)
        self._starts: list[int] = []  # first virtual row of each drawn block
        self._blocks: list[list[Strip] | None] = []  # None: not laid out yet (its height is guessed)
        self._drawn: list[int] = []  # the item each drawn block shows
        self._rest_scheduled = False

    def show(self, said: list[Said], *, by: list[str], expand: bool = False) -> bool:
        """Show the conversation `said`, each message headed by `by[i]` (who said it, when); False when
        it is the one already shown (the app then leaves the scroll alone)."""
        items = list(zip(said, by, strict=True))
        if expand == self._expand and items == self._items and self._blocks:
            return False
        self._items = items
        self._expand = expand
        self._lay_out(lazy=True)
        return True

    def show_newest(self) -> None:
        """Scroll to the newest message and stay there (Textual's anchor) until the user scrolls: the
        scroll limits follow new rows only at the next layout, and other panes changing size (the budget
        bar growing a line) lay this one out again later still, on a busy machine frames later."""
        self.anchor()

    def on_resize(self) -> None:
        """Wrap again at the new width, keeping the newest message in view if it was."""
        at_end = self.scroll_y >= self.max_scroll_y
        self._lay_out(lazy=at_end)
        if at_end:  # the scroll limits follow the new virtual size only after a refresh
            self.call_after_refresh(self.scroll_end, animate=False, immediate=True)

    def _lay_out(self, *, lazy: bool = False) -> None:
        """Lay the items out; `lazy`: only the newest that can fill the screen (the view is on them),
        the rest after the frame."""
        width = self.scrollable_content_region.width
        if width <= 0:  # not laid out yet: the first resize wraps, at the real width
            return
        if (width, self._expand) != self._layout_key:
            self._laid.clear()  # blocks wrapped to another width or clip setting
            self._layout_key = (width, self._expand)
        kept, items = self._laid, self._items
        rows: list[list[Strip] | None] = [None] * len(items)
        room = self.app.size.height if lazy else None  # rows the view can show, at most
        filled = 0
        for index in range(len(items) - 1, -1, -1):  # from the newest, the view's end
            done = self._kept(items[index])
            if done is None and (room is None or filled < room):
                done = self._keep(items[index], width)
            if done is not None:
                rows[index] = done.rows
                filled += len(done.rows) + 1
        if len(kept) > KEPT + len(items):
            for key in list(kept)[: len(kept) - KEPT - len(items)]:
                del kept[key]
        self._arrange(rows, width)
        if any(r is None for r in rows) and not self._rest_scheduled:
            self._rest_scheduled = True
            self.call_after_refresh(self._lay_out_rest)

    def _kept(self, item: tuple[Said, str]) -> _Laid | None:
        """The block laid out for `item` before (the same place and speaker, the same message), now
        the most recently used."""
        key = _key(item)
        done = self._laid.pop(key, None)
        if done is None or done.item != item:  # the same place and speaker, another message
            return None
        self._laid[key] = done
        return done

    def _keep(self, item: tuple[Said, str], width: int) -> _Laid:
        done = _Laid(item, self._wrap(item, width))
        self._laid[_key(item)] = done
        return done

    def _arrange(self, rows: list[list[Strip] | None], width: int) -> None:
        """Place the blocks one under another (a blank row between); those not laid out yet take their
        guessed height."""
        blocks: list[list[Strip] | None] = []
        drawn: list[int] = []
        starts: list[int] = []
        row = 0
        for index, laid in enumerate(rows):
            height = len(laid) if laid is not None else _guess(self._items[index][0], width)
            if not height:
                continue
            blocks.append(laid)
            drawn.append(index)
            starts.append(row)
            row += height + 1
        if not blocks:
            empty = self._wrap_text(Text(EMPTY, style="dim"), width)
            blocks.append(empty)
            drawn, starts, row = [-1], [0], len(empty) + 1
        self._blocks, self._drawn, self._starts = blocks, drawn, starts
        self.virtual_size = Size(width, row - 1)
        self.refresh()

    def _lay_out_rest(self) -> None:
        """Lay out a few more of the blocks a lazy layout left (after the frame that showed it), then
        come back for the next few; each turn places the blocks again at their real heights."""
        self._rest_scheduled = False
        width = self.scrollable_content_region.width
        if width <= 0 or (width, self._expand) != self._layout_key:
            return  # a resize lays everything out again
        pending = [i for i, laid in zip(self._drawn, self._blocks, strict=True) if laid is None and i >= 0]
        if not pending:
            return
        for index in pending[-REST_AT_ONCE:]:  # the nearest to the view first
            self._keep(self._items[index], width)
        rows: list[list[Strip] | None] = []
        for item in self._items:
            done = self._laid.get(_key(item))
            rows.append(done.rows if done is not None and done.item == item else None)
        self._arrange(rows, width)
        if len(pending) > REST_AT_ONCE:
            self._rest_scheduled = True
            self.call_after_refresh(self._lay_out_rest)

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
        if rows is None:  # scrolled to before the rest was laid out: lay this one out now
            rows = self._keep(self._items[self._drawn[which]], width).rows
            self._blocks[which] = rows
            if not self._rest_scheduled:  # and place the blocks at their real heights after this frame
                self._rest_scheduled = True
                self.call_after_refresh(self._lay_out_rest)
        offset = row - self._starts[which]
        if offset >= len(rows):
            return Strip([Segment(" " * width, base)])
        return rows[offset].apply_style(base).crop_extend(scroll_x, scroll_x + width, base)


def _guess(said: Said, width: int) -> int:
    """About how many rows a message's block takes at `width` (0: none, not a message), from its text
    alone, for a block not laid out yet: its header, a row per line of text (more when it wraps) and
    per tool call."""
    message = said.message
    if not isinstance(message, dict) or "role" not in message:  # pyright: ignore[reportUnnecessaryIsInstance]
        return 0
    content = message.get("content")
    text = content if isinstance(content, str) else "" if content is None else repr(content)
    room = max(width - 2, 1)  # the rule `▎ ` before each line
    rows = sum(max(1, -(-len(line) // room)) for line in text[:MESSAGE_LIMIT].split("\n")) if text else 0
    calls = message.get("tool_calls")
    rows += len(calls) if isinstance(calls, list) else 0  # pyright: ignore[reportUnknownArgumentType]
    rows += len(parts_of(message))
    return 1 + max(rows, 1)
