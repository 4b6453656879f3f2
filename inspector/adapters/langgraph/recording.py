"""A LangGraph run as graph_core callback facts: what the `Recorder` (or any graph_core observer) consumes.

LangGraph runs the same model as graph_core: supersteps (Pregel/BSP) under a step budget
(`recursion_limit`). Its `tasks` stream mode reports each step's tasks (node name and input) and each
task's result (writes, error, interrupts); `values` reports the state after each step (`debug` gives the
same task payloads wrapped with a step number and a timestamp, plus a checkpoint payload per step when
the graph has a checkpointer, which LangGraph builds at a cost and the translator never reads);
`subgraphs=True` adds the events of nested graphs under a namespace (`("child:<task id>",)`).
`StepTranslator.feed` turns those events, in the order LangGraph yields them, into:

- `on_step_start(StepInfo)` when a step's tasks are known (LangGraph emits them together before they
  run), `on_step_end(StepInfo)` when the next step's tasks are known or the run ends, with the state
  after the step, the next nodes and the budget: step `index` (0-based, LangGraph step `index + 1`:
  LangGraph's step 0 only writes the input) uses `index + 1` of `recursion_limit` steps;
- `on_start`/`on_end`/`on_error` per node task when its result arrives, in the order of the step's
  tasks (a result waits for those of the tasks listed before it: parallel tasks finish in any order,
  and a run recorded twice must list its node runs alike), with per-tool-call facts for a `ToolNode`
  and the model's message as the output of the prebuilt agent's model node;
- the graph's own `on_start`/`on_end`/`on_error` around the run, where a `GraphRecursionError` becomes
  graph_core's `MaxStepsExceededError` (its cause is the original), a node's exception a `NodeRunError`
  naming the node, and an `interrupt()` (or a static interrupt) an `InterruptError`, so everything
  downstream reads a LangGraph run as it reads a graph_core one.

Branch decisions are inferred: LangGraph does not report which conditional edge chose what, so a
conditional edge of a node that ran is taken to have chosen the nodes of the next step among its targets
(END when none of them runs next and the run ended).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graph_core.callbacks import BranchDecision, Budget, RunInfo, StepInfo
from graph_core.context import RunScope, scoped
from graph_core.errors import InterruptError, MaxStepsExceededError, NodeRunError
from graph_core.interrupt import InterruptInfo, InterruptSignal
from graph_core.topology import END, Topology
from inspector.adapters.langgraph.messages import Neutralizer, ToolCallFailed

__all__ = ["StepTranslator"]


@dataclass
class _Graph:
    """One (sub)graph run's open step, as the stream has reported it so far."""

    path: tuple[str, ...]
    lg_step: int | None = None  # LangGraph's number of the open step
    index: int = -1  # our index of the open step
    open: bool = False
    nodes: tuple[str, ...] = ()
    tasks: dict[str, tuple[str, Any]] = field(default_factory=lambda: {})
    incoming: list[tuple[str, str, Any]] = field(default_factory=lambda: [])  # the next step's tasks
    incoming_step: int | None = None
    state: Any = None
    paused: list[str] = field(default_factory=lambda: [])
    failed: str | None = None
    finished: dict[str, Mapping[str, Any]] = field(default_factory=lambda: {})  # results held back
    released: int = 0  # how many of the open step's tasks, in their order, have been reported


def _path_of(namespace: Sequence[str]) -> tuple[str, ...]:
    return tuple(part.split(":", 1)[0] for part in namespace)


def _unique(names: Sequence[str]) -> tuple[str, ...]:
    if len(names) < 2:
        return tuple(names)
    return tuple(dict.fromkeys(names))


class StepTranslator:
    """Feed it LangGraph's `tasks` (or `debug`) and `values` stream events; it calls graph_core callbacks.

    `callbacks` are graph_core observers (a `Recorder`, ...); `topology` the graph's (for node kinds
    and branch ends); `limit` the run's `recursion_limit`; `extras` go into the run scope the graph's
    `on_start` sees (`topology`, `resumed_from`), as graph_core's runner provides them; `output`
    turns the final state into the run's output (the graph's `output_schema`), the state when None.
    """

    def __init__(
        self,
        callbacks: Sequence[Any],
        *,
        topology: Topology,
        limit: int,
        extras: Mapping[str, Any] | None = None,
        output: Callable[[Any], Any] | None = None,
    ) -> None:
        self._callbacks = tuple(callbacks)
        self._output = output
        self._topology = topology
        self._limit = limit
        self._extras = dict(extras or {})
        self._neutral = Neutralizer()
        self._graphs: dict[tuple[str, ...], _Graph] = {}
        self._info = RunInfo(None, topology.name, "Graph", (), None, topology.name)
        self._methods: dict[str, tuple[Callable[..., Any], ...]] = {}
        self._kinds: dict[tuple[str, ...], str] = {}
        self._ends: dict[tuple[str, ...], dict[str, list[tuple[int, list[str]]]]] = {}
        # branch decisions by (graph path, step nodes, next nodes, ended): a loop repeats a few of them
        self._decided: dict[tuple[Any, ...], tuple[BranchDecision, ...]] = {}
        self._waiting = False  # some graph holds the tasks of a step that has not started yet
        self._index(topology, ())
        self.failed_node: tuple[str, ...] | None = None

    def _index(self, topology: Topology, path: tuple[str, ...]) -> None:
        """Node kinds and branch ends by graph path, for every graph nested in `topology` too."""
        ends: dict[tuple[str, int], list[str]] = {}
        for edge in topology.edges:
            if edge.kind == "branch":
                ends.setdefault((edge.source, edge.branch_index or 0), []).append(edge.target)
        by_source: dict[str, list[tuple[int, list[str]]]] = {}
        self._ends[path] = by_source
        for (source, index), targets in ends.items():
            by_source.setdefault(source, []).append((index, targets))
        for node in topology.nodes:
            self._kinds[(*path, node.key)] = node.kind
            if node.graph is not None:
                self._index(node.graph, (*path, node.key))

    # --- calling observers ----------------------------------------------------------------------

    def _call(self, method: str, *args: Any) -> None:
        """Each observer's `method`, looked up once per run; `on_start` in reverse registration order."""
        fns = self._methods.get(method)
        if fns is None:
            handlers = reversed(self._callbacks) if method == "on_start" else self._callbacks
            found = (getattr(handler, method, None) for handler in handlers)
            fns = self._methods[method] = tuple(fn for fn in found if callable(fn))
        for fn in fns:
            fn(*args)

    # --- the run --------------------------------------------------------------------------------

    def start(self, input: Any) -> None:
        """The graph starts with `input` (None for a resume from a checkpoint)."""
        with scoped(RunScope(extras=self._extras)):
            # the input as the top graph's state: its lists start the lines the states extend, so a
            # state read back from a checkpoint (equal messages, new objects) keeps their conversions
            self._call("on_start", self._info, self._neutral.state(input))

    def feed(self, namespace: Sequence[str], mode: str, chunk: Any) -> None:
        """One event of `graph.stream(..., stream_mode=["tasks", "values"], subgraphs=True)` (or with
        `debug` in place of `tasks`: the same payloads, wrapped with their step number)."""
        path = _path_of(namespace) if namespace else ()
        graph = self._graphs.get(path) or self._graph(path)
        if mode == "values":
            if self._waiting:
                self._flush_all()
            if isinstance(chunk, Mapping) and "__interrupt__" in chunk:
                # the interrupts, not state (each node run's InterruptSignal carries its value)
                chunk = {k: v for k, v in chunk.items() if k != "__interrupt__"}  # pyright: ignore[reportUnknownVariableType]
            graph.state = chunk
            return
        if mode == "tasks":  # the payload itself: a result has a `result`, a task has none
            if "result" not in chunk:
                self._task(graph, None, chunk)
                return
            if self._waiting:
                self._flush_all()
            self._result(graph, chunk)
            return
        kind = chunk.get("type") if mode == "debug" else None
        if kind == "task":
            self._task(graph, chunk["step"], chunk["payload"])
            return
        if self._waiting:
            self._flush_all()
        if kind == "task_result":
            self._result(graph, chunk["payload"])

    def finish(self, *, next_nodes: Sequence[str] = (), interrupted: InterruptInfo | None = None) -> Any:
        """The stream ended without an exception: the run ended, or stopped at an interrupt
        (`interrupted`, with `next_nodes` the nodes that run when it is resumed). Returns the run's
        output (the final state, or its `output_schema` part), or the `InterruptError`
        reported for the interrupt."""
        self._flush_all()
        self._release_everywhere()
        self._close_nested(())
        top = self._graph(())
        if interrupted is None:
            if top.open:
                self._close(top, (), ended=True)
            final = top.state if self._output is None else self._output(top.state)
            self._call("on_end", self._info, self._neutral.value(final))
            return final
        if top.open and not top.paused:  # a static interrupt: the last step finished
            self._close(top, next_nodes, ended=False, infer=False)
        interrupted.state = self._neutral.state(top.state)
        error = InterruptError(interrupted, checkpoint_id=self._checkpoint_id())
        self._call("on_error", self._info, error)
        return error

    def fail(self, error: BaseException) -> BaseException:
        """The stream raised `error`; returns what was reported to the graph's `on_error`."""
        self._flush_all()
        self._release_everywhere()
        reported: BaseException = error
        if type(error).__name__ == "GraphRecursionError":
            self._close_nested(())
            top = self._graph(())
            if top.open:  # the budget ran out after this step finished
                self._close(top, (), ended=False, infer=False)
            reported = MaxStepsExceededError(self._limit)
            reported.__cause__ = error
        elif self.failed_node is not None:
            reported = NodeRunError(error, list(self.failed_node))
            reported.__cause__ = error
        self._call("on_error", self._info, reported)
        return reported

    def interrupted_nodes(self) -> list[str]:
        """The top-level nodes whose task reported an `interrupt()` in the open step."""
        return list(_unique(self._graph(()).paused))

    def last_nodes(self) -> list[str]:
        """The nodes of the top-level graph's latest step (what ran before a static interrupt after)."""
        return list(self._graph(()).nodes)

    def next_index(self) -> int:
        """The index the top-level graph's next step gets: the steps started so far, a step whose tasks
        arrived counting as started (LangGraph streams a step's tasks before running them, and may
        stream its results only after it prepared the step after it)."""
        top = self._graph(())
        return top.index + (2 if top.incoming else 1)

    def end_step(self, next_nodes: Sequence[str]) -> None:
        """The run is held between steps (the live debugger stopped LangGraph's loop there): end the
        open top-level step now, with `next_nodes` the nodes LangGraph runs next, as the arrival of the
        next step's tasks would have ended it."""
        self._flush_all()
        self._close_nested(())
        top = self._graph(())
        if top.open:
            self._close(top, next_nodes, ended=False)

    def _checkpoint_id(self) -> str | None:
        value = self._extras.get("checkpoint_id")
        return value if isinstance(value, str) else None

    def _graph(self, path: tuple[str, ...]) -> _Graph:
        graph = self._graphs.get(path)
        if graph is None:
            graph = self._graphs[path] = _Graph(path)
        return graph

    # --- steps ----------------------------------------------------------------------------------

    def _task(self, graph: _Graph, lg_step: int | None, payload: Mapping[str, Any]) -> None:
        """A task of a step is about to run; a task of a new step starts that step's batch. Without
        step numbers (`tasks` mode) a batch ends at the next event that is not a task: LangGraph
        reports a step's tasks together, before any of them runs."""
        if graph.incoming and graph.incoming_step != lg_step:
            self._flush(graph)
        graph.incoming_step = lg_step
        graph.incoming.append((str(payload["id"]), str(payload["name"]), payload.get("input")))
        self._waiting = True

    def _flush_all(self) -> None:
        self._waiting = False
        for graph in list(self._graphs.values()):
            if graph.incoming:
                self._flush(graph)

    def _flush(self, graph: _Graph) -> None:
        """The batch of a new step's tasks is complete: end the open step, start the new one."""
        names = _unique([name for _, name, _ in graph.incoming])
        if graph.open:
            self._close(graph, names, ended=False)
        graph.index += 1
        graph.lg_step = graph.incoming_step
        graph.nodes = names
        graph.tasks = {task_id: (name, value) for task_id, name, value in graph.incoming}
        graph.released = 0
        graph.incoming = []
        graph.paused = []
        graph.open = True
        used = graph.index
        self._call("on_step_start", StepInfo(graph.index, names, Budget.of(used, self._limit), graph.path))

    def _close(self, graph: _Graph, next_nodes: Sequence[str], *, ended: bool, infer: bool = True) -> None:
        """`on_step_end` for the open step of `graph`, with the state after it and what runs next."""
        self._release(graph, all_held=True)
        graph.open = False
        next_nodes = _unique(next_nodes)
        branches = self._branches(graph, next_nodes, ended) if infer else ()
        info = StepInfo(
            graph.index,
            graph.nodes,
            Budget.of(graph.index + 1, self._limit),
            graph.path,
            self._topology.name if not graph.path else graph.path[-1],
            self._neutral.state(graph.state, graph.path),
            branches,
            tuple(n for n in next_nodes if n != END),
            ended,
        )
        self._call("on_step_end", info)

    def _close_nested(self, prefix: tuple[str, ...]) -> None:
        """End the open steps of graphs nested under `prefix` (their parent task finished): a task's
        subgraph runs at the task's own path (`prefix`), deeper ones below it."""
        if len(self._graphs) < 2:  # the top-level graph only
            return
        for path, graph in sorted(self._graphs.items(), key=lambda item: -len(item[0])):
            if path and len(path) >= len(prefix) and path[: len(prefix)] == prefix and not graph.paused:
                if graph.open:
                    self._close(graph, (), ended=True)
                del self._graphs[path]  # a later run of the same subgraph counts its steps afresh

    def _branches(
        self, graph: _Graph, next_nodes: tuple[str, ...], ended: bool
    ) -> tuple[BranchDecision, ...]:
        ends = self._ends.get(graph.path)
        if not ends:
            return ()
        key = (graph.path, graph.nodes, next_nodes, ended)
        decided = self._decided.get(key)
        if decided is None:
            decided = self._decide(ends, graph.nodes, next_nodes, ended)
            if len(self._decided) < 1_000:  # a fan-out of ever new node sets is not remembered forever
                self._decided[key] = decided
        return decided

    @staticmethod
    def _decide(
        ends: Mapping[str, list[tuple[int, list[str]]]],
        nodes: tuple[str, ...],
        next_nodes: tuple[str, ...],
        ended: bool,
    ) -> tuple[BranchDecision, ...]:
        """The decisions of the conditional edges of `nodes`, inferred from the nodes that run next."""
        decisions: list[BranchDecision] = []
        following = set(next_nodes)
        for source in nodes:
            for index, targets in ends.get(source, ()):
                chosen = [t for t in targets if t in following]
                if not chosen and END in targets and ended:
                    chosen = [END]
                if not chosen:
                    continue
                skipped = tuple(t for t in targets if t not in chosen)
                decisions.append(BranchDecision(source, index, tuple(chosen), skipped))
        return tuple(decisions)

    # --- node runs ------------------------------------------------------------------------------

    def _result(self, graph: _Graph, payload: Mapping[str, Any]) -> None:
        """A task finished: reported now if every task listed before it in its step has been, else held
        until they are (or until the step ends, for tasks that never report)."""
        task_id = str(payload.get("id"))
        if task_id not in graph.tasks:
            self._report(graph, payload)
            return
        graph.finished[task_id] = payload
        self._release(graph, all_held=False)

    def _release(self, graph: _Graph, *, all_held: bool) -> None:
        """Report the held results in the order of the step's tasks: the ones now next in line, or
        (`all_held`, the step is ending) every one still held."""
        order = list(graph.tasks)
        while graph.finished and graph.released < len(order):
            task_id = order[graph.released]
            payload = graph.finished.pop(task_id, None)
            if payload is None and not all_held:
                return
            graph.released += 1
            if payload is not None:
                self._report(graph, payload)

    def _release_everywhere(self) -> None:
        """Report every held result, nested graphs first (a parent's result closes its children)."""
        for path in sorted(self._graphs, key=len, reverse=True):
            graph = self._graphs.get(path)
            if graph is not None:
                self._release(graph, all_held=True)

    def _report(self, graph: _Graph, payload: Mapping[str, Any]) -> None:
        """A task finished (or failed, or paused): its node's callbacks, in one go."""
        name = str(payload["name"])
        task = graph.tasks.get(str(payload.get("id")))
        raw_input = task[1] if task is not None else None
        path = (*graph.path, name)
        self._close_nested(path)
        kind = self._kinds.get(path, "Lambda")
        result = payload.get("result")
        error = payload.get("error")
        interrupts = payload.get("interrupts") or []
        model_message = _model_message(result) if error is None and kind in ("Lambda", "ChatModel") else None
        if model_message is not None:
            kind = "ChatModel"
        info = RunInfo(name, "", kind, path, graph.index, self._topology.name)
        self._call("on_start", info, self._neutral.node_input(raw_input, graph.path))
        if kind == "ToolsNode" and error is None:
            self._tools(path, name, raw_input, result)
        if interrupts:
            graph.paused.append(name)
            values = [i.get("value") if isinstance(i, Mapping) else i for i in interrupts]
            signal = InterruptSignal(values[0] if len(values) == 1 else values)
            self._call("on_error", info, signal)
        elif error is not None:
            if not isinstance(error, BaseException):
                error = RuntimeError(str(error))
            if type(error).__name__ in ("GraphInterrupt", "NodeInterrupt"):
                graph.paused.append(name)
                self._call("on_error", info, InterruptSignal(str(error)))
            else:
                self.failed_node = path
                self._call("on_error", info, error)
        elif model_message is not None:
            self._call("on_end", info, self._neutral.message(model_message))
        else:
            self._call("on_end", info, self._neutral.value(result))

    def _tools(self, path: tuple[str, ...], node: str, raw_input: Any, result: Any) -> None:
        """Each tool call a `ToolNode` task answered: `Tool` callbacks under the node's run."""
        calls = _tool_calls(raw_input)
        answers: dict[str, Any] = {}
        messages = result.get("messages") if isinstance(result, Mapping) else result
        for message in messages if isinstance(messages, list) else []:  # pyright: ignore[reportUnknownVariableType]
            call_id = getattr(message, "tool_call_id", None)
            if call_id is not None:
                answers[str(call_id)] = message
        for call in calls:
            call_id = str(call.get("id") or "")
            info = RunInfo(node, str(call.get("name") or ""), "Tool", path, None, "", call_id)
            converted = self._neutral.message(answers[call_id]) if call_id in answers else None
            arguments = _arguments(call)
            self._call("on_start", info, arguments)
            if converted is None:
                continue
            if converted.extra.get("status") == "error":
                self._call("on_error", info, ToolCallFailed(converted.content))
            else:
                self._call("on_end", info, converted.content)


def _arguments(call: Mapping[str, Any]) -> str:
    try:
        return json.dumps(call.get("args", {}), ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return "{}"


def _tool_calls(raw_input: Any) -> list[Mapping[str, Any]]:
    """The tool calls a `ToolNode` task was given: the one call sent to it (`Send`, the prebuilt agent's
    way), or those of the last AI message in its input state."""
    if isinstance(raw_input, Mapping):
        call = raw_input.get("tool_call")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if isinstance(call, Mapping):
            return [call]  # pyright: ignore[reportUnknownVariableType]
        messages = raw_input.get("messages")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    else:
        messages = raw_input
    if isinstance(messages, list):
        for message in reversed(messages):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
            if getattr(message, "type", None) == "ai":
                return list(getattr(message, "tool_calls", None) or [])
    return []


def _from_model(message: Any) -> bool:
    """Whether an AI message came from a chat model call: LangChain names the messages its chat models
    generate after the run (`lc_run-...`) and models report usage; a message a node wrote itself has
    neither."""
    if getattr(message, "type", None) != "ai":
        return False
    return str(getattr(message, "id", "") or "").startswith("lc_run") or bool(
        getattr(message, "usage_metadata", None)
    )


def _model_message(result: Any) -> Any:
    """The AI message a node returned as its whole update (`{"messages": [AIMessage]}`) when a chat model
    made it: the node is a model call."""
    if not isinstance(result, Mapping) or len(result) != 1:  # pyright: ignore[reportUnknownArgumentType]
        return None
    messages = result.get("messages")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if isinstance(messages, list) and len(messages) == 1:  # pyright: ignore[reportUnknownArgumentType]
        message = messages[0]  # pyright: ignore[reportUnknownVariableType]
        if _from_model(message):
            return message  # pyright: ignore[reportUnknownVariableType]
    if _from_model(messages):
        return messages  # pyright: ignore[reportUnknownVariableType]
    return None
