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
from graph_core.agents.adk_callbacks import AgentCallbackInput, EventTee, get_agent_type, handlers_for
from graph_core.agents.adk_graph import (
    AgentGraph,
    AgentSettings,
    GenModelInput,
    default_gen_model_input,
    prepare_exec_context,
)
from graph_core.agents.adk_handlers import (
    AgentMiddleware,
    ChatModelAgentContext,
    ChatModelAgentMiddleware,
    ChatModelAgentState,
    EventSenderModelWrapper,
    EventSenderToolWrapper,
    Hooks,
    ModelContext,
    ToolContext,
    delete_run_local_value,
    get_run_local_value,
    set_run_local_value,
)
from graph_core.agents.adk_retry import (
    FailoverContext,
    ModelFailoverConfig,
    ModelRetryConfig,
    RetryContext,
    RetryDecision,
)
from graph_core.agents.adk_run import (
    DEFAULT_MAX_ITERATIONS,
    SINK,
    AdkState,
    AgentAction,
    AgentEvent,
    AgentToolsNode,
    ChatModelAgentResumeData,
    RunSink,
    add_session_value,
    exit_tool,
    get_session_values,
    send_tool_gen_action,
    unwrap_error,
    with_history,
)
from graph_core.agents.adk_runctx import current_run_ctx
from graph_core.agents.adk_stream import MessageStream
from graph_core.agents.cancel import (
    CancelError,
    CancelHandle,
    Canceller,
    CancelMode,
    CancelOutcome,
    CancelRequest,
)
from graph_core.agents.react_options import with_chat_model_options, with_tool_options
from graph_core.checkpoint.codec import decode_checkpoint
from graph_core.checkpoint.store import InMemoryCheckpointStore
from graph_core.context import detached_runs
from graph_core.errors import (
    ExceedMaxIterationsError,
    GraphBuildError,
    GraphRunError,
    InterruptError,
    RetryExhaustedError,
    WillRetryError,
)
from graph_core.graph import Graph
from graph_core.interrupt import root_address
from graph_core.schema import Message, concat_messages
from graph_core.tools import Tool, ToolMiddleware
from graph_core.tools.alias import ToolAliasConfig
from graph_core.tools.context import tool_call_scope

if TYPE_CHECKING:
    from graph_core.runner.compiled import CompiledGraph
    from graph_core.runner.options import RunOptions

__all__ = [
    "AdkState",
    "AgentAction",
    "AgentEvent",
    "AgentMiddleware",
    "ChatModelAgent",
    "ChatModelAgentContext",
    "ChatModelAgentMiddleware",
    "ChatModelAgentResumeData",
    "ChatModelAgentState",
    "EventSenderModelWrapper",
    "EventSenderToolWrapper",
    "ExceedMaxIterationsError",
    "FailoverContext",
    "MessageStream",
    "ModelContext",
    "ModelFailoverConfig",
    "ModelRetryConfig",
    "RetryContext",
    "RetryDecision",
    "RetryExhaustedError",
    "ToolContext",
    "WillRetryError",
    "add_session_value",
    "delete_run_local_value",
    "exit_tool",
    "get_run_local_value",
    "get_session_values",
    "send_tool_gen_action",
    "set_run_local_value",
    "with_chat_model_options",
    "with_tool_options",
]


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
    - Handlers (enhanced tool wrappers included), middlewares, retry, failover, `gen_model_input`,
      `output_key`, agent callbacks, the Runner and agent tools, run-local values, per-call model and
      tool options (`run(..., options=[with_chat_model_options(...), with_tool_options(...)])`) and the
      after-tool-calls hook are Eino's (see `adk_handlers`, `adk_retry`, `adk_runner`). Custom agents
      interrupt at ADK level through `adk_interrupt`. Transfer (`set_sub_agents`) and workflow agents
      are `adk_flow` and `adk_workflow`: the agent acts on `exit` itself; `transfer_to_agent` and
      `break_loop` are acted upon by the flow or workflow agent around it.
    - In streaming mode a model output's event carries its stream (`message_stream`, see `adk_stream`),
      as in Eino; so does a streamed tool result's event (`adk_tool_events`), sent with its first chunk.
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
        gen_model_input: GenModelInput | None = None,
        output_key: str = "",
        handlers: Sequence[ChatModelAgentMiddleware] = (),
        middlewares: Sequence[AgentMiddleware] = (),
        model_retry_config: ModelRetryConfig | None = None,
        model_failover_config: ModelFailoverConfig | None = None,
        emit_internal_events: bool = False,
        tool_aliases: Mapping[str, ToolAliasConfig] | None = None,
    ) -> None:
        if model_failover_config is not None:
            if getattr(model_failover_config, "get_failover_model", None) is None:
                raise GraphBuildError(
                    "ModelFailoverConfig.GetFailoverModel is required when ModelFailoverConfig is set"
                )
            if getattr(model_failover_config, "should_failover", None) is None:
                raise GraphBuildError(
                    "ModelFailoverConfig.ShouldFailover is required when ModelFailoverConfig is set"
                )
        if model is None:
            raise GraphBuildError("agent 'Model' is required")
        self.name = name
        self.description = description
        self.max_iterations = max_iterations if max_iterations > 0 else DEFAULT_MAX_ITERATIONS
        self.output_key = output_key
        self.emit_internal_events = emit_internal_events
        self.hooks = Hooks(list(handlers), list(middlewares))
        self._base = (instruction, list(tools), frozenset(return_directly))
        self._exit: Any = (exit_tool if exit is True else exit) or None
        # Multi-agent transfer (Eino OnSubAgents): see `graph_core.agents.adk_flow`.
        self.sub_agents: list[Any] = []
        self.parent_agent: Any = None
        self.disallow_transfer_to_parent = False
        # Interrupted and cancelled runs checkpoint to `checkpoint_store` (in memory by default).
        self.checkpoint_store = (
            checkpoint_store if checkpoint_store is not None else InMemoryCheckpointStore()
        )
        self.settings = AgentSettings(
            name=name,
            model=model,
            max_iterations=self.max_iterations,
            execute_sequentially=execute_sequentially,
            unknown_tools_handler=unknown_tools_handler,
            tool_arguments_handler=tool_arguments_handler,
            tool_middlewares=tuple(tool_middlewares),
            gen_model_input=gen_model_input or default_gen_model_input,
            hooks=self.hooks,
            retry=model_retry_config,
            failover=model_failover_config,
            checkpoint_store=self.checkpoint_store,
            tool_aliases=dict(tool_aliases) if tool_aliases else None,
        )
        self.configured = AgentGraph(self.settings, *self._assemble())
        self._active: list[RunSink] = []
        self._active_lock = threading.Lock()

    def _assemble(self) -> tuple[str, list[Any], frozenset[str]]:
        """The instruction, tools and return-directly set of the agent's configured graph."""
        targets = list(self.sub_agents)
        if self.parent_agent is not None and not self.disallow_transfer_to_parent:
            targets.append(self.parent_agent)
        return prepare_exec_context(*self._base, transfer_targets=targets, exit=self._exit, hooks=self.hooks)

    # -- multi-agent transfer (Eino `OnSubAgents`, called by `set_sub_agents`) ---------------------------

    def on_set_sub_agents(self, sub_agents: Sequence[Any]) -> None:
        """The agents this one may transfer to (Eino `OnSetSubAgents`)."""
        if self.sub_agents:
            raise GraphBuildError("agent's sub-agents has already been set")
        self.sub_agents = list(sub_agents)
        self.configured = AgentGraph(self.settings, *self._assemble())

    def on_set_as_sub_agent(self, parent: Any) -> None:
        """The agent this one may transfer back to (Eino `OnSetAsSubAgent`)."""
        if self.parent_agent is not None:
            raise GraphBuildError("agent has already been set as a sub-agent of another agent")
        self.parent_agent = parent
        self.configured = AgentGraph(self.settings, *self._assemble())

    def on_disallow_transfer_to_parent(self) -> None:
        """No transfer back to the parent (Eino `OnDisallowTransferToParent`)."""
        self.disallow_transfer_to_parent = True
        self.configured = AgentGraph(self.settings, *self._assemble())

    # -- the configured graph (a run whose handlers rewrite tools or instruction gets its own) ----------

    @property
    def instruction(self) -> str:
        return self.configured.instruction

    @property
    def return_directly(self) -> frozenset[str]:
        return self.configured.return_directly

    @property
    def tools_node(self) -> AgentToolsNode:
        return self.configured.tools_node

    @property
    def model(self) -> Any:
        return self.configured.model

    @property
    def has_tools(self) -> bool:
        return self.configured.has_tools

    @property
    def graph(self) -> Graph:
        return self.configured.graph

    @property
    def compiled(self) -> CompiledGraph:
        return self.configured.compiled

    handles_agent_callbacks = True  # it reports its own OnStart/OnEnd (a flow agent around it does not)

    def get_type(self) -> str:
        """Eino `GetType` (`components.Typer`): the agent type its callbacks report."""
        return "ChatModel"

    def use_checkpoint_store(self, store: Any) -> None:
        """Save and find checkpoints in `store` from now on (a `Runner`'s `checkpoint_store`)."""
        self.checkpoint_store = store
        self.settings = replace(self.settings, checkpoint_store=store)
        base = self.configured
        self.configured = AgentGraph(
            self.settings, base.instruction, base.tools_node.tools, base.return_directly
        )

    def _graph_for_run(self) -> AgentGraph:
        """Eino `applyBeforeAgent`: the handlers rewrite the run's instruction, tools and return-directly
        set in turn; the first error stops the run (`handler[i] (Type) BeforeAgent failed: ...`)."""
        if not self.hooks.handlers:
            return self.configured
        base = self.configured
        context = ChatModelAgentContext(
            base.instruction, list(base.tools_node.tools), set(base.return_directly)
        )
        for index, handler in enumerate(self.hooks.handlers):
            try:
                context = handler.before_agent(context)
            except Exception as exc:
                raise GraphRunError(
                    f"handler[{index}] ({type(handler).__name__}) BeforeAgent failed: {exc}"
                ) from exc
        same_tools = [id(t) for t in context.tools] == [id(t) for t in base.tools_node.tools]
        if (
            context.instruction == base.instruction
            and same_tools
            and frozenset(context.return_directly) == base.return_directly
        ):
            return base
        return AgentGraph(
            self.settings, context.instruction, context.tools, frozenset(context.return_directly)
        )

    # -- running ----------------------------------------------------------------------------------------

    def run(
        self,
        messages: Sequence[Message] | str | None,
        *,
        streaming: bool = False,
        checkpoint_id: str | None = None,
        canceller: Canceller | None = None,
        session: dict[str, Any] | None = None,
        after_tool_calls_hook: Callable[[], None] | None = None,
        **options: Any,
    ) -> Iterator[AgentEvent]:
        """Run the agent, yielding events as they happen; a failure is the last event's `.error`.

        The graph runs on a worker thread so events reach the caller while it runs. `options` go to
        `CompiledGraph.invoke` (or `.stream` with `streaming=True`), for example `callbacks=[...]`.
        An interrupted or cancelled run saves a checkpoint under `checkpoint_id` (a fresh ID if none
        is given), reported on the last event; `resume(checkpoint_id)` continues it. `canceller`
        (Eino `WithCancel()`) cancels this run, even before it started (see `graph_core.agents.cancel`).
        `session` is the run's session values (Eino's run session; `output_key` writes the answer's
        text there); the handlers in `callbacks` also hear about the agent (see `adk_callbacks`).
        `after_tool_calls_hook` (Eino `WithAfterToolCallsHook`) is called after each round of tool calls,
        their results already in the state, before the next model call; what it raises ends the run.
        """
        inbox: queue.SimpleQueue[AgentEvent | None] = queue.SimpleQueue()
        payload = _as_messages(messages)
        if "callbacks" in options:  # only the handlers meant for this agent (Eino filterOptions)
            options["callbacks"] = handlers_for(self.name, options["callbacks"] or ())
        tee = EventTee(
            options.get("callbacks") or (),
            self.name,
            get_agent_type(self),
            AgentCallbackInput(payload, resume=messages is None and "resume_data" in options),
            tuple(options.get("parent_path", ())),
        )

        def emit(event: AgentEvent) -> None:
            if not event.run_path:  # the agent's own event (a forwarded one has its path already)
                event = replace(event, run_path=sink.run_path)
            inbox.put(tee.send(event))

        sink = RunSink(emit=emit, canceller=canceller if canceller is not None else Canceller())
        if session is not None:
            sink.session = session
        sink.emit_internal_events = self.emit_internal_events
        run_ctx = current_run_ctx()  # set by a flow agent or a Runner (Eino: the flow agent's RunPath)
        sink.run_path = run_ctx.run_path if run_ctx is not None and run_ctx.run_path else (self.name,)
        sink.after_tool_calls_hook = after_tool_calls_hook
        cid = checkpoint_id or uuid.uuid4().hex
        with self._active_lock:
            self._active.append(sink)

        def work() -> None:
            SINK.set(sink)
            try:
                if sink.cancel is not None:  # cancelled before it started: no node runs (Eino)
                    emit(self._cancelled_at_start(sink.cancel))
                    return
                compiled = self._graph_for_run().compiled
                kwargs = {"checkpoint_id": cid, "interrupt_event": sink.interrupt_event, **options}
                if streaming:
                    output = concat_messages(list(compiled.stream(payload, **kwargs)))
                else:
                    output = compiled.invoke(payload, **kwargs)
                if self.output_key:  # Eino setOutputToSession: the answer's text
                    add_session_value(self.output_key, output.content)
            except InterruptError as exc:
                emit(self._interrupted(sink, exc))
            except Exception as exc:
                emit(AgentEvent(self.name, error=unwrap_error(exc)))
            finally:
                with self._active_lock:
                    self._active.remove(sink)
                sink.canceller.end()
                sink.end_streams()
                tee.close()
                inbox.put(None)

        def outside_tool_call() -> None:
            # A run started inside a tool call (an agent tool) is not part of that call: its own nodes
            # and tools must not take the caller's call ID into their interrupt addresses, and its graph
            # takes neither the caller's callbacks nor its address (the agent tool passes the callbacks
            # meant for it and composes the agent addresses).
            with tool_call_scope(""), detached_runs():
                work()

        ctx = copy_context()
        worker = threading.Thread(
            target=ctx.run, args=(outside_tool_call,), name=f"agent-{self.name}", daemon=True
        )
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
            state_modifier = with_history(own, state_modifier)
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
