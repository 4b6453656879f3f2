"""How a recorded error reads on screen: its type, then its message without the engine's repeated tag.

The engine's errors carry Eino's bracket tag in their message (`[GraphRunError] exceeds max steps`), and
the run file keeps that text as raised. Shown after the type name the tag only repeats it
(`MaxStepsExceededError: [GraphRunError] exceeds max steps`), so the displays drop it; the file and the
`--json` output keep the message unchanged.
"""

from __future__ import annotations

__all__ = ["error_text", "untagged"]

_TAGS = ("[GraphRunError] ", "[NodeRunError] ")


def untagged(message: str) -> str:
    """`message` without a leading `[GraphRunError] ` or `[NodeRunError] ` tag (other text is kept)."""
    for tag in _TAGS:
        if message.startswith(tag):
            return message[len(tag) :]
    return message


def error_text(type_name: str, message: str) -> str:
    """`Type: message` for one error, the message untagged."""
    return f"{type_name}: {untagged(message)}"
