"""A thread whose run failed in a node: LangGraph keeps the failing task's `__error__` write (the
exception's repr) on the checkpoint before the step, and the thread reads as a recording of the run
reads: failed in that node with that error, its step unfinished; not as interrupted before the node."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph

from inspector.cli import main
from inspector.sources.langgraph import open_thread
from inspector.sources.langgraph.tasks import exception_of
from tests.langgraph.thread_writers import Backend, config


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(cache))


class Trip(TypedDict):
    city: str
    legs: int


def _planner(failures: list[str]) -> StateGraph[Trip, Any, Trip, Trip]:
    """`plan`, then `book`, which raises while `failures` has a message left (one per call)."""

    def plan(state: Trip) -> dict[str, Any]:
        return {"legs": 2}

    def book(state: Trip) -> dict[str, Any]:
        if failures:
            raise ValueError(failures.pop(0))
        return {"legs": state["legs"] + 1}

    graph = StateGraph(Trip)
    graph.add_node("plan", plan)
    graph.add_node("book", book)
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "book")
    graph.add_edge("book", END)
    return graph


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """A checkpointer holding `failed` (its run raised in `book`) and `retried` (raised, then run again
    with `invoke(None)`, which reruns `book` and finishes)."""
    if request.param == "sqlite":
        found = Backend("sqlite", str(tmp_path / "trips.sqlite"))
    else:
        found = Backend("postgres", request.getfixturevalue("postgres_url"))
    with found.saver() as saver:
        failing = _planner(["no seats left on the 9:40 to Hangzhou"]).compile(checkpointer=saver)
        with pytest.raises(ValueError, match="no seats left"):
            failing.invoke({"city": "Hangzhou", "legs": 0}, config("failed"))
        retrying = _planner(["timed out"]).compile(checkpointer=saver)
        with pytest.raises(ValueError, match="timed out"):
            retrying.invoke({"city": "Beijing", "legs": 0}, config("retried"))
        assert retrying.invoke(None, config("retried"))["legs"] == 3
    return found


def test_a_thread_that_failed_in_a_node_reads_as_failed_with_the_error(backend: Backend) -> None:
    run = open_thread(backend.location, "failed")
    assert run.status == "error" and run.interrupt is None
    assert [step.nodes for step in run.steps] == [("plan",)]
    assert run.error is not None
    assert run.error.node_path == ["book"]
    assert run.error.cause_type == "ValueError"
    assert run.error.cause_message == "no seats left on the 9:40 to Hangzhou"
    unfinished = run.segments[0].unfinished
    assert unfinished is not None and unfinished.nodes == ("book",)


def test_a_failed_step_run_again_reads_as_finished(backend: Backend) -> None:
    run = open_thread(backend.location, "retried")
    assert run.status == "ok" and run.error is None
    assert [step.nodes for step in run.steps] == [("plan",), ("book",)]
    assert run.output == {"city": "Beijing", "legs": 3}


def test_show_says_where_the_thread_failed(backend: Backend, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", backend.location, "--thread", "failed"]) == 0
    out = capsys.readouterr().out
    assert "status error" in out and "the run failed in node book" in out
    assert "interrupted" not in out


@pytest.mark.parametrize(
    ("stored", "kind", "message"),
    [
        ("ValueError('no seats')", ValueError, "no seats"),
        ("KeyError('city')", KeyError, "'city'"),
        ("ConnectError(\"host 'api' unreachable\")", None, "host 'api' unreachable"),
        ("httpx.ReadTimeout('slow', 3)", None, "slow, 3"),
        ("__import__('os').system('true')", RuntimeError, "__import__('os').system('true')"),
        ("the tool broke", RuntimeError, "the tool broke"),
    ],
)
def test_a_stored_error_becomes_an_exception_of_its_type_never_evaluated(
    stored: str, kind: type[BaseException] | None, message: str
) -> None:
    error = exception_of(stored)
    if kind is not None:
        assert type(error) is kind
    else:
        assert type(error).__name__ == stored.split("(")[0].rsplit(".", 1)[-1]
    assert str(error) == message
