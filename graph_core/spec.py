"""The records a graph is built from, as the compiler reads them: nodes, edges, fan-in configs.

`graph_core.graph.Graph` fills them in as `add_*` calls come; `graph_core.runner.plan` reads them to
compile. They live here, under both, so the imports run one way (builder -> runner -> these records):
the runner reads a builder through `GraphSpec`, a shape any object with these attributes has, and never
imports the builder back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from graph_core.branch import Branch
from graph_core.lambda_ import Executable

__all__ = ["EdgeSpec", "FanInMergeConfig", "GraphSpec", "Handler", "NodeSpec"]

Handler = Callable[[Any, Any], Any]
"""A state handler: `pre(input, state) -> input` or `post(output, state) -> output`."""


@dataclass(frozen=True, slots=True)
class FanInMergeConfig:
    """How streams fanning into one node are merged (Eino `FanInMergeConfig`), per node at compile time.

    With `stream_merge_with_source_eof`, the merged input stream carries a `graph_core.stream.SourceEOF`
    chunk named by the predecessor's key each time one predecessor's stream ends, so a transform node
    can tell its sources apart. Concatenation skips the markers. Invoke mode ignores the option.
    """

    stream_merge_with_source_eof: bool = False


@dataclass(slots=True)
class NodeSpec:
    """One node as added: what it runs and its options. `graph` is set for nested-graph nodes.

    `component` is what the user passed (the function or `Lambda`, the chat model, the ToolsNode); only
    the topology reads it, to say which tools, model or function the node runs.
    """

    key: str
    kind: str
    name: str = ""
    executable: Executable | None = None
    graph: Any = None  # the nested builder (a `Graph`): anything with `compile(**compile_options)`
    pre: Handler | None = None
    post: Handler | None = None
    input_key: str | None = None
    output_key: str | None = None
    compile_options: dict[str, Any] = field(default_factory=lambda: {})
    component: Any = None


@dataclass(frozen=True, slots=True)
class EdgeSpec:
    """An added edge (`branch` is None) or one end of a branch (its index among the source's branches)."""

    source: str
    target: str
    branch: Branch | None = None
    branch_index: int | None = None


class GraphSpec(Protocol):
    """What compiling and running read of a graph under construction (`graph_core.graph.Graph`)."""

    @property
    def state_factory(self) -> Callable[[], Any] | None: ...

    @property
    def nodes(self) -> Mapping[str, NodeSpec]: ...

    @property
    def edges(self) -> Sequence[EdgeSpec]: ...

    @property
    def branches(self) -> Mapping[str, Sequence[Branch]]: ...
