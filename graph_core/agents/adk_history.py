"""The chat history one agent hands another (Eino `getReactChatHistory`, `GenTransferMessages` and
`rewriteMessage` in `adk/agent_tool.go`, `adk/utils.go`, `adk/flow.go`).

An agent tool built with `full_chat_history_as_input=True` gives its agent the calling agent's
conversation instead of the tool's arguments: the caller's messages without the last one (the model
message that called the tool), then a transfer call and its result, with system messages dropped and
every assistant or tool message rewritten as a user message saying who said or did what ("For
context: [agent] said: ..."), since they were not the receiving agent's own turns.
"""

from __future__ import annotations

import uuid

from graph_core.agents.adk_run import SINK, AdkState
from graph_core.errors import GraphRunError
from graph_core.schema import Message, ToolCall
from graph_core.state import process_state

__all__ = [
    "TRANSFER_TO_AGENT_TOOL_NAME",
    "gen_transfer_messages",
    "get_react_chat_history",
    "rewrite_message",
]

TRANSFER_TO_AGENT_TOOL_NAME = "transfer_to_agent"


def transfer_to_agent_tool_output(dest_agent_name: str) -> str:
    """Eino `transferToAgentToolOutput` (its English prompt)."""
    return f"successfully transferred to agent [{dest_agent_name}]"


def gen_transfer_messages(dest_agent_name: str) -> tuple[Message, Message]:
    """An assistant message calling `transfer_to_agent` and the tool's result (Eino `GenTransferMessages`)."""
    call_id = str(uuid.uuid4())
    call = ToolCall(call_id, TRANSFER_TO_AGENT_TOOL_NAME, dest_agent_name)
    result = Message.tool(
        transfer_to_agent_tool_output(dest_agent_name),
        tool_call_id=call_id,
        tool_name=TRANSFER_TO_AGENT_TOOL_NAME,
    )
    return Message.assistant("", tool_calls=[call]), result


def rewrite_message(message: Message, agent_name: str) -> Message:
    """An assistant or tool message of `agent_name` retold as a user message (Eino `rewriteMessage`)."""
    text = "For context:"
    if message.role == "assistant":
        if message.content:
            text += f" [{agent_name}] said: {message.content}."
        for call in message.tool_calls:
            text += f" [{agent_name}] called tool: `{call.name}` with arguments: {call.arguments}."
    elif message.role == "tool" and message.content:
        text += f" [{agent_name}] `{message.tool_name or ''}` tool returned result: {message.content}."
    rewritten = Message.user(text)
    if message.user_input_multi_content:  # copied, not shared (Eino)
        rewritten.user_input_multi_content = [
            p.model_copy(deep=True) for p in message.user_input_multi_content
        ]
    return rewritten


def get_react_chat_history(dest_agent_name: str) -> list[Message]:
    """Inside a tool of a ChatModelAgent run: the history to hand `dest_agent_name` (see the module
    docstring). The calling agent is the last of the run's path (Eino: the run context's `RunPath`),
    else the state's agent name."""
    try:
        messages, state_agent = process_state(
            AdkState, lambda s: (list(s.messages[:-1]) if s.messages else [], s.agent_name)
        )
    except Exception as exc:
        raise GraphRunError(f"failed to get chat history from state: {exc}") from exc
    sink = SINK.get()
    agent_name = sink.run_path[-1] if sink is not None and sink.run_path else state_agent
    history: list[Message] = []
    for message in [*messages, *gen_transfer_messages(dest_agent_name)]:
        if message.role == "system":
            continue
        if message.role in ("assistant", "tool"):
            message = rewrite_message(message, agent_name)
        history.append(message)
    return history
