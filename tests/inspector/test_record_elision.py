"""Each rule a step line leaves out round-trips: `expand_*(compact_*(x))` gives `x` back.

The recorder writes the compact half, the reader applies the expand half (`inspector.recording.elision`);
these tests drive both over the usual case and every unusual one (a rule that does not apply, so the
field is stored).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec
import pytest

from graph_core.topology import END
from inspector.recording.elision import (
    CALL_ARGUMENTS,
    CALL_CONTENT,
    call_content,
    call_field,
    compact_branches,
    compact_budget,
    compact_budget_before,
    compact_next_nodes,
    compact_node_names,
    compact_tool_call,
    expand_branches,
    expand_budget,
    expand_budget_before,
    expand_next_nodes,
    expand_node_names,
    expand_tool_call,
    expand_tool_name,
)
from inspector.recording.format import BranchDecided, BudgetFields

NO_TOKENS = (3, 2, None, None, None, None)
TOKENS = (3, 2, 10, 5, 15, None)
ITERATIONS = (3, 2, None, None, None, 7)


@pytest.mark.parametrize("counters", [NO_TOKENS, TOKENS, ITERATIONS], ids=["calls", "tokens", "iterations"])
@pytest.mark.parametrize(
    ("used", "steps_max", "remaining", "index", "implied_max"),
    [
        (5, 20, 15, 4, 20),  # the usual top-level step: all implied
        (5, None, None, 4, None),  # DAG mode / nested: no limit
        (7, 20, 13, 4, 20),  # steps used differ from the index (a resumed count)
        (5, 30, 25, 4, 20),  # a per-run limit other than the header's
        (5, 20, 15, 4, None),  # a nested graph with a limit
        (25, 20, 0, 24, 20),  # past the limit: remaining clamps at 0
    ],
)
def test_budget_round_trips(
    counters: tuple[Any, ...],
    used: int,
    steps_max: int | None,
    remaining: int | None,
    index: int,
    implied_max: int | None,
) -> None:
    stored = compact_budget(used, steps_max, remaining, index + 1, implied_max, counters)
    back = expand_budget(msgspec.convert(stored, BudgetFields), index + 1, implied_max)
    assert (back.steps_used, back.steps_max, back.steps_remaining) == (used, steps_max, remaining)
    assert (back.model_calls, back.tool_calls) == counters[:2]
    assert (back.prompt_tokens, back.completion_tokens, back.total_tokens) == counters[2:5]
    assert back.iterations_remaining == counters[5]


def test_the_usual_budget_is_stored_as_the_calls_only() -> None:
    assert compact_budget(5, 20, 15, 5, 20, NO_TOKENS) == {"model_calls": 3, "tool_calls": 2}


@pytest.mark.parametrize(
    ("last", "counters", "used", "steps_max", "elided"),
    [
        (None, (0, 0, None, None, None, None), 4, 20, True),  # nothing used yet (as before a first step)
        ({"model_calls": 3, "tool_calls": 2}, NO_TOKENS, 4, 20, True),  # the previous step's counters
        ({"model_calls": 3, "tool_calls": 1}, NO_TOKENS, 4, 20, False),  # a call between two steps
        (None, NO_TOKENS, 4, 20, False),  # calls before any step
        ({"model_calls": 3, "tool_calls": 2}, NO_TOKENS, 6, 20, False),  # steps used differ
        ({"model_calls": 3, "tool_calls": 2}, NO_TOKENS, 4, 50, False),  # another limit
        (
            {
                "model_calls": 3,
                "tool_calls": 2,
                "prompt_tokens": 10,
                "completion_tokens": 5,
                "total_tokens": 15,
            },
            TOKENS,
            4,
            20,
            True,
        ),
        (
            {"steps_used": 9, "steps_max": 20, "steps_remaining": 11, **dict(model_calls=3, tool_calls=2)},
            NO_TOKENS,
            4,
            20,
            True,
        ),
    ],
)
def test_budget_before_round_trips(
    last: dict[str, Any] | None, counters: tuple[Any, ...], used: int, steps_max: int, elided: bool
) -> None:
    index, implied_max = 4, 20
    remaining = steps_max - used
    stored = compact_budget_before(used, steps_max, remaining, index, implied_max, counters, last)
    assert (stored is None) == elided
    previous = None if last is None else msgspec.convert(last, BudgetFields)
    back = expand_budget_before(
        None if stored is None else msgspec.convert(stored, BudgetFields), previous, index, implied_max
    )
    assert (back.steps_used, back.steps_max, back.steps_remaining) == (used, steps_max, remaining)
    assert (back.model_calls, back.tool_calls, back.total_tokens) == (counters[0], counters[1], counters[4])


@dataclass(frozen=True)
class _Decision:
    source: str
    branch_index: int
    chosen: tuple[str, ...]
    skipped: tuple[str, ...]


ENDS = {("route", 0): ("tools", "answer", END), ("route", 1): ("a", "b")}


@pytest.mark.parametrize(
    ("nodes", "decisions"),
    [
        (("route",), [_Decision("route", 0, ("tools",), ("answer", END))]),  # all implied
        (("route", "x"), [_Decision("route", 0, ("tools",), ("answer", END))]),  # source not implied
        (("route",), [_Decision("route", 1, ("a", "b"), ())]),  # a second branch, both chosen
        (("route",), [_Decision("route", 0, ("tools",), ("answer",))]),  # skipped not the other ends
        (("other",), [_Decision("other", 0, (END,), ())]),  # a branch the topology does not list
        (
            ("route",),
            [_Decision("route", 0, ("tools",), ("answer", END)), _Decision("route", 1, ("a",), ("b",))],
        ),
    ],
)
def test_branches_and_next_nodes_round_trip(nodes: tuple[str, ...], decisions: list[_Decision]) -> None:
    stored = compact_branches(decisions, nodes, ENDS)
    records = [msgspec.convert(b, BranchDecided) for b in stored]
    back = expand_branches(records, ["sub"], 3, list(nodes), ENDS)
    assert [(b.source, b.branch_index, b.chosen, b.skipped) for b in back] == [
        (d.source, d.branch_index, list(d.chosen), list(d.skipped)) for d in decisions
    ]
    assert all(b.path == ["sub"] and b.step == 3 for b in back)
    implied = [t for d in decisions for t in d.chosen if t != END]
    for next_nodes in (implied, ["elsewhere"], []):
        assert expand_next_nodes(compact_next_nodes(next_nodes, decisions), back) == next_nodes
    assert compact_next_nodes(implied, decisions) is None


@pytest.mark.parametrize(
    ("name", "kind", "known"),
    [
        ("chat", "ChatModel", ("chat", "ChatModel")),
        ("renamed", "ChatModel", ("chat", "ChatModel")),
        ("chat", "Lambda", ("chat", "ChatModel")),
        ("x", "Lambda", None),
    ],
)
def test_node_names_round_trip(name: str, kind: str, known: tuple[str, str] | None) -> None:
    record: dict[str, Any] = {}
    compact_node_names(record, name, kind, known)
    assert expand_node_names(record.get("name"), record.get("component"), known or ("", "")) == (
        name,
        kind,
    )
    assert (not record) == (known == (name, kind))


ARGUMENTS = '{"city": "Paris", "units": "metric"}'
RESULT = "Sunny, 24 degrees, light wind from the west"
NODE_INPUT = {"role": "assistant", "tool_calls": [{"id": "c1", "name": "weather", "arguments": ARGUMENTS}]}
NODE_OUTPUT = [{"role": "tool", "tool_call_id": "c1", "content": RESULT}]


@pytest.mark.parametrize(
    ("value", "found", "marker", "node_value", "lookup"),
    [
        (ARGUMENTS, ARGUMENTS, CALL_ARGUMENTS, NODE_INPUT, lambda v: call_field(v, "c1", "arguments")),
        (
            '{"a": 1}',
            '{"a": 1}',
            CALL_ARGUMENTS,
            NODE_INPUT,
            lambda v: call_field(v, "c1", "arguments"),
        ),  # short
        (
            "other arguments, long enough to mark",
            ARGUMENTS,
            CALL_ARGUMENTS,
            NODE_INPUT,
            lambda v: call_field(v, "c1", "arguments"),
        ),
        (RESULT, RESULT, CALL_CONTENT, NODE_OUTPUT, lambda v: call_content(v, "c1")),
        (
            "a result the tool message does not hold",
            RESULT,
            CALL_CONTENT,
            NODE_OUTPUT,
            lambda v: call_content(v, "c1"),
        ),
        (RESULT, None, CALL_CONTENT, NODE_OUTPUT, lambda v: call_content(v, "c1")),  # no call found
    ],
)
def test_tool_calls_round_trip(
    value: str, found: str | None, marker: dict[str, str], node_value: Any, lookup: Any
) -> None:
    stored = marker if compact_tool_call(value, found, marker) else value
    assert (stored is marker) == (len(value) > 24 and value == found)
    assert expand_tool_call(stored, marker, lambda: lookup(node_value), lambda v: v) == value


def test_a_tool_name_is_the_calls_unless_stored() -> None:
    assert expand_tool_name(None, NODE_INPUT, "c1") == "weather"
    assert expand_tool_name("renamed", NODE_INPUT, "c1") == "renamed"
    assert expand_tool_name(None, NODE_INPUT, "missing") == ""
