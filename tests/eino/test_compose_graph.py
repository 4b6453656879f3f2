"""Eino's `compose/graph_test.go`, ported (Eino commit ca0441ac, see docs/eino-conformance.md).

Each test names its Go test in its docstring and asserts what that test asserts. Go's `ChatTemplate`
component has no graph_core counterpart; where a Go test uses one, a lambda formatting the same
template stands in for it (the engine behaviour under test is unchanged).
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from graph_core import END, START, Branch, Graph, Lambda, TriggerMode, process_state
from graph_core.errors import GraphBuildError, GraphRunError, MaxStepsExceededError, NodeRunError
from graph_core.graph import FanInMergeConfig
from graph_core.models import ScriptedChatModel
from graph_core.runner.plan import _find_loops  # pyright: ignore[reportPrivateUsage]
from graph_core.schema import Message
from graph_core.stream import SourceEOF, collect

DAG = TriggerMode.ALL_PREDECESSOR


def template(text: str) -> Any:
    """A stand-in for Eino's FString `prompt.FromMessages(UserMessage(text))`: a missing variable fails."""

    def format_messages(variables: dict[str, Any]) -> list[Message]:
        return [Message.user(text.format(**variables))]

    return format_messages


def weather_graph() -> Graph:
    """START -> prompt -> model -> END, the model answering "the weather is good" every time."""
    g = Graph()
    g.add_lambda_node("prompt", template("what's the weather in {location}?"))
    model = ScriptedChatModel([Message.assistant("the weather is good")], cycle=True)
    g.add_chat_model_node("model", model, name="MockChatModel")
    g.add_edge(START, "prompt")
    g.add_edge("prompt", "model")
    g.add_edge("model", END)
    return g


def test_single_graph() -> None:
    """compose/graph_test.go TestSingleGraph: invoke, stream and transform succeed; a missing
    template variable fails all three."""
    r = weather_graph().compile(max_run_steps=10)
    good = {"location": "beijing"}
    assert r.invoke(good).content == "the weather is good"
    assert collect(r.stream(good)).content == "the weather is good"
    assert collect(r.transform([good])).content == "the weather is good"

    bad = {"wrong key": 1}
    for run in (r.invoke, lambda x: collect(r.stream(x)), lambda x: collect(r.transform([x]))):
        with pytest.raises(NodeRunError) as info:
            run(bad)
        assert info.value.node_path == ["prompt"]
        assert isinstance(info.value.__cause__, KeyError)


def test_graph_with_implementable_type() -> None:
    """compose/graph_test.go TestGraphWithImplementableType: a runtime budget of 1 step fails twice with
    "exceeds max steps" on a two-node chain; without it invoke and stream return the input."""

    class Doctor:
        def __init__(self, say: str) -> None:
            self.say = say

    g = Graph()
    g.add_lambda_node("1st", Doctor)
    g.add_lambda_node("2nd", lambda person: person.say)
    g.add_edge(START, "1st")
    g.add_edge("1st", "2nd")
    g.add_edge("2nd", END)
    r = g.compile(max_run_steps=10)

    for _ in range(2):
        with pytest.raises(MaxStepsExceededError, match="exceeds max steps"):
            r.invoke("how are you", max_steps=1)
    assert r.invoke("how are you") == "how are you"
    assert next(iter(r.stream("i'm fine"))) == "i'm fine"


class DepthCallback:
    """Eino's test handler: counts start events (it only checks the run goes through with it)."""

    def __init__(self) -> None:
        self.starts: list[tuple[str | None, str]] = []

    def on_start(self, info: Any, input: Any) -> None:
        self.starts.append((info.node_key, info.name))

    def on_start_with_stream_input(self, info: Any, input: Any) -> None:
        for _ in input:  # Eino closes the copy; reading it whole is the Python equivalent
            pass
        self.starts.append((info.node_key, info.name))


def test_nested_graph() -> None:
    """compose/graph_test.go TestNestedGraph: lambda -> subgraph(prompt -> model) -> lambda runs by
    invoke, stream, collect and transform with a start/stream-start callback attached."""
    outer = Graph()
    outer.add_lambda_node("lambda1", lambda s: {"location": s}, name="Lambda1")
    outer.add_graph_node("sub_graph", weather_graph(), name="SubGraphName")

    def lambda2(message: Message) -> Message:
        return message.model_copy(update={"content": f"after lambda 2: {message.content}"})

    outer.add_lambda_node("lambda2", lambda2, name="Lambda2")
    outer.add_edge(START, "lambda1")
    outer.add_edge("lambda1", "sub_graph")
    outer.add_edge("sub_graph", "lambda2")
    outer.add_edge("lambda2", END)
    r = outer.compile(max_run_steps=10, name="GraphName")

    expected = "after lambda 2: the weather is good"
    callback = DepthCallback()
    assert r.invoke("london", callbacks=[callback]).content == expected
    assert collect(r.stream("london", callbacks=[callback])).content == expected
    assert r.collect(["london"], callbacks=[callback]).content == expected
    assert collect(r.transform(["london"], callbacks=[callback])).content == expected
    # every run reported the graph, the three outer nodes and the two nested ones
    keys = [key for key, _ in callback.starts]
    for key in (None, "lambda1", "sub_graph", "prompt", "model", "lambda2"):
        assert keys.count(key) == 4


def test_validate_untyped_nodes() -> None:
    """compose/graph_test.go TestValidate ("test any type", "test branch any type" and "test may matched
    passthrough" success parts): node1 -> node2 on `any` values gives "startnode1node2" by invoke and
    stream; a branch choosing node2 gives "startnode1node2"; 1 through a passthrough to a node taking
    an int gives "1". (The compile-time and runtime type checks are Go-only.)"""
    g = Graph()
    g.add_lambda_node("node1", lambda s: s + "node1")
    g.add_lambda_node("node2", lambda s: s + "node2")
    g.add_edge(START, "node1")
    g.add_edge("node1", "node2")
    g.add_edge("node2", END)
    r = g.compile()
    assert r.invoke("start") == "startnode1node2"
    assert "".join(r.stream("start")) == "startnode1node2"

    g = Graph()
    g.add_lambda_node("node1", lambda s: s + "node1")
    g.add_lambda_node("node2", lambda s: s + "node2")
    g.add_lambda_node("node3", lambda s: s + "node3")
    g.add_branch("node1", Branch(lambda _: "node2", {"node2": True, "node3": True}))
    g.add_edge(START, "node1")
    g.add_edge("node2", END)
    g.add_edge("node3", END)
    r = g.compile()
    assert r.invoke("start") == "startnode1node2"
    assert collect(r.stream("start")) == "startnode1node2"

    # "test may matched passthrough": any -> passthrough -> node 3, edges added out of order
    g = Graph()
    g.add_lambda_node("1", lambda value: value)
    g.add_passthrough_node("2")
    g.add_lambda_node("3", str)
    g.add_edge(START, "1")
    g.add_edge("2", "3")
    g.add_edge("1", "2")
    g.add_edge("3", END)
    assert g.compile().invoke(1) == "1"


def test_validate_multi_any_value_branch() -> None:
    """compose/graph_test.go TestValidateMultiAnyValueBranch (success part): two branches on node1
    choose node2 and node4; the merged output has both keys, by invoke and stream."""
    g = Graph()
    g.add_lambda_node("node1", lambda s: s + "node1")
    for key in ("node2", "node3", "node4", "node5"):
        g.add_lambda_node(key, lambda _, key=key: {key: True})
    g.add_branch("node1", Branch(lambda _: "node2", {"node2": True, "node3": True}))
    g.add_branch("node1", Branch(lambda _: "node4", {"node4": True, "node5": True}))
    g.add_edge(START, "node1")
    for key in ("node2", "node3", "node4", "node5"):
        g.add_edge(key, END)
    r = g.compile()
    for result in (r.invoke("start"), collect(r.stream("start"))):
        assert result["node2"] is True
        assert result["node4"] is True


def test_any_type_with_key() -> None:
    """compose/graph_test.go TestAnyTypeWithKey: input key on node1, output key on node2."""
    g = Graph()
    g.add_lambda_node("node1", lambda s: s + "node1", input_key="node1")
    g.add_lambda_node("node2", lambda s: s + "node2", output_key="node2")
    g.add_edge(START, "node1")
    g.add_edge("node1", "node2")
    g.add_edge("node2", END)
    r = g.compile()
    assert r.invoke({"node1": "start"})["node2"] == "startnode1node2"
    assert collect(r.stream({"node1": "start"}))["node2"] == "startnode1node2"


def test_input_key() -> None:
    """compose/graph_test.go TestInputKey: three template nodes with input and output keys; invoke with
    one map, and transform with a 3-chunk input stream each chunk carrying one key."""
    g = Graph()
    for key in ("1", "2", "3"):
        g.add_lambda_node(key, template("{var" + key + "}"), output_key=key, input_key=key)
        g.add_edge(START, key)
        g.add_edge(key, END)
    r = g.compile(max_run_steps=100)

    result = r.invoke({"1": {"var1": "a"}, "2": {"var2": "b"}, "3": {"var3": "c"}})
    assert [result[k][0].content for k in ("1", "2", "3")] == ["a", "b", "c"]

    chunks = [{"1": {"var1": "a"}}, {"2": {"var2": "b"}}, {"3": {"var3": "c"}}]
    merged: dict[str, Any] = {}
    for chunk in r.transform(chunks):
        merged.update(chunk)
    assert [merged[k][0].content for k in ("1", "2", "3")] == ["a", "b", "c"]


def test_pregel_end() -> None:
    """compose/graph_test.go TestPregelEnd: node1 writes to END and to node2; the run ends in that step
    with node1's output."""
    g = Graph()
    g.add_lambda_node("node1", lambda _: "node1")
    g.add_lambda_node("node2", lambda _: "node2")
    g.add_edge(START, "node1")
    g.add_edge("node1", END)
    g.add_edge("node1", "node2")
    g.add_edge("node2", END)
    assert g.compile().invoke("") == "node1"


def test_check_add_edge() -> None:
    """compose/graph_test.go TestCheckAddEdge: adding the same edge twice is an error."""
    g = Graph()
    g.add_passthrough_node("1")
    g.add_passthrough_node("2")
    g.add_edge("1", "2")
    with pytest.raises(GraphBuildError):
        g.add_edge("1", "2")


def test_start_with_end() -> None:
    """compose/graph_test.go TestStartWithEnd: a branch on START choosing END; transform yields the
    input."""
    g = Graph()
    g.add_lambda_node("1", lambda s: s)
    g.add_branch(START, Branch(lambda _: END, {"1": True, END: True}))
    r = g.compile()
    assert list(r.transform(["test"])) == ["test"]


def test_input_key_error() -> None:
    """compose/graph_test.go TestInputKeyError: a missing input key fails invoke with "cannot find input
    key: node1", and transform with "stream reader is empty, concat fail"."""
    g = Graph()
    g.add_lambda_node("node1", lambda s: s, input_key="node1")
    g.add_edge(START, "node1")
    g.add_edge("node1", END)
    r = g.compile()
    with pytest.raises(GraphRunError, match="cannot find input key: node1"):
        r.invoke({"unknown": "123"})
    with pytest.raises(GraphRunError, match="stream reader is empty, concat fail"):
        list(r.transform([{"unknown": "123"}]))


def test_context_cancel() -> None:
    """compose/graph_test.go TestContextCancel: a run whose context is already canceled fails with
    "context has been canceled" (graph_core: a set `cancel_event`)."""
    g = Graph()
    g.add_lambda_node("1", lambda s: s)
    g.add_edge(START, "1")
    g.add_edge("1", END)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(GraphRunError, match="context has been canceled"):
        g.compile().invoke("test", cancel_event=cancel)


def test_dag_start() -> None:
    """compose/graph_test.go TestDAGStart: in DAG mode node 2 waits for START and node 1, and merges
    both maps."""
    g = Graph()
    g.add_lambda_node("1", lambda _: {"1": "1"})
    g.add_lambda_node("2", lambda m: m)
    g.add_edge(START, "1")
    g.add_edge("1", "2")
    g.add_edge(START, "2")
    g.add_edge("2", END)
    assert g.compile(trigger_mode=DAG).invoke({"start": "start"}) == {"start": "start", "1": "1"}


def concat_lambda(suffix: str) -> Any:
    return lambda s: s + suffix


def map_lambda(key: str, value: str) -> Any:
    return lambda _: {key: value}


def test_base_dag_branch() -> None:
    """compose/graph_test.go TestBaseDAGBranch: a branch on START in DAG mode; "hi" goes to node 1."""
    g = Graph()
    g.add_lambda_node("1", concat_lambda("1"))
    g.add_lambda_node("2", concat_lambda("2"))
    g.add_branch(START, Branch(lambda s: "2" if len(s) > 3 else "1", {"1": True, "2": True}))
    g.add_edge("1", END)
    g.add_edge("2", END)
    assert g.compile(trigger_mode=DAG).invoke("hi") == "hi1"


def test_multi_dag_branch() -> None:
    """compose/graph_test.go TestMultiDAGBranch: two branches on START in DAG mode choose 1 and 3;
    the skipped ends do not block END."""
    g = Graph()
    for key in ("1", "2", "3", "4"):
        g.add_lambda_node(key, map_lambda(key, key))
    g.add_branch(START, Branch(lambda m: "2" if len(m["input"]) > 3 else "1", {"1": True, "2": True}))
    g.add_branch(START, Branch(lambda m: "4" if len(m["input"]) > 3 else "3", {"3": True, "4": True}))
    for key in ("1", "2", "3", "4"):
        g.add_edge(key, END)
    assert g.compile(trigger_mode=DAG).invoke({"input": "hi"}) == {"1": "1", "3": "3"}


def test_cross_dag_branch() -> None:
    """compose/graph_test.go TestCrossDAGBranch: two branches on START share end node 2; "hi" runs 1
    and 2."""
    g = Graph()
    for key in ("1", "2", "3"):
        g.add_lambda_node(key, map_lambda(key, key))
    g.add_branch(START, Branch(lambda m: "2" if len(m["input"]) > 3 else "1", {"1": True, "2": True}))
    g.add_branch(START, Branch(lambda m: "3" if len(m["input"]) > 3 else "2", {"2": True, "3": True}))
    for key in ("1", "2", "3"):
        g.add_edge(key, END)
    assert g.compile(trigger_mode=DAG).invoke({"input": "hi"}) == {"1": "1", "2": "2"}


def test_nested_dag_branch() -> None:
    """compose/graph_test.go TestNestedDAGBranch: a branch after a branch in DAG mode."""
    g = Graph()
    for key in ("1", "2", "3", "4"):
        g.add_lambda_node(key, concat_lambda(key))
    g.add_branch(START, Branch(lambda s: "2" if len(s) > 3 else "1", {"1": True, "2": True}))
    g.add_branch("2", Branch(lambda s: "4" if len(s) > 10 else "3", {"3": True, "4": True}))
    g.add_edge("1", END)
    g.add_edge("3", END)
    g.add_edge("4", END)
    r = g.compile(trigger_mode=DAG)
    assert r.invoke("hello") == "hello23"
    assert r.invoke("hi") == "hi1"
    assert r.invoke("hellohello") == "hellohello24"


@pytest.mark.parametrize("mode", [TriggerMode.ANY_PREDECESSOR, DAG])
def test_set_fan_in_merge_config_real_stream_node(mode: TriggerMode) -> None:
    """compose/graph_test.go TestSetFanInMergeConfig_RealStreamNode/{AnyPredecessor,AllPredecessor}:
    two stream nodes fan into END configured with StreamMergeWithSourceEOF; the reader sees every
    chunk and one SourceEOF per source, named by it."""
    g = Graph()

    def s1(n: int) -> Any:
        yield n + 1
        yield n + 2

    def s2(n: int) -> Any:
        yield n + 10
        yield n + 20

    g.add_lambda_node("s1", Lambda(stream=s1), output_key="s1")
    g.add_lambda_node("s2", Lambda(stream=s2), output_key="s2")
    g.add_edge(START, "s1")
    g.add_edge(START, "s2")
    g.add_edge("s1", END)
    g.add_edge("s2", END)
    r = g.compile(trigger_mode=mode, fan_in_merge={END: FanInMergeConfig(stream_merge_with_source_eof=True)})

    merged: dict[str, set[int]] = {}
    sources: list[str] = []
    for chunk in r.stream(1):
        if isinstance(chunk, SourceEOF):
            sources.append(chunk.source)
            continue
        for key, value in chunk.items():
            merged.setdefault(key, set()).add(value)
    assert merged == {"s1": {2, 3}, "s2": {11, 21}}
    assert sorted(sources) == ["s1", "s2"]


def normalize_loops(loops: list[list[str]]) -> list[str]:
    """Eino's `normalizeLoops`: each loop rotated to start at its smallest key, then sorted."""
    result = []
    for loop in loops:
        cycle = loop[:-1] if loop[0] == loop[-1] else loop
        start = cycle.index(min(cycle))
        rotated = cycle[start:] + cycle[:start]
        result.append(",".join([*rotated, rotated[0]]))
    return sorted(result)


FIND_LOOPS_CASES = {
    "Graph without cycles": (["A"], {"A": ["B", "C"], "B": ["D"], "C": ["E"], "D": [], "E": []}, []),
    "Graph with self-loop": (["A"], {"A": ["A", "B"], "B": []}, [["A", "A"]]),
    "Graph with simple cycle": (
        ["A", "B", "C"],
        {"A": ["B"], "B": ["C"], "C": ["A"]},
        [["A", "B", "C", "A"]],
    ),
    "Graph with multiple cycles": (
        ["A", "B", "C", "D", "E", "F"],
        {"A": ["B", "D"], "B": ["C"], "C": ["B"], "D": ["E"], "E": ["F"], "F": ["D"]},
        [["B", "C", "B"], ["D", "E", "F", "D"]],
    ),
    # A's branch ends ("C") count as successors, as Eino's writeToBranches do
    "Graph with branch cycle": (["A", "C"], {"A": ["B", "C"], "B": [], "C": ["A"]}, [["A", "C", "A"]]),
    "Empty graph": ([], {}, []),
}


@pytest.mark.parametrize("case", list(FIND_LOOPS_CASES))
def test_find_loops(case: str) -> None:
    """compose/graph_test.go TestFindLoops/<case>: the loops found from the start nodes, compared after
    normalisation."""
    starts, successors, expected = FIND_LOOPS_CASES[case]
    loops = _find_loops(starts, successors)
    assert len(loops) == len(expected)
    assert normalize_loops(loops) == normalize_loops(expected)


def test_skip_branch() -> None:
    """compose/graph_test.go TestSkipBranch: in DAG mode a multi-branch choosing nothing leaves no task:
    "[GraphRunError] no tasks to execute, last completed nodes: [1]"; with a second edge START -> 2 the
    run goes on and returns the input."""
    g = Graph()
    g.add_lambda_node("1", lambda s: s)
    g.add_lambda_node("2", lambda s: s)
    g.add_edge(START, "1")
    g.add_branch("1", Branch.multi(lambda _: {}, {"2": True}))
    g.add_edge("2", END)
    expected = r"\[GraphRunError\] no tasks to execute, last completed nodes: \[1\]"
    with pytest.raises(GraphRunError, match=expected):
        g.compile(trigger_mode=DAG).invoke("input")

    g = Graph()
    g.add_lambda_node("1", lambda s: s)
    g.add_lambda_node("2", lambda s: s)
    g.add_edge(START, "1")
    g.add_branch("1", Branch.multi(lambda _: {}, {"2": True}))
    g.add_edge("2", END)
    g.add_edge(START, "2")
    assert g.compile(trigger_mode=DAG).invoke("input") == "input"


def test_get_state_in_graph_callback() -> None:
    """compose/graph_test.go TestGetStateInGraphCallback: a callback's on_start can use process_state
    on the graph's state without error (for the graph and its node)."""

    class State:
        a = ""

    class Handler:
        def __init__(self) -> None:
            self.seen: list[str] = []

        def on_start(self, info: Any, input: Any) -> None:
            def write(state: State) -> None:
                state.a = "test"

            process_state(State, write)
            self.seen.append(info.kind)

    g = Graph(state=State)
    g.add_lambda_node("1", lambda s: s)
    g.add_edge(START, "1")
    g.add_edge("1", END)
    handler = Handler()
    assert g.compile().invoke("input", callbacks=[handler]) == "input"
    assert handler.seen == ["Graph", "Lambda"]


def test_graph_compile_callback() -> None:
    """compose/graph_test.go TestGraphCompileCallback/graph compile callback: what Eino hands a compile
    callback as `GraphInfo` (nodes with component, name, input/output keys; edges; branch ends; nested
    graphs with their compile options; the state generator), read from `CompiledGraph.topology()`,
    graph_core's description of a compiled graph. Instances and Go types are Go-only."""

    class S:
        pass

    g = Graph(state=S)
    g.add_lambda_node("node1", lambda _: "node1", name="lambda_1", input_key="input_key")
    g.add_passthrough_node("pass1")
    g.add_passthrough_node("pass2")
    g.add_branch("node1", Branch(lambda s: s, {"pass1": True, "pass2": True}))
    g.add_edge(START, "node1")
    sub_sub = Graph()
    sub_sub.add_lambda_node("sub1", lambda _: "node2", name="lambda_2")
    sub_sub.add_edge(START, "sub1")
    sub_sub.add_edge("sub1", END)
    sub = Graph()
    sub.add_graph_node("sub_sub_1", sub_sub, compile_options={})
    sub.add_edge(START, "sub_sub_1")
    sub.add_edge("sub_sub_1", END)
    g.add_graph_node("sub_graph", sub, compile_options={"max_run_steps": 2, "name": "sub_graph"})
    g.add_edge("pass1", "sub_graph")
    g.add_edge("pass2", "sub_graph")
    g.add_lambda_node("node3", lambda _: "node3", name="lambda_3", output_key="lambda_3")
    g.add_lambda_node("node4", lambda _: "node4", name="lambda_4", output_key="lambda_4")
    g.add_edge("sub_graph", "node3")
    g.add_edge("sub_graph", "node4")
    g.add_edge("node3", END)
    g.add_edge("node4", END)
    top = g.compile(name="top_level").topology()

    assert top.name == "top_level"
    assert top.has_state
    described = {
        n.key: (n.kind, n.name, n.input_key, n.output_key) for n in top.nodes if n.key not in (START, END)
    }
    assert described == {
        "node1": ("Lambda", "lambda_1", "input_key", None),
        "pass1": ("Passthrough", "", None, None),
        "pass2": ("Passthrough", "", None, None),
        "sub_graph": ("Graph", "", None, None),
        "node3": ("Lambda", "lambda_3", None, "lambda_3"),
        "node4": ("Lambda", "lambda_4", None, "lambda_4"),
    }
    edges = {(e.source, e.target) for e in top.edges if e.kind == "edge"}
    assert edges == {
        (START, "node1"),
        ("pass1", "sub_graph"),
        ("pass2", "sub_graph"),
        ("sub_graph", "node3"),
        ("sub_graph", "node4"),
        ("node3", END),
        ("node4", END),
    }
    branch_ends = {(e.source, e.target) for e in top.edges if e.kind == "branch"}
    assert branch_ends == {("node1", "pass1"), ("node1", "pass2")}

    nested = top.node("sub_graph").graph
    assert nested is not None
    assert (nested.name, nested.max_run_steps) == ("sub_graph", 2)
    assert {(e.source, e.target) for e in nested.edges} == {(START, "sub_sub_1"), ("sub_sub_1", END)}
    inner = nested.node("sub_sub_1").graph
    assert inner is not None
    assert (inner.node("sub1").kind, inner.node("sub1").name) == ("Lambda", "lambda_2")
    assert {(e.source, e.target) for e in inner.edges} == {(START, "sub1"), ("sub1", END)}


def test_handler_type_validate() -> None:
    """compose/graph_test.go TestHandlerTypeValidate (success cases): a passthrough node takes pre and
    post state handlers, also with an input or output key, and so does a lambda node; the handlers run,
    a pre handler seeing the input before the input key is applied and a post handler the output after
    the output key is. (The handler/input type mismatch errors are Go static types.)"""
    g = Graph(state=lambda: [""])
    g.add_passthrough_node("1", pre=lambda v, s: v + "+pre1")
    g.add_passthrough_node("2", pre=lambda v, s: {"input": v["input"] + "+pre2"}, input_key="input")
    g.add_passthrough_node("3", post=lambda v, s: v + "+post3")
    g.add_passthrough_node("4", post=lambda v, s: {"output": v["output"] + "+post4"}, output_key="output")
    g.add_lambda_node("5", lambda v: v, pre=lambda v, s: v + "+pre5")
    g.add_lambda_node("6", lambda v: v, post=lambda v, s: v + "+post6")
    g.add_lambda_node("7", lambda v: v, pre=lambda v, s: {"input": v["input"] + "+pre7"}, input_key="input")
    post8 = lambda v, s: {"output": v["output"] + "+post8"}  # noqa: E731
    g.add_lambda_node("8", lambda v: v, post=post8, output_key="output")
    g.add_edge(START, "1")
    g.add_edge("1", "3")
    g.add_edge("3", "5")
    g.add_edge("5", "6")
    g.add_lambda_node("wrap", lambda v: {"input": v})
    g.add_edge("6", "wrap")
    g.add_edge("wrap", "2")
    g.add_edge("2", "4")
    g.add_lambda_node("unwrap", lambda v: {"input": v["output"]})
    g.add_edge("4", "unwrap")
    g.add_edge("unwrap", "7")
    g.add_edge("7", "8")
    g.add_edge("8", END)
    out = g.compile().invoke("x")
    assert out == {"output": "x+pre1+post3+pre5+post6+pre2+post4+pre7+post8"}
