"""The run entry points share one option set (`RunOptions`) and still reject unknown keywords."""

from __future__ import annotations

import asyncio
import typing

import pytest

from graph_core import END, START, CompiledGraph, Graph
from graph_core.runner.options import RUN_OPTION_NAMES, RunOptions


def _echo() -> CompiledGraph:
    graph = Graph()
    graph.add_lambda_node("echo", lambda x: x)
    graph.add_edge(START, "echo")
    graph.add_edge("echo", END)
    return graph.compile()


def test_option_names_are_the_contract_keywords() -> None:
    assert {
        "callbacks",
        "max_steps",
        "checkpoint_id",
        "cancel_event",
        "state_modifier",
        "resume_data",
        "force_new_run",
        "write_checkpoint_id",
        "interrupt_event",
        "tools_node_options",
        "parent_path",
        "options",
    } == RUN_OPTION_NAMES
    assert typing.get_type_hints(RunOptions)["max_steps"] == int | None


@pytest.mark.parametrize("entry", ["invoke", "stream"])
def test_sync_entry_points_reject_a_misspelt_option(entry: str) -> None:
    compiled = _echo()
    with pytest.raises(
        TypeError, match=rf"CompiledGraph\.{entry}\(\) got an unexpected keyword argument 'max_step'"
    ):
        getattr(compiled, entry)(1, max_step=3)


def test_async_entry_points_reject_a_misspelt_option() -> None:
    compiled = _echo()

    async def main() -> None:
        with pytest.raises(TypeError, match=r"CompiledGraph\.ainvoke\(\) .* 'callback'"):
            await compiled.ainvoke(1, callback=[])  # pyright: ignore[reportCallIssue]
        with pytest.raises(TypeError, match=r"CompiledGraph\.astream\(\) .* 'callback'"):
            async for _ in compiled.astream(1, callback=[]):  # pyright: ignore[reportCallIssue]
                pass

    asyncio.run(main())


def test_every_option_is_accepted_by_every_entry_point() -> None:
    compiled = _echo()
    options: RunOptions = {
        "callbacks": (),
        "max_steps": 5,
        "checkpoint_id": None,
        "cancel_event": None,
        "state_modifier": None,
        "resume_data": None,
        "force_new_run": True,
        "write_checkpoint_id": None,
        "interrupt_event": None,
    }
    assert compiled.invoke(7, **options) == 7
    assert list(compiled.stream(7, **options)) == [7]

    async def main() -> tuple[int, list[int]]:
        return await compiled.ainvoke(7, **options), [c async for c in compiled.astream(7, **options)]

    assert asyncio.run(main()) == (7, [7])
