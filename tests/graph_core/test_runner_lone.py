"""Lone steps (`graph_core.runner.lone`): taken only while nothing observes or can interrupt the run, and
indistinguishable from the general phases they replace.

Each scenario runs twice, once as it comes and once with `lone.fits` forced False (every step through
`start_step` and the phases after it), and both runs must give the same output or the same error (type,
text, cause, node path, interrupt info and checkpoint), with components seeing the same run scopes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from graph_core import END, START, Branch, Graph, TriggerMode
from graph_core.agents.react import ReActAgent
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.context import current_scope
from graph_core.interrupt import interrupt
from graph_core.models import ScriptedChatModel
from graph_core.runner import lone, loop
from graph_core.runner.phases import start_step
from graph_core.schema import Message
from graph_core.state import stream_handler
from tests.helpers import ping, ping_round, run_in, wire


@dataclass
class Log:
    items: list[str] = field(default_factory=lambda: [])


@pytest.fixture
def general_steps(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The step numbers the general phases started (`start_step`); lone steps do not go through it."""
    started: list[int] = []

    def counting(rc: Any, data: Any) -> Any:
        started.append(data.step)
        return start_step(rc, data)

    monkeypatch.setattr(loop, "start_step", counting)
    return started


def _agent(rounds: int, **options: Any) -> ReActAgent:
    script = [*(ping_round(n) for n in range(rounds)), Message.assistant("done")]
    model = ScriptedChatModel(script, restart_on_new_conversation=True)
    return ReActAgent(model, tools=[ping], max_step=2 * rounds + 1, **options)


def test_an_unobserved_agent_run_takes_only_lone_steps(general_steps: list[int]) -> None:
    assert _agent(3).invoke("go").content == "done"
    assert general_steps == []


class _StepEnds:
    def __init__(self) -> None:
        self.count = 0

    def on_step_end(self, _info: Any) -> None:
        self.count += 1


def test_callbacks_interrupts_and_checkpoints_take_the_general_phases(general_steps: list[int]) -> None:
    agent = _agent(1)
    handler = _StepEnds()
    assert agent.invoke("go", callbacks=[handler]).content == "done"
    assert handler.count == 3 and general_steps == [0, 1, 2]

    general_steps.clear()
    assert agent.invoke("go", interrupt_event=threading.Event()).content == "done"
    assert general_steps == [0, 1, 2]

    general_steps.clear()
    store = InMemoryCheckpointStore()
    compiled = agent.graph.compile(max_run_steps=3, checkpoint_store=store)
    assert compiled.invoke([Message.user("go")], checkpoint_id="t").content == "done"
    assert general_steps == [0, 1, 2]

    for compiled in (
        agent.graph.compile(max_run_steps=3, interrupt_before=["direct_return"]),
        agent.graph.compile(max_run_steps=3, interrupt_after=["direct_return"]),
    ):
        general_steps.clear()
        assert compiled.invoke([Message.user("go")]).content == "done"
        assert general_steps == [0, 1, 2]


@pytest.mark.parametrize("how", ["async", "stream"])
def test_async_and_stream_runs_take_the_general_phases(general_steps: list[int], how: str) -> None:
    assert run_in(_agent(1).compiled, [Message.user("go")], how).content == "done"
    assert general_steps == [0, 1, 2]


def test_a_dag_takes_the_general_phases(general_steps: list[int]) -> None:
    graph = Graph()
    graph.add_lambda_node("a", lambda text: text + "a")
    graph.add_lambda_node("b", lambda text: text + "b")
    wire(graph, "a", "b")
    assert graph.compile(trigger_mode=TriggerMode.ALL_PREDECESSOR).invoke("x") == "xab"
    assert general_steps == [0, 1]


def test_a_step_that_does_not_fit_goes_the_general_way_and_the_next_ones_lone(
    general_steps: list[int],
) -> None:
    """Steps 0 and 2 are lone; step 1's node has a post-handler (not handled by lone steps)."""
    graph = Graph(state=Log)
    graph.add_lambda_node("a", lambda text: text + "a")
    graph.add_lambda_node("b", lambda text: text + "b", post=lambda out, state: out + "!")
    graph.add_lambda_node("c", lambda text: text + "c")
    wire(graph, "a", "b", "c")
    assert graph.compile().invoke("x") == "xab!c"
    assert general_steps == [1]


# -- the same outcome both ways --------------------------------------------------------------------------


def _outcome(run: Callable[[], Any]) -> Any:
    """What a run gave: its output, or what a caller can read of its error."""
    try:
        return ("ok", run())
    except Exception as exc:
        info = getattr(exc, "info", None)
        checkpoint = getattr(exc, "checkpoint", None)
        return (
            type(exc).__name__,
            str(exc),
            type(exc.__cause__).__name__,
            str(exc.__cause__),
            exc.__context__ is None,
            getattr(exc, "node_path", None),
            repr(info),
            repr(checkpoint),
        )


def _both_ways(
    monkeypatch: pytest.MonkeyPatch, run: Callable[[], Any], *, lone_steps: bool = True
) -> tuple[Any, Any]:
    """`run`'s outcome with lone steps, then with the general phases only; with `lone_steps`, the first
    run must have started fewer steps through the general phases than the second."""
    started: list[int] = []

    def counting(rc: Any, data: Any) -> Any:
        started.append(data.step)
        return start_step(rc, data)

    with monkeypatch.context() as patch:
        patch.setattr(loop, "start_step", counting)
        lone_way = _outcome(run)
        by_lone = len(started)
        patch.setattr(lone, "fits", lambda rc: False)
        general_way = _outcome(run)
        by_general = len(started) - by_lone
    assert (by_lone < by_general) is lone_steps, (by_lone, by_general)
    return lone_way, general_way


def _scopes(seen: list[tuple[Any, ...]]) -> Callable[[Any], Any]:
    def node(text: Any) -> Any:
        scope = current_scope()
        assert scope is not None
        seen.append((scope.path, scope.step, scope.graph_name, scope.resume, scope.state, scope.callbacks))
        return f"{text}."

    return node


def _logging_pre(text: str, state: Log) -> str:
    state.items.append(text)
    return text


def _looping(
    condition: Callable[[Any], Any], *, kind: str = "single", ends: tuple[str, ...] = ("a", END)
) -> Graph:
    graph = Graph(state=Log)
    graph.add_lambda_node(
        "a", lambda text: f"{text}a", pre=lambda text, state: state.items.append(text) or text
    )
    graph.add_edge(START, "a")
    graph.add_branch("a", Branch(condition, list(ends), kind=kind))  # type: ignore[arg-type]
    return graph


def _interrupting_pre(text: str, state: Log) -> str:
    state.items.append(text)
    if len(state.items) == 2:
        interrupt("stop here")
    return text


def _interrupting_node(text: str) -> str:
    if len(text) > 3:
        interrupt("stop in the node")
    return text + "a"


def _failing_node(text: str) -> str:
    if len(text) > 3:
        raise ValueError("node broke")
    return text + "a"


def _failing_pre(text: str, state: Log) -> str:
    state.items.append(text)
    if len(state.items) == 2:
        raise ValueError("handler broke")
    return text


async def _async_pre(text: str, state: Log) -> str:
    state.items.append(text)
    return text + "~"


def _chain(node: Callable[[Any], Any], pre: Any = None) -> Graph:
    """a -> a -> ... (a loop by branch, until the text is 6 long) -> END."""
    graph = Graph(state=Log)
    graph.add_lambda_node("a", node, pre=pre)
    graph.add_edge(START, "a")
    graph.add_branch("a", Branch(lambda text: END if len(text) >= 6 else "a", ["a", END]))
    return graph


SCENARIOS: dict[str, Callable[[], Any]] = {
    "the agent answers": lambda: _agent(3).invoke("go"),
    "the agent runs out of steps": lambda: ReActAgent(
        ScriptedChatModel([ping_round(n) for n in range(9)]), tools=[ping], max_step=4
    ).invoke("go"),
    "a tool returns directly": lambda: _agent(2, tool_return_directly=["ping"]).invoke("go"),
    "a node fails": lambda: _chain(_failing_node).compile().invoke("x"),
    "a node interrupts": lambda: _chain(_interrupting_node).compile().invoke("x"),
    "a pre-handler fails": lambda: _chain(lambda t: t + "a", _failing_pre).compile().invoke("x"),
    "a pre-handler interrupts": lambda: _chain(lambda t: t + "a", _interrupting_pre).compile().invoke("x"),
    "an async pre-handler": lambda: _chain(lambda t: t + "a", _async_pre).compile().invoke("x"),
    "a condition fails": lambda: _looping(lambda text: 1 / 0).compile().invoke("x"),
    "a condition picks no end": lambda: _looping(lambda text: "nowhere").compile().invoke("x"),
    "a condition picks nothing": lambda: _looping(lambda text: set(), kind="multi").compile().invoke("x"),
    "a condition picks two": lambda: (
        _looping(lambda text: {"a", END} if len(text) > 3 else {"a"}, kind="multi").compile().invoke("x")
    ),
    "a stream condition": lambda: (
        _looping(lambda chunks: END if len(next(chunks)) > 4 else "a", kind="stream").compile().invoke("x")
    ),
    "an async condition": lambda: _looping(_async_condition).compile().invoke("x"),
    "a stream pre-handler": lambda: (
        _chain(lambda t: t + "a", stream_handler(lambda chunks, state: chunks)).compile().invoke("x")
    ),
    "the budget runs out": lambda: _looping(lambda text: "a").compile(max_run_steps=4).invoke("x"),
    "a cancelled run": lambda: _chain(lambda t: t + "a").compile().invoke("x", cancel_event=_set_event()),
}


async def _async_condition(text: str) -> str:
    return END if len(text) > 4 else "a"


def _set_event() -> threading.Event:
    event = threading.Event()
    event.set()
    return event


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_lone_steps_give_what_the_general_phases_give(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    lone_way, general_way = _both_ways(
        monkeypatch, SCENARIOS[name], lone_steps=name != "a stream pre-handler"
    )
    assert lone_way == general_way


def test_a_no_successor_step_names_the_last_lone_node(monkeypatch: pytest.MonkeyPatch) -> None:
    graph = Graph()
    graph.add_lambda_node("a", lambda text: text)
    graph.add_lambda_node("dead", lambda text: text)
    graph.add_edge("a", "dead")
    graph.add_edge("a", END)
    graph.add_branch(START, Branch(lambda text: "dead", ["dead", "a"]))
    lone_way, general_way = _both_ways(monkeypatch, lambda: graph.compile().invoke("x"))
    assert lone_way == general_way
    assert "last completed nodes: [dead]" in lone_way[1]


def test_components_see_the_same_run_scopes(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[Any, ...]] = []
    graph = _chain(_scopes(seen))
    compiled = graph.compile(name="chain")
    assert _both_ways(monkeypatch, lambda: compiled.invoke("xyz")) == (("ok", "xyz..."),) * 2
    lone_seen, general_seen = seen[:3], seen[3:]
    assert (
        [s[:4] for s in lone_seen]
        == [s[:4] for s in general_seen]
        == [(("a",), step, "chain", None) for step in range(3)]
    )
    assert all(s[4] is not None and s[5] == () for s in seen)


def test_a_nested_graph_node_goes_the_general_way_and_its_inner_steps_lone(
    monkeypatch: pytest.MonkeyPatch, general_steps: list[int]
) -> None:
    inner = _chain(lambda t: t + "i")
    outer = Graph()
    outer.add_graph_node("inner", inner)
    outer.add_lambda_node("after", lambda text: text + "!")
    wire(outer, "inner", "after")
    assert outer.compile().invoke("x") == "xiiiii!"
    assert general_steps == [0]  # the outer graph's step running the nested graph
    assert _both_ways(monkeypatch, lambda: outer.compile().invoke("x")) == (("ok", "xiiiii!"),) * 2


def test_the_agent_streamed_chunks_are_untouched(general_steps: list[int]) -> None:
    """Stream mode keeps the general phases (and its chunks), whatever the lone steps do."""
    chunks: Iterator[Message] = _agent(1).stream("go")
    assert "".join(chunk.content for chunk in chunks) == "done"
    assert general_steps == [0, 1, 2]
