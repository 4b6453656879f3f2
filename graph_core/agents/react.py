r"""Eino's flow ReAct agent (`flow/agent/react`): a chat model and a ToolsNode in a Pregel loop.

```
start -> chat --(tool calls?)--> tools --(return directly?)--> direct_return -> end
          ^   \--(answer)--> end   |
          +------------------------+ (tool results, next round)
```

Node keys are exactly `chat`, `tools` and `direct_return`; the per-run state is `ReActState`
(`messages`, `return_directly_tool_call_id`). The model's pre-handler appends its input to the state
(`message_rewriter` then rewrites the state, `message_modifier` a copy of it) and hands the model a
read-only `HistoryView` of it (a Go slice header: fixed length, O(1)); the tools' pre-handler
appends the assistant message and picks the return-directly call (the first call whose tool is in
`tool_return_directly`; `set_return_directly()` inside a tool overrides it, the last call wins). The
final answer is the graph output and is not appended to the state. `max_step=0` means Eino's default of
13 supersteps: k tool rounds plus the answer take 2k+1.

Which stream checker decides "tool calls or answer" matters in stream mode. The default,
`whole_stream_tool_call_checker`, is Eino's since cloudwego/eino PR #1141: it reads the stream until a
chunk has tool calls (True) or the stream ends (False), so a model that streams text before its tool
calls (Claude does this) still gets its tools run. `first_chunk_tool_call_checker` is Eino's default
before that fix, kept by name: it decides on the first chunk with text or tool calls, so such a model's
run ends with the tool calls never executed (`fixtures.streaming_pitfall` shows both).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Unpack

from pydantic import BaseModel, ConfigDict, Field

from graph_core.branch import Branch
from graph_core.context import current_scope
from graph_core.errors import GraphBuildError
from graph_core.graph import Graph
from graph_core.history import HistoryView
from graph_core.lambda_ import Lambda
from graph_core.schema import Message
from graph_core.state import find_state_frame, process_state
from graph_core.tools import ToolMiddleware, ToolsNode, get_tool_call_id
from graph_core.topology import END, START

if TYPE_CHECKING:
    from graph_core.runner.compiled import CompiledGraph
    from graph_core.runner.options import RunOptions

__all__ = [
    "ReActAgent",
    "ReActState",
    "StreamToolCallChecker",
    "first_chunk_tool_call_checker",
    "set_return_directly",
    "whole_stream_tool_call_checker",
]

CHAT = "chat"
TOOLS = "tools"
DIRECT_RETURN = "direct_return"

StreamToolCallChecker = Callable[[Iterator[Message]], bool]
MessageHook = Callable[[list[Message]], list[Message]]


class ReActState(BaseModel):
    """The per-run state (Eino's `state`): history the next model call sees, and the direct-return call."""

    model_config = ConfigDict(arbitrary_types_allowed=False)

    messages: list[Message] = Field(default_factory=lambda: [])
    return_directly_tool_call_id: str = ""


_TUPLE_ITERATOR = type(iter(()))  # what an invoke-mode run hands a stream condition: nothing to close


def _close(chunks: Any) -> None:
    close = getattr(chunks, "close", None)
    if callable(close):
        close()


def first_chunk_tool_call_checker(chunks: Iterator[Message]) -> bool:
    """Eino's default before PR #1141: True at the first chunk with tool calls, False at the first chunk
    with text.

    Chunks with neither are skipped. A model that streams text before its tool calls is therefore taken
    as answering (the run ends, its tool calls unexecuted); the default `whole_stream_tool_call_checker`
    does not have that pitfall.
    """
    try:
        for chunk in chunks:
            if chunk.tool_calls:
                return True
            if chunk.content:
                return False
        return False
    finally:
        _close(chunks)


def whole_stream_tool_call_checker(chunks: Iterator[Message]) -> bool:
    """The default (Eino's `defaultStreamToolCallChecker`, PR #1141): True at the first chunk with tool
    calls, False when the stream ends without one; text before the calls is read past."""
    try:
        for chunk in chunks:  # noqa: SIM110 (no generator: this runs on every round)
            if chunk.tool_calls:
                return True  # stops at the first chunk with calls
        return False
    finally:
        if type(chunks) is not _TUPLE_ITERATOR:
            _close(chunks)


def set_return_directly() -> None:
    """Inside a tool: make this call's result the agent's answer (overrides `tool_return_directly`).

    Several calls in one round may call it; the last one wins, as in Eino.
    """
    call_id = get_tool_call_id()
    if not call_id:
        raise RuntimeError("set_return_directly() must be called from inside a tool call")

    def mark(state: ReActState) -> None:
        state.return_directly_tool_call_id = call_id

    process_state(ReActState, mark)


def _as_messages(messages: Sequence[Message] | str) -> list[Message]:
    if isinstance(messages, str):
        return [Message.user(messages)]
    return list(messages)


class ReActAgent:
    """Eino's flow ReAct agent; see the module docstring. `.graph` embeds it, `.compiled` runs it."""

    def __init__(
        self,
        model: Any,
        *,
        tools: Sequence[Any] = (),
        max_step: int = 0,
        tool_return_directly: Iterable[str] = (),
        message_modifier: MessageHook | None = None,
        message_rewriter: MessageHook | None = None,
        stream_tool_call_checker: StreamToolCallChecker | None = None,
        graph_name: str = "ReActAgent",
        model_node_name: str = "ChatModel",
        tools_node_name: str = "Tools",
        execute_sequentially: bool = False,
        unknown_tools_handler: Callable[[str, str], Any] | None = None,
        tool_arguments_handler: Callable[[str, str], Any] | None = None,
        tool_middlewares: Sequence[ToolMiddleware] = (),
    ) -> None:
        if model is None:
            raise GraphBuildError("no chat model provided")
        self.tool_return_directly = frozenset(tool_return_directly)
        self.tools_node = ToolsNode(
            tools,
            execute_sequentially=execute_sequentially,
            unknown_tools_handler=unknown_tools_handler,
            tool_arguments_handler=tool_arguments_handler,
            middlewares=tool_middlewares,
            return_directly=self.tool_return_directly,
        )
        infos = self.tools_node.tool_infos
        self.model = model.with_tools(infos) if infos else model
        self.max_step = max_step
        self.message_modifier = message_modifier
        self.message_rewriter = message_rewriter
        self.stream_tool_call_checker = stream_tool_call_checker or whole_stream_tool_call_checker
        self.graph_name = graph_name or "ReActAgent"
        self.graph = self._build(model_node_name or "ChatModel", tools_node_name or "Tools")
        self.compile_options: dict[str, Any] = {"name": self.graph_name, "max_run_steps": max_step or None}
        self.compiled: CompiledGraph = self.graph.compile(**self.compile_options)

    # -- the graph --------------------------------------------------------------------------------------

    def _model_pre(self, input: list[Message], state: ReActState) -> Sequence[Message]:
        """The model's input: the history so far, fixed at this call.

        Without a `message_modifier` that is a `HistoryView` of the state's list (Eino hands over the
        slice header `state.Messages`): O(1), where a copy costs O(history) per round; the state list
        grows after this call, and the view keeps showing the history as it was, for callbacks and
        models that keep their input. A `message_rewriter` gets a copy (it may edit its list in place,
        and earlier views share the state's list); `message_modifier` takes a copy and the model gets a
        copy of its result, as before (the contract: the hooks take and return lists).
        """
        messages = state.messages
        messages.extend(input)
        if self.message_rewriter is not None:
            messages = state.messages = list(self.message_rewriter(list(messages)))
        if self.message_modifier is not None:
            return list(self.message_modifier(list(messages)))
        return HistoryView(messages)

    def _tools_pre(self, input: Message | None, state: ReActState) -> Message:
        if input is None:  # rerun after an interrupt: the assistant message is already in state
            return state.messages[-1]
        state.messages.append(input)
        if state.return_directly_tool_call_id:  # pydantic's __setattr__ costs: only when not cleared yet
            state.return_directly_tool_call_id = ""
        if self.tool_return_directly:
            for call in input.tool_calls:
                if call.name in self.tool_return_directly:
                    state.return_directly_tool_call_id = call.id
                    break
        return input

    def _after_chat(self, chunks: Iterator[Message]) -> str:
        return TOOLS if self.stream_tool_call_checker(chunks) else END

    @staticmethod
    def _after_tools(chunks: Any) -> str:
        if type(chunks) is not _TUPLE_ITERATOR:  # invoke mode hands a 1-chunk tuple iterator
            _close(chunks)
        # `process_state` without its lock: one attribute read, after every tool of the round has ended.
        # The innermost state is the agent's own (the look-up through the chain only when it is not)
        scope = current_scope()
        frame = scope.state if scope is not None else None
        state = frame.value if frame is not None else None
        if type(state) is not ReActState:
            state = find_state_frame(ReActState, frame).value
        return DIRECT_RETURN if state.return_directly_tool_call_id else CHAT

    @staticmethod
    def _direct_return_invoke(results: list[Message]) -> Message:
        call_id = process_state(ReActState, lambda s: s.return_directly_tool_call_id)
        for message in results:
            if message is not None and message.tool_call_id == call_id:
                return message
        raise LookupError(f"return directly tool call result not found: {call_id}")

    @staticmethod
    def _direct_return_transform(rows: Iterator[list[Message | None]]) -> Iterator[Message]:
        call_id = process_state(ReActState, lambda s: s.return_directly_tool_call_id)
        for row in rows:
            for message in row:
                if message is not None and message.tool_call_id == call_id:
                    yield message

    def _build(self, model_node_name: str, tools_node_name: str) -> Graph:
        graph = Graph(state=ReActState)
        graph.add_chat_model_node(CHAT, self.model, name=model_node_name, pre=self._model_pre)
        graph.add_tools_node(TOOLS, self.tools_node, name=tools_node_name, pre=self._tools_pre)
        direct = Lambda(invoke=self._direct_return_invoke, transform=self._direct_return_transform)
        graph.add_lambda_node(DIRECT_RETURN, direct)
        graph.add_edge(START, CHAT)
        graph.add_edge(DIRECT_RETURN, END)
        graph.add_branch(
            CHAT,
            Branch.stream(self._after_chat, [TOOLS, END], labels={TOOLS: "tool calls", END: "final answer"}),
        )
        graph.add_branch(
            TOOLS,
            Branch.stream(
                self._after_tools,
                [CHAT, DIRECT_RETURN],
                labels={CHAT: "next round", DIRECT_RETURN: "return directly"},
            ),
        )
        return graph

    # -- running ----------------------------------------------------------------------------------------

    def invoke(self, messages: Sequence[Message] | str, **options: Unpack[RunOptions]) -> Message:
        """Run to the final answer (Eino `Generate`); `options` go to `CompiledGraph.invoke`."""
        return self.compiled.invoke(_as_messages(messages), **options)

    def stream(self, messages: Sequence[Message] | str, **options: Unpack[RunOptions]) -> Iterator[Message]:
        """Run in stream mode; yields the answer's chunks (Eino `Stream`)."""
        return self.compiled.stream(_as_messages(messages), **options)

    async def ainvoke(self, messages: Sequence[Message] | str, **options: Unpack[RunOptions]) -> Message:
        return await self.compiled.ainvoke(_as_messages(messages), **options)

    def astream(
        self, messages: Sequence[Message] | str, **options: Unpack[RunOptions]
    ) -> AsyncIterator[Message]:
        return self.compiled.astream(_as_messages(messages), **options)

    def topology(self) -> Any:
        return self.compiled.topology()

    def __repr__(self) -> str:
        return f"ReActAgent({self.graph_name!r}, tools={[i.name for i in self.tools_node.tool_infos]})"
