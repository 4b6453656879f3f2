"""Eino's engine semantics (`shared/docs/eino-semantics.md` §0-§2, Appendix A/B), checked from outside.

Each test names the section or Eino test it reproduces. Steps are observed through `on_step_end`, so the
step counting rules of §2.6 are checked as a user of the callbacks sees them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from graph_core import END, START, Branch, Graph, Lambda, TriggerMode
from graph_core.errors import GraphBuildError, GraphRunError, MaxStepsExceededError, NodeRunError
from tests.helpers import wire

DAG = TriggerMode.ALL_PREDECESSOR


@dataclass
class Steps:
    """Top-level supersteps as `on_step_end` reports them; node starts in order."""

    trace: list[tuple[int, tuple[str, ...]]] = field(default_factory=lambda: [])
    started: list[str] = field(default_factory=lambda: [])

    def on_step_end(self, step: Any) -> None:
        if not step.path:
            self.trace.append((step.index, tuple(step.nodes)))

    def on_start(self, info: Any, input: Any) -> None:
        if info.node_key is not None:
            self.started.append(info.node_key)

    @property
    def nodes(self) -> list[tuple[str, ...]]:
        return [nodes for _, nodes in self.trace]


def chain(n: int, *, prefix: str = "n") -> Graph:
    """START -> n0 -> n1 -> ... -> END; each node appends its index to a string."""
    g = Graph()
    keys = [f"{prefix}{i}" for i in range(n)]
    for i, key in enumerate(keys):
        g.add_lambda_node(key, lambda x, i=i: f"{x}{i}")
    for a, b in itertools.pairwise([START, *keys, END]):
        g.add_edge(a, b)
    return g


def looping(limit: int | None = None) -> Graph:
    """A Pregel loop `inc` that runs until its input reaches `limit` (forever when None)."""
    g = Graph()
    g.add_lambda_node("inc", lambda x: x + 1)
    g.add_edge(START, "inc")
    g.add_branch("inc", Branch(lambda x: END if limit is not None and x >= limit else "inc", ["inc", END]))
    return g


# -- §0 / §2.6: max steps ----------------------------------------------------------------------------------


def test_default_max_steps_is_user_nodes_plus_ten_passthroughs_included() -> None:
    g = chain(3)
    g2 = Graph()
    g2.add_passthrough_node("p1")
    g2.add_passthrough_node("p2")
    wire(g2, "p1", "p2")
    assert g.compile().max_run_steps == 13
    assert g2.compile().max_run_steps == 12
    assert g2.compile().invoke("x") == "x"


def test_a_run_needing_k_steps_succeeds_iff_k_le_max_steps() -> None:
    # START's fan-out and the jump to END are not steps: a 4-node chain takes exactly 4 supersteps
    steps = Steps()
    assert chain(4).compile(max_run_steps=4).invoke("", callbacks=[steps]) == "0123"
    assert steps.trace == [(0, ("n0",)), (1, ("n1",)), (2, ("n2",)), (3, ("n3",))]
    steps = Steps()
    with pytest.raises(MaxStepsExceededError) as info:
        chain(4).compile(max_run_steps=3).invoke("", callbacks=[steps])
    assert str(info.value) == "[GraphRunError] exceeds max steps"
    assert steps.started == ["n0", "n1", "n2"]  # the 4th superstep is never started


def test_a_loop_runs_exactly_max_steps_supersteps_then_fails() -> None:
    steps = Steps()
    with pytest.raises(MaxStepsExceededError, match="exceeds max steps"):
        looping().compile().invoke(0, callbacks=[steps])
    assert len(steps.trace) == 1 + 10
    assert looping(limit=11).compile().invoke(0) == 11  # 11 steps: exactly the default budget
    with pytest.raises(MaxStepsExceededError):
        looping(limit=12).compile().invoke(0)


def test_runtime_max_steps_overrides_compile_value_and_non_positive_is_ignored() -> None:
    compiled = looping(limit=5).compile(max_run_steps=3)
    with pytest.raises(MaxStepsExceededError):
        compiled.invoke(0)
    assert compiled.invoke(0, max_steps=5) == 5
    with pytest.raises(MaxStepsExceededError):
        compiled.invoke(0, max_steps=0)  # not positive: the compiled 3 applies


def test_negative_max_steps_fails_at_run_time() -> None:
    compiled = chain(1).compile(max_run_steps=-1)
    with pytest.raises(GraphRunError, match="max run steps limit must be at least 1"):
        compiled.invoke("")


def test_dag_rejects_max_steps_at_compile_and_at_run_time_and_has_no_limit() -> None:
    with pytest.raises(GraphBuildError, match="cannot set max run steps in dag mode"):
        chain(2).compile(trigger_mode=DAG, max_run_steps=5)
    dag = chain(15).compile(trigger_mode=DAG)
    assert dag.max_run_steps is None
    with pytest.raises(GraphRunError, match="cannot set max run steps in dag"):
        dag.invoke("", max_steps=3)
    assert dag.invoke("") == "".join(str(i) for i in range(15))


def test_dag_cycle_is_rejected_at_compile_time() -> None:
    g = Graph()
    g.add_lambda_node("a", lambda x: x)
    g.add_lambda_node("b", lambda x: x)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "a")
    g.add_edge("b", END)
    with pytest.raises(GraphBuildError, match=r"DAG is invalid, has loop: \[a->b->a\]"):
        g.compile(trigger_mode=DAG)


def test_nested_graph_is_one_step_in_its_parent_with_its_own_budget() -> None:
    outer = Graph()
    outer.add_graph_node("sub", chain(5))
    wire(outer, "sub")
    steps = Steps()
    assert outer.compile(max_run_steps=1).invoke("", callbacks=[steps]) == "01234"
    assert steps.trace == [(0, ("sub",))]

    limited = Graph()
    limited.add_graph_node("sub", chain(3), compile_options={"max_run_steps": 2})
    wire(limited, "sub")
    with pytest.raises(GraphRunError, match="exceeds max steps"):
        limited.compile().invoke("")


def test_nested_loop_uses_its_own_default_not_the_parents() -> None:
    outer = Graph()
    outer.add_graph_node("sub", looping(limit=11))  # inner default: 1 + 10 = 11 steps, just enough
    wire(outer, "sub")
    assert outer.compile(max_run_steps=1).invoke(0) == 11
    too_long = Graph()
    too_long.add_graph_node("sub", looping(limit=12))
    wire(too_long, "sub")
    with pytest.raises(GraphRunError, match="exceeds max steps"):
        too_long.compile(max_run_steps=100).invoke(0)


# -- §2.3 Pregel -----------------------------------------------------------------------------------------


def test_pregel_end_returns_as_soon_as_any_step_writes_end() -> None:
    """Eino `TestPregelEnd`: node1 -> END and node1 -> node2 -> END gives "node1"; node2 never runs."""
    ran: list[str] = []
    g = Graph()
    g.add_lambda_node("node1", lambda x: ran.append("node1") or "node1")
    g.add_lambda_node("node2", lambda x: ran.append("node2") or "node2")
    wire(g, "node1")
    g.add_edge("node1", "node2")
    g.add_edge("node2", END)
    assert g.compile().invoke("x") == "node1"
    assert ran == ["node1"]


def test_pregel_node_runs_the_step_after_any_predecessor_without_waiting() -> None:
    g = Graph()
    g.add_lambda_node("a", lambda x: {"from": "a"})
    g.add_lambda_node("b", lambda x: {"from": "b"})
    g.add_lambda_node("b2", lambda x: {"from": "b2"})
    g.add_lambda_node("c", lambda x: x)
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge("a", "c")
    g.add_edge("b", "b2")
    g.add_edge("b2", "c")
    g.add_edge("c", END)
    steps = Steps()
    assert g.compile().invoke(None, callbacks=[steps]) == {"from": "a"}
    assert [set(n) for n in steps.nodes] == [{"a", "b"}, {"c", "b2"}]


def test_pregel_fan_in_in_one_step_merges_maps_and_rejects_other_types() -> None:
    def fan_in(a: Any, b: Any) -> Graph:
        g = Graph()
        g.add_lambda_node("a", lambda x: a)
        g.add_lambda_node("b", lambda x: b)
        g.add_lambda_node("c", lambda x: x)
        g.add_edge(START, "a")
        g.add_edge(START, "b")
        g.add_edge("a", "c")
        g.add_edge("b", "c")
        g.add_edge("c", END)
        return g

    assert fan_in({"x": 1}, {"y": 2}).compile().invoke(None) == {"x": 1, "y": 2}
    with pytest.raises(GraphRunError, match=r"\(values merge map\) duplicated key \('x'\) found"):
        fan_in({"x": 1}, {"x": 2}).compile().invoke(None)
    with pytest.raises(GraphRunError, match=r"\(mergeValues\) unsupported type"):
        fan_in("s1", "s2").compile().invoke(None)


def test_pregel_step_without_successors_fails_with_no_tasks() -> None:
    g = Graph()
    g.add_lambda_node("x", lambda v: v)
    g.add_lambda_node("y", lambda v: v)
    g.add_edge(START, "x")
    g.add_edge("y", END)
    with pytest.raises(GraphRunError, match=r"no tasks to execute, last completed nodes: \[x\]"):
        g.compile().invoke(1)


def test_invoke_mode_passes_the_same_object_to_every_successor() -> None:
    """Appendix B.2: fan-out in invoke mode shares one reference (no copies)."""
    seen: list[Any] = []
    g = Graph()
    g.add_lambda_node("make", lambda x: {"payload": [1]})
    g.add_lambda_node("left", lambda x: seen.append(x) or {"l": 1})
    g.add_lambda_node("right", lambda x: seen.append(x) or {"r": 1})
    g.add_edge(START, "make")
    g.add_edge("make", "left")
    g.add_edge("make", "right")
    g.add_edge("left", END)
    g.add_edge("right", END)
    assert g.compile().invoke(None) == {"l": 1, "r": 1}
    assert len(seen) == 2 and seen[0] is seen[1]


# -- §1.4 / §2.2 branches --------------------------------------------------------------------------------


def test_branch_to_an_unlisted_node_is_an_error() -> None:
    g = Graph()
    g.add_lambda_node("a", lambda x: x)
    g.add_lambda_node("z", lambda x: x)
    g.add_edge(START, "a")
    g.add_branch("a", Branch(lambda x: "z", ["a", END]))
    g.add_edge("z", END)
    with pytest.raises(GraphRunError, match="branch invocation returns unintended end node: z"):
        g.compile().invoke(1)


def test_branch_from_start_straight_to_end_takes_no_step() -> None:
    g = Graph()
    g.add_lambda_node("a", lambda x: "a")
    g.add_branch(START, Branch(lambda x: END if x == "skip" else "a", ["a", END]))
    g.add_edge("a", END)
    steps = Steps()
    assert g.compile(max_run_steps=1).invoke("skip", callbacks=[steps]) == "skip"
    assert steps.trace == []
    assert g.compile().invoke("go") == "a"


def test_several_branches_on_one_node_unite_their_targets() -> None:
    g = Graph()
    g.add_lambda_node("a", lambda x: x)
    g.add_lambda_node("b", lambda x: {"b": x})
    g.add_lambda_node("c", lambda x: {"c": x})
    g.add_edge(START, "a")
    g.add_branch("a", Branch(lambda x: "b", ["b", "c"]))
    g.add_branch("a", Branch(lambda x: "c", ["b", "c"]))
    g.add_edge("b", END)
    g.add_edge("c", END)
    assert g.compile().invoke(1) == {"b": 1, "c": 1}


def test_empty_multi_branch_selects_nothing() -> None:
    g = Graph()
    g.add_lambda_node("a", lambda x: x)
    g.add_lambda_node("b", lambda x: x)
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_branch("a", Branch.multi(lambda x: set(), ["a", END]))
    g.add_edge("b", END)
    assert g.compile().invoke("v") == "v"


# -- §2.4 DAG --------------------------------------------------------------------------------------------


def test_base_dag_branch_end_waits_only_for_the_chosen_node() -> None:
    """Eino `TestBaseDAGBranch`: the branch picks "1", "2" is skipped, END waits only for "1": "hi1"."""
    g = Graph()
    g.add_lambda_node("1", lambda x: x + "1")
    g.add_lambda_node("2", lambda x: x + "2")
    g.add_branch(START, Branch(lambda x: "1", ["1", "2"]))
    g.add_edge("1", END)
    g.add_edge("2", END)
    assert g.compile(trigger_mode=DAG).invoke("hi") == "hi1"


def test_dag_skip_branch_with_every_end_predecessor_skipped_fails() -> None:
    """Eino `TestSkipBranch`: END's only predecessor is skipped, so nothing becomes ready."""
    g = Graph()
    g.add_lambda_node("1", lambda x: x)
    g.add_lambda_node("2", lambda x: x)
    g.add_edge(START, "1")
    g.add_branch("1", Branch.multi(lambda x: {}, ["2"]))
    g.add_edge("2", END)
    with pytest.raises(GraphRunError, match=r"no tasks to execute, last completed nodes: \[1\]"):
        g.compile(trigger_mode=DAG).invoke("x")


def test_dag_node_waits_for_all_predecessors_and_merges_them() -> None:
    g = Graph()
    g.add_lambda_node("fast", lambda x: {"fast": 1})
    g.add_lambda_node("slow1", lambda x: x)
    g.add_lambda_node("slow2", lambda x: {"slow": 2})
    g.add_lambda_node("join", lambda x: x)
    g.add_edge(START, "fast")
    g.add_edge(START, "slow1")
    g.add_edge("slow1", "slow2")
    g.add_edge("fast", "join")
    g.add_edge("slow2", "join")
    g.add_edge("join", END)
    assert g.compile(trigger_mode=DAG).invoke(None) == {"fast": 1, "slow": 2}


# -- §2.8 errors -----------------------------------------------------------------------------------------


def test_node_run_error_text_and_nested_path() -> None:
    """Eino `TestSubGraphNodeError`: the path is prefixed with the parent node key: [a, 1]."""

    def fail(x: Any) -> Any:
        raise ValueError("orig")

    inner = Graph()
    inner.add_lambda_node("1", fail)
    wire(inner, "1")
    outer = Graph()
    outer.add_graph_node("a", inner)
    wire(outer, "a")
    with pytest.raises(NodeRunError) as info:
        outer.compile().invoke(1)
    assert info.value.node_path == ["a", "1"]
    assert str(info.value) == "[NodeRunError] orig\n------------------------\nnode path: [a, 1]"
    assert isinstance(info.value.__cause__, ValueError)


def test_pre_handler_failure_is_a_node_failure_without_on_start() -> None:
    def bad_pre(x: Any, state: Any) -> Any:
        raise ValueError("pre-bad")

    g = Graph(state=dict)
    g.add_lambda_node("n", lambda x: x, pre=bad_pre)
    wire(g, "n")
    steps = Steps()
    with pytest.raises(NodeRunError, match=r"run node\[n\] pre processor fail: pre-bad") as info:
        g.compile().invoke(1, callbacks=[steps])
    assert info.value.node_path == ["n"]
    assert steps.started == []


def test_post_handler_failure_names_the_node() -> None:
    def bad_post(x: Any, state: Any) -> Any:
        raise ValueError("post-bad")

    g = Graph(state=dict)
    g.add_lambda_node("n", lambda x: x, post=bad_post)
    wire(g, "n")
    with pytest.raises(NodeRunError, match=r"run node\[n\] post processor fail: post-bad"):
        g.compile().invoke(1)


# -- §1.2 paradigms, Appendix A streams ------------------------------------------------------------------


def test_empty_stream_cannot_be_concatenated() -> None:
    g = Graph()
    g.add_lambda_node("a", Lambda(stream=lambda x: iter([])))
    wire(g, "a")
    with pytest.raises(NodeRunError, match="stream reader is empty, concat fail"):
        g.compile().invoke("x")


def test_derived_paradigms_follow_einos_preferences() -> None:
    """invoke from stream + concat; transform of an invoke-only lambda concatenates its input first."""
    got: list[Any] = []

    def words(x: str) -> Iterator[str]:
        yield from x.split()

    def shout(x: str) -> str:
        got.append(x)
        return x.upper()

    g = Graph()
    g.add_lambda_node("split", Lambda(stream=words))
    g.add_lambda_node("shout", shout)
    wire(g, "split", "shout")
    compiled = g.compile()
    assert compiled.invoke("a b c") == "ABC"
    assert list(compiled.stream("a b c")) == ["ABC"]
    assert got == ["abc", "abc"]


# -- §8 callbacks ----------------------------------------------------------------------------------------


def test_on_start_runs_in_reverse_registration_order_and_on_end_in_order() -> None:
    order: list[str] = []

    class Handler:
        def __init__(self, name: str) -> None:
            self.name = name

        def on_start(self, info: Any, input: Any) -> None:
            if info.node_key == "a":
                order.append(f"start:{self.name}")

        def on_end(self, info: Any, output: Any) -> None:
            if info.node_key == "a":
                order.append(f"end:{self.name}")

    g = Graph()
    g.add_lambda_node("a", lambda x: x)
    wire(g, "a")
    g.compile().invoke(1, callbacks=[Handler("h1"), Handler("h2")])
    assert order == ["start:h2", "start:h1", "end:h1", "end:h2"]


def test_graph_on_start_sees_the_state_and_fires_before_nodes() -> None:
    from graph_core import process_state

    seen: list[Any] = []

    class Handler:
        def on_start(self, info: Any, input: Any) -> None:
            if info.node_key is None:
                seen.append(process_state(dict, lambda s: dict(s)))
            else:
                seen.append(info.node_key)

    g = Graph(state=lambda: {"ready": True})
    g.add_lambda_node("a", lambda x: x)
    wire(g, "a")
    g.compile().invoke(1, callbacks=[Handler()])
    assert seen == [{"ready": True}, "a"]


# -- §2.9 stream mode ------------------------------------------------------------------------------------


def test_tools_node_streams_index_aligned_rows_that_concat_to_the_invoke_output() -> None:
    """§2.9/§4: each stream chunk is an n-element list with one entry set; concat rebuilds the list."""
    from graph_core.schema import Message, ToolCall
    from graph_core.tools import ToolsNode, tool

    @tool
    def ping() -> str:
        """Answer pong."""
        return "pong"

    @tool
    def letters() -> Iterator[str]:
        """Stream three letters."""
        yield from ("a", "b", "c")

    g = Graph()
    g.add_tools_node("tools", ToolsNode([letters, ping]))
    wire(g, "tools")
    compiled = g.compile()
    message = Message.assistant("", tool_calls=[ToolCall("1", "letters", "{}"), ToolCall("2", "ping", "{}")])
    rows = list(compiled.stream(message))
    assert len(rows) == 4
    assert all(len(row) == 2 and sum(m is not None for m in row) == 1 for row in rows)
    assert "".join(row[0].content for row in rows if row[0] is not None) == "abc"
    assert [m.content for m in compiled.invoke(message)] == ["abc", "pong"]


def test_stream_branch_reading_one_chunk_does_not_starve_the_target() -> None:
    """§1.4: in stream mode a stream branch gets its own copy; the chosen node still gets every chunk."""
    peeked: list[str] = []

    def peek(chunks: Iterator[str]) -> str:
        peeked.append(next(chunks))
        return "join"

    def words(x: str) -> Iterator[str]:
        yield from x.split()

    g = Graph()
    g.add_lambda_node("split", Lambda(stream=words))
    g.add_lambda_node("join", lambda x: f"<{x}>")
    g.add_edge(START, "split")
    g.add_branch("split", Branch.stream(peek, ["join", END]))
    g.add_edge("join", END)
    assert "".join(g.compile().stream("a b c")) == "<abc>"
    assert peeked == ["a"]


def test_recorder_records_a_stream_mode_agent_run(tmp_path: Any) -> None:
    from graph_core.agents.react import ReActAgent
    from graph_core.models import ScriptedChatModel
    from graph_core.schema import Message, ToolCall
    from graph_core.tools import tool
    from inspector.recording import Recorder, read_run

    @tool
    def ping() -> str:
        """Answer pong."""
        return "pong"

    script: list[Any] = [
        Message.assistant("", tool_calls=[ToolCall("1", "ping", "{}")]),
        [Message.assistant("fi"), Message.assistant("nal")],
    ]
    agent = ReActAgent(model=ScriptedChatModel(script), tools=[ping])
    path = tmp_path / "stream.jsonl"
    assert (
        "".join(m.content for m in agent.stream([Message.user("q")], callbacks=[Recorder(path)])) == "final"
    )
    run = read_run(path)
    assert run.status == "ok"
    assert [tuple(s.nodes) for s in run.steps] == [("chat",), ("tools",), ("chat",)]
    assert isinstance(run.output, dict) and run.output["content"] == "final"
