"""Graphs taken from LangGraph's own tests and READMEs, each adapted to run offline (scripted models, no
sleeps, no randomness) with its source path in a comment; `CORPUS` lists them for
`tests/langgraph/test_topology_corpus.py`, which holds the inspector's topology and recordings of each
against what LangGraph itself says (`get_graph()`, the debug stream, `invoke()`)."""

from __future__ import annotations

from tests.langgraph.corpus import agents, branching, commands, fanout, interrupts, subgraphs
from tests.langgraph.corpus.case import Case

__all__ = ["CORPUS", "Case"]

CORPUS: tuple[Case, ...] = (
    *branching.CASES,
    *fanout.CASES,
    *subgraphs.CASES,
    *commands.CASES,
    *interrupts.CASES,
    *agents.CASES,
)
