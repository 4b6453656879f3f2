"""Audit: resume data keyed by an interrupt address the checkpoint does not have (a typo, or the address of
another run) is refused, naming the unknown address and the checkpoint's points, instead of reaching every
interrupted point as one opaque dict."""

from __future__ import annotations

import pytest

from graph_core import END, START, Graph, get_interrupt_state, get_resume_data, interrupt
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import GraphRunError, InterruptError
from graph_core.runner.compiled import CompiledGraph


def _ask(text: str) -> str:
    if get_interrupt_state() is None:
        interrupt("ask", state=text)
    return f"{text}:{get_resume_data()}"


def _two_approvals() -> CompiledGraph:
    graph = Graph()
    graph.add_lambda_node("a", _ask, output_key="a")
    graph.add_lambda_node("b", _ask, output_key="b")
    graph.add_edge(START, "a")
    graph.add_edge(START, "b")
    graph.add_edge("a", END)
    graph.add_edge("b", END)
    return graph.compile(checkpoint_store=InMemoryCheckpointStore())


def test_misspelt_address_is_refused_with_the_known_points() -> None:
    compiled = _two_approvals()
    with pytest.raises(InterruptError):
        compiled.invoke("x", checkpoint_id="c")
    data = {"runnable:;node:a": "yes", "runnable:;node:bb": "no"}
    with pytest.raises(GraphRunError, match=r"checkpoint 'c'.*'runnable:;node:bb'") as caught:
        compiled.invoke(None, checkpoint_id="c", resume_data=data)
    assert "'runnable:;node:b'" in str(caught.value)
    assert not isinstance(caught.value, InterruptError)
    # the checkpoint is untouched: a corrected call resumes it
    fixed = {"runnable:;node:a": "yes", "runnable:;node:b": "no"}
    assert compiled.invoke(None, checkpoint_id="c", resume_data=fixed) == {"a": ":yes", "b": ":no"}


def test_plain_dict_resume_data_still_reaches_every_point() -> None:
    compiled = _two_approvals()
    with pytest.raises(InterruptError):
        compiled.invoke("x", checkpoint_id="c")
    out = compiled.invoke(None, checkpoint_id="c", resume_data={"approved": True})
    assert out == {"a": ":{'approved': True}", "b": ":{'approved': True}"}
