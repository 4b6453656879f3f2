"""`PromptScreen`: a one-line question (go to step, search, state key) answered in a modal input."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

__all__ = ["PromptScreen"]


class PromptScreen(ModalScreen[str | None]):
    """Dismisses with the submitted text, or None on escape."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    PromptScreen { align: center middle; }
    PromptScreen > Vertical {
        width: 60; height: auto; border: round $accent; background: $surface; padding: 0 1;
    }
    """

    def __init__(self, question: str, *, value: str = "", placeholder: str = "") -> None:
        super().__init__()
        self.question = question
        self.value = value
        self.placeholder = placeholder
        self._answered = False

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.question, markup=False)
            yield Input(value=self.value, placeholder=self.placeholder, id="prompt-input")

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
