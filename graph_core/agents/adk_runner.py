"""Running ADK agents from outside: the `Runner` (Eino `adk/runner.go`). An agent used as a tool
(Eino `NewAgentTool`) is `AgentTool`, in `adk_agent_tool` (importable from here too).

Both take any agent with Eino's shape (`name`, `description`, `run(messages, ...)` yielding
`AgentEvent`s, and for resuming `resume(...)`), not only `ChatModelAgent`. An agent that checkpoints
itself (the ChatModelAgent) resumes from its checkpoint ID; any other is checkpointed by the runner when
it interrupts at ADK level and resumes from a `ResumeInfo` (`adk_interrupt`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from graph_core.agents.adk_agent_tool import Agent, AgentTool
from graph_core.agents.adk_interrupt import checkpoints_itself, resume_agent, run_agent
from graph_core.agents.adk_run import AgentEvent
from graph_core.agents.adk_runctx import iterate_in, new_run_ctx
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
        options["streaming"] = self.enable_streaming
        ctx = new_run_ctx(messages, values=options["session"])  # a run of its own (Eino ctxWithNewRunCtx)
        return iterate_in(ctx, run_agent(self.agent, list(messages), store=self.checkpoint_store, **options))

    def query(self, query: str, **options: Any) -> Iterator[AgentEvent]:
        """`run` with one user message."""
        return self.run([Message.user(query)], **options)

    def resume(self, checkpoint_id: str, *, resume_data: Any = None, **options: Any) -> Iterator[AgentEvent]:
        """Continue the run saved under `checkpoint_id` (Eino `Resume`; `resume_data` keyed by interrupt
        IDs is `ResumeWithParams`' targets). An agent checkpointed by the runner resumes in the
        streaming mode of the interrupted run, as in Eino."""
        if self.checkpoint_store is None:
            raise GraphRunError("failed to resume: store is nil")
        if self.checkpoint_store.get(checkpoint_id) is None:
            raise GraphRunError(f"failed to load from checkpoint: checkpoint {checkpoint_id!r} not found")
        if checkpoints_itself(self.agent):
            options["streaming"] = self.enable_streaming
        events = resume_agent(
            self.agent, checkpoint_id, store=self.checkpoint_store, resume_data=resume_data, **options
        )
        return iterate_in(new_run_ctx(values=options.get("session")), events)
