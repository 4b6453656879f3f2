"""Tool aliases for a ToolsNode (Eino `ToolAliasConfig`, `compose/tool_node.go`): other names a model
may call a tool by, and other keys it may give an argument under.

A call by a name alias runs the canonical tool (the tool message keeps the name the model used, as in
Eino); argument aliases are renamed to their canonical keys in the call's top-level JSON object before
the arguments handler and the tool see it. A key given both ways keeps the canonical value and passes
the alias through untouched; arguments that are not a JSON object are left alone. Configurations are
checked when the node is built: empty names, an alias taken by another tool, an argument alias that is
already one of the tool's parameters, or one given for two keys.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from graph_core.schema import ToolInfo

__all__ = ["ToolAliasConfig", "ToolAliases", "remap_arguments"]


@dataclass(frozen=True, slots=True)
class ToolAliasConfig:
    """One tool's aliases: `name_aliases`, and `arguments_aliases` (canonical key -> its aliases)."""

    name_aliases: Sequence[str] = ()
    arguments_aliases: Mapping[str, Sequence[str]] = field(default_factory=lambda: {})


@dataclass(frozen=True, slots=True)
class ToolAliases:
    """A node's alias tables: called name -> canonical name, canonical name -> {alias key: canonical key}."""

    names: Mapping[str, str]
    arguments: Mapping[str, Mapping[str, str]]

    @classmethod
    def build(cls, infos: Sequence[ToolInfo], configs: Mapping[str, ToolAliasConfig]) -> ToolAliases:
        """Validate `configs` against the tools (configs for tools not in the node are ignored)."""
        by_name = {info.name: info for info in infos}
        names: dict[str, str] = {name: name for name in by_name}
        arguments: dict[str, dict[str, str]] = {}
        for tool_name in sorted(configs):
            if tool_name not in by_name:
                continue
            config = configs[tool_name]
            for alias in config.name_aliases:
                if not alias.strip():
                    raise ValueError(f"tool '{tool_name}' has empty name alias")
                owner = names.get(alias)
                if owner is not None and owner != tool_name:
                    if alias == owner:
                        raise ValueError(
                            f"tool '{tool_name}': name alias '{alias}' conflicts with existing tool's "
                            "canonical name"
                        )
                    raise ValueError(
                        f"tool '{tool_name}': name alias '{alias}' conflicts with an alias already "
                        f"registered for tool '{owner}'"
                    )
                names[alias] = tool_name
            if config.arguments_aliases:
                arguments[tool_name] = _argument_aliases(by_name[tool_name], config.arguments_aliases)
        return cls(names, arguments)


def _argument_aliases(info: ToolInfo, aliases: Mapping[str, Sequence[str]]) -> dict[str, str]:
    name = info.name
    properties = set((info.parameters.get("properties") or {}).keys())
    reverse: dict[str, str] = {}
    for canonical in sorted(aliases):
        if not canonical.strip():
            raise ValueError(f"tool '{name}' has empty canonical argument key")
        if "." in canonical:
            raise ValueError(
                f"tool '{name}' has unsupported '.' in canonical argument key '{canonical}': "
                "nested field matching is not yet supported"
            )
        for alias in aliases[canonical]:
            if not alias.strip():
                raise ValueError(f"tool '{name}' has empty argument alias for canonical key '{canonical}'")
            if alias in properties:
                raise ValueError(
                    f"tool '{name}' has arg alias '{alias}' that conflicts with existing schema "
                    f"property '{alias}'"
                )
            if alias in reverse:
                raise ValueError(
                    f"tool '{name}' has conflicting arg alias '{alias}' mapped to both '{reverse[alias]}' "
                    f"and '{canonical}'"
                )
            reverse[alias] = canonical
    return reverse


def remap_arguments(arguments: str, aliases: Mapping[str, str] | None) -> str:
    """`arguments` with alias keys renamed to canonical ones (Eino `remapArgs`)."""
    if not aliases:
        return arguments
    trimmed = arguments.strip()
    if not trimmed.startswith("{"):
        return arguments
    try:
        values = json.loads(arguments)
    except ValueError:
        return arguments
    if not isinstance(values, dict):
        return arguments
    changed = False
    for alias, canonical in aliases.items():
        if alias in values and canonical not in values:
            values[canonical] = values.pop(alias)
            changed = True
    return json.dumps(values, separators=(",", ":")) if changed else arguments
