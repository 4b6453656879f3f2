"""The run browser: `inspector replay SOURCE` with a source of many runs (a folder, a LangGraph
checkpointer, an OTLP trace file of several runs) lists them (the columns of `inspector runs`),
sortable (`s`), filtered with `/`; Enter opens a run in the replay app, Esc there comes back to the
list at the same row; space marks runs and `d` shows two marked runs' step-aligned diff. A run that is
not a run file (a checkpointer's thread, a trace's run) is opened through the run file its source
kind converts it to (`Catalog.run_file`).

The list is filled by a worker thread reading the catalog (`Catalog.scan` with `on_record`), so the
screen answers keys while a large folder is still being read and runs appear as they are indexed.

The replay app is not changed: `browse` runs the list app, then the replay app for the chosen run
(`BrowsedReplayApp`, the replay app with Esc bound to go back), then the list again with its rows,
marks and cursor kept in a `BrowserState`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.coordinate import Coordinate
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from inspector.tui.app import ReplayApp
from inspector.tui.prompt import PromptScreen

__all__ = ["BrowsedReplayApp", "BrowserState", "DiffScreen", "RunListApp", "browse"]

_STATUS_STYLES = {"ok": "green", "error": "red", "corrupt": "bold red", "running": "yellow"}
_SORTS = ("found", "started_at", "path", "status", "steps", "tokens", "duration", "graph")
"""`s` cycles through these; `found` is the order the catalog read the runs in."""


def _columns() -> list[str]:
    """`inspector runs`' columns, the wide ones (path, graph) last, so an 80-column screen shows the
    status and the numbers."""
    from inspector.catalog.listing import COLUMNS, WIDE

    return [c for c in COLUMNS if c not in WIDE] + [c for c in COLUMNS if c in WIDE]


@dataclass
class BrowserState:
    """What the list keeps between visits to the replay app: the runs read, the marks, the cursor, the
    filter and sort; `done` once the catalog was read."""

    records: list[Any] = field(default_factory=lambda: [])
    marked: list[str] = field(default_factory=lambda: [])
    cursor: str | None = None
    filter: str = ""
    sort: int = 0
    done: bool = False
    notes: list[str] = field(default_factory=lambda: [])


class DiffScreen(Screen[None]):
    """Two runs' step-aligned diff (`inspector.rundiff`), as `inspector diff` prints it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,d", "close", "Back to the list")]

    def __init__(self, text: str, title: str) -> None:
        super().__init__()
        self.text = text
        self.heading = title

    def compose(self) -> ComposeResult:
        yield Static(Text(self.heading, style="bold"), id="diff-title")
        with VerticalScroll(id="diff-body"):
            yield Static(Text(self.text), id="diff-text")
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)


class RunListApp(App[str | None]):
    """The list of runs (see the module docstring); exits with the key of the run to open, or None."""

    TITLE = "inspector runs"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open"),
        Binding("space", "mark", "Mark"),
        Binding("d", "diff", "Diff marked"),
        Binding("slash", "filter", "Filter"),
        Binding("s", "sort", "Sort"),
        Binding("q", "quit_browser", "Quit"),
    ]
    DEFAULT_CSS = """
    #runs { height: 1fr; }
    #current { height: 1; }
    #status-line { height: 1; color: $text-muted; }
    """

    def __init__(
        self,
        sources: Sequence[str],
        *,
        index: Path | None,
        state: BrowserState | None = None,
        theme: str = "textual-dark",
    ) -> None:
        super().__init__()
        self.sources = list(sources)
        self.index = index
        self.state = state if state is not None else BrowserState()
        self._theme_name = theme
        self._shown: list[Any] = []

    def compose(self) -> ComposeResult:
        yield DataTable(id="runs", cursor_type="row", zebra_stripes=True)
        yield Static("", id="current")
        yield Static("", id="status-line")
        yield Footer()

    def on_mount(self) -> None:
        self.theme = self._theme_name
        table = self.query_one(DataTable)
        table.add_column("", key="mark")
        for label in _columns():
            table.add_column(label, key=label)
        self._refill()
        if not self.state.done:
            self.run_worker(self._read, thread=True, exclusive=True, name="catalog")

    # -- reading the catalog (a worker thread) ---------------------------------------------------

    def _read(self) -> None:
        from inspector.catalog import Catalog

        catalog = Catalog(index=self.index)
        known = {r.key for r in self.state.records}

        def arrived(record: Any) -> None:
            if record.key not in known:
                self.call_from_thread(self._arrived, record)

        try:
            catalog.scan(self.sources, on_record=arrived)
        except Exception as exc:
            self.state.notes.append(f"reading stopped: {exc}")
        finally:
            catalog.close()
            self.state.notes.extend(catalog.notes)
            self.state.done = True
            self.call_from_thread(self._status)

    def _arrived(self, record: Any) -> None:
        self.state.records.append(record)
        if self._keeps(record):
            self._shown.append(record)
            self.query_one(DataTable).add_row(*self._cells(record), key=record.key)
        self._status()

    # -- the table ----------------------------------------------------------------------------------

    def _keeps(self, record: Any) -> bool:
        text = self.state.filter.lower()
        if not text:
            return True
        return any(
            text in str(v).lower()
            for v in (
                record.path,
                record.status,
                record.graph,
                record.run_id,
                record.field("tags"),
                record.field("diagnostics"),
            )
        )

    def _cells(self, record: Any) -> list[Text]:
        """The mark, then `inspector runs`' cells: numbers right-aligned, the status coloured."""
        from inspector.catalog.listing import COLUMNS, RIGHT, cells

        by_name: dict[str, str] = dict(zip(COLUMNS, cells(record), strict=True))
        row = [Text("●" if record.key in self.state.marked else "")]
        for name in _columns():
            cell = by_name[name]
            style = _STATUS_STYLES.get(cell, "") if name == "status" else ""
            row.append(Text(cell, style=style, justify="right" if name in RIGHT else "left"))
        return row

    def _refill(self) -> None:
        from inspector.catalog.listing import sort_records

        table = self.query_one(DataTable)
        table.clear()
        shown = [r for r in self.state.records if self._keeps(r)]
        self._shown = sort_records(shown, _SORTS[self.state.sort]) if self.state.sort else shown
        for record in self._shown:
            table.add_row(*self._cells(record), key=record.key)
        if self.state.cursor is not None:
            for row, record in enumerate(self._shown):
                if record.key == self.state.cursor:
                    table.move_cursor(row=row)
                    break
        self._status()

    def _status(self) -> None:
        state = self.state
        reading = "" if state.done else "  reading…"
        shown = f"{len(self._shown)} of {len(state.records)} runs"
        parts = [shown + reading, f"sort: {_SORTS[state.sort]}"]
        if state.filter:
            parts.append(f"filter: {state.filter}")
        if state.marked:
            parts.append(f"marked: {len(state.marked)}")
        if state.notes:
            parts.append(state.notes[-1])
        self.query_one("#status-line", Static).update(Text("  ·  ".join(parts)))

    def _current(self) -> Any | None:
        table = self.query_one(DataTable)
        if not self._shown or table.cursor_row < 0 or table.cursor_row >= len(self._shown):
            return None
        return self._shown[table.cursor_row]

    # -- actions ----------------------------------------------------------------------------------

    def action_open(self) -> None:
        record = self._current()
        if record is None:
            return
        if record.status == "corrupt":
            self.notify(f"{record.path} is corrupt: {record.reason}", severity="error")
            return
        self.state.cursor = record.key
        self.exit(record.key)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The run under the cursor, named in full below the list (its path is the last column, off an
        80-column screen), with why it is corrupt when it is."""
        event.stop()
        record = self._current()
        text = "" if record is None else record.path
        if record is not None and record.reason:
            text += f"  ({record.status}: {record.reason})"
        self.query_one("#current", Static).update(Text(text, style="bold"))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_mark(self) -> None:
        record = self._current()
        if record is None:
            return
        marked = self.state.marked
        if record.key in marked:
            marked.remove(record.key)
        else:
            marked.append(record.key)
            del marked[:-2]  # the last two marked are the pair `d` compares
        table = self.query_one(DataTable)
        for row, shown in enumerate(self._shown):
            table.update_cell_at(Coordinate(row, 0), Text("●" if shown.key in marked else ""))
        self._status()

    def action_diff(self) -> None:
        from inspector.catalog.catalog import record_run_file
        from inspector.rundiff import diff_runs

        if len(self.state.marked) != 2:
            self.notify("mark two runs with space, then press d", severity="warning")
            return
        by_key = {r.key: r for r in self.state.records}
        a, b = (by_key[k] for k in self.state.marked)
        try:
            text = diff_runs(record_run_file(a), record_run_file(b)).to_text()
        except Exception as exc:
            self.notify(f"cannot compare: {exc}", severity="error")
            return
        title = f"step-aligned diff of A {a.path} and B {b.path} (Esc: back to the list)"
        self.push_screen(DiffScreen(text, title))

    def action_filter(self) -> None:
        def done(text: str | None) -> None:
            if text is not None:
                self.state.filter = text.strip()
                self._refill()

        self.push_screen(
            PromptScreen("Show runs containing (path, status, graph, tags):", value=self.state.filter), done
        )

    def action_sort(self) -> None:
        record = self._current()
        if record is not None:
            self.state.cursor = record.key
        self.state.sort = (self.state.sort + 1) % len(_SORTS)
        self._refill()

    def action_quit_browser(self) -> None:
        self.exit(None)


class BrowsedReplayApp(ReplayApp):
    """The replay app opened from the list: Esc goes back to the list (`back` is then True)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *ReplayApp.BINDINGS,
        Binding("escape", "back_to_list", "Back to the list"),
    ]
    back = False

    def action_back_to_list(self) -> None:
        self.back = True
        self.exit()


def browse(sources: Sequence[str], *, index: Path | None, theme: str = "textual-dark") -> None:
    """The list, a run, the list again (see the module docstring), until the list is quit."""
    from inspector.catalog.catalog import record_run_file
    from inspector.tui.session import Session

    state = BrowserState()
    while True:
        key = RunListApp(sources, index=index, state=state, theme=theme).run()
        if key is None:
            return
        record = next(r for r in state.records if r.key == key)
        replay = BrowsedReplayApp(Session.open(record_run_file(record)), theme=theme, path=record.path)
        replay.run()
        if not replay.back:
            return
