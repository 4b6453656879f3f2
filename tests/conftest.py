"""Fixtures shared by test folders that read recordings."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest

from inspector.recording.values import ValueTable
from inspector.trust import STATE_ENV
from tests.terminal import Terminal, open_terminal


@pytest.fixture(autouse=True, scope="session")
def _trust_list_of_the_tests(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Recordings the tests make go on a trust list of their own (`inspector.trust`), never on the
    list of the person running them; subprocesses inherit the variable."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(STATE_ENV, str(tmp_path_factory.mktemp("state")))
        yield


@pytest.fixture
def value_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The value ids a test's recordings read from their files (value lines parsed), in order: what a
    lazy read path is held to, counted rather than timed."""
    seen: list[int] = []
    original = ValueTable._read  # pyright: ignore[reportPrivateUsage]

    def counting(self: ValueTable, ref: int) -> Any:
        seen.append(ref)
        return original(self, ref)

    monkeypatch.setattr(ValueTable, "_read", counting)
    return seen


@pytest.fixture(autouse=True)
def _a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """`demo`, `replay` and `debug` refuse to start without a terminal (`inspector.cli.terminal`); tests
    call `main()` in-process with the app replaced or run off-screen, so the check answers yes here. The
    check itself is tested in child processes without a terminal (tests/hostile/test_no_terminal.py)."""
    monkeypatch.setattr("inspector.cli.terminal.has_terminal", lambda: True)


@pytest.fixture(autouse=True)
def _imports_as_they_were(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Loading a `path/to/file.py:attr` TARGET puts the file's folder first on `sys.path`, as running
    the file would (its sibling modules import), and keeps the module in `sys.modules`. In one process
    both outlive the test: a test's `agents.py` then stood in for the OpenAI Agents SDK's `agents`
    package in a later test. Each test gets the import path it started with back, and the modules it
    loaded from the tests' temporary folders are forgotten, as a new process would have them."""
    saved_path = list(sys.path)
    before = set(sys.modules)
    yield
    sys.path[:] = saved_path
    temporary = str(tmp_path_factory.getbasetemp())
    for name in set(sys.modules) - before:
        origin = getattr(sys.modules[name], "__file__", None)
        if isinstance(origin, str) and origin.startswith(temporary):
            del sys.modules[name]


@pytest.fixture
def terminal(request: pytest.FixtureRequest) -> Iterator[Terminal]:
    """A real terminal (tmux) of the test's own, killed afterwards (`tests/terminal.py`)."""
    with open_terminal(request.node.module.__name__.rsplit(".", 1)[-1]) as term:
        yield term
