"""Tools for agents: `@tool` functions, the `ToolsNode` that runs a message's tool calls, and the call scope.

```python
from graph_core.tools import tool, ToolsNode, get_tool_call_id
```
"""

from graph_core.tools.alias import ToolAliasConfig
from graph_core.tools.context import get_tool_call_id
from graph_core.tools.endpoint import BaseTool, ToolInput, ToolMiddleware
from graph_core.tools.errors import (
    ToolArgumentsError,
    ToolCallError,
    ToolError,
    ToolNotFoundError,
    ToolsNodeInputError,
)
from graph_core.tools.function import Tool, tool
from graph_core.tools.index import ToolsNodeOptions
from graph_core.tools.node import ToolsNode

__all__ = [
    "BaseTool",
    "Tool",
    "ToolAliasConfig",
    "ToolArgumentsError",
    "ToolCallError",
    "ToolError",
    "ToolInput",
    "ToolMiddleware",
    "ToolNotFoundError",
    "ToolsNode",
    "ToolsNodeInputError",
    "ToolsNodeOptions",
    "get_tool_call_id",
    "tool",
]
