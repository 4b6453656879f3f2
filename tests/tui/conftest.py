"""Run files for the TUI tests (deterministic: injected clocks and run IDs) and screen helpers."""

from __future__ import annotations

import contextlib
import io
import itertools
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from textual.app import App

from graph_core.callbacks import Budget, RunInfo, StepInfo
from graph_core.schema import Message
from inspector.recording import Recorder
from inspector.recording.synthetic import react_topology, simulate_react

SIZE = (120, 40)


def clock() -> Callable[[], float]:
    ticks = itertools.count()
    return lambda: 1_700_000_000.0 + next(ticks) * 0.25


def record_fixture(path: Path, module: Any) -> Path:
    """Record a `fixtures.<name>` agent for real (engine + Recorder) with a fixed clock and run ID."""
    agent = module.build_agent()
    recorder = Recorder(path, topology=agent.compiled.topology(), clock=clock(), run_id=path.stem)
    with contextlib.suppress(Exception):
        agent.invoke([Message.user(module.QUESTION)], callbacks=[recorder])
    recorder.close()
    return path


def synthetic(path: Path, rounds: int, **options: Any) -> Path:
    max_steps = options.pop("max_steps", None)
    recorder = Recorder(path, topology=react_topology(), clock=clock(), run_id=path.stem)
    simulate_react(recorder, rounds, max_steps=max_steps, **options)
    recorder.close()
    return path


def stateless_dag(path: Path, steps: int = 3, *, texts: tuple[str, ...] = ()) -> Path:
    """A run without state or step max (DAG-like): node outputs only."""
    recorder = Recorder(path, clock=clock(), run_id=path.stem)
    graph = RunInfo(node_key=None, name="Pipeline", kind="Graph", graph_name="Pipeline")
    recorder.on_start(graph, "in")
    for i in range(steps):
        key = f"n{i}"
        recorder.on_step_start(StepInfo(index=i, nodes=(key,), budget=Budget.of(i, None)))
        info = RunInfo(node_key=key, name=key, kind="Lambda", path=(key,), step=i)
        recorder.on_start(info, texts[i] if i < len(texts) else f"input {i}")
        recorder.on_end(info, texts[i] if i < len(texts) else f"output {i}")
        recorder.on_step_end(
            StepInfo(index=i, nodes=(key,), budget=Budget.of(i + 1, None), ended=i == steps - 1)
        )
    recorder.on_end(graph, "done")
    recorder.close()
    return path


def screen_text(app: App[Any]) -> str:
    """What the terminal shows, as plain text (for asserts that do not need a snapshot)."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))  # pyright: ignore[reportPrivateUsage]
    return console.export_text(styles=False)


class SVGSnapshotExtension(SingleFileSnapshotExtension):
    """One `.svg` file per snapshot, stored as text so diffs in review are readable."""

    file_extension = "svg"
    _write_mode = WriteMode.TEXT


@pytest.fixture
def svg_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(SVGSnapshotExtension)


@pytest.fixture
def weather_run(tmp_path: Path) -> Path:
    import fixtures.weather

    return record_fixture(tmp_path / "weather.jsonl", fixtures.weather)


@pytest.fixture
def runaway_run(tmp_path: Path) -> Path:
    import fixtures.runaway

    return record_fixture(tmp_path / "runaway.jsonl", fixtures.runaway)


@pytest.fixture
def error_run(tmp_path: Path) -> Path:
    return synthetic(tmp_path / "tool-error.jsonl", 3, tool_error_round=1)


@pytest.fixture
def react_run(tmp_path: Path) -> Path:
    return synthetic(tmp_path / "react.jsonl", 4)


@pytest.fixture
def anyio_backend() -> str:
    """Pilot tests run on asyncio (through anyio's pytest plugin, `pytestmark = pytest.mark.anyio`)."""
    return "asyncio"


def split_after_steps(path: Path, steps: int) -> tuple[bytes, bytes]:
    """The file cut at the first line boundary where it reads as exactly `steps` complete steps.

    Found by reading prefixes (not by knowing line kinds), so it holds whatever the format's lines are.
    """
    from inspector.recording import read_run

    data = path.read_bytes()
    probe = path.with_name(f"{path.stem}.probe.jsonl")
    offset = data.index(b"\n") + 1
    while offset < len(data):
        probe.write_bytes(data[:offset])
        if len(read_run(probe).steps) == steps:
            probe.unlink()
            return data[:offset], data[offset:]
        offset = data.index(b"\n", offset) + 1
    raise AssertionError(f"{path} never reads as {steps} steps")


def _ask(text: str) -> str:
    from graph_core import get_resume_data, interrupt
    from graph_core.interrupt import was_interrupted

    if not was_interrupted():
        interrupt({"question": "send it?"})
    return f"{text}{get_resume_data()}"


def record_interrupts(folder: Path) -> dict[str, Path]:
    """Real recordings (engine + Recorder) of every way a run stops early and continues:

    `after` (interrupt_after `draft`), `rerun` (the resumed run, interrupted inside `ask`), `done` (resumed
    again with resume data, finishes), `before` (interrupt_before `ask`, after `draft` ran), `cancel` (an ADK
    agent cancelled after its tool calls, at `AfterToolCallsCancelCheck`), `immediate` (the same agent
    cancelled immediately: `ToolNode`, which was running, is abandoned and reruns on resume), `tools`
    (a ToolsNode where one of two tool calls interrupts).
    """
    from graph_core import END, START, Graph
    from graph_core.checkpoint import InMemoryCheckpointStore
    from graph_core.errors import InterruptError

    def build(**compile_options: Any) -> Any:
        graph = Graph(state=lambda: {"drafts": 0})
        graph.add_lambda_node("draft", lambda t: f"{t} draft")
        graph.add_lambda_node("ask", _ask)
        graph.add_lambda_node("send", lambda t: f"{t} sent")
        graph.add_edge(START, "draft")
        graph.add_edge("draft", "ask")
        graph.add_edge("ask", "send")
        graph.add_edge("send", END)
        return graph.compile(name="Approval", checkpoint_store=InMemoryCheckpointStore(), **compile_options)

    names = ("after", "rerun", "done", "before", "cancel", "immediate", "tools")
    paths = {name: folder / f"{name}.jsonl" for name in names}

    def recorder(name: str) -> Recorder:
        return Recorder(paths[name], clock=clock(), run_id=name)

    compiled = build(interrupt_after=["draft"])
    for name, options in (("after", {}), ("rerun", {}), ("done", {"resume_data": "yes"})):
        with contextlib.suppress(InterruptError):
            compiled.invoke(
                "memo" if name == "after" else None,
                checkpoint_id="cp-42",
                callbacks=[recorder(name)],
                **options,
            )
    with contextlib.suppress(InterruptError):
        build(interrupt_before=["ask"]).invoke("memo", checkpoint_id="cp-b", callbacks=[recorder("before")])
    _record_cancel(recorder("cancel"), "AFTER_TOOL_CALLS")
    _record_cancel(recorder("immediate"), "IMMEDIATE")
    _record_tools_interrupt(recorder("tools"))
    return paths


def _approve(item: str) -> str:
    """Needs a human's approval."""
    from graph_core import get_resume_data, interrupt
    from graph_core.interrupt import was_interrupted

    if not was_interrupted():
        interrupt({"approve": item})
    return f"approved {item}: {get_resume_data()}"


def _look(item: str) -> str:
    """Looks an item up."""
    return f"looked at {item}"


def _record_tools_interrupt(recorder: Recorder) -> None:
    """A ReAct round with two tool calls, one of which interrupts: a composite ToolsNode interrupt."""
    from graph_core.agents.react import ReActAgent
    from graph_core.checkpoint import InMemoryCheckpointStore
    from graph_core.errors import InterruptError
    from graph_core.models import ScriptedChatModel
    from graph_core.schema import ToolCall
    from graph_core.tools import tool

    calls = [ToolCall(id="a1", name="_approve", arguments='{"item": "x"}')]
    calls.append(ToolCall(id="l1", name="_look", arguments='{"item": "y"}'))
    script = [Message.assistant(tool_calls=calls), Message.assistant("done")]
    agent = ReActAgent(ScriptedChatModel(script), tools=[tool(_approve), tool(_look)])
    compiled = agent.graph.compile(checkpoint_store=InMemoryCheckpointStore())
    with contextlib.suppress(InterruptError):
        compiled.invoke([Message.user("go")], checkpoint_id="cp-t", callbacks=[recorder])


def _record_cancel(recorder: Recorder, mode: str) -> None:
    """An ADK agent whose tool asks for a cancel (`CancelMode[mode]`): deterministic, no second thread."""
    from graph_core.agents.adk import ChatModelAgent
    from graph_core.agents.cancel import CancelMode
    from graph_core.models import ScriptedChatModel
    from graph_core.schema import ToolCall
    from graph_core.tools import tool

    agents: list[ChatModelAgent] = []
    release = threading.Event()

    @tool
    def lookup(q: str) -> str:
        """Looks things up, and asks the agent to stop after this round (an immediate cancel abandons
        this call at once: it waits until the run has ended, so the recording is the same every time)."""
        agents[0].cancel(CancelMode[mode])
        if mode == "IMMEDIATE":
            assert release.wait(10)
        return f"found {q}"

    script = [
        Message.assistant(tool_calls=[ToolCall(id="c1", name="lookup", arguments='{"q": "x"}')]),
        Message.assistant("done"),
    ]
    agents.append(ChatModelAgent(name="Planner", model=ScriptedChatModel(script), tools=[lookup]))
    for _ in agents[0].run("hi", checkpoint_id="cp-cancel", callbacks=[recorder]):
        pass
    release.set()


@pytest.fixture(scope="module")
def interrupt_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return record_interrupts(tmp_path_factory.mktemp("interrupts"))
