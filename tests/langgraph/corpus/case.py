"""One graph of the corpus: how to build it, what to run it on, and the truth its topology is held to."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Case", "Edge"]

Edge = tuple[str, str]
"""`(source, target)` in the inspector's names (`start`, `end` for LangGraph's `__start__`/`__end__`)."""


@dataclass(frozen=True)
class Case:
    """`module:name` is the TARGET (a zero-argument factory returning the compiled graph).

    `truth` is the hand-written edge set where `get_graph()` is not exact (it drops or adds edges; the
    comment beside it says how); None means `get_graph()`'s own edges are the truth. `resumes` are the
    values a graph that stops at `interrupt()` is resumed with, one run each, until it finishes.
    """

    module: str
    name: str
    input: Any
    truth: frozenset[Edge] | None = None
    resumes: tuple[Any, ...] = ()
    finishes: bool = True
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def target(self) -> str:
        return f"tests.langgraph.corpus.{self.module}:{self.name}"

    @property
    def path(self) -> str:
        return f"tests/langgraph/corpus/{self.module}.py:{self.name}"

    def build(self) -> Any:
        import importlib

        factory: Callable[[], Any] = getattr(
            importlib.import_module(f"tests.langgraph.corpus.{self.module}"), self.name
        )
        return factory()
