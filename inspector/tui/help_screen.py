"""`HelpScreen`: every key and what it does, built from the app's own bindings so it cannot drift.

On a screen too short for the list (80x24 cut it after a dozen keys), the box's bottom border says
there is more and how to scroll to it, and says when the end is reached."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

__all__ = ["HelpScreen"]


class HelpScreen(ModalScreen[None]):
    """A modal list of `(keys, description)` rows; any of escape, q, ? closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "dismiss_help", "Close help"),
    ]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 80; height: auto; max-height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    """

    def __init__(self, rows: list[tuple[str, str]], title: str = "Replay debugger keys") -> None:
        super().__init__()
        self.rows = rows
        self.title_text = title

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        for keys, description in self.rows:
            table.add_row(Text(keys), Text(description))
        with VerticalScroll(id="help-keys"):
            yield Static(Text(self.title_text, style="bold"))
            yield Static(table)
            yield Static(Text("Every action is also in the command palette (ctrl+p).", style="dim"))

    def on_mount(self) -> None:
        box = self.query_one("#help-keys", VerticalScroll)
        box.focus()  # ↑/↓ and page keys scroll it
        self.watch(box, "scroll_y", self._hint, init=False)
        self.call_after_refresh(self._hint)

    def on_resize(self) -> None:
        self.call_after_refresh(self._hint)

    def _hint(self, _: float | None = None) -> None:
        """`↓ more below: ↑ ↓ PgUp PgDn scroll` while the list goes on past the box; `end` at its end."""
        box = self.query_one("#help-keys", VerticalScroll)
        if box.max_scroll_y <= 0:
            box.border_subtitle = None
        elif box.scroll_y < box.max_scroll_y:
            box.border_subtitle = Text("↓ more below: ↑ ↓ PgUp PgDn scroll", style="bold")
        else:
            box.border_subtitle = Text("end of the list (↑ scrolls back)")

    def action_dismiss_help(self) -> None:
        self.dismiss(None)
