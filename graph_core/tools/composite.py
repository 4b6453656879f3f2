"""A ToolsNode's composite interrupt (Eino's `CompositeInterrupt` of `compose.ToolsNode`).

When calls of one message interrupt, the node interrupts once for all of them: the results of the calls
that completed are saved with the node's input, and on resume only the interrupted calls run again
(`resumed` gives back what was saved). Each interrupted call's address ends in (tool name, call id).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graph_core.context import current_scope
from graph_core.interrupt import (
    InterruptSignal,
    PointRecord,
    address_of,
    address_path,
    composite_interrupt,
    scope_address,
)
from graph_core.multimodal import ToolResult
from graph_core.schema import Message

__all__ = ["interrupt_calls", "resumed"]


def resumed() -> tuple[Message | None, dict[str, Any]]:
    """The saved input and completed results when this node reruns after its composite interrupt."""
    scope = current_scope()
    record: PointRecord | None = scope.resume if scope is not None else None
    if record is None or not isinstance(record.state, dict) or "executed" not in record.state:
        return None, {}
    state: dict[str, Any] = record.state  # pyright: ignore[reportUnknownVariableType]
    return state.get("input"), dict(state["executed"])


def interrupt_calls(
    calls: Sequence[tuple[str, str]],
    message: Message,
    executed: Mapping[str, Any],
    signals: dict[str, InterruptSignal],
) -> None:
    """Interrupt the node for the calls in `signals` (by call id); `calls` are every call's (tool name,
    call id) in call order, `executed` the results of the calls that completed (text, or an enhanced
    tool's `ToolResult`: Eino's `ExecutedTools` and `ExecutedEnhancedTools`)."""
    scope = current_scope()
    path = address_path(scope)
    root = scope_address(scope)
    names = {call_id: name for name, call_id in calls}
    for call_id, signal in signals.items():  # a graph run inside the call has its points under it too
        signal.readdress(address_of(path, (names[call_id], call_id), root=root))
    rerun = [call_id for _, call_id in calls if call_id in signals]
    info = {
        "tool_calls": [c.model_dump() for c in message.tool_calls],
        "executed_tools": {k: v for k, v in executed.items() if not isinstance(v, ToolResult)},
        "executed_enhanced_tools": {k: v for k, v in executed.items() if isinstance(v, ToolResult)},
        "rerun_tools": rerun,
        "rerun_extra_map": {k: s.info for k, s in signals.items()},
    }
    composite_interrupt(info, {"input": message, "executed": dict(executed), "rerun": rerun}, signals)
