"""What a fork is made of, shared by graph_core's forks (`inspector.debug.fork`) and LangGraph's
(`inspector.adapters.langgraph.fork`): the checked plan, the result, recorded values decoded back to
live ones, and the first place a rebuilt state differs from the recorded one."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from graph_core.schema import Message
from inspector.debug.controller import Edit
from inspector.errors import DebugError
from inspector.recording import Run
from inspector.recording.valuelist import LISTS
from inspector.target import LoadedTarget

__all__ = ["ForkPlan", "ForkResult", "decode_value", "first_difference", "fork_meta"]

_ROLES = frozenset({"system", "user", "assistant", "tool"})
_MARKERS = ("$repr", "$truncated", "$masked", "$type")


def decode_value(value: Any, where: str = "value") -> Any:
    """A recorded JSON value as the live value it stood for: message-shaped objects (a `role` of
    system/user/assistant/tool) become `Message`s, in lists and mappings too. A value the recording did
    not keep in full (`$repr`, `$truncated`, masked) raises `DebugError`: it cannot be replayed."""
    if isinstance(value, LISTS):  # a recorded history is a `ValueList`
        return [decode_value(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, dict):
        mapping: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
        marker = next((k for k in mapping if k in _MARKERS), None)
        if marker is not None:
            raise DebugError(f"{where} was not recorded in full (`{marker}`), so it cannot be replayed")
        if mapping.get("role") in _ROLES:
            try:
                return Message.model_validate(mapping)
            except ValidationError:
                pass
        return {k: decode_value(v, f"{where}.{k}") for k, v in mapping.items()}
    return value


@dataclass
class ForkPlan:
    """Everything a fork needs, checked before anything runs (see `inspector.debug.fork.plan_fork`)."""

    parent: Run
    step: int
    target: LoadedTarget
    input: Any
    presets: list[dict[str, Any]]
    sets: list[tuple[str, Any]] = field(default_factory=lambda: [])
    recorded_edits: list[tuple[int, str, Any]] = field(default_factory=lambda: [])
    model_answer: Message | None = None
    chat_nodes: frozenset[str] = frozenset()
    mode: str = "invoke"


@dataclass(frozen=True)
class ForkResult:
    output: Path
    status: str
    steps: int
    edits: list[Edit]
    error: BaseException | None
    replayed_edits: int = 0  # how many of `edits` are the parent's own, applied again


def first_difference(a: Any, b: Any, where: str = "state") -> str | None:
    """Where the rebuilt value `a` first differs from the recorded `b` (both plain JSON), in words, or
    None when they are equal: what a refused fork names."""
    if isinstance(a, dict) and isinstance(b, dict):
        da: dict[str, Any] = a  # pyright: ignore[reportUnknownVariableType]
        db: dict[str, Any] = b  # pyright: ignore[reportUnknownVariableType]
        for key in [*da, *(k for k in db if k not in da)]:
            if key not in da or key not in db:
                return f"{where}.{key} is {'missing' if key not in da else 'extra'} in the rebuilt run"
            found = first_difference(da[key], db[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        la: list[Any] = a  # pyright: ignore[reportUnknownVariableType]
        lb: list[Any] = b  # pyright: ignore[reportUnknownVariableType]
        if len(la) != len(lb):
            return f"{where} has {len(la)} items in the rebuilt run, {len(lb)} in the recording"
        for i, (x, y) in enumerate(zip(la, lb, strict=True)):
            found = first_difference(x, y, f"{where}[{i}]")
            if found:
                return found
        return None
    if a != b:
        return f"{where} is {json.dumps(a)[:80]} in the rebuilt run, {json.dumps(b)[:80]} in the recording"
    return None


def fork_meta(plan: ForkPlan) -> dict[str, Any]:
    """The fork's header `meta`: the TARGET and mode it ran with, and `fork` (parent file, parent run
    id, step, whether a model answer was given), which `diff` aligns the fork on (`fork_point`)."""
    parent = plan.parent
    fork: dict[str, Any] = {"parent": str(parent.path), "parent_run_id": parent.run_id, "step": plan.step}
    if plan.model_answer is not None:
        fork["model_answer"] = True
    return {"target": plan.target.spec, "mode": plan.mode, "fork": fork}
