"""The current tool call, visible to code running inside a tool (Eino's `GetToolCallID(ctx)`).

A context variable rather than a parameter so tools keep plain signatures; the ToolsNode sets it around
each call, and worker threads inherit it because they run under `contextvars.copy_context()`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["get_tool_call_id", "tool_call_scope"]

_TOOL_CALL_ID: ContextVar[str] = ContextVar("graph_core_tool_call_id", default="")


def get_tool_call_id() -> str:
    """The ID of the tool call being executed, or "" outside a tool call."""
    return _TOOL_CALL_ID.get()


@contextmanager
def tool_call_scope(call_id: str) -> Iterator[None]:
    token = _TOOL_CALL_ID.set(call_id)
    try:
        yield
    finally:
        _TOOL_CALL_ID.reset(token)
