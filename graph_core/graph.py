"""The graph builder: nodes, edges and branches, checked as Eino checks them, then compiled.

Construction mistakes raise `GraphBuildError` from the offending `add_*` call and, like Eino's sticky
build error, every later `add_*` and `compile()` raises the same error again. A compiled graph refuses
mutation but may be compiled again (that is how nested graphs are embedded).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypedDict, Unpack

from graph_core.branch import Branch
from graph_core.errors import GraphBuildError
from graph_core.lambda_ import Executable, Lambda
from graph_core.runner.compiled import CompiledGraph
from graph_core.spec import EdgeSpec, FanInMergeConfig, Handler, NodeSpec
from graph_core.topology import END, START, TriggerMode

__all__ = ["FanInMergeConfig", "Graph", "NodeOptions", "NodeSpec"]


class NodeOptions(TypedDict, total=False):
    """Keyword options every `add_*_node` takes (Eino's `GraphAddNodeOpt`s); every one may be left out.

    - `name`: the display name callbacks and exporters show (default: none, the key is used).
    - `pre(input, state) -> input` / `post(output, state) -> output`: state handlers around the node;
      they need a graph built with `state=`.
    - `input_key`: the node receives `input[input_key]`; `output_key`: its output is wrapped as
      `{output_key: output}` (Eino `WithInputKey`/`WithOutputKey`).
    """

    name: str | None
    pre: Handler | None
    post: Handler | None
    input_key: str | None
    output_key: str | None


_NODE_OPTION_NAMES: frozenset[str] = frozenset(NodeOptions.__annotations__)


def _check_node_options(entry: str, options: NodeOptions) -> None:
    """Reject an unknown option as a misspelt keyword argument would be, before anything else runs."""
    if not _NODE_OPTION_NAMES.issuperset(options):
        unknown = min(options.keys() - _NODE_OPTION_NAMES)
        raise TypeError(f"Graph.{entry}() got an unexpected keyword argument {unknown!r}")


class Graph:
    """A graph under construction (Eino `NewGraph`); `state` is a zero-argument per-run state factory."""

    def __init__(self, state: Callable[[], Any] | None = None) -> None:
        self.state_factory = state
        self.nodes: dict[str, NodeSpec] = {}
        self.edges: list[EdgeSpec] = []  # insertion order, branch ends included
        self.branches: dict[str, list[Branch]] = {}
        self._edge_pairs: set[tuple[str, str]] = set()
        self._error: GraphBuildError | None = None
        self._compiled = False

    # -- errors -------------------------------------------------------------------------------------

    def _fail(self, message: str) -> GraphBuildError:
        error = GraphBuildError(message)
        self._error = error
        return error

    def _check_open(self) -> None:
        if self._error is not None:
            raise self._error
        if self._compiled:
            raise GraphBuildError("graph has been compiled, cannot be modified")

    # -- nodes --------------------------------------------------------------------------------------

    def _add(
        self, key: str, kind: str, executable: Executable | None, options: NodeOptions, **extra: Any
    ) -> None:
        """Register the node after Eino's checks; `extra` are the `NodeSpec` fields of one node kind."""
        self._check_open()
        pre, post = options.get("pre"), options.get("post")
        if key in (START, END):
            raise self._fail(f"node '{key}' is reserved, cannot add manually")
        if key in self.nodes:
            raise self._fail(f"node '{key}' already present")
        if (pre is not None or post is not None) and self.state_factory is None:
            raise self._fail(f"node '{key}' needs state but graph state is not enabled")
        self.nodes[key] = NodeSpec(
            key,
            kind,
            options.get("name") or "",
            executable,
            pre=pre,
            post=post,
            input_key=options.get("input_key"),
            output_key=options.get("output_key"),
            **extra,
        )

    def _component(self, component: Any, methods: tuple[str, str, str, str], missing: str) -> Executable:
        """A component's executable from its (invoke, stream, ainvoke, astream) methods; needs a sync one."""
        invoke, stream, ainvoke, astream = (getattr(component, method, None) for method in methods)
        if invoke is None and stream is None:
            raise self._fail(missing)
        return Executable(invoke=invoke, stream=stream, ainvoke=ainvoke, astream=astream)

    def add_lambda_node(
        self, key: str, fn: Callable[..., Any] | Lambda, **options: Unpack[NodeOptions]
    ) -> Graph:
        """A node running `fn`: a plain function, an `async def`, or a `Lambda` with several paradigms."""
        _check_node_options("add_lambda_node", options)
        executable = Executable.of_lambda(fn) if isinstance(fn, Lambda) else Executable.of_function(fn)
        self._add(key, "Lambda", executable, options, component=fn)
        return self

    def add_chat_model_node(self, key: str, model: Any, **options: Unpack[NodeOptions]) -> Graph:
        """A chat model: `generate(messages)` in invoke mode, `stream(messages)` in stream mode."""
        _check_node_options("add_chat_model_node", options)
        executable = self._component(
            model,
            ("generate", "stream", "agenerate", "astream"),
            f"chat model node '{key}' needs a model with generate or stream",
        )
        self._add(key, "ChatModel", executable, options, component=model)
        return self

    def add_tools_node(self, key: str, tools_node: Any, **options: Unpack[NodeOptions]) -> Graph:
        """A tools node: `invoke(message) -> list[Message]`, `stream(message) -> Iterator[list]`."""
        _check_node_options("add_tools_node", options)
        executable = self._component(
            tools_node,
            ("invoke", "stream", "ainvoke", "astream"),
            f"tools node '{key}' needs an object with invoke or stream",
        )
        self._add(key, "ToolsNode", executable, options, component=tools_node)
        return self

    def add_graph_node(
        self,
        key: str,
        graph: Graph | CompiledGraph,
        *,
        compile_options: dict[str, Any] | None = None,
        **options: Unpack[NodeOptions],
    ) -> Graph:
        """A nested graph, compiled with the parent (with `compile_options`); one step in the parent."""
        _check_node_options("add_graph_node", options)
        merged = dict(compile_options or {})
        builder: object = graph
        if isinstance(graph, CompiledGraph):
            merged = {**graph.compile_options, **merged}
            builder = graph.graph
        if not isinstance(builder, Graph):
            raise self._fail(f"graph node '{key}' needs a Graph, got {type(builder).__name__}")
        self._add(key, "Graph", None, options, graph=builder, compile_options=merged)
        return self

    def add_passthrough_node(self, key: str, **options: Unpack[NodeOptions]) -> Graph:
        """A node that forwards its input unchanged and fires no callbacks.

        Like Eino's `AddPassthroughNode` it takes every node option: state handlers run around it and
        input/output keys apply as on any node.
        """
        _check_node_options("add_passthrough_node", options)
        self._add(key, "Passthrough", None, options)
        return self

    # -- edges and branches -------------------------------------------------------------------------

    def add_edge(self, source: str, target: str) -> Graph:
        """A control and data edge: `target` is triggered by `source` and receives its output."""
        self._check_open()
        if source == END:
            raise self._fail("END cannot be a start node")
        if target == START:
            raise self._fail("START cannot be an end node")
        if source != START and source not in self.nodes:
            raise self._fail(f"edge start node '{source}' needs to be added to graph first")
        if target != END and target not in self.nodes:
            raise self._fail(f"edge end node '{target}' needs to be added to graph first")
        if (source, target) in self._edge_pairs:
            raise self._fail(f"control edge[{source}]-[{target}] have been added yet")
        self._edge_pairs.add((source, target))
        self.edges.append(EdgeSpec(source, target))
        return self

    def add_branch(self, source: str, branch: Branch) -> Graph:
        """Several branches on one node are evaluated in registration order; their choices are united."""
        self._check_open()
        if source == END:
            raise self._fail("END cannot be a start node")
        if source != START and source not in self.nodes:
            raise self._fail(f"branch start node '{source}' needs to be added to graph first")
        if not branch.ends:
            raise self._fail(f"branch on node '{source}' has no end nodes")
        for target in branch.ends:
            if target == START:
                raise self._fail("START cannot be an end node")
            if target != END and target not in self.nodes:
                raise self._fail(f"branch end node '{target}' needs to be added to graph first")
        branches = self.branches.setdefault(source, [])
        index = len(branches)
        branches.append(branch)
        self.edges.extend(EdgeSpec(source, t, branch, index) for t in branch.ends)
        return self

    # -- compile ------------------------------------------------------------------------------------

    def compile(
        self,
        *,
        name: str | None = None,
        trigger_mode: TriggerMode = TriggerMode.ANY_PREDECESSOR,
        max_run_steps: int | None = None,
        interrupt_before: Iterable[str] = (),
        interrupt_after: Iterable[str] = (),
        checkpoint_store: Any = None,
        fan_in_merge: Mapping[str, FanInMergeConfig] | None = None,
    ) -> CompiledGraph:
        """Validate and freeze the graph (Eino `Compile`); see `graph_core.runner.plan` for the checks.

        `fan_in_merge` maps node keys (END included) to their `FanInMergeConfig` (Eino
        `WithFanInMergeConfig`).
        """
        if self._error is not None:
            raise self._error
        for key, config in (fan_in_merge or {}).items():
            if key != END and key not in self.nodes:
                raise GraphBuildError(f"fan-in merge config for unknown node '{key}'")
            if not isinstance(config, FanInMergeConfig):
                raise GraphBuildError(f"fan-in merge config for node '{key}' must be a FanInMergeConfig")
        compiled = CompiledGraph(
            self,
            name=name,
            trigger_mode=TriggerMode(trigger_mode),
            max_run_steps=max_run_steps,
            interrupt_before=tuple(interrupt_before),
            interrupt_after=tuple(interrupt_after),
            checkpoint_store=checkpoint_store,
            fan_in_merge=dict(fan_in_merge or {}),
        )
        self._compiled = True
        return compiled
