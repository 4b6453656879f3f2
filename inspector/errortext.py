"""How a recorded error reads on screen: its type, then its message without the engine's repeated tag.

The engine's errors carry Eino's bracket tag in their message (`[GraphRunError] exceeds max steps`), and
the run file keeps that text as raised. Shown after the type name the tag only repeats it
(`MaxStepsExceededError: [GraphRunError] exceeds max steps`), so the displays drop it; the file and the
`--json` output keep the message unchanged.
"""

from __future__ import annotations

__all__ = ["error_text", "untagged", "without_node_path"]

_TAGS = ("[GraphRunError] ", "[NodeRunError] ")
_NODE_PATH = "\n------------------------\nnode path: ["


def untagged(message: str) -> str:
    """`message` without a leading `[GraphRunError] ` or `[NodeRunError] ` tag (other text is kept)."""
    for tag in _TAGS:
        if message.startswith(tag):
            return message[len(tag) :]
    return message


def without_node_path(message: str) -> str:
    """`message` untagged and without the engine's `---- node path: [...]` trailer: displays give the
    node path a line of its own (it is recorded apart, as `node_path`)."""
    return untagged(message).split(_NODE_PATH, 1)[0]


def error_text(type_name: str, message: str) -> str:
    """`Type: message` for one error, the message untagged."""
    return f"{type_name}: {untagged(message)}"
