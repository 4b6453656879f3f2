"""Per-call options: component options and callbacks for one run, addressed to nodes (Eino `compose.Option`).

```python
compiled.invoke(messages, options=[
    with_chat_model_options(ChatModelOptions(model="gpt-4o")).designate_node("chat"),
    with_chat_model_options(ChatModelOptions(temperature=0.0)),        # every chat model node
    with_lambda_options("strict").designate_node_with_path(("sub", "parse")),  # a node of a nested graph
    with_callbacks(tracer).designate_node("tools"),                    # that node (and what runs inside)
])
```

An option without a designation reaches every node of its kind (chat models, lambdas, ToolsNodes), nested
graphs included; `designate_node(*keys)` addresses nodes of the top-level graph, and
`designate_node_with_path(*paths)` nodes inside nested graphs (a path of node keys, outermost first).
Callbacks without a designation observe the whole run, as `callbacks=` does; designated ones observe the
node at the path and everything that runs inside it (a nested graph's nodes, a ToolsNode's tool calls).

A component learns its options from the run it is in, as it learns its tool call ID: `node_options()`
inside a node gives the values addressed to it, in the order the options were given (a lambda's
options, Eino `InvokableLambdaWithOption`); `chat_model_options()` merges a chat model's into one
`ChatModelOptions` (Eino `model.GetCommonOptions`); `tool_options()` inside a tool gives the tool
options of its ToolsNode (Eino `WithToolOption`). A ToolsNode applies its `ToolsNodeOptions` (tool list,
aliases) itself.

A node that calls a component may add options for that call, after the run's (Eino passes a Go model
call its options as arguments): `with added_options("ChatModel", ChatModelOptions(max_tokens=8192)):`
around the call. The ADK `ChatModelAgent` adds its tool list this way, and its retry layer a
`RetryDecision`'s `additional_options`.

Designations are checked when the run starts, as Eino's `extractOption`: an unknown node, a path into a
node that is not a graph, or an option of another kind than the node's is a `GraphRunError`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextvars import ContextVar, Token
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from graph_core.context import current_scope
from graph_core.errors import GraphRunError
from graph_core.schema import ToolInfo

__all__ = [
    "CallOption",
    "ChatModelOptions",
    "OptionKind",
    "ResolvedOptions",
    "added_options",
    "chat_model_options",
    "node_options",
    "resolve_options",
    "tool_options",
    "with_callbacks",
    "with_chat_model_options",
    "with_lambda_options",
    "with_tools_node_options",
]

OptionKind = Literal["ChatModel", "Lambda", "ToolsNode", "callbacks"]
EXTRAS_KEY = "call_options"  # RunScope.extras key of the run's `ResolvedOptions`


@dataclass(frozen=True, slots=True)
class ChatModelOptions:
    """A chat model's per-call options (Eino `model.Options`); None leaves the model's own setting."""

    model: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    top_p: float | None = None
    stop: Sequence[str] | None = None
    tools: Sequence[ToolInfo] | None = None
    tool_choice: str | None = None

    def merged(self, later: ChatModelOptions) -> ChatModelOptions:
        """These options with `later`'s set fields applied over them."""
        changes = {
            f.name: getattr(later, f.name) for f in fields(later) if getattr(later, f.name) is not None
        }
        return replace(self, **changes)


@dataclass(frozen=True, slots=True)
class CallOption:
    """Values for components of one kind (or callbacks), for every such node or the designated ones."""

    kind: OptionKind
    values: tuple[Any, ...]
    paths: tuple[tuple[str, ...], ...] = field(default=())

    def designate_node(self, *keys: str) -> CallOption:
        """Address the option to these nodes of the top-level graph (Eino `DesignateNode`)."""
        return self.designate_node_with_path(*((key,) for key in keys))

    def designate_node_with_path(self, *paths: Sequence[str]) -> CallOption:
        """Address the option to the nodes at these paths, outermost key first (Eino
        `DesignateNodeWithPath(NewNodePath(...))`)."""
        return replace(self, paths=(*self.paths, *(tuple(path) for path in paths)))


def with_chat_model_options(*options: ChatModelOptions) -> CallOption:
    """Options for chat model nodes (Eino `WithChatModelOption`)."""
    return CallOption("ChatModel", options)


def with_lambda_options(*values: Any) -> CallOption:
    """Options for lambda nodes: any values, which the lambda reads with `node_options()` (Eino
    `WithLambdaOption`)."""
    return CallOption("Lambda", values)


def with_tools_node_options(*options: Any) -> CallOption:
    """`graph_core.tools.ToolsNodeOptions` for ToolsNodes: a tool list, aliases, tool options (Eino
    `WithToolsNodeOption`)."""
    return CallOption("ToolsNode", options)


def with_callbacks(*handlers: Any) -> CallOption:
    """Callbacks for the run, or for the designated nodes and what runs inside them (Eino `WithCallbacks`)."""
    return CallOption("callbacks", handlers)


@dataclass(frozen=True, slots=True)
class ResolvedOptions:
    """A run's component options, checked against its graph; `for_node` answers per node path."""

    options: tuple[CallOption, ...]

    def for_node(self, path: tuple[str, ...], kind: str) -> list[Any]:
        """The values addressed to the node at `path` (of component `kind`), in option order."""
        out: list[Any] = []
        for option in self.options:
            if not option.paths:
                wanted = option.kind == kind
            else:  # the node itself, or a node of its kind inside a designated nested graph
                wanted = any(
                    path == p or (option.kind == kind and len(path) > len(p) and path[: len(p)] == p)
                    for p in option.paths
                )
            if wanted:
                out.extend(option.values)
        return out


class _Designated:
    """Callbacks observing only what runs at or under one node path: each callback method is called
    when its info's (`RunInfo`'s or `StepInfo`'s) path starts with that path."""

    def __init__(self, handler: Any, path: tuple[str, ...]) -> None:
        self._handler = handler
        self._path = path

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name == "on_step_boundary":  # boundaries are the top-level run's
            raise AttributeError(name)
        method = getattr(self._handler, name)
        path, size = self._path, len(self._path)

        def observe(info: Any, *rest: Any) -> Any:
            if tuple(getattr(info, "path", ())[:size]) == path:
                return method(info, *rest)
            for value in rest:  # a stream copy handed to an observer that does not want it
                close = getattr(value, "close", None)
                if isinstance(value, Iterator) and callable(close):
                    close()
            return None

        return observe


def _where(path: tuple[str, ...]) -> str:
    return "[" + " ".join(path) + "]"


def _check(compiled: Any, option: CallOption, path: tuple[str, ...]) -> None:
    """Eino `extractOption`'s checks of one designation, walking into nested graphs."""
    if not path:
        raise GraphRunError("call option has designated an empty path")
    plan = compiled.plan
    for depth, key in enumerate(path):
        node = plan.nodes.get(key)
        if node is None or node.kind in ("start", "end"):
            raise GraphRunError(f"option has designated an unknown node: {_where(path)}")
        last = depth == len(path) - 1
        if node.graph is not None:
            if last:
                return  # a nested graph takes every kind: it hands the option on to its nodes
            plan = node.graph.plan
            continue
        if not last:
            raise GraphRunError(f"cannot designate sub path of a component, path:{_where(path)}")
        if option.kind != "callbacks" and option.kind != node.kind:
            raise GraphRunError(
                f"option type[{option.kind}] is different from which the designated node"
                f"[{_where(path)}] expects[{node.kind}]"
            )


def resolve_options(
    compiled: Any, options: Iterable[CallOption], *, base: tuple[str, ...] = ()
) -> tuple[list[Any], ResolvedOptions]:
    """A run's callbacks from its options (designated ones wrapped to observe their nodes only) and its
    component options, after checking every designation against `compiled`'s graph. `base` is the
    run's `parent_path` (a run inside another run's node): its node paths start with it, designations
    do not."""
    callbacks: list[Any] = []
    components: list[CallOption] = []
    for option in options:
        if not isinstance(option, CallOption):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"options must be CallOptions (with_... functions), got {type(option).__name__}")
        for path in option.paths:
            _check(compiled, option, path)
        if base and option.paths:
            option = replace(option, paths=tuple((*base, *path) for path in option.paths))
        if option.kind != "callbacks":
            components.append(option)
        elif not option.paths:
            callbacks.extend(option.values)
        else:
            callbacks.extend(_Designated(h, path) for path in option.paths for h in option.values)
    return callbacks, ResolvedOptions(tuple(components))


def _scope_options() -> tuple[tuple[str, ...], ResolvedOptions | None]:
    scope = current_scope()
    if scope is None:
        return (), None
    return scope.path, scope.extras.get(EXTRAS_KEY)


# What the code running now added for the components it calls: (kind, value) pairs, oldest first.
_ADDED: ContextVar[tuple[tuple[str, Any], ...]] = ContextVar("graph_core_added_options", default=())


class added_options:  # lower case, as `contextlib.suppress`: it reads as a function in `with`
    """Inside the block, `node_options(kind)` also gives `values`, after the run's options and what an
    enclosing block added: the options a node passes to the component call it makes (see the module
    docstring). A class, not a generator: the agent's model node enters one per model call."""

    __slots__ = ("_pairs", "_token")

    def __init__(self, kind: OptionKind, *values: Any) -> None:
        self._pairs = tuple((kind, value) for value in values)
        self._token: Token[tuple[tuple[str, Any], ...]] | None = None

    def __enter__(self) -> None:
        if self._pairs:
            self._token = _ADDED.set(_ADDED.get() + self._pairs)

    def __exit__(self, *_exc: object) -> None:
        if self._token is not None:
            _ADDED.reset(self._token)
            self._token = None


def node_options(kind: str = "Lambda") -> list[Any]:
    """Inside a node: the option values this run addresses to it (designated to its path, or to every
    node of its `kind`), in the order given, then those `added_options` gives for the call being made;
    [] outside a run or without options."""
    path, resolved = _scope_options()
    values = [] if resolved is None else resolved.for_node(path, kind)
    added = _ADDED.get()
    if added:
        values.extend(value for added_kind, value in added if added_kind == kind)
    return values


def chat_model_options(defaults: ChatModelOptions | None = None) -> ChatModelOptions:
    """Inside a chat model: its per-call options merged in order over `defaults` (Eino
    `model.GetCommonOptions`)."""
    merged = defaults or ChatModelOptions()
    for option in node_options("ChatModel"):
        if isinstance(option, ChatModelOptions):
            merged = merged.merged(option)
    return merged


def tool_options() -> list[Any]:
    """Inside a tool: the tool options of the ToolsNode running it (Eino `WithToolOption`), in order."""
    out: list[Any] = []
    for option in node_options("ToolsNode"):
        out.extend(getattr(option, "tool_options", None) or ())
    return out
