"""The compiled, read-only shape a runner walks: per-node successors, branches and predecessors.

`build_plan` performs Eino's compile checks (start/end set, DAG loops, max steps) and resolves nested
graphs by compiling them with their own options. Nothing here changes during a run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from graph_core.branch import Branch
from graph_core.errors import GraphBuildError
from graph_core.lambda_ import Executable
from graph_core.spec import FanInMergeConfig, GraphSpec, NodeSpec
from graph_core.topology import END, START, Topology, TriggerMode

__all__ = ["NestedGraph", "NodePlan", "Plan", "build_plan"]


class NestedGraph(Protocol):
    """What a run needs of a graph embedded as a node: a `CompiledGraph`, seen through this shape so
    the runner's modules never import the one that builds it (`parent` is the embedding `RunContext`,
    `record` the node's interrupt record on a rerun)."""

    @property
    def plan(self) -> Plan: ...

    def topology(self) -> Topology: ...

    def run_nested_sync(self, input: Any, parent: Any, key: str, record: Any = None) -> Any: ...

    async def run_nested_async(self, input: Any, parent: Any, key: str, record: Any = None) -> Any: ...


@dataclass(slots=True, eq=False)
class NodePlan:
    """A node as the runner sees it. `order` is insertion order (START is -1, END is last)."""

    key: str
    kind: str
    name: str
    order: int
    executable: Executable | None = None
    graph: NestedGraph | None = None
    pre: Any = None
    post: Any = None
    input_key: str | None = None
    output_key: str | None = None
    successors: tuple[str, ...] = ()  # edge targets, insertion order
    branches: tuple[Branch, ...] = ()
    control_successors: tuple[str, ...] = ()  # edges and every branch end (skip propagation)
    control_predecessors: frozenset[str] = field(default_factory=frozenset)
    # the component's own sync invoke when the task input goes to it as is (no keys, not nested): what an
    # unobserved invoke-mode task calls, found once here rather than on every step (None otherwise)
    direct: Any = field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        executable = self.executable
        if executable is not None and self.plain_io:
            self.direct = executable.invoke

    @property
    def is_passthrough(self) -> bool:
        return self.kind == "Passthrough"

    @property
    def plain_io(self) -> bool:
        """No input or output key and not a nested graph: the component sees the task input as is."""
        return self.input_key is None and self.output_key is None and self.graph is None


@dataclass(slots=True)
class Plan:
    nodes: dict[str, NodePlan]  # START and END included
    dag: bool
    max_run_steps: int | None
    has_state: bool
    source_eof: frozenset[str] = frozenset()  # nodes whose merged input streams carry SourceEOF markers


def _find_loops(starts: Sequence[str], successors: dict[str, list[str]]) -> list[list[str]]:
    loops: list[list[str]] = []
    visited: set[str] = set()

    def dfs(path: list[str]) -> None:
        end = path[-1]
        if end in visited:
            return
        visited.add(end)
        for succ in successors.get(end, ()):
            if succ in path:
                loops.append([*path[path.index(succ) :], succ])
                continue
            dfs([*path, succ])

    for node in starts:
        if node not in visited:
            dfs([node])
    return loops


def _check_dag(keys: Sequence[str], successors: dict[str, list[str]]) -> None:
    """Kahn's algorithm over control edges and branch ends (END ignored); leftovers sit on loops."""
    indegree = dict.fromkeys(keys, 0)
    for targets in successors.values():
        for target in targets:
            if target in indegree:
                indegree[target] += 1
    ready = [k for k in keys if indegree[k] == 0]
    while ready:
        node = ready.pop()
        for target in successors.get(node, ()):
            if target in indegree:
                indegree[target] -= 1
                if indegree[target] == 0:
                    ready.append(target)
    left = [k for k in keys if indegree[k] > 0]
    if left:
        loops = _find_loops(left, successors)
        text = "".join("[" + "->".join(loop) + "]" for loop in loops)
        raise GraphBuildError(f"DAG is invalid, has loop: {text}")


def _resolve_max_steps(dag: bool, max_run_steps: int | None, node_count: int) -> int | None:
    if dag:
        if max_run_steps:
            raise GraphBuildError("cannot set max run steps in dag mode")
        return None
    return max_run_steps if max_run_steps else node_count + 10


def _nested(spec: NodeSpec) -> NestedGraph:
    """The nested builder compiled with its node's compile options (its own name by default)."""
    graph = spec.graph
    options = dict(spec.compile_options)
    if not options.get("name"):
        options["name"] = spec.key
    return graph.compile(**options)


def build_plan(
    graph: GraphSpec,
    *,
    trigger_mode: TriggerMode,
    max_run_steps: int | None,
    fan_in_merge: Mapping[str, FanInMergeConfig] | None = None,
) -> Plan:
    """Eino's compile checks in Eino's order, then the per-node routing tables."""
    targets = [e.target for e in graph.edges]
    if not any(e.source == START for e in graph.edges):
        raise GraphBuildError("start node not set")
    if END not in targets:
        raise GraphBuildError("end node not set")
    nested = {key: _nested(spec) for key, spec in graph.nodes.items() if spec.kind == "Graph"}
    dag = trigger_mode == TriggerMode.ALL_PREDECESSOR

    control: dict[str, list[str]] = {START: []}
    edges: dict[str, list[str]] = {START: []}
    preds: dict[str, set[str]] = {END: set()}
    for key in graph.nodes:
        control[key], edges[key], preds[key] = [], [], set()
    for edge in graph.edges:
        if edge.target not in control[edge.source]:
            control[edge.source].append(edge.target)
        if edge.branch is None:
            edges[edge.source].append(edge.target)
        preds[edge.target].add(edge.source)
    if dag:
        _check_dag([START, *graph.nodes], {k: [t for t in v if t != END] for k, v in control.items()})
    steps = _resolve_max_steps(dag, max_run_steps, len(graph.nodes))

    nodes: dict[str, NodePlan] = {
        START: NodePlan(START, "start", "", -1),
    }
    for order, (key, spec) in enumerate(graph.nodes.items()):
        nodes[key] = NodePlan(
            key,
            spec.kind,
            spec.name,
            order,
            executable=spec.executable,
            graph=nested.get(key),
            pre=spec.pre,
            post=spec.post,
            input_key=spec.input_key,
            output_key=spec.output_key,
        )
    nodes[END] = NodePlan(END, "end", "", len(graph.nodes))
    for key, node in nodes.items():
        if key == END:
            node.control_predecessors = frozenset(preds[END])
            continue
        node.successors = tuple(edges[key])
        node.branches = tuple(graph.branches.get(key, ()))
        node.control_successors = tuple(control[key])
        node.control_predecessors = frozenset(preds.get(key, ()))
    eof = frozenset(k for k, c in (fan_in_merge or {}).items() if c.stream_merge_with_source_eof)
    return Plan(
        nodes=nodes, dag=dag, max_run_steps=steps, has_state=graph.state_factory is not None, source_eof=eof
    )
