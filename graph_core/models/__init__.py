"""Chat models: the protocol the engine calls, the scripted test double, and (lazily) an OpenAI client.

`OpenAIChatModel` is imported on first access so that `import graph_core.models` never imports httpx.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graph_core.models.protocol import ChatModel
from graph_core.models.replay import ReplayChatModel, ReplayExhaustedError
from graph_core.models.scripted import ScriptedChatModel, ScriptEntry, ScriptExhaustedError

if TYPE_CHECKING:
    from graph_core.models.openai import OpenAIChatModel

__all__ = [
    "ChatModel",
    "OpenAIChatModel",
    "ReplayChatModel",
    "ReplayExhaustedError",
    "ScriptEntry",
    "ScriptExhaustedError",
    "ScriptedChatModel",
]


def __getattr__(name: str) -> Any:
    if name == "OpenAIChatModel":
        from graph_core.models.openai import OpenAIChatModel

        return OpenAIChatModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
