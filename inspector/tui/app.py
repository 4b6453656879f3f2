"""`ReplayApp`: the replay debugger's screen, and `make_app`, the one way the CLI and tests build it.

The app holds a `Session` and a cursor; panes are told what to show ("attributes down") and post
messages when the user picks something ("messages up"). It reads run files only: `inspector demo`
records first, then opens the app on the file.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.actions import SkipAction
from textual.app import ComposeResult, SystemCommand
from textual.binding import BindingType
from textual.containers import Grid, ScrollableContainer, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from inspector.errors import InspectorError
from inspector.recording.reader import Run
from inspector.replay import Replay
from inspector.tui import follow
from inspector.tui.arrange import GRAPH_MIN_WIDTH, WIDE_REST, Arranger
from inspector.tui.budget_bar import BudgetBar
from inspector.tui.cursor_view import CursorView
from inspector.tui.focus_mark import mark_focus
from inspector.tui.follow import waiting_text
from inspector.tui.footer import KeyFooter
from inspector.tui.goto import GotoError, resolve_step
from inspector.tui.graph_pane import GraphPane, Painted
from inspector.tui.help_screen import HelpScreen
from inspector.tui.host import ReplayHost
from inspector.tui.keys import DEBUG_KEYS, KEYS, bindings, help_rows
from inspector.tui.messages_pane import MessagesPane
from inspector.tui.node_detail import NodeDetail
from inspector.tui.notes import status_text
from inspector.tui.repaint import repaint
from inspector.tui.search import Finder
from inspector.tui.session import Session
from inspector.tui.state_pane import StatePane
from inspector.tui.step_prompts import StepPrompts
from inspector.tui.timeline import Columns, Timeline, header
from inspector.tui.walker import Walker

__all__ = ["GRAPH_MIN_WIDTH", "SPEEDS", "WIDE_REST", "ReplayApp", "make_app"]

SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
"""Play speeds in steps per second; `+`/`-` move along this list."""


class ReplayApp(ReplayHost):
    """Step through a recorded run: graph, timeline, state, messages, node detail and budget."""

    CSS_PATH = "replay.tcss"
    TITLE = "inspector replay"
    BINDINGS: ClassVar[list[BindingType]] = list(bindings())

    count_in_background = True
    """Count a long run's visits in the background (tests turn it off to see the screen meanwhile)."""

    fork_target: str | None = None
    """The TARGET `f` forks with, as the user named it (`replay --target`); None: the run's own, run
    only with the user's consent (`fork_screen.fork_from`)."""

    diff_mode: reactive[bool] = reactive(False, init=False)
    playing: reactive[bool] = reactive(False, init=False)
    speed_index: reactive[int] = reactive(2, init=False)

    def __init__(
        self,
        session: Session | None,
        *,
        follow: bool = False,
        poll_interval: float = 0.5,
        theme: str = "textual-dark",
        start: int | str | None = None,
        path: str | Path | None = None,
        lenient: bool = False,
    ) -> None:
        super().__init__()
        if session is None and (path is None or not follow):
            raise ValueError("without a session the app needs `path` and `follow=True` to wait for it")
        self._session = session
        self.path = Path(path) if path is not None else session.run.path if session is not None else None
        self.follow = follow
        self.lenient = lenient
        self.poll_interval = poll_interval
        self._theme_name = theme
        self._start = start
        self.finder = Finder(self)
        self.prompts = StepPrompts(self)
        self._play_timer: Timer | None = None
        self._poll_timer: Timer | None = None
        self.arranger = Arranger(self)
        self._begun = False
        self.graph_counting = False  # the graph shows no counts: the background count is not there yet
        self.view = CursorView(self)
        self.walker = Walker(self)

    run_file_error: InspectorError | None = None
    """The error that ended the app: a run file found corrupt while it was read (a state change that
    does not apply, a value line that is no message), for the command to say as `show` says it."""

    def _handle_exception(self, error: Exception) -> None:
        """An `InspectorError` escaping a handler (the run file is corrupt where the app just read it)
        ends the app with status 2 and the error kept in `run_file_error`, instead of Textual's
        traceback printed over the terminal; anything else is Textual's to report."""
        if isinstance(error, InspectorError):
            if self.run_file_error is None:  # (the first one: panes reading the same line raise it again)
                self.run_file_error = error
                self.exit(return_code=2)
            return
        super()._handle_exception(error)

    @property
    def session(self) -> Session:
        if self._session is None:
            raise RuntimeError("no run yet: the app is waiting for its run file")
        return self._session

    @session.setter
    def session(self, session: Session) -> None:
        self._session = session

    @property
    def has_session(self) -> bool:
        """Whether a run is open (follow mode waits for its file first)."""
        return self._session is not None

    @property
    def hits(self) -> list[int]:
        """The positions the last search matched (sorted; filled in later on a long run)."""
        return self.finder.hits

    @property
    def last_search(self) -> str:
        return self.finder.text

    def search(self, text: str) -> None:
        """Search the steps for `text` (see `search.Finder`)."""
        self.finder.search(text)

    @property
    def waiting(self) -> bool:
        """Follow mode before the run file has a complete header, or while the panes for it are still
        being built (a poll found the header and recomposes the screen): nothing to show yet."""
        return self._session is None or not self._begun

    @property
    def replay(self) -> Replay:
        return self.session.replay

    # --- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        self.view.forget_panes()  # a followed file's screen is composed again: new panes
        if self._session is None:
            yield Static(waiting_text(self.path, self.poll_interval), id="waiting")
            yield KeyFooter()
            return
        yield Static(id="status")
        # One grid, two arrangements (`_arrange`): wide puts the graph in a full-height column left of
        # the timeline and the three panes; narrow puts it above the state pane, beside the timeline.
        with Grid(id="main"):
            with ScrollableContainer(id="graph-box"):
                yield GraphPane(id="graph")
            with Vertical(id="timeline-box"):
                yield Static(id="timeline-header")
                yield Timeline(self.session, id="timeline")
            yield StatePane(id="state")
            yield MessagesPane(id="messages-box")
            yield NodeDetail(id="detail-box")
        yield BudgetBar(id="budget")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.theme = self._theme_name
        if self.follow:
            self._poll_timer = self.set_interval(self.poll_interval, self.poll)
        if self._session is not None:
            self.begin()

    def begin(self) -> None:
        """Set up the panes for the session (on mount, or once a followed file appears)."""
        self.arranger = Arranger(self)  # the panes are new (a followed file's screen was recomposed)
        for selector, title in (
            ("#graph-box", "graph"),
            ("#timeline-box", "timeline"),
            ("#state", "state"),
            ("#messages-box", "messages"),
            ("#detail-box", "node detail"),
            ("#budget", "budget"),
        ):
            self.query_one(selector).border_title = title
        self.sync_columns()
        start = self._start
        if isinstance(start, str):  # `--step` while following a file that had no steps yet
            try:
                start = resolve_step(start, self.session.run)
            except GotoError as exc:
                self.notify(
                    f"--step {start}: {exc}; opened where the run opens", severity="warning", markup=False
                )
                start = None
        self.replay.go(self.session.opening_position() if start is None else start)
        self.query_one(Timeline).focus()
        self.watch(self.screen, "focused", self.mark_focus, init=False)
        self.show_cursor()
        self.walker.start()
        self._begun = True
        self.walker.freeze_after_first_frame()

    def sync_columns(self) -> None:
        """Tokens and ADK iterations get timeline columns when the run has them."""
        steps = self.session.run.steps
        columns = Columns.for_run(self.session.node_keys() or (), steps[-1].budget if len(steps) else None)
        self.query_one(Timeline).columns = columns
        self.query_one("#timeline-header", Static).update(Text(header(columns), style="bold"))
        self.query_one(Timeline).sync_size()

    # --- showing --------------------------------------------------------------------------------

    def show_cursor(self) -> None:
        """Push the cursor's position into every pane (`CursorView`), then the status line."""
        self.view.show(hits=self.finder.hit_set, diff=self.diff_mode, expand=self.expand, fit=self._fit_graph)
        repaint(self.view.status(), self._status())
        self.mark_focus()

    PANES = ("#graph-box", "#timeline-box", "#state", "#messages-box", "#detail-box")
    """The boxes whose title marks the focus (`focus_mark`)."""

    def mark_focus(self, _: object = None) -> None:
        """Put the focus mark on the focused pane's title (after titles change, and when focus moves)."""
        if self.waiting:
            return
        mark_focus(self.view.pane(Widget, selector) for selector in self.PANES)

    def _fit_graph(self, painted: Painted | None) -> None:
        """Lay the screen out for the drawing and scroll its highlighted box into view (`Arranger`)."""
        self.arranger.fit(painted)

    def on_resize(self, event: events.Resize) -> None:
        if self.is_running and not self.waiting:
            self.arranger.forget_fit()  # the box's width limit moved: fit and scroll again
            self.call_after_refresh(lambda: self._fit_graph(self.query_one(GraphPane).painted))

    def _status(self) -> Text:
        return status_text(
            self.session,
            diff_mode=self.diff_mode,
            speed=SPEEDS[self.speed_index],
            playing=self.playing,
            follow=self.follow,
        )

    def open_at(self, answer: str) -> None:
        """Open at the step `answer` names (`--step`: a position, negative from the end, or
        segment:step); a step the run does not have is an `InspectorError`, said before the screen opens.
        A followed file that is not there yet is checked once it is."""
        if self._session is None:
            self._start = answer
            return
        try:
            self._start = resolve_step(answer, self.session.run)
        except GotoError as exc:
            raise InspectorError(f"--step {answer}: {exc}") from None

    def go(self, position: int) -> None:
        self.replay.go(position)
        self.show_cursor()

    def start_background_walk(self) -> None:
        self.walker.start()

    async def on_unmount(self) -> None:
        """End the background children and unfreeze (`Walker.stop`)."""
        await self.walker.stop()

    async def poll(self) -> None:
        """Follow mode: open the run file once it is there, or pick up what was appended (`follow`)."""
        await follow.poll(self)

    # --- actions --------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The run's keys belong to the run's screen: over another screen (the fork view, a prompt)
        they do nothing, so they are not offered in its footer either (the fork view's footer offered
        `→` and it did nothing)."""
        return not (len(self.screen_stack) > 1 and action in _RUN_ACTIONS)

    def _main_screen_only(self) -> None:
        """Priority keys must not steal typing from a prompt or the command palette, and do nothing
        while there is no run to move through (or its panes are being built)."""
        if len(self.screen_stack) > 1 or self.waiting:
            raise SkipAction()

    def action_next(self) -> None:
        self._main_screen_only()
        self.go(self.replay.cursor + 1)

    def action_previous(self) -> None:
        self._main_screen_only()
        self.go(max(self.replay.cursor - 1, 0))

    def action_first(self) -> None:
        self._main_screen_only()
        self.go(0)

    def action_last(self) -> None:
        self._main_screen_only()
        self.go(len(self.replay) - 1)

    def action_goto(self) -> None:
        self._main_screen_only()
        self.prompts.goto()

    def action_search(self) -> None:
        self._main_screen_only()
        self.finder.prompt()

    def action_next_hit(self) -> None:
        self._main_screen_only()
        self.finder.next_hit(1)

    def action_previous_hit(self) -> None:
        self._main_screen_only()
        self.finder.next_hit(-1)

    def action_next_change(self) -> None:
        self._main_screen_only()
        self.prompts.next_change()

    def action_repeat_next_change(self) -> None:
        self._main_screen_only()
        self.prompts.repeat_next_change()

    def next_change(self, key: str) -> None:
        """Jump to where state key `key` next changes (`k`'s answer)."""
        self.prompts.jump_to_change(key)

    def action_breakpoint(self) -> None:
        self._main_screen_only()
        step = self.replay.current
        if step is None:
            return
        for node in step.nodes:
            on = self.replay.toggle_breakpoint(node)
            self.notify(f"breakpoint {'on' if on else 'off'}: {node}", markup=False)
        self.show_cursor()

    def action_breakpoint_on(self) -> None:
        self._main_screen_only()
        self.prompts.breakpoint_on()

    def action_continue(self) -> None:
        self._main_screen_only()
        if not self.replay.breakpoints:
            self.notify("no breakpoints set (b sets one on the current node)", markup=False)
            return
        found = self.replay.continue_()
        if found is None:
            self.notify("no later step hits a breakpoint", markup=False)
            return
        self.show_cursor()

    def action_play(self) -> None:
        self._main_screen_only()
        self.playing = not self.playing

    def action_faster(self) -> None:
        self._main_screen_only()
        self.speed_index = min(self.speed_index + 1, len(SPEEDS) - 1)

    def action_slower(self) -> None:
        self._main_screen_only()
        self.speed_index = max(self.speed_index - 1, 0)

    def action_diff(self) -> None:
        self._main_screen_only()
        self.diff_mode = not self.diff_mode

    def action_expand(self) -> None:
        self._main_screen_only()
        self.expand = not self.expand

    def action_fork(self) -> None:
        self._main_screen_only()
        from inspector.tui.fork_screen import fork_from  # the fork machinery loads when asked for

        fork_from(self)

    def action_open_nested(self) -> None:
        self._main_screen_only()
        from inspector.tui.nested_screen import NestedRunScreen

        step = self.replay.current
        if step is None or not step.nested:
            self.notify("no nested runs in this step (a graph node or an agent tool has them)", markup=False)
            return
        run = self.session.run
        self.push_screen(NestedRunScreen(step, run.topology, segments=len(run.segments)))

    def _opening(self) -> bool:
        """The run file appeared and its panes are being built: no screen may open on top now."""
        return self._session is not None and not self._begun

    def action_help(self) -> None:
        if len(self.screen_stack) > 1 or self._opening():
            raise SkipAction()
        self.push_screen(HelpScreen(help_rows()))

    def action_command_palette(self) -> None:
        if not self._opening():
            super().action_command_palette()

    async def action_quit(self) -> None:
        if len(self.screen_stack) > 1:
            raise SkipAction()
        self.exit()

    # --- watchers -------------------------------------------------------------------------------

    def watch_diff_mode(self) -> None:
        if self.is_running:
            self.show_cursor()

    def watch_expand(self, expand: bool) -> None:
        if self.is_running:
            self.query_one(StatePane).expand_all_values = expand
            self.query_one(Timeline).set_expand(expand)
            self.show_cursor()

    def watch_playing(self, playing: bool) -> None:
        self._restart_play_timer()
        if self.is_running:
            self.query_one("#status", Static).update(self._status())

    def watch_speed_index(self) -> None:
        self._restart_play_timer()
        if self.is_running:
            self.query_one("#status", Static).update(self._status())

    def _restart_play_timer(self) -> None:
        if self._play_timer is not None:
            self._play_timer.stop()
            self._play_timer = None
        if self.playing:
            self._play_timer = self.set_interval(1 / SPEEDS[self.speed_index], self._tick)

    def _tick(self) -> None:
        replay = self.replay
        if replay.cursor >= len(replay) - 1:
            self.playing = False
            return
        self.go(replay.cursor + 1)
        if replay.hits(replay.cursor):
            self.playing = False
            self.notify("stopped at a breakpoint", markup=False)

    # --- messages from panes --------------------------------------------------------------------

    def on_timeline_step_clicked(self, message: Timeline.StepClicked) -> None:
        self.go(message.position)

    def on_state_pane_width_changed(self, _: StatePane.WidthChanged) -> None:
        if self.is_running and not self.waiting:
            self.show_cursor()

    # --- command palette ------------------------------------------------------------------------

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for key in KEYS:
            if key.action == "quit":
                continue
            yield SystemCommand(key.title, key.description, getattr(self, f"action_{key.action}"))


_RUN_ACTIONS = frozenset(key.action for key in (*KEYS, *DEBUG_KEYS))
"""The actions of the run's keys (`check_action`)."""


def make_app(
    run_or_path: Run | Session | str | Path,
    *,
    follow: bool = False,
    poll_interval: float = 0.5,
    theme: str = "textual-dark",
    start: int | None = None,
    lenient: bool = False,
    fork_target: str | None = None,
) -> ReplayApp:
    """The replay app for a run file (or an opened `Run`/`Session`); shared by the CLI and tests.

    `follow` tails a file that is still being written (polled every `poll_interval` seconds); a file
    that does not exist yet, or has no complete header, is waited for ("waiting for RUN.jsonl");
    `start` overrides where the cursor opens (default: step 0, or the last step of a run that failed
    or stopped early); `lenient` skips corrupt lines of a file (as `read_run(path, lenient=True)`);
    `fork_target` is the TARGET `f` forks with (`replay --target`).
    """
    path: Path | None = None
    if isinstance(run_or_path, Session):
        session = run_or_path
    elif isinstance(run_or_path, Run):
        session = Session(run_or_path)
    else:
        path = Path(run_or_path)
        session = Session.try_open(path, lenient=lenient) if follow else Session.open(path, lenient=lenient)
    app = ReplayApp(
        session,
        follow=follow,
        poll_interval=poll_interval,
        theme=theme,
        start=start,
        path=path,
        lenient=lenient,
    )
    app.fork_target = fork_target
    return app
