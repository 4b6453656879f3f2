"""Whether the process has a terminal to draw a full-screen app on, checked before one opens.

Textual reads keys from stdin and draws on the standard streams. Without a terminal (`inspector demo
< /dev/null > out`, a CI job, a pipe) it never gets a key and the app writes escape codes forever: the
command hangs. The commands that open a screen (`demo`, `replay`, `debug`) ask here first and refuse
with the command that works without one. The check lives in the CLI, not in the apps, so tests keep
driving the apps off-screen (Textual's pilot) and in tmux (a real terminal).
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

from inspector.errors import InspectorError

__all__ = ["has_terminal", "require_terminal"]


def _is_terminal(stream: TextIO | None) -> bool:
    if stream is None:
        return False
    try:
        return stream.isatty()
    except (OSError, ValueError):  # closed or detached
        return False


WEB_DRIVER = "textual.drivers.web_driver:WebDriver"
"""The driver textual-serve names in `TEXTUAL_DRIVER` for each app it starts (`inspector serve`): the
screen is a browser tab, spoken to over pipes, so the app has somewhere to draw without a terminal."""


def has_terminal() -> bool:
    """Whether stdin, stdout and stderr are all terminals (the process's own streams, the ones Textual
    uses, not what a test put in their place), or the app draws in a browser through textual-serve."""
    if os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER:
        return True
    return all(_is_terminal(stream) for stream in (sys.__stdin__, sys.__stdout__, sys.__stderr__))


def require_terminal(command: str, instead: str) -> None:
    """Refuse `command` (an `InspectorError`: exit status 2) when there is no terminal, naming `instead`,
    the command that does the same work without a screen."""
    if not has_terminal():
        raise InspectorError(
            f"no terminal: use `{instead}` (`inspector {command}` opens a full-screen app, which needs "
            "stdin, stdout and stderr to be a terminal)"
        )
