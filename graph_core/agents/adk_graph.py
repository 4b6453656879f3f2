"""The graph an ADK `ChatModelAgent` runs, built from one run's settings (Eino `newReact` in
`adk/react.go` and `buildNoToolsRunFunc` in `adk/chatmodel.go`).

```
start -> Init -> ChatModel --(any tool calls?)--> CancelCheck -> ToolNode -> AfterToolCalls
                   ^   |                                                         |
                   |   +--(answer)--> [AfterAgent] -> end          AfterToolCallsCancelCheck
                   +--------------(no return-directly call)-----------------+    |
                         ToolNodeToEndConverter -> [AfterAgent] -> end <--(return directly)
```

`AfterAgent` exists when the agent has handlers; it runs their `after_agent` once the run ends well.
Without tools the graph is Eino's chain `genInput -> model` (keys `node_0`, `node_1`, + `node_2` =
`AfterAgent` with handlers); with hooks, retry or failover that chain has a state, as in Eino, and its
model node is the same state model as the ReAct graph's.

An agent builds one `AgentGraph` for its configured settings; a run whose handlers' `before_agent`
changed the instruction, the tools or the return-directly set gets its own (Eino builds the graph per
run too).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graph_core.agents.adk_handlers import ChatModelAgentState, Hooks
from graph_core.agents.adk_model import EventModel, StateModel
from graph_core.agents.adk_retry import ModelFailoverConfig, ModelRetryConfig
from graph_core.agents.adk_run import SINK, AdkState, AgentEvent, AgentToolsNode
from graph_core.agents.adk_tool_events import tool_event_middleware
from graph_core.agents.adk_transfer import (
    TRANSFER_TO_AGENT_TOOL_NAME,
    gen_transfer_to_agent_instruction,
    transfer_to_agent_tool,
)
from graph_core.agents.cancel import CancelMode
from graph_core.branch import Branch
from graph_core.errors import ExceedMaxIterationsError, GraphRunError
from graph_core.graph import Graph
from graph_core.interrupt import get_interrupt_state, interrupt, was_interrupted
from graph_core.schema import Message
from graph_core.state import process_state
from graph_core.tools import ToolMiddleware
from graph_core.tools.alias import ToolAliasConfig
from graph_core.topology import END, START

if TYPE_CHECKING:
    from graph_core.runner.compiled import CompiledGraph

INIT = "Init"
CHAT_MODEL = "ChatModel"
CANCEL_CHECK = "CancelCheck"
TOOL_NODE = "ToolNode"
AFTER_TOOL_CALLS = "AfterToolCalls"
AFTER_TOOL_CALLS_CANCEL_CHECK = "AfterToolCallsCancelCheck"
TO_END_CONVERTER = "ToolNodeToEndConverter"
AFTER_AGENT = "AfterAgent"
# Without tools Eino runs a Chain `genInput -> model`, whose nodes get the chain's generated keys.
GEN_INPUT = "node_0"
CHAIN_MODEL = "node_1"
CHAIN_AFTER_AGENT = "node_2"
GEN_INPUT_NAME = "GenModelInput"

GenModelInput = Callable[[str, list[Message]], list[Message]]


def concat_instructions(first: str, second: str) -> str:
    """Eino `concatInstructions`: joined by a blank line, even when the first is empty (as Eino)."""
    return f"{first}\n\n{second}"


def prepare_exec_context(
    instruction: str,
    tools: Sequence[Any],
    return_directly: frozenset[str],
    *,
    transfer_targets: Sequence[Any],
    exit: Any,
    hooks: Hooks,
) -> tuple[str, list[Any], frozenset[str]]:
    """Eino `prepareExecContext`: the instruction, tools and return-directly set of an agent's graph.
    The transfer tool and its instruction come first (when the agent may transfer somewhere), then the
    exit tool, then the middlewares' instructions and tools."""
    tools, direct = list(tools), set(return_directly)
    if transfer_targets:
        instruction = concat_instructions(instruction, gen_transfer_to_agent_instruction(transfer_targets))
        tools.append(transfer_to_agent_tool)
        direct.add(TRANSFER_TO_AGENT_TOOL_NAME)
    if exit is not None:
        tools.append(exit)
        direct.add(exit.info.name)
    for middleware in hooks.middlewares:
        if middleware.additional_instruction:
            instruction = concat_instructions(instruction, middleware.additional_instruction)
        tools.extend(middleware.additional_tools)
    return instruction, tools, frozenset(direct)


def default_gen_model_input(instruction: str, messages: list[Message]) -> list[Message]:
    """Eino's default `GenModelInput`: the instruction as a system message, then the input."""
    return [Message.system(instruction), *messages] if instruction else list(messages)


@dataclass(frozen=True, slots=True)
class AgentSettings:
    """What every run of one agent shares (the agent's configuration, as the graph needs it)."""

    name: str
    model: Any
    max_iterations: int
    execute_sequentially: bool
    unknown_tools_handler: Callable[[str, str], Any] | None
    tool_arguments_handler: Callable[[str, str], Any] | None
    tool_middlewares: Sequence[ToolMiddleware]
    gen_model_input: GenModelInput
    hooks: Hooks
    retry: ModelRetryConfig | None
    failover: ModelFailoverConfig | None
    checkpoint_store: Any
    tool_aliases: Mapping[str, ToolAliasConfig] | None = None


def _tool_middlewares(settings: AgentSettings) -> list[ToolMiddleware]:
    """The event sender outermost (it reports what every wrapper made of the result), unless a handler
    places it (`EventSenderToolWrapper`); then the ToolsNode's middlewares, then the hooks'."""
    sender = tool_event_middleware(settings.name)
    hooks = settings.hooks.tool_middlewares(sender)
    outer = [] if settings.hooks.places_tool_event_sender else [sender]
    return [*outer, *settings.tool_middlewares, *hooks]


class AgentGraph:
    """One compiled agent graph for an instruction, a tool list and a return-directly set."""

    def __init__(
        self, settings: AgentSettings, instruction: str, tools: Sequence[Any], return_directly: frozenset[str]
    ) -> None:
        self.settings = settings
        self.instruction = instruction
        self.return_directly = return_directly
        self.tools_node = AgentToolsNode(
            list(tools),
            execute_sequentially=settings.execute_sequentially,
            unknown_tools_handler=settings.unknown_tools_handler,
            tool_arguments_handler=settings.tool_arguments_handler,
            middlewares=_tool_middlewares(settings),
            return_directly=return_directly,
            tool_aliases=settings.tool_aliases,
        )
        infos = self.tools_node.tool_infos
        self.model = settings.model.with_tools(infos) if infos else settings.model
        self.has_tools = bool(tools)
        self.state_model = StateModel(
            self.model,
            settings.name,
            raw_model=settings.model,
            tool_infos=infos,
            hooks=settings.hooks,
            retry=settings.retry,
            failover=settings.failover,
        )
        stateful_chain = bool(settings.hooks.handlers or settings.hooks.middlewares) or (
            settings.retry is not None or settings.failover is not None
        )
        if self.has_tools:
            self.graph = self._build()
            # Eino runs the graph with WithMaxRunSteps(math.MaxInt): max_iterations is the only limit.
            self.compiled: CompiledGraph = self.graph.compile(
                name=settings.name, max_run_steps=2**31 - 1, checkpoint_store=settings.checkpoint_store
            )
        else:
            self.graph = self._build_chain(stateful_chain)
            self.compiled = self.graph.compile(name=settings.name, checkpoint_store=settings.checkpoint_store)

    # -- node functions ---------------------------------------------------------------------------------

    def _new_state(self) -> AdkState:
        return AdkState(
            agent_name=self.settings.name,
            remaining_iterations=self.settings.max_iterations,
            has_return_directly=bool(self.return_directly),
        )

    def gen_input(self, messages: list[Message]) -> list[Message]:
        return list(self.settings.gen_model_input(self.instruction, list(messages)))

    def _init(self, messages: list[Message]) -> list[Message]:
        full = self.gen_input(messages)
        process_state(AdkState, lambda s: s.messages.extend(full))
        return full

    def _model_pre(self, input: Any, state: AdkState) -> Any:
        if state.remaining_iterations <= 0:
            raise ExceedMaxIterationsError(self.settings.max_iterations)
        state.remaining_iterations -= 1
        return input

    @staticmethod
    def _after_model(chunks: Iterator[Message]) -> str:
        return CANCEL_CHECK if any(chunk.tool_calls for chunk in chunks) else "answer"

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
                    held = AgentEvent(self.settings.name, message=message)
            if held is not None:
                sink.emit(held)
        return output

    @staticmethod
    def _after_tool_calls(results: list[Message]) -> list[Message]:
        """Persist the tool results, then the run's after-tool-calls hook (Eino `afterToolCalls`)."""
        process_state(AdkState, lambda s: s.messages.extend(results))
        sink = SINK.get()
        if sink is not None and sink.after_tool_calls_hook is not None:
            sink.after_tool_calls_hook()
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

    def _after_agent(self, message: Message) -> Message:
        """Eino's `AfterAgent` node: each handler's `after_agent` with the final state; the first error
        fails the run (`handler[i] (Type) AfterAgent failed: ...`)."""
        state = process_state(AdkState, lambda s: ChatModelAgentState(list(s.messages), []))
        sink = SINK.get()
        if sink is not None and sink.tool_infos is not None:
            state.tool_infos = list(sink.tool_infos)
        else:
            state.tool_infos = list(self.tools_node.tool_infos)
        for index, handler in enumerate(self.settings.hooks.handlers):
            try:
                handler.after_agent(state)
            except Exception as exc:
                raise GraphRunError(
                    f"handler[{index}] ({type(handler).__name__}) AfterAgent failed: {exc}"
                ) from exc
        return message

    def _chain_init(self, messages: list[Message]) -> list[Message]:
        full = self.gen_input(messages)
        process_state(AdkState, lambda s: s.messages.extend(full))
        return full

    # -- wiring -----------------------------------------------------------------------------------------

    def _build_chain(self, stateful: bool) -> Graph:
        """No tools: Eino's chain `genInput -> model` (+ AfterAgent), one model call, no iteration check."""
        name = self.settings.name
        graph = Graph(state=self._new_state) if stateful else Graph()
        if stateful:
            graph.add_lambda_node(GEN_INPUT, self._chain_init, name=GEN_INPUT_NAME)
            graph.add_chat_model_node(CHAIN_MODEL, self.state_model, name=CHAT_MODEL)
        else:
            graph.add_lambda_node(GEN_INPUT, self.gen_input, name=GEN_INPUT_NAME)
            graph.add_chat_model_node(CHAIN_MODEL, EventModel(self.model, name), name=CHAT_MODEL)
        graph.add_edge(START, GEN_INPUT)
        graph.add_edge(GEN_INPUT, CHAIN_MODEL)
        if self.settings.hooks.handlers:
            graph.add_lambda_node(CHAIN_AFTER_AGENT, self._after_agent, name=AFTER_AGENT)
            graph.add_edge(CHAIN_MODEL, CHAIN_AFTER_AGENT)
            graph.add_edge(CHAIN_AFTER_AGENT, END)
        else:
            graph.add_edge(CHAIN_MODEL, END)
        return graph

    def _build(self) -> Graph:
        graph = Graph(state=self._new_state)
        graph.add_lambda_node(INIT, self._init, name=INIT)
        graph.add_chat_model_node(CHAT_MODEL, self.state_model, name=CHAT_MODEL, pre=self._model_pre)
        graph.add_lambda_node(CANCEL_CHECK, self._cancel_check, name=CANCEL_CHECK)
        graph.add_tools_node(
            TOOL_NODE, self.tools_node, name=TOOL_NODE, pre=self._tools_pre, post=self._release_held
        )
        graph.add_lambda_node(AFTER_TOOL_CALLS, self._after_tool_calls, name=AFTER_TOOL_CALLS)
        graph.add_lambda_node(
            AFTER_TOOL_CALLS_CANCEL_CHECK, self._after_tools_cancel_check, name=AFTER_TOOL_CALLS_CANCEL_CHECK
        )
        terminal = END
        if self.settings.hooks.handlers:
            graph.add_lambda_node(AFTER_AGENT, self._after_agent, name=AFTER_AGENT)
            graph.add_edge(AFTER_AGENT, END)
            terminal = AFTER_AGENT
        graph.add_edge(START, INIT)
        graph.add_edge(INIT, CHAT_MODEL)
        graph.add_branch(
            CHAT_MODEL,
            Branch.stream(
                lambda chunks: _answer_to(self._after_model(chunks), terminal),
                [CANCEL_CHECK, terminal],
                labels={CANCEL_CHECK: "tool calls", terminal: "final answer"},
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
            graph.add_edge(TO_END_CONVERTER, terminal)
        else:
            graph.add_edge(AFTER_TOOL_CALLS_CANCEL_CHECK, CHAT_MODEL)
        return graph


def _answer_to(decision: str, terminal: str) -> str:
    return terminal if decision == "answer" else decision


# A Lambda node's topology names its function by `__qualname__`, and recordings keep it. These node
# functions were `ChatModelAgent` methods before the graph moved here; they keep those names, so the
# recordings made before (and their replays, reports and snapshots) still match the agent's topology.
for _method, _recorded in {
    "_init": "_init",
    "_cancel_check": "_cancel_check",
    "_after_tool_calls": "_after_tool_calls",
    "_after_tools_cancel_check": "_after_tools_cancel_check",
    "_to_end": "_to_end",
    "gen_input": "_gen_input",
}.items():
    _fn = AgentGraph.__dict__[_method]
    getattr(_fn, "__func__", _fn).__qualname__ = f"ChatModelAgent.{_recorded}"
