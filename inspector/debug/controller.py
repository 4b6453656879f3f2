"""`DebugController`: a live run under the debugger, driven by commands, with no user interface.

The TUI and the tests talk to this object; it is the only thing that drives the engine. It starts the
run on a worker thread (invoke, stream, ainvoke or astream), recording as it goes with the ordinary
`Recorder`, and holds the run at superstep boundaries through graph_core's `on_step_boundary` hook:

- before step 0 when `stop_at_start`, after `step()` at the next boundary, before a step that runs a
  node with a breakpoint, and at a boundary where a condition holds (`inspector.debug.conditions`);
- while it is held, `edit(path, value)` changes the state or a pending node's input (typed, see
  `inspector.debug.paths`); each edit is written to the recording as an `edit` line;
- `step()` runs one superstep and holds again, `resume()` runs to the next breakpoint, `abort()` ends
  the run cleanly: an `aborted` line, then the run's `run_finished` line (status `error`,
  `RunAborted`);
- a run that stops at an `interrupt()` (with a checkpoint store) is held too; `resume(data)` continues
  it with `data` as the resume data, recorded into the same file as a new segment.

A LangGraph target (`inspector.adapters.langgraph`) has no boundary hook of its own: its runner stops
LangGraph's loop only where `wants_boundary(step, node)` says the run may be held, and hands the
controller a boundary there whose edits go through LangGraph's `update_state` (`apply_edit` on the
boundary); an edit may then change the nodes about to run, and the pause says so.

Listeners (`subscribe`) are called on the worker thread whenever something changed (a pause, a
resume, a streamed chunk, the end); they must hand over to their own thread (the TUI uses
`call_from_thread`). `wait()` blocks until the run is held or over, for scripts and tests.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from graph_core.callbacks import Boundary, RunInfo
from graph_core.errors import InterruptError
from graph_core.schema import Message
from inspector.debug.conditions import Condition, View, parse_condition
from inspector.debug.paths import Path as ValuePath
from inspector.debug.paths import get_at, parse_path, plain, replace_at
from inspector.errors import DebugError, RunAborted
from inspector.recording import Recorder

__all__ = ["DebugController", "Edit", "Pause", "RunAborted", "RunMode"]

RunMode = Literal["invoke", "stream", "ainvoke", "astream"]
Status = Literal["ready", "running", "paused", "interrupted", "finished"]


@dataclass(frozen=True, slots=True)
class Pause:
    """Where the run is held: before step `step` (running `nodes`), and why.

    `kind` is `boundary` (edits allowed) or `interrupt` (the run stopped at an `interrupt()`: resume it
    with data); `questions` are the interrupt infos by node for an interrupt pause.
    """

    step: int
    nodes: tuple[str, ...]
    reason: str
    kind: Literal["boundary", "interrupt"] = "boundary"
    questions: dict[str, Any] = field(default_factory=lambda: {})


@dataclass(frozen=True, slots=True)
class Edit:
    """One applied edit, as recorded: `path`, the value before and after (plain JSON), at `step`."""

    step: int
    path: str
    old: Any
    new: Any


BoundaryHook = Callable[[Boundary], None]


class DebugController:
    """A run under the debugger; see the module docstring. Create, `start()`, then send commands."""

    def __init__(
        self,
        runnable: Any,
        input: Any,
        *,
        output: str | Path,
        topology: Any,
        compiled: Any = None,
        mode: RunMode = "invoke",
        breakpoints: Iterable[str] = (),
        conditions: Iterable[str] = (),
        stop_at_start: bool = False,
        meta: dict[str, Any] | None = None,
        recorder_options: dict[str, Any] | None = None,
        before_pause: BoundaryHook | None = None,
        callbacks: Iterable[Any] = (),
    ) -> None:
        """`runnable` is an agent or compiled graph (`compiled` its graph, for resuming interrupts);
        `before_pause` runs at every boundary before the pause logic, and `callbacks` are handlers
        called before the recorder's (forks use both)."""
        self.runnable = runnable
        self.compiled = compiled if compiled is not None else getattr(runnable, "compiled", runnable)
        self.input = input
        self.output = Path(output)
        self.topology = topology
        self.mode: RunMode = mode
        self.nodes = tuple(n.key for n in topology.nodes if n.kind not in ("start", "end"))
        self.breakpoints: list[str] = []
        self.conditions: list[Condition] = []
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._listeners: list[Callable[[], None]] = []
        for node in breakpoints:
            self.add_breakpoint(node)
        for text in conditions:
            self.add_condition(text)
        self.stop_at_start = stop_at_start
        self.meta = dict(meta or {})
        self._recorder_options = dict(recorder_options or {})
        self._before_pause = before_pause
        self._callbacks = list(callbacks)
        self.status: Status = "ready"
        self.pause: Pause | None = None
        self.edits: list[Edit] = []
        self.outcome: str | None = None  # "ok", "error", "aborted", "interrupted" once over
        self.error: BaseException | None = None
        self.result: Any = None
        self.streaming: dict[str, str] = {}  # node -> text streamed so far by its model (stream modes)
        self.recorder: Recorder | None = None
        self._boundary: Boundary | None = None
        self._stepping = False
        self._abort_requested = False
        self._commands: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._checkpoint_id: str | None = None

    # --- breakpoints ------------------------------------------------------------------------------

    def add_breakpoint(self, node: str) -> None:
        """Hold the run before any step that runs `node`; an unknown node lists the real ones."""
        if node not in self.nodes:
            raise DebugError(f"no node `{node}` in the graph; its nodes are: {', '.join(self.nodes)}")
        with self._lock:
            if node not in self.breakpoints:
                self.breakpoints.append(node)
        self._notify()

    def remove_breakpoint(self, node: str) -> None:
        with self._lock:
            if node not in self.breakpoints:
                raise DebugError(
                    f"no breakpoint on `{node}` (breakpoints: {', '.join(self.breakpoints) or 'none'})"
                )
            self.breakpoints.remove(node)
        self._notify()

    def add_condition(self, text: str) -> Condition:
        """Hold the run at any boundary where `text` holds (see `inspector.debug.conditions`)."""
        condition = parse_condition(text)
        with self._lock:
            self.conditions.append(condition)
        self._notify()
        return condition

    def remove_condition(self, text: str) -> None:
        with self._lock:
            for condition in self.conditions:
                if condition.text == text.strip():
                    self.conditions.remove(condition)
                    break
            else:
                raise DebugError(f"no condition `{text}`")
        self._notify()

    # --- observing ------------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call `listener()` (on the worker thread) whenever the run's situation changes."""
        self._listeners.append(listener)

    def _notify(self) -> None:
        with self._changed:
            self._changed.notify_all()
        for listener in list(self._listeners):
            listener()

    def wait(self, timeout: float | None = 30.0) -> Pause | None:
        """Block until the run is held (returns the pause) or over (returns None)."""
        with self._changed:
            ok = self._changed.wait_for(lambda: self.status in ("paused", "interrupted", "finished"), timeout)
            if not ok:
                raise TimeoutError(f"the run neither paused nor finished within {timeout} s")
            return self.pause if self.status != "finished" else None

    def view(self) -> dict[str, Any]:
        """The held run as plain JSON: `{"state": ..., "input": {node: input, ...}}` (edit paths' roots)."""
        with self._lock:
            boundary = self._boundary
            if boundary is None:
                return {}
            return {"state": plain(boundary.state), "input": {k: plain(v) for k, v in boundary.pending}}

    # --- running ----------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the run on a worker thread (recording to `output`)."""
        if self._thread is not None:
            raise DebugError("the run has already started")
        if self.compiled is not None and getattr(self.compiled, "checkpoint_store", None) is not None:
            self._checkpoint_id = f"debug-{uuid.uuid4().hex[:12]}"
        self.status = "running"
        self._thread = threading.Thread(target=self._main, name="inspector-debug-run", daemon=True)
        self._thread.start()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _recorder(self, *, resume: bool) -> Recorder:
        options = dict(self._recorder_options)
        if resume:
            return Recorder(
                self.output,
                topology=self.topology,
                meta=self.meta,
                resume=True,
                checkpoint_id=self._checkpoint_id,
                **options,
            )
        return Recorder(self.output, topology=self.topology, meta=self.meta, **options)

    def _run(self, value: Any, options: dict[str, Any]) -> Any:
        runnable = self.runnable
        if self.mode == "invoke":
            return runnable.invoke(value, **options)
        if self.mode == "ainvoke":
            return asyncio.run(runnable.ainvoke(value, **options))
        if self.mode == "stream":
            return [chunk for chunk in runnable.stream(value, **options)]

        async def consume() -> list[Any]:
            return [chunk async for chunk in runnable.astream(value, **options)]

        return asyncio.run(consume())

    def _main(self) -> None:
        value: Any = self.input
        options: dict[str, Any] = {}
        if self._checkpoint_id is not None:
            options["checkpoint_id"] = self._checkpoint_id
        resume = False
        while True:
            self.recorder = self._recorder(resume=resume)
            options["callbacks"] = [*self._callbacks, self.recorder, _Hooks(self)]
            try:
                self.result = self._run(value, options)
                self._finish("ok")
                return
            except RunAborted as exc:
                self.error = exc
                self._finish("aborted")
                return
            except InterruptError as exc:
                if self._checkpoint_id is None or exc.checkpoint_id is None:
                    self.error = exc
                    self._finish("interrupted")
                    return
                command, data = self._hold_interrupt(exc)
                if command == "abort":
                    self.error = RunAborted("aborted at an interrupt")
                    self._finish("aborted")
                    return
                self.runnable = self.compiled  # a resumed run's input is in the checkpoint
                value, resume = None, True
                options["resume_data"] = data
                if self.mode == "ainvoke" or self.mode == "astream":
                    self.mode = "ainvoke"
                else:
                    self.mode = "invoke"
            except Exception as exc:  # the run's own failure: it is in the recording
                self.error = exc
                self._finish("error")
                return
            finally:
                if self.recorder is not None:
                    self.recorder.close()

    def _finish(self, outcome: str) -> None:
        with self._lock:
            self.outcome = outcome
            self.status = "finished"
            self.pause = None
            self._boundary = None
        self._notify()

    def _hold_interrupt(self, exc: InterruptError) -> tuple[str, Any]:
        info = exc.info
        sub_graphs = dict(getattr(info, "sub_graphs", {}) or {})  # nodes whose nested graph interrupted
        questions = {**sub_graphs, **dict(getattr(info, "rerun_nodes_extra", {}) or {})}
        nodes = (
            tuple(getattr(info, "rerun_nodes", ()) or ())
            + tuple(sub_graphs)
            + tuple(getattr(info, "before_nodes", ()) or ())
        )
        with self._lock:
            self.pause = Pause(
                -1, nodes, f"interrupt in {', '.join(nodes) or 'the run'}", "interrupt", questions
            )
            self.status = "interrupted"
        self._notify()
        while True:
            command, data = self._commands.get()
            if command in ("resume", "abort"):
                with self._lock:
                    self.pause = None
                    self.status = "running"
                self._notify()
                return command, data

    # --- the boundary hook (worker thread) -----------------------------------------------------------

    def _reason(self, boundary: Boundary) -> str | None:
        keys = [key for key, _ in boundary.pending]
        if self._stepping:
            return "step"
        if boundary.step == 0 and self.stop_at_start:
            return "start"
        hit = [key for key in keys if key in self.breakpoints]
        if hit:
            return f"breakpoint before {', '.join(hit)}"
        view = View(boundary.state, boundary.pending)
        for condition in self.conditions:
            if condition.holds(view):
                return f"condition `{condition.text}`"
        return None

    def wants_boundary(self, step: int, node: str) -> bool:
        """Whether `at_boundary` must see the boundary before step `step`, which runs `node`: asked by
        an engine that stops its loop for each boundary it hands over (LangGraph), so it stops only
        where the run may be held. Every boundary while stepping, with conditions or with a pending
        abort; step 0 when holding at the start; else a breakpoint's node. (A `before_pause` hook sees
        only these boundaries of such an engine.)"""
        with self._lock:
            return (
                self._stepping
                or self._abort_requested
                or bool(self.conditions)
                or (step == 0 and self.stop_at_start)
                or node in self.breakpoints
            )

    def at_boundary(self, boundary: Boundary) -> None:
        """Called by the engine before each top-level step; holds the run while it is paused."""
        if self._before_pause is not None:
            self._before_pause(boundary)
        with self._lock:
            if self._abort_requested:
                self._abort(boundary)
            reason = self._reason(boundary)
            if reason is None:
                return
            if self.recorder is not None:  # a paused run's file holds every step that ended
                self.recorder.flush()
            self._stepping = False
            self._boundary = boundary
            self.pause = Pause(boundary.step, tuple(k for k, _ in boundary.pending), reason)
            self.status = "paused"
        self._notify()
        while True:
            command, _ = self._commands.get()  # edits run meanwhile on the caller's thread, under the lock
            with self._lock:
                self._boundary = None
                self.pause = None
                self.status = "running"
                if command == "step":
                    self._stepping = True
            if command == "abort":
                self._abort(boundary)
            self._notify()
            return

    def _abort(self, boundary: Boundary) -> None:
        if self.recorder is not None:
            self.recorder.append_event({"kind": "aborted", "step": boundary.step})
        raise RunAborted(f"aborted by the user before step {boundary.step}")

    def on_chunk(self, node: str, chunk: Any) -> None:
        if isinstance(chunk, Message) and chunk.content:
            with self._lock:
                self.streaming[node] = self.streaming.get(node, "") + chunk.content
            self._notify()

    # --- commands (any thread) --------------------------------------------------------------------

    def _require_pause(self, what: str, kind: str = "boundary") -> Pause:
        pause = self.pause
        if pause is None or pause.kind != kind:
            state = "held at an interrupt" if pause is not None else self.status
            raise DebugError(f"cannot {what}: the run is {state}, not paused at a step boundary")
        return pause

    def _send(self, command: str, data: Any = None) -> None:
        """Queue a command for the held worker; from now on the run counts as running."""
        with self._lock:
            self.pause = None
            self.status = "running"
            self._commands.put((command, data))

    def step(self) -> None:
        """Run one superstep, then hold again."""
        with self._lock:
            self._require_pause("step")
            self._send("step")

    def resume(self, data: Any = None) -> None:
        """Run on to the next breakpoint; at an interrupt, continue with `data` as the resume data."""
        with self._lock:
            if self.pause is None:
                raise DebugError(f"cannot continue: the run is {self.status}")
            self._send("resume" if self.pause.kind == "interrupt" else "continue", data)

    def abort(self) -> None:
        """End the run cleanly; the recording says it was aborted. A held run ends now, a running one
        at its next step boundary."""
        with self._lock:
            if self.status == "running":
                self._abort_requested = True
                return
            if self.pause is None:
                raise DebugError(f"cannot abort: the run is {self.status}")
            self._send("abort")

    def value_at(self, path_text: str) -> Any:
        """The plain value at `path_text` while paused; `DebugError` says where a missing path ends
        (an edit prompt checks the path before it reads the value typed for it)."""
        with self._lock:
            self._require_pause("edit")
            assert self._boundary is not None
            return value_at(self._boundary, path_text)

    def edit(self, path_text: str, value: Any) -> Edit:
        """Set the value at `path_text` (plain JSON `value`) while paused; recorded as an `edit` line.

        A path that does not exist or a value that does not validate raises `DebugError` and changes
        nothing.
        """
        with self._lock:
            pause = self._require_pause("edit")
            boundary = self._boundary
            assert boundary is not None
            edit = apply_edit(boundary, path_text, value)
            nodes = tuple(key for key, _ in boundary.pending)
            if nodes != pause.nodes:  # the edit changed what runs next (a LangGraph edge evaluated anew)
                self.pause = replace(pause, nodes=nodes)
            self.edits.append(edit)
            if self.recorder is not None:
                self.recorder.append_event(
                    {"kind": "edit", "step": pause.step, "path": edit.path, "old": edit.old, "new": edit.new},
                    values=("old", "new"),
                )
        self._notify()
        return edit


def _root(boundary: Boundary, path: ValuePath) -> tuple[Any, int | None]:
    """The value `path` starts from at `boundary` (the state, or a pending node's input) and, for an
    input, that node's index in `boundary.pending`; `DebugError` when there is no such root."""
    if path.root == "state":
        if boundary.state is None:
            raise DebugError(f"path `{path}`: this graph has no state")
        if not path.segments:
            raise DebugError(f"path `{path}`: name a field of the state, as in `state.messages`")
        return boundary.state, None
    keys = [key for key, _ in boundary.pending]
    if path.node not in keys:
        raise DebugError(
            f"path `{path}`: `{path.node}` is not about to run (the next step runs: {', '.join(keys)})"
        )
    index = keys.index(path.node)
    return boundary.pending[index][1], index


def value_at(boundary: Boundary, path_text: str) -> Any:
    """The plain value at `path_text` at a held boundary; `DebugError` naming where the path ends."""
    path = parse_path(path_text)
    root, _ = _root(boundary, path)
    return plain(get_at(root, path))


def apply_edit(boundary: Boundary, path_text: str, value: Any) -> Edit:
    """Apply one edit to a held boundary (state in place, or a pending input replaced); see `edit`.

    A boundary with its own `apply_edit(path_text, value) -> (path, old, new)` (a LangGraph run's,
    which writes through LangGraph's `update_state`) applies it itself."""
    own: Callable[[str, Any], tuple[str, Any, Any]] | None = getattr(boundary, "apply_edit", None)
    if own is not None:
        text, old, new = own(path_text, value)
        return Edit(boundary.step, text, old, new)
    path = parse_path(path_text)
    root, index = _root(boundary, path)
    new_root, old = replace_at(root, path, value)
    if index is None:
        assign_state(boundary, new_root)
        new = get_at(boundary.state, path)
    else:
        assert path.node is not None  # an input path names its node
        boundary.pending[index] = (path.node, new_root)
        new = get_at(new_root, path)
    return Edit(boundary.step, path.text, plain(old), plain(new))


def assign_state(boundary: Boundary, new_root: Any) -> None:
    """Put `new_root`'s content into the live state object (kept, as handlers may hold it)."""
    state = boundary.state
    if isinstance(state, BaseModel) and isinstance(new_root, BaseModel):
        for name in type(state).model_fields:
            setattr(state, name, getattr(new_root, name))
    elif isinstance(state, dict) and isinstance(new_root, dict):
        live: dict[Any, Any] = state  # pyright: ignore[reportUnknownVariableType]
        live.clear()
        live.update(new_root)  # pyright: ignore[reportUnknownArgumentType]
    else:
        boundary.state = new_root


class _Hooks:
    """The callbacks the controller adds to the run: the boundary hook and streamed model chunks."""

    def __init__(self, controller: DebugController) -> None:
        self.controller = controller

    def on_step_boundary(self, boundary: Boundary) -> None:
        self.controller.at_boundary(boundary)

    def wants_boundary(self, step: int, node: str) -> bool:
        return self.controller.wants_boundary(step, node)

    def on_end_with_stream_output(self, info: RunInfo, output: Any) -> None:
        if not hasattr(output, "__next__"):
            return  # an async stream (astream): left unread, its copy only buffers
        if info.kind != "ChatModel" or info.node_key is None:
            close = getattr(output, "close", None)
            if callable(close):
                close()
            else:  # an `astream` run's copy (read on a worker thread) has no close: read it out
                for _ in output:
                    pass
            return
        for chunk in output:  # read as the model produces them: shown while the node runs
            self.controller.on_chunk(info.node_key, chunk)
