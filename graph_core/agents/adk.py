"""Eino's ADK `ChatModelAgent` (`adk/chatmodel.go`, `adk/react.go`): a ReAct graph that emits events.

```
start -> Init -> ChatModel --(any tool calls?)--> CancelCheck -> ToolNode -> AfterToolCalls
                   ^   |                                                         |
                   |   +--(answer)--> end                          AfterToolCallsCancelCheck
                   +--------------(no return-directly call)-----------------+    |
                                     ToolNodeToEndConverter -> end <--(return directly)
```

Differences from the flow agent, all Eino's: the model node ignores its input and calls the model with
the state's messages, appending every output (the final answer included) to the state; the ChatModel
pre-handler spends one of `max_iterations` (default 20; `RemainingIterations` lives in the state, so
recordings show it) and fails with `ExceedMaxIterationsError` when none is left; the graph itself has
no step limit; the stream branch on ChatModel scans the whole stream; the return-directly call is the
**last** matching call; tool results are appended to the state by `AfterToolCalls`.

Without tools the agent is Eino's chain `genInput -> model` (keys `node_0`, `node_1`): one model call,
no state, no iteration check. `ChatModelAgent`'s docstring lists the differences from Eino that remain.

`run(messages)` yields `AgentEvent`s as the run goes: one per model output and one per tool result, the
return-directly tool's event held back until its round finishes so it is always last, and a final event
with `.error` if the run fails. `exit=True` adds an `exit` tool that ends the run with its
`final_result` and an `Exit` action. `CancelCheck` and `AfterToolCallsCancelCheck` are Eino's cancel
safe points: `cancel()` on a running agent stops it there (see `graph_core.agents.cancel`), with a
checkpoint that `resume()` continues. An interrupt from a tool ends `run` with an event whose action
carries the interrupt info and whose `checkpoint_id` names the saved checkpoint.
"""

from __future__ import annotations

import queue
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextvars import copy_context
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Unpack

from graph_core.agents.addresses import agent_contexts, to_engine
from graph_core.agents.adk_run import (
    DEFAULT_MAX_ITERATIONS,
    SINK,
    AdkState,
    AgentAction,
    AgentEvent,
    AgentToolsNode,
    ChatModelAgentResumeData,
    EventModel,
    RunSink,
    StateModel,
    event_middleware,
    exit_tool,
    send_tool_gen_action,
)
from graph_core.agents.cancel import (
    CancelError,
    CancelHandle,
    Canceller,
    CancelMode,
    CancelOutcome,
    CancelRequest,
)
from graph_core.branch import Branch
from graph_core.checkpoint.codec import decode_checkpoint
from graph_core.checkpoint.store import InMemoryCheckpointStore
from graph_core.errors import ExceedMaxIterationsError, GraphBuildError, InterruptError
from graph_core.graph import Graph
from graph_core.interrupt import get_interrupt_state, interrupt, root_address, was_interrupted
from graph_core.schema import Message
from graph_core.state import process_state
from graph_core.tools import Tool, ToolMiddleware
from graph_core.topology import END, START

if TYPE_CHECKING:
    from graph_core.runner.compiled import CompiledGraph
    from graph_core.runner.options import RunOptions

__all__ = [
    "AdkState",
    "AgentAction",
    "AgentEvent",
    "ChatModelAgent",
    "ChatModelAgentResumeData",
    "ExceedMaxIterationsError",
    "exit_tool",
    "send_tool_gen_action",
]

INIT = "Init"
CHAT_MODEL = "ChatModel"
CANCEL_CHECK = "CancelCheck"
TOOL_NODE = "ToolNode"
AFTER_TOOL_CALLS = "AfterToolCalls"
AFTER_TOOL_CALLS_CANCEL_CHECK = "AfterToolCallsCancelCheck"
TO_END_CONVERTER = "ToolNodeToEndConverter"
# Without tools Eino runs a Chain `genInput -> model`, whose nodes get the chain's generated keys.
GEN_INPUT = "node_0"
CHAIN_MODEL = "node_1"
GEN_INPUT_NAME = "GenModelInput"


def _as_messages(messages: Sequence[Message] | str | None) -> list[Message]:
    if messages is None:
        return []
    if isinstance(messages, str):
        return [Message.user(messages)]
    return list(messages)


class ChatModelAgent:
    """Eino's ADK ChatModelAgent (see the module docstring); `.compiled` is its graph.

    With tools (or `exit=True`) the graph is the ReAct graph with node keys `Init`, `ChatModel`,
    `CancelCheck`, `ToolNode`, `AfterToolCalls`, `AfterToolCallsCancelCheck` (+ `ToolNodeToEndConverter`).
    Without tools it is Eino's chain `genInput -> model`: keys `node_0` (display name `GenModelInput`)
    and `node_1` (`ChatModel`), one model call, no state and no iteration check.

    Differences from Eino that remain:

    - Flat graph: Eino wraps the ReAct graph in an outer chain (`node_0` computes the model input,
      `node_1` is the ReAct graph as a nested node named `ReAct`); here the ReAct graph is compiled at
      the top level and `Init` applies the instruction. Node paths and step indexes therefore lack the
      outer level (Eino: 2 outer steps around the inner graph's own counter). The interrupt contexts
      of events use Eino's agent addresses (`graph_core.agents.addresses`); the graph's callbacks and
      checkpoints keep the engine's (`runnable:<agent name>;node:ToolNode;tool:<name>:<id>`).
    - The instruction is used as is (no f-string formatting with session values: there are no sessions).
    - Not implemented: `GenModelInput` override, `OutputKey`, `Middlewares`/`Handlers` (so no
      `AfterAgent` node), BeforeChatModel/AfterChatModel state hooks, `ModelRetryConfig`,
      `ModelFailoverConfig`, `EmitInternalEvents`, per-run tool lists and return-directly overrides;
      `AgentAction.transfer_to_agent`/`break_loop` are carried but not acted upon.
    - Events carry whole messages: in streaming mode a model output's event is its concatenation, not
      a stream (the chain's model node still streams its chunks through `stream()`).
    - The state (`AdkState`) keeps only its JSON-friendly fields; tool actions and the held
      return-directly event live beside the run, not in the state.
    - Checkpoints are graph_core's versioned JSON saved directly under the run's checkpoint ID, not
      gob bytes in a bridge store wrapped by a Runner checkpoint.
    - An immediate cancel abandons the running nodes (as Eino's graph interrupt with timeout 0), but a
      Python thread cannot be preempted: an abandoned tool or model call finishes in the background,
      unobserved (its events are dropped), where Eino cancels its context.
    """

    def __init__(
        self,
        *,
        name: str,
        model: Any,
        tools: Sequence[Any] = (),
        instruction: str = "",
        description: str = "",
        max_iterations: int = DEFAULT_MAX_ITERATIONS,
        return_directly: Iterable[str] = (),
        exit: bool | Tool = False,
        execute_sequentially: bool = False,
        unknown_tools_handler: Callable[[str, str], Any] | None = None,
        tool_arguments_handler: Callable[[str, str], Any] | None = None,
        tool_middlewares: Sequence[ToolMiddleware] = (),
        checkpoint_store: Any = None,
    ) -> None:
        if model is None:
            raise GraphBuildError("agent 'Model' is required")
        self.name = name
        self.description = description
        self.instruction = instruction
        self.max_iterations = max_iterations if max_iterations > 0 else DEFAULT_MAX_ITERATIONS
        all_tools = list(tools)
        direct = set(return_directly)
        if exit:
            exit_obj = exit_tool if exit is True else exit
            all_tools.append(exit_obj)
            direct.add(exit_obj.info.name)
        self.return_directly = frozenset(direct)
        self.tools_node = AgentToolsNode(
            all_tools,
            execute_sequentially=execute_sequentially,
            unknown_tools_handler=unknown_tools_handler,
            tool_arguments_handler=tool_arguments_handler,
            middlewares=[event_middleware(name), *tool_middlewares],
            return_directly=self.return_directly,
        )
        infos = self.tools_node.tool_infos
        self.model = model.with_tools(infos) if infos else model
        self.has_tools = bool(all_tools)
        # Interrupted and cancelled runs checkpoint to `checkpoint_store` (in memory by default).
        self.checkpoint_store = (
            checkpoint_store if checkpoint_store is not None else InMemoryCheckpointStore()
        )
        if self.has_tools:
            self.graph = self._build()
            # Eino runs the graph with WithMaxRunSteps(math.MaxInt): max_iterations is the only limit.
            self.compiled: CompiledGraph = self.graph.compile(
                name=name, max_run_steps=2**31 - 1, checkpoint_store=self.checkpoint_store
            )
        else:
            self.graph = self._build_chain()
            self.compiled = self.graph.compile(name=name, checkpoint_store=self.checkpoint_store)
        self._active: list[RunSink] = []
        self._active_lock = threading.Lock()

    # -- the graph --------------------------------------------------------------------------------------

    def _new_state(self) -> AdkState:
        return AdkState(
            agent_name=self.name,
            remaining_iterations=self.max_iterations,
            has_return_directly=bool(self.return_directly),
        )

    def _init(self, messages: list[Message]) -> list[Message]:
        full = self._gen_input(messages)
        process_state(AdkState, lambda s: s.messages.extend(full))
        return full

    def _model_pre(self, input: Any, state: AdkState) -> Any:
        if state.remaining_iterations <= 0:
            raise ExceedMaxIterationsError(self.max_iterations)
        state.remaining_iterations -= 1
        return input

    @staticmethod
    def _after_model(chunks: Iterator[Message]) -> str:
        return CANCEL_CHECK if any(chunk.tool_calls for chunk in chunks) else END

    @staticmethod
    def _pass(value: Any) -> Any:
        return value

    @staticmethod
    def _cancel_check(message: Any) -> Any:
        """The after-chat-model safe point; on the rerun after a cancel, the saved message goes on."""
        if was_interrupted():
            saved = get_interrupt_state()
            return saved if saved is not None else message
        sink = SINK.get()
        if sink is not None and sink.cancel is not None and sink.cancel.wants(CancelMode.AFTER_CHAT_MODEL):
            sink.cancel.safe_point = CANCEL_CHECK
            interrupt("CancelAfterChatModel", state=message)
        return message

    @staticmethod
    def _after_tools_cancel_check(results: Any) -> Any:
        """The after-tool-calls safe point; the rerun gets its original input back and passes it on."""
        if was_interrupted():
            return results
        sink = SINK.get()
        if sink is not None and sink.cancel is not None and sink.cancel.wants(CancelMode.AFTER_TOOL_CALLS):
            sink.cancel.safe_point = AFTER_TOOL_CALLS_CANCEL_CHECK
            interrupt("CancelAfterToolCalls")
        return results

    def _tools_pre(self, _input: Any, state: AdkState) -> Message:
        last = state.messages[-1]
        state.return_directly_tool_call_id = ""
        for call in last.tool_calls:
            if call.name in self.return_directly:
                state.return_directly_tool_call_id = call.id  # no break: the last match wins
        return last

    def _release_held(self, output: Any, state: AdkState) -> Any:
        """Send the held return-directly event once the round is over. After a resume the call may have
        completed before the interrupt (its result reused, not run again): its event, held by the
        interrupted run and never sent, is rebuilt from the result (Eino sends it after the resume)."""
        sink = SINK.get()
        if sink is not None:
            with sink.lock:
                held, sink.held = sink.held, None
            direct = state.return_directly_tool_call_id
            if held is None and direct:
                message = next((m for m in output if m.tool_call_id == direct), None)
                if message is not None:
                    held = AgentEvent(self.name, message=message)
            if held is not None:
                sink.emit(held)
        return output

    @staticmethod
    def _after_tool_calls(results: list[Message]) -> list[Message]:
        process_state(AdkState, lambda s: s.messages.extend(results))
        return results

    @staticmethod
    def _after_tools_branch(_results: Any) -> str:
        direct = process_state(AdkState, lambda s: s.return_directly_tool_call_id)
        return TO_END_CONVERTER if direct else CHAT_MODEL

    @staticmethod
    def _to_end(results: list[Message]) -> Message:
        direct = process_state(AdkState, lambda s: s.return_directly_tool_call_id)
        for message in results:
            if message.tool_call_id == direct:
                return message
        raise LookupError("return directly tool call result not found")

    def _gen_input(self, messages: list[Message]) -> list[Message]:
        """Eino's default `GenModelInput`: the instruction as a system message, then the input."""
        return [Message.system(self.instruction), *messages] if self.instruction else list(messages)

    def _build_chain(self) -> Graph:
        """No tools: Eino's chain `genInput -> model`, one model call, no state, no iteration check."""
        graph = Graph()
        graph.add_lambda_node(GEN_INPUT, self._gen_input, name=GEN_INPUT_NAME)
        graph.add_chat_model_node(CHAIN_MODEL, EventModel(self.model, self.name), name=CHAT_MODEL)
        graph.add_edge(START, GEN_INPUT)
        graph.add_edge(GEN_INPUT, CHAIN_MODEL)
        graph.add_edge(CHAIN_MODEL, END)
        return graph

    def _build(self) -> Graph:
        graph = Graph(state=self._new_state)
        graph.add_lambda_node(INIT, self._init, name=INIT)
        graph.add_chat_model_node(
            CHAT_MODEL, StateModel(self.model, self.name), name=CHAT_MODEL, pre=self._model_pre
        )
        graph.add_lambda_node(CANCEL_CHECK, self._cancel_check, name=CANCEL_CHECK)
        graph.add_tools_node(
            TOOL_NODE, self.tools_node, name=TOOL_NODE, pre=self._tools_pre, post=self._release_held
        )
        graph.add_lambda_node(AFTER_TOOL_CALLS, self._after_tool_calls, name=AFTER_TOOL_CALLS)
        graph.add_lambda_node(
            AFTER_TOOL_CALLS_CANCEL_CHECK, self._after_tools_cancel_check, name=AFTER_TOOL_CALLS_CANCEL_CHECK
        )
        graph.add_edge(START, INIT)
        graph.add_edge(INIT, CHAT_MODEL)
        graph.add_branch(
            CHAT_MODEL,
            Branch.stream(
                self._after_model,
                [CANCEL_CHECK, END],
                labels={CANCEL_CHECK: "tool calls", END: "final answer"},
            ),
        )
        graph.add_edge(CANCEL_CHECK, TOOL_NODE)
        graph.add_edge(TOOL_NODE, AFTER_TOOL_CALLS)
        graph.add_edge(AFTER_TOOL_CALLS, AFTER_TOOL_CALLS_CANCEL_CHECK)
        if self.return_directly:
            graph.add_lambda_node(TO_END_CONVERTER, self._to_end, name=TO_END_CONVERTER)
            graph.add_branch(
                AFTER_TOOL_CALLS_CANCEL_CHECK,
                Branch(
                    self._after_tools_branch,
                    [CHAT_MODEL, TO_END_CONVERTER],
                    labels={CHAT_MODEL: "next round", TO_END_CONVERTER: "return directly"},
                ),
            )
            graph.add_edge(TO_END_CONVERTER, END)
        else:
            graph.add_edge(AFTER_TOOL_CALLS_CANCEL_CHECK, CHAT_MODEL)
        return graph

    # -- running ----------------------------------------------------------------------------------------

    def run(
        self,
        messages: Sequence[Message] | str | None,
        *,
        streaming: bool = False,
        checkpoint_id: str | None = None,
        canceller: Canceller | None = None,
        **options: Any,
    ) -> Iterator[AgentEvent]:
        """Run the agent, yielding events as they happen; a failure is the last event's `.error`.

        The graph runs on a worker thread so events reach the caller while it runs. `options` go to
        `CompiledGraph.invoke` (or `.stream` with `streaming=True`), for example `callbacks=[...]`.
        An interrupted or cancelled run saves a checkpoint under `checkpoint_id` (a fresh ID if none
        is given), reported on the last event; `resume(checkpoint_id)` continues it. `canceller`
        (Eino `WithCancel()`) cancels this run, even before it started (see `graph_core.agents.cancel`).
        """
        inbox: queue.SimpleQueue[AgentEvent | None] = queue.SimpleQueue()
        sink = RunSink(emit=inbox.put, canceller=canceller if canceller is not None else Canceller())
        payload = _as_messages(messages)
        cid = checkpoint_id or uuid.uuid4().hex
        with self._active_lock:
            self._active.append(sink)

        def work() -> None:
            SINK.set(sink)
            try:
                if sink.cancel is not None:  # cancelled before it started: no node runs (Eino)
                    inbox.put(self._cancelled_at_start(sink.cancel))
                    return
                kwargs = {"checkpoint_id": cid, "interrupt_event": sink.interrupt_event, **options}
                if streaming:
                    for _ in self.compiled.stream(payload, **kwargs):
                        pass
                else:
                    self.compiled.invoke(payload, **kwargs)
            except InterruptError as exc:
                inbox.put(self._interrupted(sink, exc))
            except Exception as exc:
                inbox.put(AgentEvent(self.name, error=_unwrap(exc)))
            finally:
                with self._active_lock:
                    self._active.remove(sink)
                sink.canceller.end()
                inbox.put(None)

        ctx = copy_context()
        worker = threading.Thread(target=ctx.run, args=(work,), name=f"agent-{self.name}", daemon=True)
        worker.start()
        while (event := inbox.get()) is not None:
            yield event
        worker.join()

    def _cancelled_at_start(self, request: CancelRequest) -> AgentEvent:
        request.settle(CancelOutcome.SUCCESS)
        error = CancelError(
            request.mode, escalated=False, timeout=request.timeout, checkpoint_id=None, safe_point=None
        )
        return AgentEvent(self.name, error=error)

    def _interrupted(self, sink: RunSink, exc: InterruptError) -> AgentEvent:
        """While a cancel is active every interrupt is reported as the cancel (Eino)."""
        request = sink.cancel
        contexts = agent_contexts(getattr(exc.info, "interrupt_contexts", []), self.name)
        if request is None:
            action = AgentAction(interrupted=replace(exc.info, interrupt_contexts=contexts))
            return AgentEvent(self.name, action=action, checkpoint_id=exc.checkpoint_id)
        request.settle(CancelOutcome.TIMEOUT if request.escalated else CancelOutcome.SUCCESS)
        error = CancelError(
            request.mode,
            escalated=request.escalated,
            timeout=request.timeout,
            checkpoint_id=exc.checkpoint_id,
            safe_point=None if request.escalated else request.safe_point,
            interrupt_contexts=contexts,
        )
        error.__cause__ = exc
        return AgentEvent(self.name, error=error, checkpoint_id=exc.checkpoint_id)

    def cancel(
        self, mode: CancelMode = CancelMode.IMMEDIATE, *, timeout: float | None = None
    ) -> CancelHandle:
        """Cancel the agent's running run (the latest, if several) at `mode`'s safe point.

        `timeout` (seconds) escalates a safe-point cancel to immediate when the safe point is not
        reached in time. Without a running run the handle reports `EXECUTION_ENDED`.
        """
        with self._active_lock:
            sink = self._active[-1] if self._active else None
        if sink is None:
            return CancelHandle(None)
        return sink.canceller.cancel(mode, timeout=timeout)

    def resume(
        self,
        checkpoint_id: str,
        *,
        resume_data: Any = None,
        state_modifier: Callable[[AdkState], Any] | None = None,
        streaming: bool = False,
        **options: Any,
    ) -> Iterator[AgentEvent]:
        """Continue an interrupted or cancelled run from its checkpoint; events as in `run`.

        `resume_data` keyed by the interrupt contexts' IDs (agent addresses) targets those points; a
        `ChatModelAgentResumeData` aimed at the agent (`agent:<name>`) rewrites the saved history.
        """
        resume_data, state_modifier = self._resume_targets(checkpoint_id, resume_data, state_modifier)
        return self.run(
            None,
            streaming=streaming,
            checkpoint_id=checkpoint_id,
            resume_data=resume_data,
            state_modifier=state_modifier,
            **options,
        )

    def _resume_targets(
        self, checkpoint_id: str, resume_data: Any, state_modifier: Callable[[AdkState], Any] | None
    ) -> tuple[Any, Callable[[AdkState], Any] | None]:
        """Agent-address resume data as the engine's; the agent's own data becomes a state modifier."""
        if not isinstance(resume_data, Mapping):
            return resume_data, state_modifier
        data: dict[Any, Any] = dict(resume_data)  # pyright: ignore[reportUnknownArgumentType]
        own = data.get(f"agent:{self.name}")
        if isinstance(own, ChatModelAgentResumeData):
            del data[f"agent:{self.name}"]
            state_modifier = _with_history(own, state_modifier)
        raw = self.checkpoint_store.get(checkpoint_id)
        addresses = decode_checkpoint(raw).addresses(root_address(self.name)) if raw is not None else []
        return (to_engine(data, addresses, self.name) if data else None), state_modifier

    def invoke(self, messages: Sequence[Message] | str, **options: Unpack[RunOptions]) -> Message:
        """Run to the final message (the answer, or the return-directly tool's result) without events."""
        return self.compiled.invoke(_as_messages(messages), **options)

    def stream(self, messages: Sequence[Message] | str, **options: Unpack[RunOptions]) -> Iterator[Message]:
        return self.compiled.stream(_as_messages(messages), **options)

    async def ainvoke(self, messages: Sequence[Message] | str, **options: Unpack[RunOptions]) -> Message:
        return await self.compiled.ainvoke(_as_messages(messages), **options)

    def topology(self) -> Any:
        return self.compiled.topology()

    def __repr__(self) -> str:
        return f"ChatModelAgent({self.name!r}, tools={[i.name for i in self.tools_node.tool_infos]})"


def _with_history(
    data: ChatModelAgentResumeData, then: Callable[[AdkState], Any] | None
) -> Callable[[AdkState], Any] | None:
    modifier = data.history_modifier
    if modifier is None:
        return then

    def modify(state: AdkState) -> Any:
        state.messages = list(modifier(list(state.messages)))
        return then(state) if then is not None else None

    return modify


def _unwrap(exc: BaseException) -> BaseException:
    """Surface ExceedMaxIterationsError itself when the engine wrapped it in a NodeRunError."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ExceedMaxIterationsError):
            return seen
        seen = seen.__cause__
    return exc
