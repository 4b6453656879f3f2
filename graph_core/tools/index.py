"""A ToolsNode's dispatch table (name -> endpoints), built from its tools and aliases, and per run from
the run's `ToolsNodeOptions` (Eino `WithToolList`, `WithToolAliases`).

Per-run options, as in Eino: `tool_list` replaces the node's tools for the run (the aliases configured
on the node still apply to the tools of that list that they name); `tool_aliases` replaces the node's
alias configuration (with or without a tool list). A run passes them as
`compiled.invoke(..., tools_node_options=ToolsNodeOptions(...))`, which reaches every ToolsNode of the
top-level graph, or `compiled.invoke(..., options=[with_tools_node_options(ToolsNodeOptions(...))])`
(`graph_core.call_options`), which reaches every ToolsNode, nested ones too, or the designated ones, or
calls a node directly with `node.invoke(message, options=...)`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from graph_core.schema import ToolInfo
from graph_core.tools.alias import ToolAliasConfig, ToolAliases
from graph_core.tools.endpoint import Endpoints, ToolMiddleware, build_endpoints, direct_invoke
from graph_core.tools.function import Tool

__all__ = ["ToolIndex", "ToolsNodeOptions"]


@dataclass(frozen=True, slots=True)
class ToolsNodeOptions:
    """Per-run options of ToolsNodes (see the module docstring); None leaves the node's own.

    `tool_options` are values for the tools themselves (Eino `WithToolOption`), which a tool reads with
    `graph_core.call_options.tool_options()`.
    """

    tool_list: Sequence[Any] | None = None
    tool_aliases: Mapping[str, ToolAliasConfig] | None = None
    tool_options: Sequence[Any] | None = None

    def merged(self, later: ToolsNodeOptions) -> ToolsNodeOptions:
        """These options with `later`'s applied over them, as Eino applies option functions in order:
        a later tool list or alias configuration replaces, tool options add up."""
        return ToolsNodeOptions(
            later.tool_list if later.tool_list is not None else self.tool_list,
            later.tool_aliases if later.tool_aliases is not None else self.tool_aliases,
            [*(self.tool_options or ()), *(later.tool_options or ())] or None,
        )


@dataclass(frozen=True, slots=True)
class ToolIndex:
    """Tools in order, endpoints by every callable name (canonical names and name aliases), aliases;
    `direct`: the tools' own `invoke(arguments)` by name, when no alias or middleware stands between
    a call and the tool (`endpoint.direct_invoke`; the tools without one are left out), else None."""

    tools: list[Any]
    endpoints: dict[str, Endpoints]
    aliases: ToolAliases | None
    direct: dict[str, Callable[[str], Any]] | None = None

    @classmethod
    def build(
        cls,
        tools: Sequence[Any],
        middlewares: Sequence[ToolMiddleware],
        alias_configs: Mapping[str, ToolAliasConfig] | None,
    ) -> ToolIndex:
        objects: list[Any] = []
        endpoints: dict[str, Endpoints] = {}
        direct: dict[str, Callable[[str], Any]] | None = None if middlewares or alias_configs else {}
        for idx, item in enumerate(tools):
            # Plain functions become tools.
            tool_obj: Any = item if hasattr(item, "info") else Tool(cast(Callable[..., Any], item))
            info = getattr(tool_obj, "info", None)
            if not isinstance(info, ToolInfo):
                raise TypeError(
                    f"(NewToolNode) failed to get tool info at idx= {idx}: `.info` is not a ToolInfo"
                )
            if info.name in endpoints:
                raise ValueError(f"duplicate tool name `{info.name}` at idx= {idx}")
            objects.append(tool_obj)
            endpoints[info.name] = build_endpoints(tool_obj, middlewares)
            if direct is not None and (method := direct_invoke(tool_obj, middlewares)) is not None:
                direct[info.name] = method
        aliases = ToolAliases.build([t.info for t in objects], alias_configs) if alias_configs else None
        if aliases is not None:
            for alias, canonical in aliases.names.items():
                endpoints.setdefault(alias, endpoints[canonical])
        return cls(objects, endpoints, aliases, direct)
