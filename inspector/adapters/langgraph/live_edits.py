"""Edits of a held LangGraph run, made with LangGraph's `update_state`.

At a stop (`inspector.adapters.langgraph.live`) the debugger sees the state as recordings show it:
LangChain messages as graph_core `Message`s. An edit (`state.PATH = VALUE`) is typed as for graph_core
(`inspector.debug.paths.replace_at`: the value is rebuilt and validated against the type it had),
then the changed channel is written back to LangGraph:

- the new value is made LangGraph's again: items of a list left as they were stay the very objects
  LangGraph holds (with their ids), an edited `Message` becomes the LangChain message of its role,
  keeping the id and metadata of the message it replaces;
- it is written with `update_state(..., as_node=LAST)`, LAST being the node that ran the step before
  the stop (`__start__` before step 0), so LangGraph runs that node's writers again on the edited
  state: its edges and conditional edges are evaluated anew, and the next step is what the graph
  would do after such a node output (an assistant message edited to call no tool sends a ReAct agent
  to its end instead of its tools). Several nodes in that step: one `bulk_update_state` superstep,
  the edit as the first node's update, the others with none, so their edges fire again too;
- a channel with a reducer (`add_messages`, `operator.add`) is written as `Overwrite(value)`, so the
  edited value replaces the channel's value instead of being merged into it.

The boundary then shows LangGraph's state and next nodes as they are after the update. A node's input
is not editable: a LangGraph node reads the state (or what a `Send` gave it), so edits name the state.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graph_core.callbacks import Boundary
from graph_core.schema import Message
from inspector.adapters.langgraph.messages import Neutralizer
from inspector.debug.paths import get_at, parse_path, plain, replace_at
from inspector.errors import DebugError

__all__ = ["LiveBoundary", "neutral_state", "next_nodes", "to_langchain"]

_PUSH = "__pregel_push"  # the first part of a `Send` task's path (LangGraph's PUSH)


def neutral_state(values: Any) -> Any:
    """LangGraph's state values as the debugger edits them: a private copy, messages as `Message`s."""
    return copy.deepcopy(Neutralizer().value(dict(values) if isinstance(values, Mapping) else values))  # pyright: ignore[reportUnknownArgumentType]


def next_nodes(snapshot: Any) -> list[str]:
    """The nodes of a snapshot's next tasks in the order LangGraph's loop runs and streams them: the
    `Send` tasks first, then the triggered nodes by name (`get_state` lists those in graph order)."""
    pushed = [str(t.name) for t in snapshot.tasks if t.path and t.path[0] == _PUSH]
    pulled = sorted(str(t.name) for t in snapshot.tasks if not (t.path and t.path[0] == _PUSH))
    return [*pushed, *pulled]


@dataclass
class LiveBoundary(Boundary):
    """A boundary of a held LangGraph run; `apply_edit` (used by the controller's edits) writes through
    `update_state` and refreshes `state` and `pending` from LangGraph."""

    def attach(self, graph: Any, config: dict[str, Any], snapshot: Any, last_nodes: Sequence[str]) -> None:
        self._graph = graph
        self._config = config
        self.snapshot = snapshot
        self._as_nodes = list(dict.fromkeys(last_nodes)) or ["__start__"]

    def apply_edit(self, path_text: str, value: Any) -> tuple[str, Any, Any]:
        """Set the value at `path_text` (plain JSON) in LangGraph's state; (path, old, new) as plain
        values, `new` read back from LangGraph. `DebugError` when the path or value is refused."""
        path = parse_path(path_text)
        if path.root != "state":
            raise DebugError(
                f"path `{path}`: a LangGraph node reads the state (or what a `Send` gave it), so its input "
                f"is not editable: edit the state instead, as in `state.messages[-1].content`"
            )
        if not path.segments:
            raise DebugError(f"path `{path}`: name a field of the state, as in `state.messages`")
        new_root, old = replace_at(self.state, path, value)
        key = path.segments[0]
        assert isinstance(key, str)  # a state's first segment names a channel (replace_at checked it)
        current = self.snapshot.values.get(key)
        update = {key: self._written(key, langgraph_value(new_root[key], self.state[key], current))}
        try:
            if len(self._as_nodes) == 1:
                self._graph.update_state(self._config, update, as_node=self._as_nodes[0])
            else:
                from langgraph.types import StateUpdate

                first, *others = self._as_nodes
                superstep = [StateUpdate(update, first), *(StateUpdate(None, node) for node in others)]
                self._graph.bulk_update_state(self._config, [superstep])
        except Exception as exc:  # LangGraph refused the update: nothing changed
            raise DebugError(
                f"path `{path}`: LangGraph refused the update: {type(exc).__name__}: {exc}"
            ) from exc
        self.snapshot = self._graph.get_state(self._config)
        self.state = neutral_state(self.snapshot.values)
        self.pending[:] = [(n, None) for n in dict.fromkeys(next_nodes(self.snapshot))]
        return path.text, plain(old), plain(get_at(self.state, path))

    def _written(self, key: str, value: Any) -> Any:
        """`value` as written to channel `key`: through `Overwrite` when the channel has a reducer."""
        from langgraph.channels.binop import BinaryOperatorAggregate
        from langgraph.types import Overwrite

        channel = getattr(self._graph, "channels", {}).get(key)
        return Overwrite(value) if isinstance(channel, BinaryOperatorAggregate) else value


def langgraph_value(new: Any, old: Any, current: Any) -> Any:
    """The edited value `new` (neutral; `old` the neutral value it replaces) as LangGraph's, reusing
    `current` (LangGraph's value) where nothing changed."""
    if isinstance(new, Message):
        return to_langchain(new, current)
    if isinstance(new, list) and isinstance(old, list) and isinstance(current, list):
        items: list[Any] = []
        for i, item in enumerate(new):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
            before = old[i] if i < len(old) else None  # pyright: ignore[reportUnknownArgumentType]
            held = current[i] if i < len(current) else None  # pyright: ignore[reportUnknownArgumentType]
            if i < len(current) and item == before:  # pyright: ignore[reportUnknownArgumentType]
                items.append(held)
            else:
                items.append(langgraph_value(item, before, held))
        return items
    return new


def to_langchain(message: Message, like: Any = None) -> Any:
    """The LangChain message for `message`, with the id (and metadata) of `like`, the LangChain
    message it replaces, when `like` is one."""
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

    fields: dict[str, Any] = {"content": message.content}
    if isinstance(like, BaseMessage):
        fields["id"] = like.id
        fields["additional_kwargs"] = dict(like.additional_kwargs)
        fields["response_metadata"] = dict(like.response_metadata)
    if message.name is not None:
        fields["name"] = message.name
    if message.role == "assistant":
        calls = [
            {"id": call.id, "name": call.name, "args": _args(call.arguments, call.name), "type": "tool_call"}
            for call in message.tool_calls
        ]
        usage = message.usage
        if usage is not None:
            fields["usage_metadata"] = {
                "input_tokens": usage.prompt_tokens,
                "output_tokens": usage.completion_tokens,
                "total_tokens": usage.total_tokens,
            }
        return AIMessage(tool_calls=calls, **fields)
    if message.role == "tool":
        if message.tool_name is not None:
            fields["name"] = message.tool_name
        status = "error" if message.extra.get("status") == "error" else "success"
        return ToolMessage(tool_call_id=message.tool_call_id or "", status=status, **fields)
    if message.role == "system":
        return SystemMessage(**fields)
    return HumanMessage(**fields)


def _args(arguments: str, name: str) -> dict[str, Any]:
    """A tool call's JSON `arguments` as LangChain's `args` object."""
    try:
        args = json.loads(arguments or "{}")
    except ValueError as exc:
        raise DebugError(f"the arguments of the call of `{name}` are not JSON: {exc}") from exc
    if not isinstance(args, dict):
        raise DebugError(f"the arguments of the call of `{name}` must be a JSON object, not {arguments}")
    return args  # pyright: ignore[reportUnknownVariableType]
