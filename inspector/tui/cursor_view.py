"""`CursorView`: pushes the replay cursor's position into every pane of the screen.

The app decides where the cursor goes; this says what each pane shows there: the graph (active,
walked so far, breakpoints, failed and interrupted nodes), the state and its changes, the
conversation up to the step, the node detail, the budget bar and the titles that count. It looks each
pane up once per composed screen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from textual.widget import Widget
from textual.widgets import Static

from inspector.conversation import Said, state_messages, step_name
from inspector.tui.budget_bar import BudgetBar, budget_level
from inspector.tui.graph_pane import GraphPane, Painted, count_gutter
from inspector.tui.host import ReplayHost
from inspector.tui.messages_pane import MessagesPane
from inspector.tui.node_detail import NodeDetail
from inspector.tui.notes import counting_note, timeline_note
from inspector.tui.repaint import retitle
from inspector.tui.state_pane import StatePane
from inspector.tui.timeline import Timeline

__all__ = ["MESSAGES_ALL_UP_TO", "MESSAGES_SHOWN", "CursorView"]

_W = TypeVar("_W", bound=Widget)

MESSAGES_ALL_UP_TO = 1_000
MESSAGES_SHOWN = 60
"""A conversation longer than `MESSAGES_ALL_UP_TO` shows only its newest `MESSAGES_SHOWN` messages: an
agent's history grows by a message a step, and laying out (and keeping) 100,000 messages at each key
would take minutes and gigabytes. Shorter ones show whole, every message reachable by scrolling."""


class CursorView:
    """The panes of one replay app (`host`), shown at its cursor by `show`."""

    def __init__(self, host: ReplayHost) -> None:
        self.host = host
        self._panes: dict[tuple[str, type[Widget]], Widget] = {}

    def forget_panes(self) -> None:
        """The screen is composed again (a followed file appeared): its panes are new."""
        self._panes.clear()

    def pane(self, kind: type[_W], selector: str | None = None) -> _W:
        """The screen's pane of type `kind` (or `selector`), looked up once per composed screen: a
        lookup walks the screen's widgets, and a step asked for a dozen."""
        key = (selector or "", kind)
        pane = self._panes.get(key)
        if not isinstance(pane, kind):
            pane = self.host.query_one(selector, kind) if selector else self.host.query_one(kind)
            self._panes[key] = pane
        return pane

    def show(
        self, *, hits: frozenset[int], diff: bool, expand: bool, fit: Callable[[Painted | None], None]
    ) -> None:
        """Show the cursor's step in every pane; `hits` are the search's matches, `diff` shows state
        changes inline, `expand` shows values whole. `fit` lays the screen out for the new drawing
        before the other panes are shown (they are sized by that layout), and after the budget bar (the
        layout makes room for its rows)."""
        session, replay = self.host.session, self.host.replay
        run = session.run
        cursor = replay.cursor
        step = replay.current
        at_end = cursor >= len(replay) - 1
        stop = session.stop_report() if at_end else None
        timeline = self.pane(Timeline)
        timeline.breakpoints = replay.breakpoints
        timeline.hits = hits
        timeline.cursor = cursor
        active = step.nodes if step is not None else (stop.unfinished_nodes if stop else ())
        mark = session.interrupt_at(cursor) if step is not None else (stop.interrupt if stop else None)
        so_far = session.path_known(cursor)
        self.host.graph_counting = so_far is None
        budget = step.budget if step else None
        iterations_max = session.iterations_max_at(cursor)
        level = budget_level(budget, iterations_max=iterations_max) if budget else "none"
        bar = self.pane(BudgetBar)  # before the layout: the grid's rows depend on the bar's (`fit`)
        bar.show(
            budget,
            cycle=session.budget_cycle() if at_end else None,  # said from the step that spent it
            iterations_max=iterations_max,
            consuming=session.consuming_cycle(cursor, so_far=so_far)
            if so_far is not None and level in ("low", "critical")
            else None,
        )
        if len(run.segments) > 1:  # each resumed run has its own step budget
            retitle(bar, title=f"budget · segment {session.segment_at(cursor)} (restarts at each resume)")
        painted = self.pane(GraphPane).show(
            run.topology,
            active=active,
            so_far=so_far if so_far is not None else session.path_partial(cursor),
            breakpoints=replay.breakpoints,
            failed=stop.unfinished_nodes if stop and stop.status == "error" else (),
            interrupted=mark.nodes if mark is not None else (),
            gutter=count_gutter(len(session)),
        )
        fit(painted)
        retitle(self.pane(Widget, "#graph-box"), subtitle=counting_note(session, known=so_far is not None))
        state = replay.state_at(cursor) if step is not None else None
        changes = replay.changes_at(cursor) if step is not None else []
        empty = None
        if step is None:
            empty = "(no complete step recorded)"
        elif state is None:
            empty = "(no state: this graph keeps none)"
        self.pane(StatePane).show(state, changes, diff=diff, empty=empty)
        held = len(state_messages(state))
        last = MESSAGES_SHOWN if held > MESSAGES_ALL_UP_TO else None
        said = session.conversation.at(cursor, state, last=last) if step is not None else []
        messages = self.pane(MessagesPane)
        retitle(messages, subtitle=f"newest {len(said)} of {held} messages" if held > len(said) else "")
        if messages.show(said, by=[self._said_by(item) for item in said], expand=expand):
            messages.show_newest()
        self.pane(NodeDetail).show(step, stop=stop, mark=mark, expand=expand, segments=len(run.segments))
        retitle(self.pane(Widget, "#timeline-box"), subtitle=timeline_note(session, expand=expand))

    def status(self) -> Static:
        return self.pane(Static, "#status")

    def _said_by(self, said: Said) -> str:
        """Who said a message and when, as its block's header shows it: `chat · step 0`, `input`."""
        if said.position is None:
            return said.origin
        where = f"{said.node} · {step_name(self.host.session.run, said.position)}"
        return f"{where} (into the state)" if said.origin == "state" else where
