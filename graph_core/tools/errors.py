"""Errors raised by tools and the ToolsNode.

```
GraphError (graph_core.errors)
├── ToolsNodeInputError (ValueError)   the node got something other than an assistant message with calls
└── ToolError                          one tool call went wrong; `tool_name` and `tool_call_id` say which
    ├── ToolArgumentsError (ValueError) the arguments were not JSON or failed validation; `field` says where
    ├── ToolNotFoundError (LookupError) a call named a tool the node does not have (and no handler)
    └── ToolCallError (RuntimeError)    the tool raised; the original error is `__cause__`
```

Messages follow Eino's texts (`failed to invoke tool[name:%s id:%s]: %w`) so they can be matched by
substring, and always carry the tool name and call ID so a failing run says which call broke.
"""

from __future__ import annotations

import reprlib
from typing import Any

from graph_core.errors import GraphError

__all__ = [
    "ToolArgumentsError",
    "ToolCallError",
    "ToolError",
    "ToolNotFoundError",
    "ToolsNodeInputError",
    "not_text",
]


class ToolsNodeInputError(GraphError, ValueError):
    """The ToolsNode input was not an assistant message carrying at least one tool call."""


class ToolError(GraphError):
    """Base of the errors about one tool call."""

    def __init__(self, message: str, *, tool_name: str, tool_call_id: str) -> None:
        super().__init__(message)
        self.tool_name = tool_name
        self.tool_call_id = tool_call_id


class ToolArgumentsError(ToolError, ValueError):
    """Arguments were not a JSON object or failed validation; `field` is the offending field, if known."""

    def __init__(self, message: str, *, tool_name: str, tool_call_id: str, field: str | None = None) -> None:
        super().__init__(message, tool_name=tool_name, tool_call_id=tool_call_id)
        self.field = field


class ToolNotFoundError(ToolError, LookupError):
    """A tool call named a tool the ToolsNode does not know and no `unknown_tools_handler` was given."""


class ToolCallError(ToolError, RuntimeError):
    """A tool (or its arguments handler or middleware) failed; the original error is `__cause__`."""


def not_text(value: Any, what: str = "the result") -> TypeError:
    """Why a tool's result cannot become a tool message: Eino's tools return strings by type, but a
    duck-typed tool, a middleware or a handler here can return anything; the value is shown, cut short."""
    return TypeError(
        f"{what} is {type(value).__name__} {reprlib.repr(value)}, not a str "
        "(tool results are message text; return a string, or use @tool, which JSON-encodes results)"
    )
