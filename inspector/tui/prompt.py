"""`PromptScreen`: a one-line question (go to step, search, state key) answered in a modal input.

The question wraps rather than being cut (`Break when (e.g. len(messages) > 6, calls(get_weather);`
lost its end at 120 columns), and an answer longer than the input is echoed whole under it, so the
start of a long `PATH = VALUE` never scrolls out of sight.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

__all__ = ["PromptScreen"]


class PromptScreen(ModalScreen[str | None]):
    """Dismisses with the submitted text, or None on escape."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    PromptScreen { align: center middle; }
    PromptScreen > Vertical {
        width: 90%; max-width: 110; height: auto; border: round $accent; background: $surface;
        padding: 0 1;
    }
    PromptScreen #prompt-question { width: 1fr; }
    PromptScreen #prompt-echo { width: 1fr; color: $text-muted; display: none; }
    PromptScreen #prompt-echo.-shown { display: block; }
    """

    def __init__(self, question: str, *, value: str = "", placeholder: str = "") -> None:
        super().__init__()
        self.question = question
        self.value = value
        self.placeholder = placeholder
        self._answered = False

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.question, markup=False, id="prompt-question")
            yield Input(value=self.value, placeholder=self.placeholder, id="prompt-input")
            yield Static(id="prompt-echo")

    def on_input_changed(self, event: Input.Changed) -> None:
        """Echo an answer too long for the input, whole and wrapped, under it."""
        echo = self.query_one("#prompt-echo", Static)
        long = len(event.value) >= max(event.input.content_region.width - 1, 1)
        echo.set_class(long, "-shown")
        echo.update(Text(event.value) if long else Text())

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._answer(event.value)

    def action_cancel(self) -> None:
        self._answer(None)

    def _answer(self, answer: str | None) -> None:
        """Dismiss with `answer`, once. Enter and Esc arriving together (a slow file keeps the app busy
        while both keys queue up) would dismiss twice, and the second pop of the screen stack raised
        `ScreenStackError`: the first answer wins, the later one is dropped."""
        if self._answered or not self.is_active:
            return
        self._answered = True
        self.dismiss(answer)
