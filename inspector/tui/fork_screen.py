"""Forking from the TUI (`f`), and `ForkScreen`, which shows a fork beside its parent.

`f` first makes sure the user agreed to run the target (`replay --target`, a run this user recorded
here, a bundled fixture, or a yes to `ConfirmTargetScreen`, which shows the run's TARGET and the file
it resolves to; see `inspector.trust`), or asks for one when the run names none. Then it asks for what
to change at the step under the cursor: an assistant message as JSON (`{"role":
"assistant", ...}`: the next model answer) or `PATH=JSON` edits separated by `;`. The fork runs on a
worker thread through `inspector.debug.fork` (the app never drives the engine itself), into
`<run>.fork-<N>.jsonl` next to the run, then opens beside its parent: both timelines and where they
part (`inspector diff`). A fork that cannot be written there (a read-only folder, a full disk) is a
one-paragraph note, and the app goes on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Static

from inspector.errors import InspectorError, TargetError
from inspector.recording import Run, read_run
from inspector.recording.sink import describe_fault
from inspector.target import TargetSource
from inspector.terminaltext import visible
from inspector.tui.literal import one_line
from inspector.tui.prompt import PromptScreen

__all__ = ["ConfirmTargetScreen", "ForkScreen", "fork_from", "fork_note", "fork_path", "parse_fork_answer"]


def parse_fork_answer(answer: str) -> tuple[list[str], str | None]:
    """(`--set` items, `--model-answer` JSON) from the prompt's answer."""
    text = answer.strip()
    if text.startswith("{"):
        return [], text
    return [part.strip() for part in text.split(";") if part.strip()], None


def fork_path(run_path: Path, step: int) -> Path:
    """`<run>.fork-<N>.jsonl` beside the run; `-2`, `-3`, ... when that name is taken."""
    base = run_path.with_name(f"{run_path.stem}.fork-{step}.jsonl")
    candidate, n = base, 1
    while candidate.exists():
        n += 1
        candidate = run_path.with_name(f"{run_path.stem}.fork-{step}-{n}.jsonl")
    return candidate


def fork_note(error: BaseException) -> str:
    """The one paragraph shown when a fork fails: the inspector's own errors say what and where; any
    other `OSError` (the run's folder, the disk) is named as the file system's."""
    if isinstance(error, InspectorError):
        return str(error)
    where = f" ({error.filename})" if isinstance(error, OSError) and error.filename else ""
    return f"the fork could not be written{where}: {describe_fault(error)}; nothing was written"


def _timeline(run: Run, fork_step: int | None) -> Text:
    text = Text()
    for step in run.steps:
        style = "dim" if fork_step is not None and step.index < fork_step else ""
        mark = "▶ " if step.index == fork_step else "  "
        text.append(mark, style="bold magenta")
        text.append_text(one_line(f"{step.index:>3}  {', '.join(step.nodes)}", limit=60, style=style))
        chosen = [t for b in step.branches for t in b.chosen]
        if chosen:
            text.append_text(one_line(f"  -> {', '.join(chosen)}", limit=40, style="dim"))
        text.append("\n")
    colour = "green" if run.status == "ok" else "red" if run.status == "error" else "yellow"
    text.append(f"status {run.status}, {len(run.steps)} steps", style=f"bold {colour}")
    return text


def _status(parent: Path, fork: Path, step: int, run: Run) -> Text:
    """The fork view's status line (the run's own is on the screen below): which fork of what, how it
    ended, and the way back."""
    text = Text()
    text.append_text(one_line(f"fork of {parent.name} at step {step}", limit=60, style="bold magenta"))
    text.append(" → ")
    text.append_text(one_line(fork.name, limit=60, style="bold"))
    colour = "green" if run.status == "ok" else "red" if run.status == "error" else "yellow"
    text.append(f"  {run.status}, {len(run.steps)} steps", style=f"bold {colour}")
    text.append("  esc/q back to the run", style="dim")
    return text


class ForkScreen(Screen[None]):
    """A fork beside its parent: both timelines, and the first divergence after the fork point."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Back to the run", priority=True),
    ]

    DEFAULT_CSS = """
    ForkScreen #fork-status {
        height: 1; padding: 0 1; background: $panel; text-wrap: nowrap; text-overflow: ellipsis;
    }
    ForkScreen #sides { height: 1fr; }
    ForkScreen .side { width: 1fr; border: round $primary; padding: 0 1; }
    ForkScreen #fork-diff { height: auto; max-height: 12; border: round $accent; padding: 0 1; }
    """

    def __init__(self, parent: Path, fork: Path, step: int) -> None:
        super().__init__()
        self.parent_path, self.fork_path, self.step = parent, fork, step

    def compose(self) -> ComposeResult:
        from inspector.rundiff import diff_runs

        parent, fork = read_run(self.parent_path), read_run(self.fork_path)
        diff = diff_runs(parent, fork)
        yield Static(_status(self.parent_path, self.fork_path, self.step, fork), id="fork-status")
        with Horizontal(id="sides"):
            with VerticalScroll(classes="side", id="parent-side") as left:
                left.border_title = f"parent: {self.parent_path.name}"
                yield Static(_timeline(parent, self.step))
            with VerticalScroll(classes="side", id="fork-side") as right:
                right.border_title = f"fork at step {self.step}: {self.fork_path.name}"
                yield Static(_timeline(fork, self.step))
        summary = Text()
        summary.append_text(one_line(f"first divergence: {diff.divergence_text() or 'none'}", limit=200))
        summary.append("\n")
        summary.append_text(
            one_line(f"compare: inspector diff {self.parent_path} {self.fork_path}", limit=200, style="dim")
        )
        yield Static(summary, id="fork-diff")
        yield Footer()

    def on_mount(self) -> None:
        self.app.clear_notifications()  # "forking…" would cover the result line for its 5 s

    def action_close(self) -> None:
        self.dismiss(None)


class ConfirmTargetScreen(ModalScreen[bool]):
    """Asks before a recording's TARGET is run: shows it and what it resolves to; `y` runs it, `n`,
    Escape or Enter do not (the default is no)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes, run it"),
        Binding("n,escape,enter", "answer(False)", "No"),
    ]

    DEFAULT_CSS = """
    ConfirmTargetScreen { align: center middle; }
    ConfirmTargetScreen > Vertical {
        width: 72; height: auto; border: round $warning; background: $surface; padding: 0 1;
    }
    """

    def __init__(self, run_name: str, source: TargetSource) -> None:
        super().__init__()
        self.run_name, self.source = run_name, source

    def compose(self) -> ComposeResult:
        from inspector.trust import describe_source

        text = Text()
        text.append(f"{visible(self.run_name)} names the TARGET ")
        text.append(visible(self.source.spec), style="bold")
        text.append(f", {visible(describe_source(self.source))}.\n")
        text.append("You did not record this run here. Forking imports that code and runs it.\n")
        text.append("Run it? y / N", style="bold")
        with Vertical():
            yield Static(text, id="confirm-target")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def fork_from(app: Any) -> None:
    """The `f` key of the replay app: make sure the user agreed to run the target, ask what to change at
    the cursor's step, fork, show the fork.

    The target is the one the user named (`replay --target`, kept in `app.fork_target`); else the run's
    own (`meta.target`), used at once when this user recorded the run here or it is a bundled fixture
    (`inspector.trust`), else shown and confirmed (`ConfirmTargetScreen`; no runs nothing); a run that
    names none asks for one."""
    step = app.replay.current
    if step is None:
        return
    run: Run = app.session.run
    if len(run.segments) > 1:
        app.notify("forks of runs resumed after an interrupt are not supported yet", severity="warning")
        return
    named: str | None = app.fork_target
    if named:
        _ask_changes(app, run.path, step.index, named)
        return
    recorded = run.header.meta.get("target")
    if not isinstance(recorded, str) or not recorded:

        def typed(answer: str | None) -> None:
            if answer and answer.strip():
                app.fork_target = answer.strip()  # named by the user: kept for the next `f`
                _ask_changes(app, run.path, step.index, app.fork_target)

        app.push_screen(
            PromptScreen(
                "No TARGET recorded; fork with module:attr or file.py:attr",
                placeholder="my_agent.py:agent",
            ),
            typed,
        )
        return
    from inspector.target import locate_target
    from inspector.trust import consent_for, read_trust_list, recorded_target_error

    try:
        source = locate_target(recorded)
        trust = read_trust_list()
        if trust.note:
            app.notify(visible(trust.note), severity="warning", markup=False)
        consent = consent_for(run.run_id, source, trust=trust)
    except InspectorError as exc:
        error = recorded_target_error(exc, run.path) if isinstance(exc, TargetError) else exc
        app.notify(str(error), severity="error", markup=False, timeout=10)
        return
    if consent is not None:
        _ask_changes(app, run.path, step.index, None)
        return

    def confirmed(yes: bool | None) -> None:
        if yes:
            _ask_changes(app, run.path, step.index, recorded)
        else:
            app.notify("not forked: the run's TARGET was not run", markup=False)

    app.push_screen(ConfirmTargetScreen(run.path.name, source), confirmed)


def _ask_changes(app: Any, run_path: Path, index: int, target: str | None) -> None:
    """Ask what to change at step `index`, then fork with `target` (None: the run's own, consented)."""

    def done(answer: str | None) -> None:
        if answer is None:
            return
        sets, model_answer = parse_fork_answer(answer)
        output = fork_path(run_path, index)
        app.notify(f"forking at step {index} into {output.name}…", markup=False)

        def work() -> None:
            from inspector.debug.fork import parse_model_answer, parse_sets, plan_fork, run_fork

            try:
                answer_message = None if model_answer is None else parse_model_answer(model_answer)
                plan = plan_fork(
                    run_path, index, target=target, sets=parse_sets(sets), model_answer=answer_message
                )
                run_fork(plan, output)
            except (InspectorError, OSError) as exc:  # OSError: the run's folder, the disk (see fork_note)
                app.call_from_thread(app.notify, fork_note(exc), severity="error", markup=False, timeout=10)
                return
            app.call_from_thread(app.push_screen, ForkScreen(run_path, output, index))

        app.run_worker(work, thread=True, group="fork", exclusive=True)

    app.push_screen(
        PromptScreen(
            f'Fork at step {index}: a model answer ({{"role": "assistant", ...}}) '
            "or PATH=JSON edits (; between)"
        ),
        done,
    )
