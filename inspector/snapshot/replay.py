"""Re-run an agent against a recording: a replay model and replay tools built from a run file.

The model answers come from every ChatModel node's output, in step order; the tool results from every
tool call's recorded output, matched by tool name and JSON arguments (in order, so repeated identical
calls get their results in the order they were recorded). A call the recording does not have raises
`ToolReplayError` naming the tool and arguments: the agent now does something it did not do before.
A tool that failed in the recording fails again in the replay with the recorded error type name and text
(a `ToolReplayError` subclass named after it), so a faithful replay has the recording's trajectory. A
tool call that interrupted is left out: it is a pause, not a result, and in a run resumed into the same
file the resumed segment holds the same call's real result.
"""

from __future__ import annotations

import os
from collections import defaultdict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graph_core.errors import GraphError, InterruptError
from graph_core.interrupt import InterruptSignal
from graph_core.models.replay import ReplayChatModel
from graph_core.schema import Message, ToolInfo
from inspector.recording.reader import NodeRun, Run, read_run

__all__ = ["RecordedError", "ReplayTool", "ToolReplayError", "replay_model_from_run", "replay_tools_from_run"]


class ToolReplayError(GraphError, LookupError):
    """The agent made a tool call the recording does not have (or the recorded call failed)."""


@dataclass(frozen=True, slots=True)
class RecordedError:
    """A tool failure as the recording holds it: the exception's type name and message."""

    type: str
    message: str


_REPLAYED_ERRORS: dict[str, type[ToolReplayError]] = {ToolReplayError.__name__: ToolReplayError}


def _replayed_error(recorded: RecordedError) -> ToolReplayError:
    """An exception that reads as the recorded one (type name, message) and is still a `ToolReplayError`.

    Trajectories and run diffs compare failures by type name, so raising `ToolReplayError` itself would
    make a replay that behaves exactly as recorded differ from its recording.
    """
    cls = _REPLAYED_ERRORS.get(recorded.type)
    if cls is None:
        cls = _REPLAYED_ERRORS[recorded.type] = type(recorded.type, (ToolReplayError,), {})
    return cls(recorded.message)


_PAUSES = frozenset({InterruptSignal.__name__, InterruptError.__name__})
"""Recorded error types that mean the call paused at an `interrupt()` rather than failed."""


def _as_run(subject: Run | str | os.PathLike[str]) -> Run:
    return subject if isinstance(subject, Run) else read_run(Path(subject))


def _all_node_runs(run: Run) -> list[NodeRun]:
    out: list[NodeRun] = []
    for step in run.steps:
        out.extend(step.node_runs)
    unfinished = run.unfinished
    if unfinished is not None:
        out.extend(unfinished.node_runs)
    return out


def replay_model_from_run(
    subject: Run | str | os.PathLike[str], /, *, restart_on_new_conversation: bool = True
) -> ReplayChatModel:
    """A `ReplayChatModel` answering with the run's recorded model outputs, in the order they happened."""
    run = _as_run(subject)
    answers: list[Message] = []
    for node_run in _all_node_runs(run):
        if node_run.component == "ChatModel" and isinstance(node_run.output, dict):
            answers.append(Message.model_validate(node_run.output))
    return ReplayChatModel(
        answers, restart_on_new_conversation=restart_on_new_conversation, source=f"recording {run.path}"
    )


class ReplayTool:
    """A tool with a real tool's `info` whose results are the recorded ones (duck-typed for `ToolsNode`)."""

    def __init__(
        self,
        info: ToolInfo,
        results: Iterable[tuple[str, str | None, str | RecordedError | None]],
        source: str,
    ):
        self._info = info
        self.source = source
        self._recorded: list[tuple[str, str | None, str | RecordedError | None]] = list(results)
        self._queues: dict[str, deque[tuple[str | None, str | RecordedError | None]]] = defaultdict(deque)
        self.reset()

    @property
    def info(self) -> ToolInfo:
        return self._info

    def reset(self) -> None:
        """Make every recorded result available again (for another run)."""
        self._queues.clear()
        for arguments, output, error in self._recorded:
            self._queues[arguments].append((output, error))

    def invoke(self, arguments: str) -> str:
        queue = self._queues.get(arguments)
        if not queue:
            known = sorted({a for a, _, _ in self._recorded})
            raise ToolReplayError(
                f"tool `{self._info.name}` was called with {arguments} but {self.source} has no such call "
                f"left (recorded arguments: {', '.join(known) or 'none'}); the agent's behaviour changed"
            )
        output, error = queue.popleft()
        if isinstance(error, RecordedError):
            raise _replayed_error(error)
        if error is not None:
            raise ToolReplayError(f"tool `{self._info.name}` failed in the recording: {error}")
        return output or ""

    async def ainvoke(self, arguments: str) -> str:
        return self.invoke(arguments)

    def __repr__(self) -> str:
        return f"ReplayTool({self._info.name!r}, {len(self._recorded)} recorded calls)"


def replay_tools_from_run(
    subject: Run | str | os.PathLike[str], /, tools: Sequence[Any] | None = None
) -> list[ReplayTool]:
    """Replay stand-ins for `tools` (same `info`, recorded results), in the same order.

    Pass the agent's real tools so the model sees the same descriptions and the agent the same tool list;
    built-in tools the agent adds itself (the ADK `exit` tool) are left out because they are not passed.
    Without `tools` (None), every tool the run called gets a stand-in with a minimal `ToolInfo`; an empty
    sequence means the agent now has no tools, so it gets none (the replay must not hide that change).
    """
    run = _as_run(subject)
    infos = {tool.info.name: tool.info for tool in tools or ()}
    calls: dict[str, list[tuple[str, str | None, str | RecordedError | None]]] = defaultdict(list)
    for node_run in _all_node_runs(run):
        for call in node_run.tools:
            if call.error is not None and call.error.type in _PAUSES:
                continue
            arguments = call.input if isinstance(call.input, str) else str(call.input)
            error = None if call.error is None else RecordedError(call.error.type, call.error.message)
            output = call.output if isinstance(call.output, str) or call.output is None else str(call.output)
            calls[call.name].append((arguments, output, error))
    source = f"recording {run.path}"
    names = list(infos) if tools is not None else list(calls)
    return [
        ReplayTool(
            infos.get(name) or ToolInfo(name=name, description=f"replay of `{name}`", parameters={}),
            calls.get(name, ()),
            source,
        )
        for name in names
    ]
