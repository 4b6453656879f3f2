"""Ports of Eino's `compose/resume_test.go` (cloudwego/eino ca0441ac0bce): interrupt state, resume data
and interrupt addresses of nodes in nested graphs."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any

import pytest

from graph_core import END, START, Branch, Graph, process_state
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import InterruptError
from graph_core.interrupt import (
    InterruptContext,
    InterruptSignal,
    address_segment,
    composite_interrupt,
    get_interrupt_state,
    get_resume_data,
    interrupt,
    is_resume_target,
    was_interrupted,
)
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall, ToolInfo
from graph_core.tools import ToolsNode, get_tool_call_id


def test_interrupt_state_and_resume_for_sub_graph() -> None:
    """resume_test.go TestInterruptStateAndResumeForSubGraph: the address of a node inside a nested
    graph of an unnamed graph is `runnable:;node:sub_graph_node;node:inner_lambda`; state and resume
    data reach it."""
    seen: dict[str, Any] = {}

    def inner(value: str) -> str:
        if not was_interrupted():
            interrupt({"reason": "sub-graph maintenance"}, state={"original_input": value})
        seen["state"] = get_interrupt_state()
        seen["target"] = is_resume_target()
        seen["data"] = get_resume_data()
        return "Sub-graph resumed successfully"

    sub = Graph()
    sub.add_lambda_node("inner_lambda", inner)
    sub.add_edge(START, "inner_lambda")
    sub.add_edge("inner_lambda", END)
    main = Graph()
    main.add_graph_node("sub_graph_node", sub)
    main.add_edge(START, "sub_graph_node")
    main.add_edge("sub_graph_node", END)
    compiled = main.compile(checkpoint_store=InMemoryCheckpointStore())

    with pytest.raises(InterruptError) as caught:
        compiled.invoke("main input", checkpoint_id="test-subgraph-checkpoint-1")
    contexts = caught.value.info.interrupt_contexts
    assert len(contexts) == 1
    assert contexts[0].address == "runnable:;node:sub_graph_node;node:inner_lambda"
    assert contexts[0].info == {"reason": "sub-graph maintenance"}

    data = {contexts[0].id: {"message": "let's continue sub-graph"}}
    output = compiled.invoke("", checkpoint_id="test-subgraph-checkpoint-1", resume_data=data)
    assert output == "Sub-graph resumed successfully"
    assert seen == {
        "state": {"original_input": "main input"},
        "target": True,
        "data": {"message": "let's continue sub-graph"},
    }


def test_interrupt_address_names_the_compiled_graph() -> None:
    """resume_test.go TestInterruptStateAndResumeForSubGraph, with `compile(name=...)`: the first segment
    is `runnable:` + the top-level graph's name (Eino `WithGraphName`); nested graphs add only node keys."""
    sub = Graph()
    sub.add_lambda_node("inner_lambda", lambda v: interrupt("stop"))
    sub.add_edge(START, "inner_lambda")
    sub.add_edge("inner_lambda", END)
    main = Graph()
    main.add_graph_node("sub_graph_node", sub, compile_options={"name": "inner"})
    main.add_edge(START, "sub_graph_node")
    main.add_edge("sub_graph_node", END)
    with pytest.raises(InterruptError) as caught:
        main.compile(name="foo").invoke("x")
    assert [c.address for c in caught.value.info.interrupt_contexts] == [
        "runnable:foo;node:sub_graph_node;node:inner_lambda"
    ]


def test_interrupt_state_and_resume_for_root_graph() -> None:
    """resume_test.go TestInterruptStateAndResumeForRootGraph: a stateful interrupt in the top-level
    graph `root`; the rerun reads its state and the resume data aimed at its address."""
    seen: dict[str, Any] = {}

    def node(value: str) -> str:
        if not was_interrupted():
            interrupt({"reason": "scheduled maintenance"}, state={"original_input": value})
        state = get_interrupt_state()
        seen["target"], seen["data"] = is_resume_target(), get_resume_data()
        return "Resumed successfully with input: " + state["original_input"]

    graph = Graph()
    graph.add_lambda_node("lambda", node)
    graph.add_edge(START, "lambda")
    graph.add_edge("lambda", END)
    compiled = graph.compile(checkpoint_store=InMemoryCheckpointStore(), name="root")
    with pytest.raises(InterruptError) as caught:
        compiled.invoke("initial input", checkpoint_id="test-checkpoint-1")
    [context] = caught.value.info.interrupt_contexts
    assert context.address == "runnable:root;node:lambda"
    assert context.info == {"reason": "scheduled maintenance"}
    data = {context.id: {"message": "let's continue"}}
    output = compiled.invoke("", checkpoint_id="test-checkpoint-1", resume_data=data)
    assert output == "Resumed successfully with input: initial input"
    assert seen == {"target": True, "data": {"message": "let's continue"}}


@dataclass
class ResumeTestState:
    counter: int = 0


def test_process_state_in_on_start_during_resume() -> None:
    """resume_test.go TestProcessStateInOnStartDuringResume: the graph's `on_start` can use
    `process_state` on the resumed run too, and sees the restored state (counter 1 -> 2)."""
    starts = 0
    counters: list[int] = []

    class Callback:
        def on_start(self, info: Any, _: Any) -> None:
            nonlocal starts
            if info.name == "test-process-state-onstart":
                starts += 1

                def bump(state: ResumeTestState) -> None:
                    state.counter += 1

                process_state(ResumeTestState, bump)

    def node(value: str) -> str:
        if not was_interrupted():
            interrupt({"reason": "test interrupt"}, state={"original_input": value})
        counters.append(process_state(ResumeTestState, lambda s: s.counter))
        return "success"

    graph = Graph(state=ResumeTestState)
    graph.add_lambda_node("lambda", node)
    graph.add_edge(START, "lambda")
    graph.add_edge("lambda", END)
    compiled = graph.compile(checkpoint_store=InMemoryCheckpointStore(), name="test-process-state-onstart")
    with pytest.raises(InterruptError) as caught:
        compiled.invoke("test input", checkpoint_id="cp", callbacks=[Callback()])
    assert starts == 1
    data = {caught.value.info.interrupt_contexts[0].id: {}}
    assert compiled.invoke("", checkpoint_id="cp", callbacks=[Callback()], resume_data=data) == "success"
    assert starts == 2 and counters == [2]


class _InterruptingTool:
    """Go `mockInterruptingTool`: interrupts with its input as state, then expects the resume data."""

    def __init__(self) -> None:
        self.info = ToolInfo("interrupt_tool", "A tool that interrupts execution.", {})
        self.resumed: list[Any] = []

    def invoke(self, arguments: str) -> str:
        if not was_interrupted():
            interrupt(
                {"reason": "tool maintenance"}, state={"original_input": json.loads(arguments)["input"]}
            )
        self.resumed.append((get_interrupt_state(), is_resume_target(), get_resume_data()))
        return "Tool resumed successfully"


def test_interrupt_state_and_resume_for_tool_in_nested_sub_graph() -> None:
    """resume_test.go TestInterruptStateAndResumeForToolInNestedSubGraph: a tool two graphs down; only
    the root cause is listed, its parent is the ToolsNode; the resume reaches the tool call."""
    tool = _InterruptingTool()
    call = ToolCall(id="tool_call_123", name="interrupt_tool", arguments='{"input": "test"}')
    model = ScriptedChatModel([Message.assistant("", tool_calls=[call])] * 2)
    sub_b = Graph()
    sub_b.add_chat_model_node("model", model)
    sub_b.add_tools_node("tools", ToolsNode([tool]))
    sub_b.add_edge(START, "model")
    sub_b.add_edge("model", "tools")
    sub_b.add_edge("tools", END)
    sub_a = Graph()
    sub_a.add_graph_node("sub_graph_b", sub_b)
    sub_a.add_edge(START, "sub_graph_b")
    sub_a.add_edge("sub_graph_b", END)
    root = Graph()
    root.add_graph_node("sub_graph_a", sub_a)
    root.add_edge(START, "sub_graph_a")
    root.add_edge("sub_graph_a", END)
    compiled = root.compile(checkpoint_store=InMemoryCheckpointStore(), name="root")
    initial = [Message.user("hello")]
    with pytest.raises(InterruptError) as caught:
        compiled.invoke(initial, checkpoint_id="test-nested-tool-interrupt")
    [root_cause] = caught.value.info.interrupt_contexts
    assert root_cause.address == (
        "runnable:root;node:sub_graph_a;node:sub_graph_b;node:tools;tool:interrupt_tool:tool_call_123"
    )
    assert root_cause.is_root_cause and root_cause.info == {"reason": "tool maintenance"}
    parent = root_cause.parent_context
    assert parent is not None and not parent.is_root_cause
    assert parent.address == "runnable:root;node:sub_graph_a;node:sub_graph_b;node:tools"
    data = {root_cause.id: {"message": "let's continue tool"}}
    output = compiled.invoke(initial, checkpoint_id="test-nested-tool-interrupt", resume_data=data)
    assert [m.content for m in output] == ["Tool resumed successfully"]
    assert tool.resumed == [({"original_input": "test"}, True, {"message": "let's continue tool"})]


class _ReentryTool:
    """Go `mockReentryTool`: interrupts until resumed with data; records per call whether it was the
    resume target."""

    def __init__(self) -> None:
        self.info = ToolInfo("reentry_tool", "A tool that can be re-entered in a resumed graph.", {})
        self.targeted: dict[str, bool] = {}
        self._lock = threading.Lock()

    def invoke(self, arguments: str) -> str:
        call_id = get_tool_call_id()
        targeted = is_resume_target()
        with self._lock:
            self.targeted[call_id] = targeted
        if targeted:
            assert was_interrupted()
            return "Resumed " + get_resume_data()["message"]
        interrupt(None, state="some state for " + call_id)
        raise AssertionError("unreachable")


def test_reentry_for_resumed_tools() -> None:
    """resume_test.go TestReentryForResumedTools: a ReAct-style loop; tool calls are resumed one at a
    time, a call not targeted interrupts again, a new call in the same run is no resume target, and
    the ToolsNode itself is a resume target exactly when one of its calls is (seen in its on_start)."""
    tool = _ReentryTool()
    node_targeted: list[bool] = []

    class ToolsNodeCallback:
        def on_start(self, info: Any, _: Any) -> None:
            if info.kind == "ToolsNode":
                node_targeted.append(is_resume_target())

    def calls(*ids_and_inputs: tuple[str, str]) -> Message:
        return Message.assistant(
            "",
            tool_calls=[
                ToolCall(id=i, name="reentry_tool", arguments=json.dumps({"input": a}))
                for i, a in ids_and_inputs
            ],
        )

    model = ScriptedChatModel(
        [calls(("call_1", "a"), ("call_2", "b")), calls(("call_3", "c")), Message.assistant("all done")]
    )
    graph = Graph()
    graph.add_chat_model_node("model", model)
    graph.add_tools_node("tools", ToolsNode([tool]))
    graph.add_edge(START, "model")
    graph.add_branch("model", Branch(lambda m: "tools" if m.tool_calls else END, {"tools", END}))
    graph.add_edge("tools", "model")
    compiled = graph.compile(checkpoint_store=InMemoryCheckpointStore(), name="root")
    start = [Message.user("start")]

    def run(resume_data: Any = None) -> list[InterruptContext]:
        tool.targeted.clear()
        node_targeted.clear()
        with pytest.raises(InterruptError) as caught:
            compiled.invoke(
                start, checkpoint_id="reentry-test", callbacks=[ToolsNodeCallback()], resume_data=resume_data
            )
        contexts = caught.value.info.interrupt_contexts
        for context in contexts:
            assert context.is_root_cause and context.parent == "runnable:root;node:tools"
        return contexts

    first = run()
    assert sorted(c.address for c in first) == [
        "runnable:root;node:tools;tool:reentry_tool:call_1",
        "runnable:root;node:tools;tool:reentry_tool:call_2",
    ]
    assert tool.targeted == {"call_1": False, "call_2": False} and node_targeted == [False]
    ids = {c.address.rsplit(":", 1)[1]: c.id for c in first}

    [second] = run({ids["call_1"]: {"message": "resume call 1"}})
    assert second.address == "runnable:root;node:tools;tool:reentry_tool:call_2"
    assert tool.targeted == {"call_1": True, "call_2": False} and node_targeted == [True]

    [third] = run({second.id: {"message": "resume call 2"}})
    assert third.address == "runnable:root;node:tools;tool:reentry_tool:call_3"
    assert tool.targeted == {"call_2": True, "call_3": False} and node_targeted == [True, False]

    tool.targeted.clear()
    node_targeted.clear()
    data = {third.id: {"message": "resume call 3"}}
    output = compiled.invoke(
        start, checkpoint_id="reentry-test", callbacks=[ToolsNodeCallback()], resume_data=data
    )
    assert output.content == "all done"
    assert tool.targeted == {"call_3": True} and node_targeted == [True]


def test_multiple_interrupts_and_resumes() -> None:
    """resume_test.go TestMultipleInterruptsAndResumes: a batch lambda runs three processes, each under
    its own address segment (`process:p0`...); each interrupts with its own state, and the batch node
    interrupts once for all of them (`composite_interrupt`). The caller resumes p0 with data and p2
    without, then p1."""
    process_ids = ["p0", "p1", "p2"]

    def run_process(pid: str) -> str:
        if not was_interrupted():
            interrupt({"reason": f"process {pid} needs input"}, state={"step": 1})
        state = get_interrupt_state()
        assert state == {"step": 1}
        if not is_resume_target():
            interrupt({"reason": f"process {pid} still needs input"}, state=state)
        data = get_resume_data()
        if data is not None:
            return f"process {pid} done with instruction: {data['instruction']}"
        return f"process {pid} done"

    def batch(_: str) -> dict[str, str]:
        persisted = get_interrupt_state() or {"results": {}}
        signals: list[InterruptSignal] = []
        for pid in process_ids:
            if pid in persisted["results"]:
                continue
            with address_segment("process", pid):
                try:
                    persisted["results"][pid] = run_process(pid)
                except InterruptSignal as signal:
                    signals.append(signal)
        if signals:
            composite_interrupt(None, persisted, signals)
        return persisted["results"]

    graph = Graph()
    graph.add_lambda_node("batch", batch)
    graph.add_edge(START, "batch")
    graph.add_edge("batch", END)
    compiled = graph.compile(checkpoint_store=InMemoryCheckpointStore(), name="root")

    with pytest.raises(InterruptError) as caught:
        compiled.invoke("", checkpoint_id="multi-interrupt-test")
    contexts = caught.value.info.interrupt_contexts
    assert len(contexts) == 3  # only the three root causes
    parent: InterruptContext | None = None
    for context in contexts:
        assert context.is_root_cause
        pid = context.address.rsplit(":", 1)[1]
        assert context.info == {"reason": f"process {pid} needs input"}
        enclosing = context.parent_context
        assert enclosing is not None
        if parent is None:
            assert enclosing.address == "runnable:root;node:batch"
            assert not enclosing.is_root_cause
            parent = enclosing
        else:
            assert enclosing is parent  # all three share one parent
    assert {c.address for c in contexts} == {f"runnable:root;node:batch;process:{p}" for p in process_ids}
    ids = {c.address: c.id for c in contexts}

    with pytest.raises(InterruptError) as caught:
        compiled.invoke(
            "",
            checkpoint_id="multi-interrupt-test",
            resume_data={
                ids["runnable:root;node:batch;process:p0"]: {"instruction": "do it"},
                ids["runnable:root;node:batch;process:p2"]: None,  # Eino `Resume`: no data
            },
        )
    [root_cause] = caught.value.info.interrupt_contexts
    assert root_cause.address == "runnable:root;node:batch;process:p1"
    assert root_cause.parent_context is not None
    assert root_cause.parent_context.address == "runnable:root;node:batch"

    output = compiled.invoke("", checkpoint_id="multi-interrupt-test", resume_data={root_cause.id: None})
    assert output == {
        "p0": "process p0 done with instruction: do it",
        "p1": "process p1 done",
        "p2": "process p2 done",
    }


def test_graph_interrupt_within_lambda() -> None:
    """resume_test.go TestGraphInterruptWithinLambda: a standalone graph `inner` invoked inside the lambda
    `composite_lambda` of the graph `root` takes the lambda's address; the lambda wraps the inner graph's
    `InterruptError` with `composite_interrupt`; the resume data aimed at the inner node reaches it when
    the lambda reruns and invokes the inner graph again (which resumes from its own checkpoint)."""
    seen: dict[str, Any] = {}

    def interrupting_lambda(value: str) -> str:
        if not was_interrupted():
            interrupt("inner interrupt", state={"original_input": value})
        state = get_interrupt_state()
        seen["has_state"] = state is not None
        seen["original_input"] = state["original_input"] if state is not None else None
        seen["is_resume"] = is_resume_target()
        data = get_resume_data()
        seen["has_data"] = data is not None
        seen["message"] = data["message"] if data is not None else None
        return "inner lambda resumed successfully"

    inner = Graph()
    inner.add_lambda_node("inner_lambda", interrupting_lambda)
    inner.add_edge(START, "inner_lambda")
    inner.add_edge("inner_lambda", END)
    compiled_inner = inner.compile(name="inner", checkpoint_store=InMemoryCheckpointStore())

    def composite_lambda(value: str) -> str:
        try:
            return compiled_inner.invoke(value, checkpoint_id="inner-cp")
        except InterruptError as error:
            composite_interrupt("composite interrupt from lambda", None, [error])
            raise AssertionError("unreachable") from None

    root = Graph()
    root.add_lambda_node("composite_lambda", composite_lambda)
    root.add_edge(START, "composite_lambda")
    root.add_edge("composite_lambda", END)
    compiled_root = root.compile(name="root", checkpoint_store=InMemoryCheckpointStore())

    with pytest.raises(InterruptError) as caught:
        compiled_root.invoke("top level input", checkpoint_id="graph-in-lambda-test")
    contexts = caught.value.info.interrupt_contexts
    assert len(contexts) == 1  # only the root cause is returned
    root_cause = contexts[0]
    assert root_cause.address == "runnable:root;node:composite_lambda;runnable:inner;node:inner_lambda"
    assert root_cause.info == "inner interrupt"
    assert root_cause.is_root_cause
    parent = root_cause.parent_context
    assert parent is not None
    assert parent.address == "runnable:root;node:composite_lambda;runnable:inner"
    assert parent.info is None  # the inner runnable has no info of its own
    assert not parent.is_root_cause
    grandparent = parent.parent_context
    assert grandparent is not None
    assert grandparent.address == "runnable:root;node:composite_lambda"
    assert grandparent.info == "composite interrupt from lambda"
    assert not grandparent.is_root_cause

    output = compiled_root.invoke(
        "top level input",
        checkpoint_id="graph-in-lambda-test",
        resume_data={root_cause.id: {"message": "resume inner"}},
    )
    assert output == "inner lambda resumed successfully"
    assert seen == {
        "has_state": True,
        "original_input": "top level input",
        "is_resume": True,
        "has_data": True,
        "message": "resume inner",
    }


class _WrapperTool:
    """Go `wrapperToolForTest`: runs a compiled graph and wraps its interrupt with a composite interrupt
    of the tool call; logs per call whether the call is a resume target."""

    def __init__(self, compiled: Any) -> None:
        self.info = ToolInfo("wrapperTool", "A tool that wraps a nested graph", {})
        self.compiled = compiled
        self.is_resume_target_log: list[bool] = []

    def invoke(self, arguments: str) -> str:
        self.is_resume_target_log.append(is_resume_target())
        try:
            return self.compiled.invoke(arguments)
        except InterruptError as error:
            composite_interrupt("wrapper tool interrupt", None, [error])
            raise AssertionError("unreachable") from None


def test_tool_composite_interrupt_with_nested_graph_interrupt() -> None:
    """resume_test.go TestToolCompositeInterruptWithNestedGraphInterrupt: a tool runs a graph with no
    checkpoint store of its own, whose graph node interrupts; the tool wraps it. Resuming the root
    cause reruns the tool (a resume target, as its part is targeted), whose graph runs anew and finds
    its interrupted node's record in the tool call's."""
    seen: dict[str, bool] = {}

    def interrupt_node(value: str) -> str:
        if not was_interrupted():
            interrupt("sub-sub graph interrupt info")
        seen["inner_node_is_resume_target"] = is_resume_target()
        return "resumed successfully"

    sub_sub = Graph()
    sub_sub.add_lambda_node("interruptNode", interrupt_node)
    sub_sub.add_edge(START, "interruptNode")
    sub_sub.add_edge("interruptNode", END)
    nested = Graph()
    nested.add_graph_node("subSubGraph", sub_sub)
    nested.add_edge(START, "subSubGraph")
    nested.add_edge("subSubGraph", END)
    wrapper = _WrapperTool(nested.compile())
    outer = Graph()
    outer.add_tools_node("tools", ToolsNode([wrapper]))
    outer.add_edge(START, "tools")
    outer.add_edge("tools", END)
    compiled = outer.compile(checkpoint_store=InMemoryCheckpointStore())
    message = Message.assistant(
        "", tool_calls=[ToolCall(id="call_1", name="wrapperTool", arguments='"test"')]
    )

    with pytest.raises(InterruptError) as caught:
        compiled.invoke(message, checkpoint_id="test-wrapper-tool-resume")
    info = caught.value.info
    assert info is not None
    assert info.interrupt_contexts
    root_cause = info.interrupt_contexts[0]
    assert root_cause.info == "sub-sub graph interrupt info"
    assert root_cause.is_root_cause
    # not asserted in Go: Eino's address, the tool call's completed by the ToolsNode down to the graph's
    assert root_cause.address == (
        "runnable:;node:tools;tool:wrapperTool:call_1;runnable:;node:subSubGraph;node:interruptNode"
    )
    wrapper_parent = None
    point = root_cause.parent_context
    while point is not None:
        if point.info == "wrapper tool interrupt":
            wrapper_parent = point
            break
        point = point.parent_context
    assert wrapper_parent is not None, (
        "should have parent from wrapper tool with info 'wrapper tool interrupt'"
    )
    assert wrapper.is_resume_target_log == [False]  # first invocation: not a resume target

    compiled.invoke(message, checkpoint_id="test-wrapper-tool-resume", resume_data={root_cause.id: None})
    assert seen["inner_node_is_resume_target"], "inner node should be resume target"
    # second invocation: a resume target because its child is targeted
    assert wrapper.is_resume_target_log == [False, True]
