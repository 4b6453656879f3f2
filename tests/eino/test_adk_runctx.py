"""Ports of `adk/runctx_test.go` (cloudwego/eino): session values in a run context, and the lanes a
parallel workflow forks and joins. Each test names its Go test."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextvars import copy_context
from dataclasses import dataclass
from typing import Any

import pytest

from graph_core.agents.adk_run import (
    AgentEvent,
    add_session_value,
    add_session_values,
    get_session_value,
    get_session_values,
)
from graph_core.agents.adk_runctx import (
    RunContext,
    RunSession,
    context_with,
    fork_run_ctx,
    init_run_ctx,
    join_run_ctxs,
)
from graph_core.schema import Message


def _in_session(fn: Callable[[], Any]) -> Any:
    """Run `fn` with a run context of its own (Eino `setRunCtx(ctx, &runContext{Session: ...})`)."""
    return context_with(RunContext(session=RunSession())).run(fn)


@dataclass(frozen=True)
class Named:
    name: str


def _basic() -> None:
    add_session_values({"key1": "value1", "key2": 42, "key3": True})
    values = get_session_values()
    assert values == {"key1": "value1", "key2": 42, "key3": True}


def _add_empty_context() -> None:
    add_session_values({"key1": "value1"})
    assert get_session_values() == {}


def _get_empty_context() -> None:
    assert get_session_values() == {}


def _nil_values() -> None:
    add_session_values(None)
    assert get_session_values() == {}


def _empty_values() -> None:
    add_session_values({})
    assert get_session_values() == {}


def _complex_types() -> None:
    values = {
        "string": "hello world",
        "int": 123,
        "float": 45.67,
        "bool": True,
        "slice": ["a", "b", "c"],
        "map": {"x": 1, "y": 2},
        "struct": Named("test"),
    }
    add_session_values(values)
    assert get_session_values() == values


def _overwrite() -> None:
    add_session_values({"key1": "initial1", "key2": "initial2"})
    add_session_values({"key1": "overwritten1", "key3": "new3"})
    assert get_session_values() == {"key1": "overwritten1", "key2": "initial2", "key3": "new3"}


def _concurrent() -> None:
    add_session_values({"counter": 0})

    def writer(key: str) -> Callable[[], None]:
        def write() -> None:
            for i in range(100):
                add_session_values({key: i})

        return write

    threads = [
        threading.Thread(target=copy_context().run, args=(writer(k),)) for k in ("goroutine1", "goroutine2")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    values = get_session_values()
    assert values["counter"] == 0 and values["goroutine1"] == 99 and values["goroutine2"] == 99


def _individual_get() -> None:
    add_session_values({"key1": "value1", "key2": 42})
    assert get_session_value("key1") == ("value1", True)
    assert get_session_value("key2") == (42, True)
    assert get_session_value("nonexistent") == (None, False)


def _individual_add() -> None:
    add_session_value("key1", "value1")
    add_session_value("key2", 42)
    assert get_session_values() == {"key1": "value1", "key2": 42}


def _individual_add_empty_context() -> None:
    add_session_value("key1", "value1")
    assert get_session_value("key1") == (None, False)
    assert get_session_values() == {}


def _integration() -> None:
    ctx = init_run_ctx(None, "test-agent", [Message.user("test input")])
    assert ctx.session is not None

    def body() -> None:
        add_session_values({"integration_key": "integration_value"})
        assert get_session_values()["integration_key"] == "integration_value"

    context_with(ctx).run(body)
    assert ctx.run_path == ("test-agent",)


SUBTESTS: list[tuple[str, Callable[[], None], bool]] = [
    ("BasicSessionValues", _basic, True),
    ("AddSessionValuesEmptyContext", _add_empty_context, False),
    ("GetSessionValuesEmptyContext", _get_empty_context, False),
    ("AddSessionValuesNilValues", _nil_values, True),
    ("AddSessionValuesEmptyValues", _empty_values, True),
    ("AddSessionValuesComplexTypes", _complex_types, True),
    ("AddSessionValuesOverwrite", _overwrite, True),
    ("ConcurrentSessionValues", _concurrent, True),
    ("GetSessionValueIndividual", _individual_get, True),
    ("AddSessionValueIndividual", _individual_add, True),
    ("AddSessionValueEmptyContext", _individual_add_empty_context, False),
    ("IntegrationWithRunContext", _integration, False),
]


@pytest.mark.parametrize(("name", "body", "with_session"), SUBTESTS, ids=[s[0] for s in SUBTESTS])
def test_session_values(name: str, body: Callable[[], None], with_session: bool) -> None:
    """runctx_test.go TestSessionValues (its 12 subtests; "empty context" is no run context)"""
    if with_session:
        _in_session(body)
    else:
        context_with(None).run(body)


def test_fork_join_run_ctx() -> None:
    """runctx_test.go TestForkJoinRunCtx (events are ordered by a sequence number, not a clock, so the
    Go test's sleeps are not needed)"""

    def names(ctx: RunContext) -> list[str]:
        return [w.event.agent_name for w in ctx.session.get_events()]

    main = init_run_ctx(None, "Main", None)
    main.session.add_event(AgentEvent("A"))
    assert names(main) == ["A"]

    b, c = fork_run_ctx(main), fork_run_ctx(main)
    assert b.session is not main.session and c.session is not main.session and b.session is not c.session
    assert main.session.lane is None
    assert b.session.lane is not None and c.session.lane is not None
    assert b.session.lane.parent is None and c.session.lane.parent is None

    b.session.add_event(AgentEvent("B"))
    assert names(b) == ["A", "B"]
    c.session.add_event(AgentEvent("C1"))
    assert names(c) == ["A", "C1"]

    d, e = fork_run_ctx(c), fork_run_ctx(c)
    assert d.session.lane is not None and e.session.lane is not None
    assert d.session.lane.parent is c.session.lane and e.session.lane.parent is c.session.lane

    d.session.add_event(AgentEvent("D"))
    e.session.add_event(AgentEvent("E"))
    assert names(d) == ["A", "C1", "D"]
    assert names(e) == ["A", "C1", "E"]

    join_run_ctxs(c, [d, e])
    assert names(c) == ["A", "C1", "D", "E"]

    join_run_ctxs(main, [b, c])
    assert names(main) == ["A", "B", "C1", "D", "E"]

    main.session.add_event(AgentEvent("F"))
    assert names(main) == ["A", "B", "C1", "D", "E", "F"]
