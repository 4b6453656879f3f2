"""`ReplayChatModel`: answers a run with the assistant messages a previous run recorded, in order.

It exists so CI can re-run an agent without calling an LLM: `inspector.snapshot.replay_model_from_run`
builds one from a run file (graph_core never reads run files itself; it takes plain `Message`s). It is a
`ScriptedChatModel` underneath, with two differences that matter for replays: running past the recording
raises `ReplayExhaustedError`, whose message says the agent now calls the model more often than it did
when the run was recorded (a behaviour change, not a broken test double), and `unused` tells a test
whether the agent stopped calling the model early.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence

from graph_core.errors import GraphError
from graph_core.models.scripted import ScriptedChatModel, ScriptExhaustedError
from graph_core.schema import Message, ToolInfo

__all__ = ["ReplayChatModel", "ReplayExhaustedError"]


class ReplayExhaustedError(GraphError, IndexError):
    """The agent called the model more times than the recording did."""


class ReplayChatModel:
    """A chat model that returns `answers` (recorded assistant messages) one per call, in order.

    Copies made by `with_tools` share the position with the original, as agents bind tools to a copy.
    `restart_on_new_conversation=True` rewinds when a call carries no assistant message (a new run), so
    one model can back several runs of the same agent.
    """

    def __init__(
        self,
        answers: Sequence[Message],
        *,
        restart_on_new_conversation: bool = False,
        source: str = "the recording",
        name: str = "ReplayChatModel",
    ) -> None:
        for i, answer in enumerate(answers):
            if not isinstance(answer, Message):  # pyright: ignore[reportUnnecessaryIsInstance]
                raise TypeError(f"answer {i} is a {type(answer).__name__}; a replay needs Messages")
        self.source = source
        self.name = name
        self._inner = ScriptedChatModel(
            list(answers), restart_on_new_conversation=restart_on_new_conversation, name=name
        )

    @property
    def answers(self) -> tuple[Message, ...]:
        return tuple(entry for entry in self._inner.script if isinstance(entry, Message))

    @property
    def tools(self) -> tuple[ToolInfo, ...]:
        return self._inner.tools

    @property
    def calls(self) -> list[Sequence[Message]]:
        """The message lists received, one per call (shared with tool-bound copies)."""
        return self._inner.calls

    @property
    def unused(self) -> int:
        """Recorded answers not handed out yet; non-zero after a run means the agent stopped early."""
        return self._inner.remaining or 0

    def reset(self) -> None:
        self._inner.reset()

    def with_tools(self, tools: Sequence[ToolInfo]) -> ReplayChatModel:
        bound = ReplayChatModel.__new__(ReplayChatModel)
        bound.source = self.source
        bound.name = self.name
        bound._inner = self._inner.with_tools(tools)
        return bound

    def _exhausted(self, error: ScriptExhaustedError) -> ReplayExhaustedError:
        n = len(self._inner.script)
        replay_error = ReplayExhaustedError(
            f"{self.name}: the agent made model call #{n + 1}, but {self.source} has only {n} model "
            f"answer{'' if n == 1 else 's'}; the agent's behaviour changed since the run was recorded "
            "(record it again if the change is intended)"
        )
        replay_error.__cause__ = error
        return replay_error

    def generate(self, messages: list[Message]) -> Message:
        try:
            return self._inner.generate(messages)
        except ScriptExhaustedError as error:
            raise self._exhausted(error) from error

    def stream(self, messages: list[Message]) -> Iterator[Message]:
        try:
            return self._inner.stream(messages)
        except ScriptExhaustedError as error:
            raise self._exhausted(error) from error

    async def agenerate(self, messages: list[Message]) -> Message:
        return self.generate(messages)

    def astream(self, messages: list[Message]) -> AsyncIterator[Message]:
        try:
            return self._inner.astream(messages)
        except ScriptExhaustedError as error:
            raise self._exhausted(error) from error

    def __repr__(self) -> str:
        return f"ReplayChatModel({len(self._inner.script)} answers from {self.source}, unused={self.unused})"
