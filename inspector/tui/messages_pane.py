"""`MessagesPane`: the conversation in the state at the cursor, one block per message.

Roles are told apart by a coloured role tag and a left rule in the same colour: user blue, assistant
green, tool yellow, system magenta. Assistant tool calls list name and JSON arguments; tool results
name the tool and the call they answer. All text is literal (see `literal.py`).
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from graph_core.schema import Message
from inspector.tui.literal import literal, one_line
from inspector.tui.repaint import repaint

__all__ = ["ROLE_COLOURS", "MessagesPane", "render_messages"]

ROLE_COLOURS = {"user": "blue", "assistant": "green", "tool": "yellow", "system": "magenta"}
MESSAGE_LIMIT = 600
SHOW_LAST = 60


def _block(message: Message, *, position: int, limit: int | None) -> Text:
    colour = ROLE_COLOURS.get(message.role, "white")
    text = Text()
    text.append(f" {message.role.upper()} ", style=f"bold reverse {colour}")
    text.append(f" #{position}", style="dim")
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


def render_messages(messages: list[Message], *, limit: int | None = MESSAGE_LIMIT) -> Text:
    """The last `SHOW_LAST` messages as one `Text` (earlier ones are counted, not drawn)."""
    if not messages:
        return Text("(no messages in the state at this step)", style="dim")
    start = max(0, len(messages) - SHOW_LAST)
    parts: list[Text] = []
    if start:
        parts.append(Text(f"… {start} earlier messages not shown", style="dim"))
    parts.extend(_block(m, position=start + i, limit=limit) for i, m in enumerate(messages[start:]))
    return Text("\n\n").join(parts)


class MessagesPane(Static):
    """Shows `render_messages(...)`; the app calls `show(messages)` when the cursor moves."""

    DEFAULT_CSS = """
    MessagesPane { height: auto; }
    """

    def show(self, messages: list[Message], *, expand: bool = False) -> bool:
        """False when the pane already showed these messages (the app then leaves its scroll alone)."""
        return repaint(self, render_messages(messages, limit=None if expand else MESSAGE_LIMIT))
