"""Ports of Eino's `compose/resume_test.go` (cloudwego/eino ca0441ac0bce): interrupt state, resume data
and interrupt addresses of nodes in nested graphs."""

from __future__ import annotations

from typing import Any

import pytest

from graph_core import END, START, Graph
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import InterruptError
from graph_core.interrupt import (
    get_interrupt_state,
    get_resume_data,
    interrupt,
    is_resume_target,
    was_interrupted,
)


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
