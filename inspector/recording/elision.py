"""What a step line leaves out, and how a reader puts it back: each rule as a compact/expand pair.

A run file stays small because a step line omits whatever the reader can derive: a budget's step
counts (from the step index and the header's step limit), the budget before a step (the previous
step's), branch decisions' `skipped` ends (the topology's other ends) and `source` (the step's only
node), the next nodes (what the branches chose), node names and kinds (the topology's), and a tool
call's arguments, result and name (the ToolsNode's input and output messages hold them). The recorder
calls the `compact_*` half of each pair, the reader the `expand_*` half, so a rule is written once,
here, beside its inverse; `tests/inspector/test_record_elision.py` checks every pair round-trips.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from graph_core.topology import END
from inspector.recording.format import BranchDecided, BudgetFields, BudgetRecord, replace
from inspector.recording.valuelist import LISTS

__all__ = [
    "CALL_ARGUMENTS",
    "CALL_CONTENT",
    "CALL_MIN_LENGTH",
    "compact_branches",
    "compact_budget",
    "compact_budget_before",
    "compact_budgets",
    "compact_next_nodes",
    "compact_node_names",
    "compact_tool_call",
    "compact_tool_name",
    "counters_into",
    "expand_branches",
    "expand_budget",
    "expand_budget_before",
    "expand_next_nodes",
    "expand_node_names",
    "expand_tool_call",
]

Counters = tuple[Any, ...]
"""(model calls, tool calls, prompt, completion and total tokens, iterations remaining)."""

# --- budgets ---------------------------------------------------------------------------------------


def counters_into(out: dict[str, Any], counters: Counters) -> None:
    """The recorder's counters as stored budget fields (tokens and iterations only once known)."""
    model_calls, tool_calls, prompt, completion, total, iterations = counters
    out["model_calls"] = model_calls
    out["tool_calls"] = tool_calls
    if total is not None:
        out["prompt_tokens"] = prompt
        out["completion_tokens"] = completion
        out["total_tokens"] = total
    if iterations is not None:
        out["iterations_remaining"] = iterations


def compact_budget(
    used: int,
    steps_max: int | None,
    remaining: int | None,
    implied_used: int,
    implied_max: int | None,
    counters: Counters,
) -> dict[str, Any]:
    """A budget as stored: the step fields only when they are not `implied_used` (the step index + 1)
    and `implied_max` (the header's step limit at top level, None nested); `expand_budget` inverts it."""
    if used == implied_used and steps_max == implied_max and counters[4] is None and counters[5] is None:
        return {"model_calls": counters[0], "tool_calls": counters[1]}  # the usual budget: the calls only
    out: dict[str, Any] = {}
    if used != implied_used or steps_max != implied_max:
        out["steps_used"] = used
        out["steps_max"] = steps_max
        out["steps_remaining"] = remaining
    counters_into(out, counters)
    return out


def expand_budget(stored: BudgetFields, implied_used: int, implied_max: int | None) -> BudgetRecord:
    """`compact_budget`'s inverse: the step fields from the index and limit where they were left out."""
    if stored.steps_used is not None:
        used, steps_max, remaining = stored.steps_used, stored.steps_max, stored.steps_remaining
    else:
        used, steps_max = implied_used, implied_max
        remaining = None if steps_max is None else max(steps_max - used, 0)
    return BudgetRecord(
        steps_used=used,
        steps_max=steps_max,
        steps_remaining=remaining,
        model_calls=stored.model_calls,
        tool_calls=stored.tool_calls,
        prompt_tokens=stored.prompt_tokens,
        completion_tokens=stored.completion_tokens,
        total_tokens=stored.total_tokens,
        iterations_remaining=stored.iterations_remaining,
    )


def compact_budget_before(
    used: int,
    steps_max: int | None,
    remaining: int | None,
    index: int,
    implied_max: int | None,
    counters: Counters,
    last_budget: dict[str, Any] | None,
) -> dict[str, Any] | None:
    """The budget before a top-level step as stored, or None when it is what a reader assumes: the
    previous step's counters (`last_budget`, as stored; none used before the first step) with the step
    fields implied by the index. When stored, it carries the step fields too."""
    plain_steps = used == index and steps_max == implied_max
    if plain_steps and counters[4] is None and counters[5] is None:  # the usual step, without dicts
        if last_budget is None:
            if counters[0] == 0 and counters[1] == 0:
                return None
        elif (
            len(last_budget) == 2
            and last_budget["model_calls"] == counters[0]
            and last_budget["tool_calls"] == counters[1]
        ):
            return None
    before: dict[str, Any] = {}
    if not plain_steps:
        before.update(steps_used=used, steps_max=steps_max, steps_remaining=remaining)
    counters_into(before, counters)
    if last_budget is None:
        implied = {"model_calls": 0, "tool_calls": 0}
    else:
        implied = {k: v for k, v in last_budget.items() if not k.startswith("steps_")}
    if before == implied:
        return None
    if "steps_used" not in before:
        before = {"steps_used": used, "steps_max": steps_max, **before}
        before["steps_remaining"] = remaining
    return before


def expand_budget_before(
    stored: BudgetFields | None, previous: BudgetFields | None, index: int, implied_max: int | None
) -> BudgetRecord:
    """`compact_budget_before`'s inverse: as stored, else the previous step's counters (`previous`, None
    for a segment's first step) with the step fields implied by the index."""
    if stored is not None:
        return expand_budget(stored, index, implied_max)
    counters = previous if previous is not None else BudgetFields()
    fields = replace(counters, steps_used=None, steps_max=None, steps_remaining=None)
    return expand_budget(fields, index, implied_max)


def compact_budgets(
    after: Any,
    before: Any | None,
    index: int,
    implied_max: int | None,
    counters: Counters,
    counters_before: Counters | None,
    last_budget: dict[str, Any] | None,
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """A step's budgets as stored: after it (`compact_budget`) and, for a top-level step whose start
    was seen (`before`, the engine's budget then, with `counters_before`), before it
    (`compact_budget_before`); `implied_max` is None for a nested step, which stores no budget before."""
    budget = compact_budget(
        after.steps_used, after.steps_max, after.steps_remaining, index + 1, implied_max, counters
    )
    if before is None or counters_before is None:
        return budget, None
    stored_before = compact_budget_before(
        before.steps_used,
        before.steps_max,
        before.steps_remaining,
        index,
        implied_max,
        counters_before,
        last_budget,
    )
    return budget, stored_before


# --- branches and next nodes -----------------------------------------------------------------------


def compact_branches(
    decisions: Sequence[Any], nodes: Sequence[str], ends: Mapping[tuple[str, int], tuple[str, ...]]
) -> list[dict[str, Any]]:
    """Branch decisions as stored: without `source` when the step ran that node only, `branch_index`
    when 0, and `skipped` when it is the branch's other ends in the topology (`ends[source, index]`,
    the same table `expand_branches` reads)."""
    out: list[dict[str, Any]] = []
    for decision in decisions:
        record: dict[str, Any] = {}
        if len(nodes) != 1 or nodes[0] != decision.source:
            record["source"] = decision.source
        if decision.branch_index:
            record["branch_index"] = decision.branch_index
        record["chosen"] = list(decision.chosen)
        known = ends.get((decision.source, decision.branch_index))
        if known is None or tuple(e for e in known if e not in decision.chosen) != tuple(decision.skipped):
            record["skipped"] = list(decision.skipped)
        out.append(record)
    return out


def expand_branches(
    stored: Sequence[BranchDecided],
    path: list[str],
    index: int,
    nodes: Sequence[str],
    ends: dict[tuple[str, int], tuple[str, ...]],
) -> list[BranchDecided]:
    """`compact_branches`' inverse: `path`, `step`, `source` and `skipped` filled in."""
    out: list[BranchDecided] = []
    for branch in stored:
        source = branch.source or (nodes[0] if len(nodes) == 1 else "")
        skipped = branch.skipped
        if skipped is None:
            skipped = [e for e in ends.get((source, branch.branch_index), ()) if e not in branch.chosen]
        out.append(
            BranchDecided(
                path=path,
                step=index,
                source=source,
                branch_index=branch.branch_index,
                chosen=branch.chosen,
                skipped=skipped,
            )
        )
    return out


def _implied_next(branches: Sequence[Any]) -> list[str]:
    out: list[str] = []
    for decision in branches:
        out.extend(t for t in decision.chosen if t != END and t not in out)
    return out


def compact_next_nodes(next_nodes: Sequence[str], branches: Sequence[Any]) -> list[str] | None:
    """The next nodes as stored: None (left out) when they are what the branches chose, END aside."""
    return None if list(next_nodes) == _implied_next(branches) else list(next_nodes)


def expand_next_nodes(stored: list[str] | None, branches: Sequence[Any]) -> list[str]:
    """`compact_next_nodes`' inverse."""
    return _implied_next(branches) if stored is None else stored


# --- node runs and tool calls ----------------------------------------------------------------------


def compact_node_names(record: dict[str, Any], name: str, kind: str, known: tuple[str, str] | None) -> None:
    """Add a node run's `name` and `component` to `record` where they are not the topology's (`known`)."""
    if known is None or known[0] != name:
        record["name"] = name
    if known is None or known[1] != kind:
        record["component"] = kind


def expand_node_names(name: str | None, component: str | None, known: tuple[str, str]) -> tuple[str, str]:
    """`compact_node_names`' inverse; `known` is the node's name and kind in the topology (("", "") if
    it is not there). Called only when one of the two was left out."""
    return known[0] if name is None else name, known[1] if component is None else component


CALL_ARGUMENTS = {"$call": "arguments"}
"""A tool run's input: the arguments of the call with its ID, in the ToolsNode's input message."""
CALL_CONTENT = {"$call": "content"}
"""A tool run's output: the content of the tool message answering its call, in the ToolsNode's output."""
CALL_MIN_LENGTH = 24
"""Arguments and results up to this many characters are stored as they are (a marker saves nothing)."""


def compact_tool_call(value: str, found: str | None, marker: dict[str, str]) -> bool:
    """Whether a tool run's input (`marker` CALL_ARGUMENTS) or output (CALL_CONTENT) string `value` is
    stored as `marker`: it is long enough, and it is `found`, what its ToolsNode run holds for it."""
    return len(value) > CALL_MIN_LENGTH and found == value


def expand_tool_call(
    stored: Any, marker: dict[str, str], found: Callable[[], Any], resolve: Callable[[Any], Any]
) -> Any:
    """`compact_tool_call`'s inverse: `found()` (the call's arguments or result in the ToolsNode run)
    where `stored` is the marker, else the stored value resolved."""
    return found() if stored == marker else resolve(stored)


def call_field(message: Any, call_id: str | None, field: str) -> Any:
    """A field of the tool call `call_id` in a (resolved) assistant message (arguments, name)."""
    calls = message.get("tool_calls") if isinstance(message, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if isinstance(calls, (list, tuple)):  # a hand-edited file may hold anything (`X | Y` is built per call)
        for call in calls:  # pyright: ignore[reportUnknownVariableType]
            if isinstance(call, dict) and call.get("id") == call_id:  # pyright: ignore[reportUnknownMemberType]
                return call.get(field)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return None


def call_content(messages: Any, call_id: str | None) -> Any:
    """The content of the tool message answering `call_id` in a (resolved) list of messages."""
    if isinstance(messages, LISTS):  # (not the `Sequence` ABC: ten times slower, asked at every tool run)
        for message in messages:  # pyright: ignore[reportUnknownVariableType]
            if isinstance(message, dict) and message.get("tool_call_id") == call_id:  # pyright: ignore[reportUnknownMemberType]
                return message.get("content", "")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return None


def compact_tool_name(name: str, called: str | None) -> str | None:
    """A tool run's name as stored: None (left out) when it is the name its call (`called`, the
    ToolsNode input's tool call with the run's ID, when there is one) gives; `expand_tool_name` inverts it."""
    return None if called == name else name


def expand_tool_name(stored: str | None, node_input: Any, call_id: str | None) -> str:
    """A tool run's name: as stored, else its call's (left out by the recorder when equal)."""
    return stored if stored is not None else call_field(node_input, call_id, "name") or ""
