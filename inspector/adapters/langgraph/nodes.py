"""What a LangGraph node runs, as graph_core's `TopologyNode` says it: its kind, its tools, its model.

A node's runnable is looked at, never run: a compiled subgraph is a `Graph`, a prebuilt `ToolNode` a
`ToolsNode` with its tools described as the model is told about them, the model node of the prebuilt
agents (`langgraph.prebuilt.create_react_agent`'s `agent`, `langchain.agents.create_agent`'s `model`) a
`ChatModel` with the model's class and name, any other node a `Lambda` with its function's qualname.
"""

from __future__ import annotations

import inspect
from typing import Any

from graph_core.topology import ModelSpec, ToolSpec
from inspector.adapters.detect import is_langgraph

__all__ = ["model_spec", "node_function", "node_kind", "tool_specs"]

_MODEL_NODES = {
    # (module of the node function, end of its qualname): the prebuilt agents' model nodes
    ("langgraph.prebuilt.chat_agent_executor", "call_model"),
    ("langchain.agents.factory", "model_node"),
}


def _func(runnable: Any) -> Any:
    return getattr(runnable, "func", None) or getattr(runnable, "afunc", None)


def node_kind(runnable: Any) -> str:
    """graph_core's component string for a LangGraph node: `Graph` for a compiled subgraph, `ToolsNode`
    for a prebuilt `ToolNode`, `ChatModel` for a prebuilt agent's model node, else `Lambda`."""
    if is_langgraph(runnable):
        return "Graph"
    names = {cls.__name__ for cls in type(runnable).__mro__ if cls.__module__.startswith("langgraph.")}
    if "ToolNode" in names:
        return "ToolsNode"
    func = _func(runnable)
    qualname = getattr(func, "__qualname__", "")
    module = getattr(func, "__module__", "")
    if any(module == m and qualname.endswith(q) for m, q in _MODEL_NODES):
        return "ChatModel"
    return "Lambda"


def tool_specs(tool_node: Any) -> tuple[ToolSpec, ...]:
    """A `ToolNode`'s tools as the model is told about them (OpenAI function format's parameters)."""
    from langchain_core.utils.function_calling import convert_to_openai_tool

    specs: list[ToolSpec] = []
    for name, tool in (getattr(tool_node, "tools_by_name", None) or {}).items():
        try:
            function = convert_to_openai_tool(tool)["function"]
        except Exception:  # a tool LangChain cannot describe: its name is still worth showing
            function = {}
        specs.append(
            ToolSpec(
                name=str(name),
                description=str(function.get("description") or getattr(tool, "description", "") or ""),
                parameters=dict(function.get("parameters") or {}),
                return_directly=bool(getattr(tool, "return_direct", False)),
            )
        )
    return tuple(specs)


def node_function(runnable: Any) -> str | None:
    """The node function's `__qualname__`, when the node wraps a plain function: without the module,
    as for graph_core's lambda nodes (docs/topology.md), so it does not depend on how the file was
    imported."""
    qualname = getattr(_func(runnable), "__qualname__", None)
    return qualname if isinstance(qualname, str) and qualname else None


def model_spec(runnable: Any) -> ModelSpec | None:
    """The chat model a prebuilt agent's model node calls, found in the node function's closure
    (`create_agent`'s `model`, `create_react_agent`'s `static_model`, a prompt piped into the model with
    its tools bound): its class, its model name when it has one, and the names of the tools bound to it
    (`create_agent` binds its `tools` at each call). None when the model is chosen at run time (a
    dynamic model) or the closure holds none."""
    func = _func(runnable)
    try:
        found = inspect.getclosurevars(func).nonlocals if func is not None else {}
    except (TypeError, ValueError):
        return None
    model: Any = None
    bound: tuple[str, ...] = ()
    for name in ("model", "static_model"):
        model, bound = _unwrap(found.get(name))
        if model is not None:
            break
    if model is None:
        return None
    if not bound:
        bound = tuple(
            str(getattr(t, "name", "")) for t in found.get("default_tools") or () if hasattr(t, "name")
        )
    settings = {
        key: str(value)
        for key in ("model_name", "model")
        if isinstance(value := getattr(model, key, None), str) and value
    }
    if "model_name" in settings:  # one name, under the key graph_core's models use
        settings = {"model": settings["model_name"]}
    return ModelSpec(class_name=type(model).__name__, settings=settings, tools=bound)


def _unwrap(value: Any) -> tuple[Any, tuple[str, ...]]:
    """The chat model inside `value` (itself, the last step of a `prompt | model` sequence, or what a
    `bind_tools` binding wraps) and the names of the tools a binding holds."""
    from langchain_core.language_models import BaseChatModel

    bound: tuple[str, ...] = ()
    for _ in range(8):  # sequences and bindings nest only a few levels deep
        if isinstance(value, BaseChatModel):
            return value, bound
        kwargs = getattr(value, "kwargs", None)
        if isinstance(kwargs, dict) and not bound:
            bound = tuple(_tool_name(t) for t in kwargs.get("tools") or ())  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
        inner = getattr(value, "bound", None) or getattr(value, "last", None)
        if inner is None:
            return None, ()
        value = inner
    return None, ()


def _tool_name(tool: Any) -> str:
    """A bound tool's name: OpenAI format (`{"function": {"name": ...}}`) or a tool object."""
    if isinstance(tool, dict):
        function: Any = tool.get("function") or {}  # pyright: ignore[reportUnknownMemberType]
        return str(function.get("name") or tool.get("name") or "")  # pyright: ignore[reportUnknownMemberType]
    return str(getattr(tool, "name", ""))
