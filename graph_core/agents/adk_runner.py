"""Running ADK agents from outside: the `Runner` (Eino `adk/runner.go`). An agent used as a tool
(Eino `NewAgentTool`) is `AgentTool`, in `adk_agent_tool` (importable from here too).

Both take any agent with Eino's shape (`name`, `description`, `run(messages, ...)` yielding
`AgentEvent`s, and for resuming `resume(checkpoint_id, ...)`), not only `ChatModelAgent`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from graph_core.agents.adk_agent_tool import Agent, AgentTool
from graph_core.agents.adk_run import AgentEvent
from graph_core.errors import GraphRunError
from graph_core.schema import Message

__all__ = ["AgentTool", "Runner"]


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
