"""`DebugApp`: the replay debugger over a live run, sending commands to a `DebugController`.

The app never drives the engine: the controller runs the graph on its own thread and records it; the
app reads that recording through the replay app's follow mode (the same reader as for any run file)
and sends the controller commands (step, continue, abort, edit, breakpoints, resume data). The panes
are the replay app's; a `DebugPanel` adds where the live run stands and its live values.

Keys added to the replay debugger's: `s` step one superstep, `c` continue (to the next breakpoint),
`a` abort, `e` edit a value (`PATH = VALUE`), `b` breakpoint on the node(s) of the step under the
cursor, `B` breakpoint on a node by name, `w` a condition breakpoint (empty: clear them), `r` resume an
interrupted run with data.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from typing import Any, ClassVar

from rich.text import Text
from textual.actions import SkipAction
from textual.app import ComposeResult, SystemCommand
from textual.binding import BindingType
from textual.screen import Screen

from inspector.errors import DebugError
from inspector.tui.app import SPEEDS, ReplayApp
from inspector.tui.debug_panel import DebugPanel, describe, live
from inspector.tui.graph_pane import GraphPane, count_gutter
from inspector.tui.help_screen import HelpScreen
from inspector.tui.keys import DEBUG_KEYS, KEYS, bindings, help_rows
from inspector.tui.literal import one_line
from inspector.tui.node_detail import NodeDetail
from inspector.tui.notes import status_text
from inspector.tui.prompt import PromptScreen
from inspector.tui.session import Session
from inspector.tui.state_pane import StatePane

__all__ = ["DebugApp", "make_debug_app", "parse_edit"]


def parse_edit(answer: str, current: Any = None) -> tuple[str, Any]:
    """`PATH = VALUE` from the edit prompt: VALUE is JSON, except that for a string value (`current`
    is a string) text that is not JSON is taken as the new string as typed."""
    path, sep, raw = answer.partition("=")
    if not sep or not path.strip():
        raise DebugError(
            'write PATH = VALUE, as in `input.tools.tool_calls[0].arguments = {"city": "Paris"}`'
        )
    raw = raw.strip()
    try:
        value = json.loads(raw)
    except ValueError:
        if not isinstance(current, str):
            raise DebugError(f"`{raw}` is not a JSON value (strings need double quotes)") from None
        value = raw
    if isinstance(current, str) and not isinstance(value, str):
        value = raw  # a string field: what was typed is the string (`{"city": "Paris"}` as text)
    return path.strip(), value


_NEW_KEYS = tuple(k for k in DEBUG_KEYS if k.action not in {key.action for key in KEYS})
"""The debug keys the replay app does not have (`c`, `b`, `B` are its own actions, overridden here)."""


class DebugApp(ReplayApp):
    """The replay app following a live run's recording, with the debugger's commands."""

    TITLE = "inspector debug"
    BINDINGS: ClassVar[list[BindingType]] = [*ReplayApp.BINDINGS, *bindings(_NEW_KEYS)]

    def __init__(
        self,
        controller: Any,
        session: Session | None = None,
        *,
        poll_interval: float = 0.1,
        theme: str = "textual-dark",
    ) -> None:
        super().__init__(
            session, follow=True, poll_interval=poll_interval, theme=theme, path=controller.output
        )
        self.controller = controller
        self._dirty = True
        self._message: Text | None = None
        self._polling = False
        self._seen: tuple[Any, ...] = ()
        self._polled_size = -1
        self._panel_lines = 0
        controller.subscribe(self._mark_dirty)

    async def poll(self) -> None:
        """The replay app's follow-mode poll, one at a time (the poll timer and live updates both call
        it, and a first poll recomposes the screen)."""
        if self._polling:
            self._dirty = True  # look again on the next tick
            return
        self._polling = True
        try:
            await super().poll()
        finally:
            self._polling = False

    def _mark_dirty(self) -> None:
        self._dirty = True  # called on the run's thread: the app's timer picks it up

    def compose(self) -> ComposeResult:
        yield from super().compose()
        yield DebugPanel(id="debug")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(DebugPanel).border_title = "live run"
        self.set_interval(0.05, self._refresh_debug)

    async def _refresh_debug(self) -> None:
        # The run's thread marks the app dirty from its callbacks, which can come before the Recorder
        # has written the line they are about; so a grown file counts as a change too (a stat per
        # tick), and a poll that could not open the run yet is tried again on the next tick.
        size = _file_size(self.controller.output)
        if not self._dirty and size == self._polled_size:
            return
        self._dirty = False
        self._polled_size = size
        await self.poll()
        if self.waiting:
            self._dirty = True
        if not self.waiting:
            last = len(self.replay) - 1
            if last >= 0 and self.replay.cursor != last:
                self.go(last)  # the live run's newest step
            seen = (self.controller.status, self.controller.pause, len(self.controller.edits))
            if seen != self._seen:  # held, resumed, edited: the state and graph panes change
                self.show_cursor()
        self._show_panel()

    def _live(self) -> str | None:
        """`paused` or `running` while the run goes on under the debugger (its file has no last line
        yet: not a crash), else None."""
        status = self.controller.status
        return None if status in ("finished", "interrupted") else status

    def _status(self) -> Text:
        return status_text(
            self.session,
            diff_mode=self.diff_mode,
            speed=SPEEDS[self.speed_index],
            playing=self.playing,
            follow=self.follow,
            live=self._live(),
        )

    def show_cursor(self) -> None:
        """As the replay app's; while the run is held and the cursor is on its newest step, the state
        pane shows the live values (edits applied, marked) and the graph the node(s) about to run.
        While the run goes on, its newest step is no place where it stopped: the node detail shows the
        step without the replay's account of an incomplete run."""
        super().show_cursor()
        if self._live() is not None and self.session.run.status == "incomplete":
            self.query_one(NodeDetail).show(
                self.replay.current, expand=self.expand, segments=len(self.session.run.segments)
            )
        controller = self.controller
        self._seen = (controller.status, controller.pause, len(controller.edits))
        held = live(controller)
        state_pane, graph_box = self.query_one(StatePane), self.query_one("#graph-box")
        if held is None or self.replay.cursor < len(self.replay) - 1:
            state_pane.border_title, graph_box.border_title = "state", "graph"
            self.mark_focus()
            return
        state_pane.show(held.values, held.edits, diff=self.diff_mode)
        if not self.diff_mode:
            _open_inputs(state_pane)
        title = Text(f"live · before step {held.step}", style="bold yellow")
        if held.edits:
            title.append(f" · {len(held.edits)} edit(s)", style="bold yellow")
        state_pane.border_title = title
        session = self.session
        painted = self.query_one(GraphPane).show(
            session.run.topology,
            active=held.nodes,
            so_far=session.path_at(self.replay.cursor),
            breakpoints=frozenset(controller.breakpoints),
            gutter=count_gutter(len(session)),
        )
        self._fit_graph(painted)
        graph_box.border_title = one_line(
            f"graph · next: {', '.join(held.nodes)}", limit=60, style="bold yellow"
        )
        self.mark_focus()

    def _show_panel(self) -> None:
        panels = self.query(DebugPanel)
        if not panels:
            return
        text = describe(self.controller, self._message)
        if self.screen.has_class("-short"):
            text = _two_lines(text, message=self._message is not None)
        panel = panels.first()
        lines = len(text.split())
        if lines != self._panel_lines:  # the grid's rows depend on the panel's height: arrange again
            self._panel_lines = lines
            self.call_after_refresh(self.arranger.refit)
        panel.update(text)

    def _say(self, text: str, *, error: bool = False) -> None:
        self._message = one_line(text, limit=200, style="bold red" if error else "green")
        self._dirty = True
        if error:
            self.notify(text, severity="warning", markup=False)

    def _command(self, fn: Any, *args: Any) -> bool:
        try:
            fn(*args)
        except DebugError as exc:
            self._say(str(exc), error=True)
            return False
        self._message = None
        self._dirty = True
        return True

    # --- actions ----------------------------------------------------------------------------------

    def action_step_live(self) -> None:
        self._main_screen_only()
        self._command(self.controller.step)

    def action_continue(self) -> None:
        if self.controller.pause is not None and self.controller.pause.kind == "boundary":
            self._main_screen_only()
            self._command(self.controller.resume)
            return
        super().action_continue()

    def action_abort(self) -> None:
        self._main_screen_only()
        self._command(self.controller.abort)

    def action_edit(self) -> None:
        self._main_screen_only()

        def done(answer: str | None) -> None:
            if not answer or not answer.strip():
                return
            try:
                path = answer.partition("=")[0].strip()
                current = self.controller.value_at(path) if path else None  # a missing path says so first
                path, value = parse_edit(answer, current)
                edit = self.controller.edit(path, value)
            except DebugError as exc:
                self._say(str(exc), error=True)
                return
            self._say(
                f"edited {edit.path}: {json.dumps(edit.old)} -> {json.dumps(edit.new)} "
                f"(before step {edit.step})"
            )

        self.push_screen(PromptScreen("Edit: PATH = VALUE (JSON; a string field takes plain text)"), done)

    def action_breakpoint(self) -> None:
        self._main_screen_only()
        step = self.replay.current
        nodes = step.nodes if step is not None else ()
        pause = self.controller.pause
        if pause is not None and pause.kind == "boundary":
            nodes = pause.nodes
        for node in nodes:
            self._toggle(node)

    def action_breakpoint_on(self) -> None:
        self._main_screen_only()

        def done(answer: str | None) -> None:
            if answer and answer.strip():
                self._toggle(answer.strip())

        self.push_screen(PromptScreen("Toggle a breakpoint on node"), done)

    def _toggle(self, node: str) -> None:
        if node in self.controller.breakpoints:
            if self._command(self.controller.remove_breakpoint, node):
                self._say(f"breakpoint off: {node}")
        elif self._command(self.controller.add_breakpoint, node):
            self._say(f"breakpoint on: {node}")

    def action_when(self) -> None:
        self._main_screen_only()

        def done(answer: str | None) -> None:
            if answer is None:
                return
            if not answer.strip():
                for condition in list(self.controller.conditions):
                    self.controller.remove_condition(condition.text)
                self._say("conditions cleared")
                return
            if self._command(self.controller.add_condition, answer):
                self._say(f"break when: {answer.strip()}")

        self.push_screen(
            PromptScreen("Break when (e.g. len(messages) > 6, calls(get_weather); empty clears)"), done
        )

    def action_resume_with(self) -> None:
        self._main_screen_only()

        def done(answer: str | None) -> None:
            if answer is None:
                return
            try:
                data: Any = json.loads(answer)
            except ValueError:
                data = answer
            self._command(self.controller.resume, data)

        self.push_screen(PromptScreen("Resume data (JSON, or plain text)"), done)

    def action_help(self) -> None:
        if len(self.screen_stack) > 1 or self._opening():
            raise SkipAction()
        self.push_screen(HelpScreen(help_rows(DEBUG_KEYS), "Live debugger keys"))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for key in _NEW_KEYS:
            yield SystemCommand(key.title, key.description, getattr(self, f"action_{key.action}"))

    async def action_quit(self) -> None:
        controller = self.controller
        if controller.status != "finished":
            controller.abort()  # leaving the debugger ends the run cleanly (a running one at its next
            # step boundary); the recording says so
        self.exit()


def _two_lines(text: Text, *, message: bool) -> Text:
    """The live panel on a short screen (`-short`): where the run stands, then the last message (an
    edit applied, a command refused), else what a model is streaming, else the breakpoints; the keys
    are in the footer and the help."""
    lines = text.split()
    if len(lines) <= 2:
        return text
    second = lines[-1] if message or lines[-1].plain.find(" ▸ ") > 0 else lines[1]
    return Text("\n").join([lines[0], second])


def _open_inputs(pane: StatePane) -> None:
    """Unfold the pending nodes' inputs (what a breakpoint is usually for: the tool call about to run):
    a small input wholly, a large one (a chat model's message list) one level."""
    for top in pane.root.children:
        if top.data is None or top.data[0] != ("input",):
            continue
        pane.unfold(top)
        for node_input in top.children:
            pane.unfold(node_input, everything=_size(node_input.data[1] if node_input.data else None) <= 40)


def _size(value: Any) -> int:
    """How many values a plain JSON value holds, counting containers and leaves."""
    if isinstance(value, dict):
        return 1 + sum(_size(v) for v in value.values())  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    if isinstance(value, list):
        return 1 + sum(_size(v) for v in value)  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    return 1


def make_debug_app(
    controller: Any, *, poll_interval: float = 0.1, theme: str = "textual-dark", timeout: float = 30.0
) -> DebugApp:
    """The debug app for a controller; starts the run if it has not started, and opens its recording
    once the header is written (at the latest when the run is held or over, or after `timeout`; the
    app then waits for the file as `inspector replay --follow` does)."""
    if controller.status == "ready":
        controller.start()
    deadline = time.monotonic() + timeout
    session = Session.try_open(controller.output)
    while session is None and time.monotonic() < deadline:
        held_or_over = controller.status != "running"
        time.sleep(0.01)
        session = Session.try_open(controller.output)
        if held_or_over:
            break
    return DebugApp(controller, session, poll_interval=poll_interval, theme=theme)


def _file_size(path: Any) -> int:
    """The run file's size, or -1 while it does not exist."""
    try:
        return os.stat(path).st_size
    except OSError:
        return -1
