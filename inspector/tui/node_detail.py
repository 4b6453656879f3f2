"""`NodeDetail`: what each node did in the current step (input, output, error, duration).

At the last step of a run that failed or stopped early it also shows why: the run's error with its
node path, the nodes of the step that never finished, and the diagnostics. Values are clipped unless
expanded (`x`).
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.visual import Visual, visualize

from inspector.errortext import without_node_path
from inspector.message_parts import with_media_labels
from inspector.recording.format import ErrorRecord
from inspector.recording.reader import NodeRun, Step
from inspector.tui.interrupts import SAFE_POINTS, InterruptMark, is_interrupt, split_interrupt_message
from inspector.tui.literal import literal, one_line
from inspector.tui.session import StopReport

__all__ = [
    "NodeDetail",
    "render_detail",
    "render_interrupt",
    "render_stop",
    "rows_at_least",
    "said_once",
]

VALUE_LIMIT = 400
_SEVERITY = {"error": "bold red", "warning": "bold yellow", "info": "bold cyan"}


def said_once(error: ErrorRecord) -> str:
    """The one line a failed run's error is said in: its cause when it has one (a `NodeRunError` only
    wraps what the node raised), else its own type and message, without the engine's tag and
    node-path trailer (the node path has its own line)."""
    if error.cause_type:
        return f"{error.cause_type}: {without_node_path(error.cause_message or '')}"
    return f"{error.type}: {without_node_path(error.message)}"


def _error(error: ErrorRecord, *, limit: int | None, said: str | None = None, with_path: bool = True) -> Text:
    """A node's error; `said` is the run's error as the stop block said it: the same error again
    reads `(the run's error, above)`."""
    text = Text()
    text.append("error   ", style="bold red")
    if said is not None and said_once(error) == said:
        text.append("(the run's error, above)", style="dim")
        return text
    if error.cause_type:
        text.append_text(literal(said_once(error), limit=limit, multiline=True, style="red"))
        text.append_text(one_line(f"  (raised as {error.type})", limit=80, style="dim"))
    else:
        text.append_text(one_line(error.type, limit=80, style="bold red"))
        text.append(": ")
        text.append_text(literal(without_node_path(error.message), limit=limit, multiline=True, style="red"))
    if error.node_path and with_path:
        text.append("\nat      ", style="bold red")
        text.append_text(one_line(" › ".join(error.node_path), limit=200))
    return text


def _node_run(
    run: NodeRun, *, limit: int | None, indent: str = "", said: str | None = None, short: bool = False
) -> Text:
    """One node run; `short`: by its key alone (under a nested step's header, which names the path)."""
    text = Text(indent)
    label = " › ".join(run.path) if len(run.path) > 1 and not short else run.node
    text.append_text(one_line(label, limit=80, style="bold"))
    if run.component:
        text.append("  ")
        text.append_text(one_line(run.component, limit=40, style="dim"))
    if run.name and run.name not in (run.node, run.component):
        text.append("  ")
        text.append_text(one_line(run.name, limit=60, style="cyan"))
    if run.tool_call_id:
        text.append_text(one_line(f"  ({run.tool_call_id})", limit=80, style="dim"))
    if run.duration is not None:
        text.append(f"  {run.duration * 1000:.1f} ms", style="dim")
    text.append(f"\n{indent}  input   ", style="dim")
    text.append_text(one_line(with_media_labels(run.input), limit=limit))
    if run.error is not None and is_interrupt(run.error):
        address, info = split_interrupt_message(run.error.message)
        text.append(f"\n{indent}  interrupted  ", style="bold yellow")
        paused = sum(1 for tool in run.tools if is_interrupt(tool.error))
        if paused:
            text.append(f"{paused} of {len(run.tools)} tool calls (below)", style="yellow")
        else:
            text.append_text(literal(info, limit=limit, style="yellow"))
        if address:
            text.append(f"\n{indent}  address ", style="dim")
            text.append_text(one_line(address, limit=limit))
    elif run.error is not None:
        text.append(f"\n{indent}  ")
        text.append_text(_error(run.error, limit=limit, said=said))
    elif run.finished is None:
        text.append(f"\n{indent}  (did not finish)", style="yellow")
    else:
        text.append(f"\n{indent}  output  ", style="dim")
        text.append_text(one_line(with_media_labels(run.output), limit=limit))
    for tool in run.tools:
        text.append("\n")
        text.append_text(_node_run(tool, limit=limit, indent=indent + "    ", said=said, short=short))
    return text


def render_nested(
    step: Step, *, limit: int | None, said: str | None = None, path: tuple[str, ...] | None = None
) -> list[Text]:
    """The nested runs of `step` (a graph node's nested graph, an agent tool's inner run), or only the
    one at `path`: a header per nested step (`▸ ToolNode › weather_expert:call_expert  step 0  Init`,
    its budget), then what each of its nodes did, indented."""
    parts: list[Text] = []
    for record, budget, runs in step.nested_parts():
        if path is not None and tuple(record.path) != path:
            continue
        header = Text("▸ ", style="bold magenta")
        header.append_text(one_line(" › ".join(record.path), limit=120, style="bold magenta"))
        header.append(f"  step {record.index}  ", style="bold")
        header.append_text(one_line(", ".join(record.nodes), limit=120, style="bold"))
        if record.duration is not None:
            header.append(f"  {record.duration * 1000:.1f} ms", style="dim")
        left = "" if budget.steps_max is None else f"/{budget.steps_max}"
        counts = f"  steps {budget.steps_used}{left}"
        if budget.iterations_remaining is not None:
            counts += f", iterations left {budget.iterations_remaining}"
        header.append(counts, style="dim")
        parts.append(header)
        parts.extend(_node_run(run, limit=limit, indent="  ", said=said, short=True) for run in runs)
    return parts


def render_stop(
    report: StopReport, *, limit: int | None = VALUE_LIMIT, shown: tuple[NodeRun, ...] = ()
) -> Text:
    """Why the run stopped: status and where (the node path once), the error once (its cause, see
    `said_once`), the failed node runs not in `shown` (the step drawn below it), the diagnostics that
    add to that (`run-failed` and a diagnostic ending in the same error only restate it)."""
    text = Text()
    text.append(f"run {report.status}", style="bold red" if report.status == "error" else "bold yellow")
    if report.interrupt is not None and report.interrupt.kind == "cancel":
        text.append(" (cancelled)", style="bold magenta")
    if report.unfinished_nodes:
        text.append("  in an unfinished step running ")
        text.append_text(one_line(", ".join(report.unfinished_nodes), limit=120, style="bold"))
    if report.node_path:
        text.append("\nnode path  ", style="bold")
        text.append_text(one_line(" › ".join(report.node_path), limit=200))
    said: str | None = None
    if report.error is not None:
        said = said_once(report.error)
        text.append("\n")
        # the node path is said above: the error's own copy of it would be the second
        text.append_text(_error(report.error, limit=limit, with_path=False))
    drawn = {(run.path, run.node) for run in shown}
    for run in report.failed:
        if (run.path, run.node) in drawn:
            continue  # the step below shows it
        text.append("\n")
        text.append_text(_node_run(run, limit=limit, said=said))
    for diagnostic in report.diagnostics:
        if diagnostic.code == "interrupted" and report.interrupt is not None:
            continue  # the interrupt block below says it in full
        if said is not None and (diagnostic.code == "run-failed" or diagnostic.message.endswith(said)):
            continue  # the error, said again
        text.append("\n")
        text.append(f"{diagnostic.severity:<8}", style=_SEVERITY.get(diagnostic.severity, "bold"))
        text.append_text(one_line(diagnostic.code, limit=40, style="bold"))
        text.append("  ")
        text.append_text(literal(diagnostic.message, limit=limit))
    return text


def render_interrupt(mark: InterruptMark, *, stopped: bool, limit: int | None = VALUE_LIMIT) -> Text:
    """What interrupted here and what a resume does: the nodes, their info, the cancel safe point and
    the checkpoint to resume from (`stopped`: this is where the run ended)."""
    nodes = ", ".join(mark.nodes)
    text = Text()
    if mark.kind == "cancel" and mark.safe_point is None:
        text.append("⊘ cancel", style="bold magenta")
        where = "during" if mark.abandoned else "after" if mark.after else "before"
        text.append(f" took effect immediately, {where} ")
        text.append_text(one_line(nodes, limit=120, style="bold"))
        text.append("\n  not at a safe point: an immediate cancel, or a safe-point cancel whose", style="dim")
        then = "the nodes they lead to" if mark.after else "these nodes"
        if mark.abandoned:
            then = "these nodes were abandoned while running; they"
        text.append(f" timeout ran out; {then} run first on resume", style="dim")
    elif mark.kind == "cancel":
        text.append("⊘ cancel", style="bold magenta")
        text.append(" took effect at safe point ")
        text.append_text(one_line(mark.safe_point or nodes, limit=80, style="bold"))
        when = SAFE_POINTS.get(mark.safe_point or "")
        if when:
            text.append(f" ({when})", style="dim")
        text.append("\n  the node runs again on resume and the run carries on", style="dim")
    elif mark.kind == "before":
        text.append("⏸ interrupt before ", style="bold yellow")
        text.append_text(one_line(nodes, limit=120, style="bold"))
        text.append("\n  not run yet: runs first on resume (its pre-handler too)", style="dim")
    elif mark.kind == "after":
        text.append("⏸ interrupt after ", style="bold yellow")
        text.append_text(one_line(nodes, limit=120, style="bold"))
        text.append("\n  finished: its successors run on resume", style="dim")
    else:
        text.append("⏸ interrupt in ", style="bold yellow")
        text.append_text(one_line(nodes, limit=120, style="bold"))
        if mark.tools:
            text.append("\n  rerun on resume: only the interrupted tool calls run again", style="dim")
        else:
            # Eino: the rerun gets its input type's zero value unless the run had an interrupt_event
            text.append(
                "\n  rerun on resume with its input type's zero value"
                " (its original input if the run had an interrupt_event)",
                style="dim",
            )
    for info in mark.info:
        text.append("\n  info        ", style="dim")
        text.append_text(literal(info, limit=limit, style="yellow"))
    for tool in mark.tools:
        text.append("\n  tool        ", style="dim")
        text.append_text(one_line(f"{tool.name} ({tool.call_id})", limit=120, style="bold"))
        if tool.interrupted:
            text.append("  interrupted, runs again on resume  ", style="yellow")
            text.append_text(literal(tool.info, limit=limit, style="yellow"))
        else:
            text.append("  completed, result reused on resume", style="dim")
    if mark.checkpoint_id:
        text.append("\n  checkpoint  ", style="dim")
        text.append_text(one_line(mark.checkpoint_id, limit=120, style="bold"))
    elif stopped:
        text.append("\n  no checkpoint saved (run without a checkpoint_id): cannot be resumed", style="dim")
    return text


def render_detail(
    step: Step | None,
    *,
    stop: StopReport | None = None,
    mark: InterruptMark | None = None,
    limit: int | None = VALUE_LIMIT,
    segments: int = 1,
) -> Text:
    """The detail of `step`. `segments` is the run's segment count: in a run resumed into the same file
    step numbers restart at each resume, so the header names the segment too (`segment 1 step 0`)."""
    parts: list[Text] = []
    said = said_once(stop.error) if stop is not None and stop.error is not None else None
    if stop is not None:
        parts.append(render_stop(stop, limit=limit, shown=tuple(step.node_runs) if step else ()))
    if mark is not None:
        stopped = stop is not None and stop.status == "interrupted"
        parts.append(render_interrupt(mark, stopped=stopped, limit=limit))
    if step is None:
        parts.append(Text("(no complete step to show)", style="dim"))
    else:
        where = f"segment {step.segment} step {step.index}" if segments > 1 else f"step {step.index}"
        header = Text(where, style="bold")
        if step.duration is not None:
            header.append(f"  {step.duration * 1000:.1f} ms", style="dim")
        if step.next_nodes:
            header.append("  next ", style="dim")
            header.append_text(one_line(", ".join(step.next_nodes), limit=120))
        if step.ended:
            header.append("  (run ends here)", style="dim")
        parts.append(header)
        own = [run for run in step.node_runs if len(run.path) <= 1]
        parts.extend(_node_run(run, limit=limit, said=said) for run in own)
        for branch in step.branches:
            line = Text("branch  ", style="dim")
            line.append_text(one_line(f"{branch.source} → {', '.join(branch.chosen) or '∅'}", limit=160))
            if branch.skipped:
                line.append_text(one_line(f"  (not {', '.join(branch.skipped)})", limit=160, style="dim"))
            parts.append(line)
        parts.extend(render_nested(step, limit=limit, said=said))
    return Text("\n").join(parts)


def rows_at_least(text: str, width: int) -> int:
    """A lower bound of the rows `text` takes wrapped to `width` cells: a row holds at most `width`
    cells of what is not white space (white space at a break is dropped, wide characters that do not
    fit move on), and each line takes a row."""
    return sum(max(1, -(-cell_len("".join(line.split())) // width)) for line in text.split("\n"))


class NodeDetail(ScrollView, can_focus=True):
    """The app calls `show(step, stop=..., expand=..., segments=...)` when the cursor moves.

    It is its own scrolling box (Line API), not text in a scrolling container: a `Static` of automatic
    height inside a `VerticalScroll` changes size with every step's line count, and Textual answers a
    size change with another screen-wide layout and frame, then one more when the scrollbar comes or
    goes (three layouts and four frames a step). Here the text is wrapped once per change and width,
    the scrollbar decided with it, and only the virtual height changes: one layout at most, merged
    with the step's frame."""

    DEFAULT_CSS = """
    NodeDetail { overflow-x: hidden; overflow-y: auto; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text = Text()
        self._lines: list[Strip] = []
        self._wrapped: tuple[int, int, object] | None = None  # (width, height, colours) wrapped for
        self.wraps = 0
        """How many times the text was wrapped (tests check a step that shows the same text wraps none)."""

    def show(
        self,
        step: Step | None,
        *,
        stop: StopReport | None = None,
        mark: InterruptMark | None = None,
        expand: bool = False,
        segments: int = 1,
    ) -> bool:
        """Show the detail of `step`; False when the pane already shows exactly that (nothing done)."""
        limit = None if expand else VALUE_LIMIT
        text = render_detail(step, stop=stop, mark=mark, limit=limit, segments=segments)
        if text == self._text and text.style == self._text.style and self._wrapped is not None:
            return False
        self._text = text
        self._wrapped = None
        self._lay_out()
        return True

    def render(self) -> Text:
        """The whole text shown (wrapped and scrolled by `render_line`)."""
        return self._text

    def on_resize(self) -> None:
        self._lay_out()

    def notify_style_update(self) -> None:
        """The wrapped rows carry the pane's colours (`dim` is blended with its background): after a
        change of theme they are wrapped again."""
        super().notify_style_update()
        if self.is_mounted:
            self.call_later(self._lay_out)  # a no-op unless the colours changed

    def _lay_out(self) -> None:
        """Wrap the text to the pane, narrower by the scrollbar when it does not fit its height (as a
        `VerticalScroll` would), and size the scrollable area to it."""
        width, height = self.content_region.size
        if width <= 0:  # not laid out yet: the first resize wraps, at the real width
            return
        style = self.visual_style
        if self._wrapped == (width, height, style):
            return
        self._wrapped = (width, height, style)
        self.wraps += 1
        visual = visualize(self, self._text, markup=False)
        bar = self.styles.scrollbar_size_vertical
        narrow = width - bar if bar and width > bar else width
        if narrow < width and rows_at_least(self._text.plain, width) > height:
            overflow = True  # it cannot fit even unnarrowed: wrap once, beside the scrollbar
            lines = Visual.to_strips(self, visual, narrow, None, style)
        else:
            lines = Visual.to_strips(self, visual, width, None, style)
            overflow = len(lines) > height
            if overflow and narrow < width:
                lines = Visual.to_strips(self, visual, narrow, None, style)
        self._lines = lines
        self.virtual_size = Size(narrow if overflow else width, len(lines))  # a layout if the height changed
        # Textual decides the scrollbar after the layout and lays out again when it comes or goes;
        # decided here, the one layout places it.
        if self.show_vertical_scrollbar != overflow:
            self.show_vertical_scrollbar = overflow
            self.vertical_scrollbar.display = overflow
        self.refresh()

    def render_line(self, y: int) -> Strip:
        row = round(self.scroll_y) + y
        width = self.scrollable_content_region.width
        if 0 <= row < len(self._lines):
            return self._lines[row].crop_extend(0, width, self.rich_style)
        return Strip.blank(width, self.rich_style)
