"""How a ChatModelAgent hands the conversation to another agent (Eino's `transferToAgent` tool in
`adk/chatmodel.go` and `genTransferToAgentInstruction` in `adk/instruction.go`).

An agent given sub-agents (`set_sub_agents`) or a parent it may transfer back to gets one more tool,
`transfer_to_agent(agent_name)`, which returns directly (the agent's run ends with its result) and
attaches a transfer action to its event; and its instruction gains a paragraph listing the agents it
may transfer to, with their descriptions. The flow agent around it (`adk_flow`) acts on the action.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graph_core.agents.adk_history import TRANSFER_TO_AGENT_TOOL_NAME, transfer_to_agent_tool_output
from graph_core.agents.adk_run import new_transfer_to_agent_action, send_tool_gen_action
from graph_core.tools import tool

__all__ = [
    "TRANSFER_TO_AGENT_INSTRUCTION",
    "TRANSFER_TO_AGENT_TOOL_DESC",
    "TRANSFER_TO_AGENT_TOOL_NAME",
    "gen_transfer_to_agent_instruction",
    "transfer_to_agent_tool",
]

TRANSFER_TO_AGENT_TOOL_DESC = "Transfer the question to another agent."

TRANSFER_TO_AGENT_INSTRUCTION = """Available other agents: {agents}

Decision rule:
- If you're best suited for the question according to your description: ANSWER
- If another agent is better according its description: CALL '{tool}' function with their agent name

When transferring: OUTPUT ONLY THE FUNCTION CALL"""

_AGENT_DESCRIPTION = "\n- Agent name: {name}\n  Agent description: {description}"


@tool(name=TRANSFER_TO_AGENT_TOOL_NAME, description=TRANSFER_TO_AGENT_TOOL_DESC)
def transfer_to_agent_tool(agent_name: str) -> str:
    """Transfer the question to another agent.

    Args:
        agent_name: the name of the agent to transfer to
    """
    send_tool_gen_action(new_transfer_to_agent_action(agent_name))
    return transfer_to_agent_tool_output(agent_name)


def gen_transfer_to_agent_instruction(agents: Sequence[Any]) -> str:
    """The instruction paragraph naming the agents one may transfer to (Eino's English prompt)."""
    listed = "".join(
        _AGENT_DESCRIPTION.format(name=agent.name, description=agent.description) for agent in agents
    )
    return TRANSFER_TO_AGENT_INSTRUCTION.format(agents=listed, tool=TRANSFER_TO_AGENT_TOOL_NAME)
