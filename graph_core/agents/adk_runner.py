"""Running ADK agents from outside and from inside: the `Runner` (Eino `adk/runner.go`) and an agent
used as a tool (Eino `NewAgentTool`, `adk/agent_tool.go`).

At the ToolNode a sub-agent and a tool are both actions producing a result: `AgentTool(agent)` is a tool
named and described as its agent, taking `{"request": "..."}`, whose result is the text of the agent's
last message. The inner run shares its parent's session values; with the outer agent's
`emit_internal_events=True` its events also reach the outer run's events (Eino
`ToolsConfig.EmitInternalEvents`), otherwise only the tool's result does. As Eino's inner run takes
the tool call's `ctx` (its callback handlers and run path), the inner run reports to the outer run's
callbacks under the tool call's node path, `(..., "ToolNode", "<tool name>:<call id>")`
(`tool_call_segment`): a recording keeps it as a nested run of that call, and the agent's topology
(`AgentTool.topology`) is drawn nested in the ToolsNode's (`graph_core.describe`).

Both take any agent with Eino's shape (`name`, `description`, `run(messages, ...)` yielding
`AgentEvent`s, and for resuming `resume(checkpoint_id, ...)`), not only `ChatModelAgent`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from graph_core.agents.adk_run import SINK, AgentEvent
from graph_core.context import current_scope
from graph_core.errors import GraphBuildError, GraphRunError
from graph_core.schema import Message, ToolInfo
from graph_core.tools import get_tool_call_id

__all__ = ["AgentTool", "Runner", "tool_call_segment"]


def tool_call_segment(tool_name: str, call_id: str) -> str:
    """The node-path segment an agent tool's inner run reports under, after its ToolsNode's key: the
    tool's name and the call's ID, so two calls of one agent tool in one step stay apart."""
    return f"{tool_name}:{call_id}"


class Agent(Protocol):
    """Eino's `Agent` interface as the runner and the agent tool use it."""

    name: str
    description: str

    def run(self, messages: Sequence[Message] | str | None, **options: Any) -> Iterator[AgentEvent]: ...


class Runner:
    """Eino `Runner`: runs an agent with a fresh session, streaming or not, and resumes it.

    `checkpoint_store` (optional) is where interrupted runs are saved and found again; without one,
    `resume` fails with `failed to resume: store is nil`, as in Eino.
    """

    def __init__(self, agent: Agent, *, enable_streaming: bool = False, checkpoint_store: Any = None) -> None:
        self.agent = agent
        self.enable_streaming = enable_streaming
        self.checkpoint_store = checkpoint_store
        use = getattr(agent, "use_checkpoint_store", None)
        if checkpoint_store is not None and use is not None:
            use(checkpoint_store)

    def run(self, messages: Sequence[Message], **options: Any) -> Iterator[AgentEvent]:
        """The agent's events for `messages`; `options` go to the agent's `run` (`callbacks=[...]`,
        `checkpoint_id=...`, `session=...`)."""
        options.setdefault("session", {})
        return self.agent.run(list(messages), streaming=self.enable_streaming, **options)

    def query(self, query: str, **options: Any) -> Iterator[AgentEvent]:
        """`run` with one user message."""
        return self.run([Message.user(query)], **options)

    def resume(self, checkpoint_id: str, *, resume_data: Any = None, **options: Any) -> Iterator[AgentEvent]:
        """Continue the run saved under `checkpoint_id` (Eino `Resume` / `ResumeWithParams`)."""
        if self.checkpoint_store is None:
            raise GraphRunError("failed to resume: store is nil")
        if self.checkpoint_store.get(checkpoint_id) is None:
            raise GraphRunError(f"failed to load from checkpoint: checkpoint {checkpoint_id!r} not found")
        resume = getattr(self.agent, "resume", None)
        if resume is None:
            raise GraphRunError(f"agent {self.agent.name!r} cannot resume")
        return resume(checkpoint_id, resume_data=resume_data, streaming=self.enable_streaming, **options)


_REQUEST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"request": {"type": "string", "description": "request to be processed"}},
    "required": ["request"],
}


class AgentTool:
    """An agent as a tool (Eino `NewAgentTool`); see the module docstring."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    @property
    def info(self) -> ToolInfo:
        if not self.agent.name:
            raise GraphBuildError("agent tool requires a non-empty Name")
        if not self.agent.description:
            raise GraphBuildError("agent tool requires a non-empty Description")
        return ToolInfo(self.agent.name, self.agent.description, dict(_REQUEST_SCHEMA))

    def invoke(self, arguments: str) -> str:
        request = json.loads(arguments)["request"]
        outer = SINK.get()
        session = outer.session if outer is not None else {}
        forward = outer is not None and outer.emit_internal_events
        last: AgentEvent | None = None
        nested = self._nested_options()
        for event in self.agent.run([Message.user(str(request))], session=session, **nested):
            if forward and outer is not None:
                outer.emit(event)
            if event.error is not None:
                raise event.error
            if event.action is not None and event.action.interrupted is not None:
                raise GraphRunError(
                    f"agent tool '{self.agent.name}' interrupted: an interrupt inside an agent tool "
                    "is not resumable in graph_core"
                )
            last = event
        if last is None:
            raise GraphRunError("no event returned")
        return last.message.content if last.message is not None else ""

    def _nested_options(self) -> dict[str, Any]:
        """The outer run's callbacks and this call's node path, for the inner run (none outside a run)."""
        scope = current_scope()
        if scope is None or not scope.callbacks:
            return {}
        segment = tool_call_segment(self.agent.name, get_tool_call_id())
        return {"callbacks": scope.callbacks, "parent_path": (*scope.path, segment)}

    def topology(self) -> Any:
        """The agent's graph (a `Topology`), or None for an agent that has none to show."""
        topology = getattr(self.agent, "topology", None)
        return topology() if callable(topology) else None

    def __repr__(self) -> str:
        return f"AgentTool({self.agent.name!r})"
